//! Hand-written wire code that the generated bindings use: the envelope's
//! two-stage decoder, the variant for a name this version does not know, the
//! error a server answers with, and small types the generator refers to
//! (`SecretString`, `ProtocolVersion`, the method and event table rows).
//!
//! Generated files hold data (types, tables, variant lists) and call in here;
//! every release's frozen bindings (`contracts/released/<v>/rust/`) compile
//! against this module too, so what they use of it stays put.
//!
//! # Two stages
//!
//! A body is read first for its head — `v`, `kind`, `id`, and the body's
//! `method` or `name` — with everything else kept as raw JSON text, and only
//! then is the body's content decoded into the type its name picks. So a
//! failure always knows what could be read: a server answers with the
//! caller's id whenever there was one, and [`DecodeError::rpc_code`] says
//! which JSON-RPC error that answer carries. A name this version does not
//! know decodes to the [`Unknown`] variant, keeping the name and the raw
//! content; a name it knows whose content does not fit is an error, never
//! [`Unknown`].

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// The envelope format's version every envelope carries as `v`, read from
/// `envelope/ProtocolVersion.json` by the generator.
pub use crate::generated::tables::PROTOCOL_VERSION;
pub use crate::shown::{printable, unprintable};

/// The four kinds of envelope, told apart by `kind`. A test checks these
/// names against `envelope/Envelope.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnvelopeKind {
    /// `call`: a request that expects an answer.
    Call,
    /// `reply`: a call's result.
    Reply,
    /// `error`: a call's failure, or an answer to what could not be read.
    Error,
    /// `event`: news from the daemon, never answered.
    Event,
}

impl EnvelopeKind {
    /// Every kind, in the schema's order.
    pub const ALL: [EnvelopeKind; 4] = [Self::Call, Self::Reply, Self::Error, Self::Event];

    /// The wire spelling of `kind`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::Reply => "reply",
            Self::Error => "error",
            Self::Event => "event",
        }
    }

    /// The kind's name after its indefinite article, as a sentence says
    /// it: `a call`, `an error`.
    pub const fn with_article(self) -> &'static str {
        match self {
            Self::Call => "a call",
            Self::Reply => "a reply",
            Self::Error => "an error",
            Self::Event => "an event",
        }
    }

    /// The kind spelled `name` on the wire.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

impl fmt::Display for EnvelopeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which tagged body a type is: it fixes the names of the tag and the content.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyPart {
    /// `{"method": …, "params": …}`
    Call,
    /// `{"method": …, "result": …}`
    Reply,
    /// `{"name": …, "params": …}`
    Event,
}

impl BodyPart {
    pub const fn tag(self) -> &'static str {
        match self {
            Self::Call | Self::Reply => "method",
            Self::Event => "name",
        }
    }

    pub const fn content(self) -> &'static str {
        match self {
            Self::Call | Self::Event => "params",
            Self::Reply => "result",
        }
    }
}

/// A call, reply or event body whose name this version of the contract does
/// not know: a newer peer's method or event. It keeps the name and the
/// content as they arrived, and writes them back unchanged. Only the decoder
/// makes one, and only for a name the bindings have no variant for, so a
/// match on a known method's variant never sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Unknown {
    name: String,
    content: Value,
}

impl Unknown {
    /// The method or event name as it arrived.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The params or result as they arrived.
    pub fn content(&self) -> &Value {
        &self.content
    }
}

/// A tagged body (`CallBody`, `ReplyBody`, `EventBody`). The generated
/// bindings implement it with their variant lists; decoding and encoding
/// live here, once.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub trait Tagged: Sized {
    const PART: BodyPart;

    /// Decodes the content of the variant called `name`; `None` when no
    /// variant has that name.
    fn decode_known(name: &str, content: &str) -> Option<Result<Self, serde_json::Error>>;

    /// [`Tagged::decode_known`] from a decoder's [`Content`], which can be
    /// read from the tokens the policy scan recorded. Bindings generated
    /// before it existed read the content's text.
    fn decode_content(name: &str, content: Content<'_>) -> Option<Result<Self, serde_json::Error>> {
        Self::decode_known(name, content.text())
    }

    fn from_unknown(unknown: Unknown) -> Self;

    /// The wire name of the method or event.
    fn wire_name(&self) -> &str;

    /// The unknown-name variant's contents, when this is it.
    fn unknown(&self) -> Option<&Unknown>;

    fn serialize_content<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// An `Envelope` as the generated bindings write it; the decoder builds one
/// through these constructors.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub trait EnvelopeParts: Sized {
    type Call: Tagged;
    type Reply: Tagged;
    type Error: DeserializeOwned;
    type Event: Tagged;

    fn call(id: u64, body: Self::Call) -> Self;
    fn reply(id: u64, body: Self::Reply) -> Self;
    fn error(id: Option<u64>, body: Self::Error) -> Self;
    fn event(body: Self::Event) -> Self;
    fn kind(&self) -> EnvelopeKind;

    /// The body's unknown-name contents, when the body is a method or event
    /// these bindings do not know (a reader skips it).
    fn unknown(&self) -> Option<&Unknown>;
}

/// Why a frame's body is not an envelope this reader can use, with what
/// could be read of it.
#[derive(Debug)]
pub struct DecodeError {
    /// The envelope's `kind`, when it was readable.
    pub kind: Option<EnvelopeKind>,
    /// The envelope's `id`, when it was readable.
    pub id: Option<u64>,
    /// The JSON pointer of the place that is wrong, as the C++ and
    /// TypeScript readers' `pointer()` names it: `""` for text that is not
    /// JSON or not an object, `/v`, `/kind`, `/id`, `/body`, `/body/method`,
    /// and in a body's content the member or item that does not fit, or the
    /// required member that is missing (`/body/params/spec/segments`).
    pub pointer: String,
    /// What was wrong.
    pub problem: Problem,
}

// By hand rather than with thiserror: the message is the place and the
// problem's, and the source the problem's, so that neither is said twice.
impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            self.problem.fmt(f)
        } else {
            write!(f, "at {}: {}", shown_pointer(&self.pointer), self.problem)
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.problem.source()
    }
}

/// What was wrong with an envelope.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// The body is not JSON as this wire takes it (`crate::text`).
    #[error("the body is not JSON as the wire takes it")]
    NotJson(#[source] crate::text::TextError),
    /// `v` is a number other than [`PROTOCOL_VERSION`]; decided before anything else.
    #[error("the envelope is protocol version {0}, and this reader speaks {PROTOCOL_VERSION}")]
    BadVersion(u64),
    /// JSON, but not shaped as an envelope.
    #[error("not an envelope: {0}")]
    NotEnvelope(String),
    /// A known method or event, or an error body, whose content does not fit
    /// its schema; the error's `pointer` says where.
    #[error("{what} do not fit the contract")]
    BadContent {
        /// `the params of tool.invoke`, `the result of download.add`, …
        what: String,
        /// serde's account of the misfit, without the string values it
        /// quotes (see `misfit`).
        #[source]
        source: serde_json::Error,
    },
}

impl DecodeError {
    /// The one JSON-RPC code a server answers this failure with.
    pub fn rpc_code(&self) -> crate::RpcErrorCode {
        match self.problem {
            Problem::NotJson(_) => crate::RpcErrorCode::ParseError,
            Problem::BadVersion(_) | Problem::NotEnvelope(_) => crate::RpcErrorCode::InvalidRequest,
            Problem::BadContent { .. } => crate::RpcErrorCode::InvalidParams,
        }
    }

    /// The error envelope a server answers with, carrying the id when it was
    /// readable; `None` when the envelope was a reply, an error or an event,
    /// which are never answered.
    pub fn answer(&self) -> Option<crate::Envelope> {
        match self.kind {
            None | Some(EnvelopeKind::Call) => Some(crate::Envelope::Error {
                body: crate::RpcError {
                    code: self.rpc_code(),
                    message: sentence(self),
                    data: None,
                },
                id: self.id,
                v: ProtocolVersion,
            }),
            Some(_) => None,
        }
    }
}

/// An error and its causes, as one line: control characters that came from
/// the input are escaped, so the line says only what it says.
pub fn sentence(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(next) = cause {
        text.push_str(": ");
        text.push_str(&next.to_string());
        cause = next.source();
    }
    let text = match printable(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(escaped) => escaped,
    };
    match shortened(&text, SENTENCE_CHARS) {
        Cow::Borrowed(_) => text,
        Cow::Owned(short) => short,
    }
}

/// The most characters [`sentence`] writes. An error may quote what it
/// read (a method name, an enum's unknown spelling, a member named twice),
/// and an answer built from it must still fit a frame, however large the
/// call was.
pub const SENTENCE_CHARS: usize = 1024;

/// `text` cut to about `max` characters when longer: its start and its end
/// (where serde says the line and column) kept, and how much was left out
/// said between them.
pub fn shortened(text: &str, max: usize) -> Cow<'_, str> {
    let count = text.chars().count();
    if count <= max {
        return Cow::Borrowed(text);
    }
    let head = max / 2;
    let tail = max / 4;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count.saturating_sub(tail)).collect();
    Cow::Owned(format!(
        "{start} … ({} characters left out) … {end}",
        count.saturating_sub(head + tail)
    ))
}

/// The most characters of a method name an answer quotes: a name may be as
/// long as a frame.
const METHOD_CHARS: usize = 200;

/// The most characters of an enum's unknown spelling a misfit quotes, as
/// the C++ and TypeScript readers cut what they quote.
const SPELLING_CHARS: usize = 200;

/// serde's account of a misfit, as every reader of this contract tells it:
/// a string value is never quoted (serde quotes a string of the wrong type
/// whole, and a credential in the wrong place, such as a `params` sent as
/// the text of an object, would be printed wherever the error is), an
/// enum's unknown spelling is cut, and control and formatting characters
/// are escaped ([`printable`]). serde writes a string value as `string`
/// and the value as Rust's `{:?}` writes it, and an unknown spelling
/// between backticks; a test holds each to this. serde_json's line and
/// column, which count within the content and only when it was read from
/// its text, are left to the pointer.
fn misfit(source: &serde_json::Error) -> serde_json::Error {
    let mut text = source.to_string();
    let position = format!(" at line {} column {}", source.line(), source.column());
    if source.line() > 0 && text.ends_with(&position) {
        text.truncate(text.len() - position.len());
    }
    let mut told = String::with_capacity(text.len().min(4 * SPELLING_CHARS));
    let mut rest = text.as_str();
    while let Some((before, after)) = rest.split_once("string \"") {
        told.push_str(before);
        told.push_str("a string");
        rest = past_debug_string(after);
    }
    match rest.split_once("unknown variant `") {
        Some((before, after)) => {
            let (spelling, expected) = after.rsplit_once("`, expected").unwrap_or((after, ""));
            told.push_str(before);
            told.push_str("unknown variant `");
            told.push_str(&shortened(spelling, SPELLING_CHARS));
            if !expected.is_empty() {
                told.push_str("`, expected");
                told.push_str(expected);
            }
        }
        None => told.push_str(rest),
    }
    serde_json::Error::custom(printable(&told))
}

/// What follows the string Rust's `{:?}` wrote from just past its opening
/// quote: a backslash escapes the character after it, so the first quote
/// not escaped closes it.
fn past_debug_string(text: &str) -> &str {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return text.get(at + 1..).unwrap_or_default(),
            _ => {}
        }
    }
    ""
}

/// The most characters of a pointer a message shows (its first 512 and
/// last 256 past that), as the C++ and TypeScript readers show one.
const POINTER_CHARS: usize = 1024;

/// A pointer as a message shows it: cut, and escaped (it may hold member
/// names of a map, which come from the input).
fn shown_pointer(pointer: &str) -> Cow<'_, str> {
    match shortened(pointer, POINTER_CHARS) {
        Cow::Borrowed(short) => printable(short),
        Cow::Owned(short) => Cow::Owned(printable(&short).into_owned()),
    }
}

/// A JSON pointer (RFC 6901) from the path serde_path_to_error kept (it
/// stops where the path has a step it could not name), to the missing
/// member itself when a member is missing, as the C++ and TypeScript
/// readers point.
fn pointer_of<E: std::error::Error>(err: &serde_path_to_error::Error<E>) -> String {
    let mut out = String::new();
    let mut push = |token: &str| {
        out.push('/');
        out.push_str(&token.replace('~', "~0").replace('/', "~1"));
    };
    for segment in err.path().iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => push(&index.to_string()),
            serde_path_to_error::Segment::Map { key } => push(key),
            serde_path_to_error::Segment::Enum { variant } => push(variant),
            serde_path_to_error::Segment::Unknown => return out,
        }
    }
    // serde's own `de::Error::missing_field` says it so, naming a field of
    // the derived type (never text from the input).
    let message = err.inner().to_string();
    if let Some(name) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name)
    {
        push(name);
    }
    out
}

/// The answer to a call of a method this server does not serve (whether or
/// not the contract knows it): `method_not_found` with the call's id.
pub fn method_not_found(id: u64, method: &str, served: &[&str]) -> crate::Envelope {
    crate::Envelope::Error {
        body: crate::RpcError {
            code: crate::RpcErrorCode::MethodNotFound,
            message: format!(
                "this server does not serve {:?}; it serves {}",
                shortened(method, METHOD_CHARS),
                served.join(", ")
            ),
            data: None,
        },
        id: Some(id),
        v: ProtocolVersion,
    }
}

/// Decodes an envelope from one frame's body, in two stages: the text is
/// checked against the JSON text policy, which on the way notes where the
/// head stands (`v`, `kind`, `id`, the body's name and content); then the
/// body's content is decoded into the type its name picks.
#[inline]
pub fn decode<E: EnvelopeParts>(bytes: &[u8]) -> Result<E, DecodeError> {
    with_tape(|tape| decode_in(bytes, Some(tape)))
}

/// [`decode`] with the content read from its text by serde_json rather
/// than from the scan's tokens: the reference the tests hold the token
/// reader to.
#[doc(hidden)] // A test's reference, not an API.
pub fn decode_from_text<E: EnvelopeParts>(bytes: &[u8]) -> Result<E, DecodeError> {
    decode_in(bytes, None)
}

/// Runs `decode` with this thread's token tape: a reader decodes message
/// after message, and the tape is kept from one to the next rather than
/// allocated for each (one grown by a large text is not kept).
#[inline(always)] // Its result is an envelope: one move fewer of a few hundred bytes.
fn with_tape<T>(decode: impl FnOnce(&mut Vec<crate::text::Token>) -> T) -> T {
    /// The most tokens a kept tape holds.
    const KEPT: usize = 4096;
    thread_local! {
        static TAPE: std::cell::Cell<Vec<crate::text::Token>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut tape = TAPE.with(std::cell::Cell::take);
    let result = decode(&mut tape);
    if tape.capacity() <= KEPT {
        tape.clear();
        TAPE.with(|kept| kept.set(tape));
    }
    result
}

/// The decoder, reading the content from the tokens recorded on `tape`, or
/// from the text when there is none.
fn decode_in<E: EnvelopeParts>(
    bytes: &[u8],
    mut tape: Option<&mut Vec<crate::text::Token>>,
) -> Result<E, DecodeError> {
    let fail = |kind, id, pointer: &str, problem| DecodeError {
        kind,
        id,
        pointer: pointer.to_string(),
        problem,
    };
    let layout = crate::text::Layout::Envelope;
    let (text, head) = match tape.as_deref_mut() {
        Some(tape) => crate::text::scan_recording(bytes, layout, tape),
        None => crate::text::scan(bytes, layout),
    }
    .map_err(|err| fail(None, None, "", Problem::NotJson(err)))?;
    let tape: &[crate::text::Token] = tape.map_or(&[], |tape| tape.as_slice());
    if !head.object {
        return Err(fail(
            None,
            None,
            "",
            Problem::NotEnvelope("an envelope is a JSON object".into()),
        ));
    }
    let id = head.id.and_then(|span| integer(span.of(text)));
    let kind_name = head.kind.and_then(|span| string(span.of(text)));
    let kind = kind_name.as_deref().and_then(EnvelopeKind::from_name);
    match head.v.map(|span| integer(span.of(text))) {
        Some(Some(version)) if version == PROTOCOL_VERSION => {}
        Some(Some(version)) => return Err(fail(kind, id, "/v", Problem::BadVersion(version))),
        Some(None) => {
            let why = "`v` is not an integer written as one (no fraction, no exponent, not -0)";
            return Err(fail(kind, id, "/v", Problem::NotEnvelope(why.into())));
        }
        None => {
            let why = "`v`, the protocol version, is missing";
            return Err(fail(kind, id, "/v", Problem::NotEnvelope(why.into())));
        }
    }
    let Some(kind) = kind else {
        let why = match kind_name {
            Some(name) => format!(
                "`kind` is {:?}, not one of call, reply, error, event",
                shortened(&name, METHOD_CHARS)
            ),
            None => "`kind` is missing or not a string".into(),
        };
        return Err(fail(None, id, "/kind", Problem::NotEnvelope(why)));
    };
    let not_envelope =
        |pointer: &str, why: String| fail(Some(kind), id, pointer, Problem::NotEnvelope(why));
    let Some(body) = head.body else {
        return Err(not_envelope(
            "/body",
            format!("{} envelope has a `body`", kind.with_article()),
        ));
    };
    let required_id = || match (head.id, id) {
        (_, Some(id)) => Ok(id),
        (None, None) => Err(not_envelope(
            "/id",
            format!("{} envelope has an `id`", kind.with_article()),
        )),
        (Some(_), None) => Err(not_envelope(
            "/id",
            "`id` is not an integer from 0 to 2^53 - 1".into(),
        )),
    };
    let content_error =
        |(pointer, problem): (String, Problem)| fail(Some(kind), id, &pointer, problem);
    let parts = BodyParts {
        text,
        tokens: tape,
        object: head.body_object,
        method: head.method,
        name: head.name,
        params: head.params,
        result: head.result,
    };
    match kind {
        EnvelopeKind::Call => {
            let id = required_id()?;
            Ok(E::call(
                id,
                tagged::<E::Call>(&parts, "/body").map_err(content_error)?,
            ))
        }
        EnvelopeKind::Reply => {
            let id = required_id()?;
            Ok(E::reply(
                id,
                tagged::<E::Reply>(&parts, "/body").map_err(content_error)?,
            ))
        }
        EnvelopeKind::Error => {
            // An error answers something that may have had no readable id,
            // and says so with `null`: the member is there all the same.
            match head.id {
                None => {
                    return Err(not_envelope(
                        "/id",
                        "an error envelope has an `id` (null when what it answers had none)".into(),
                    ))
                }
                Some(span) if span.of(text) != "null" && id.is_none() => {
                    return Err(not_envelope(
                        "/id",
                        "`id` is neither null nor an integer from 0 to 2^53 - 1".into(),
                    ))
                }
                Some(_) => {}
            }
            let misfit_at = Cell::new(None);
            let body = Content::in_scan(text, body, tape)
                .noting_misfits(&misfit_at)
                .read()
                .map_err(|source| {
                    content_error((
                        format!("/body{}", misfit_at.take().unwrap_or_default()),
                        Problem::BadContent {
                            what: "the body of an error envelope".into(),
                            source: misfit(&source),
                        },
                    ))
                })?;
            Ok(E::error(id, body))
        }
        EnvelopeKind::Event => Ok(E::event(
            tagged::<E::Event>(&parts, "/body").map_err(content_error)?,
        )),
    }
}

/// A non-negative integer written as one: digits only (the text policy has
/// kept it within 2^53 − 1; `-0` is no integer here, as for serde).
fn integer(text: &str) -> Option<u64> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// A JSON string's value.
fn string(text: &str) -> Option<Cow<'_, str>> {
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(plain) if !plain.contains('\\') => Some(Cow::Borrowed(plain)),
        Some(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
        None => None,
    }
}

/// A body's content (or an error envelope's body) as the decoder found it:
/// its text, and the tokens the policy scan recorded for it when it did.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
#[derive(Clone, Copy)]
pub struct Content<'t> {
    text: &'t str,
    scanned: Option<Scanned<'t>>,
    /// Where a failed [`Content::read`] notes the pointer of the misfit,
    /// below the content, when the decoder asks.
    misfit_at: Option<&'t Cell<Option<String>>>,
}

/// A value's place among the tokens the policy scan recorded of a text.
#[derive(Clone, Copy)]
struct Scanned<'t> {
    /// The whole scanned text (tokens say where they stand in it).
    whole: &'t str,
    tokens: &'t [crate::text::Token],
    /// The index of the value's token.
    first: usize,
}

impl<'t> Content<'t> {
    /// Content known only by its text.
    pub fn of_text(text: &'t str) -> Self {
        Content {
            text,
            scanned: None,
            misfit_at: None,
        }
    }

    /// The value at `span` of `whole`, a text the policy scan recorded as `tokens`.
    fn in_scan(whole: &'t str, span: crate::text::Span, tokens: &'t [crate::text::Token]) -> Self {
        Content {
            text: span.of(whole),
            scanned: crate::tape::token_at(tokens, span.start).map(|first| Scanned {
                whole,
                tokens,
                first,
            }),
            misfit_at: None,
        }
    }

    /// The same content, noting in `at` where a failed read failed.
    fn noting_misfits(self, at: &'t Cell<Option<String>>) -> Self {
        Content {
            misfit_at: Some(at),
            ..self
        }
    }

    /// The content's JSON text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The content as a `T`: from the recorded tokens when there are any,
    /// else from the text; either way as serde_json reads the text.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let read = match self.scanned {
            Some(at) => crate::tape::from_tokens(at.whole, at.tokens, at.first),
            None => crate::strict::from_str(self.text),
        };
        if read.is_err() {
            self.note_misfit::<T>();
        }
        read
    }

    /// Reads again, keeping the path, where a read failed.
    #[cold]
    fn note_misfit<T: DeserializeOwned>(&self) {
        let Some(at) = self.misfit_at else { return };
        let path = match self.scanned {
            Some(scanned) => {
                crate::tape::misfit_path::<T>(scanned.whole, scanned.tokens, scanned.first)
            }
            None => crate::strict::misfit_path::<T>(self.text),
        };
        at.set(Some(path.as_ref().map(pointer_of).unwrap_or_default()));
    }
}

/// Where a tagged body's name and content stand in the text.
struct BodyParts<'t> {
    text: &'t str,
    /// The text's tokens, as the policy scan recorded them.
    tokens: &'t [crate::text::Token],
    object: bool,
    method: Option<crate::text::Span>,
    name: Option<crate::text::Span>,
    params: Option<crate::text::Span>,
    result: Option<crate::text::Span>,
}

/// Decodes a tagged body from its text (checked against the text policy);
/// pointers count from the body.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn decode_body<T: Tagged>(text: &str) -> Result<T, DecodeError> {
    let fail = |(pointer, problem): (String, Problem)| DecodeError {
        kind: None,
        id: None,
        pointer,
        problem,
    };
    with_tape(|tape| {
        let (text, head) =
            crate::text::scan_recording(text.as_bytes(), crate::text::Layout::Body, tape)
                .map_err(|err| fail((String::new(), Problem::NotJson(err))))?;
        let parts = BodyParts {
            text,
            tokens: tape,
            object: head.object,
            method: head.method,
            name: head.name,
            params: head.params,
            result: head.result,
        };
        tagged::<T>(&parts, "").map_err(fail)
    })
}

/// A tagged body: its name first, then the content the name picks. A
/// failure says where, below `at` (the body's own pointer).
fn tagged<T: Tagged>(parts: &BodyParts<'_>, at: &str) -> Result<T, (String, Problem)> {
    let part = T::PART;
    if !parts.object {
        return Err((
            at.to_string(),
            Problem::NotEnvelope(format!(
                "a body is an object with `{}` and `{}`",
                part.tag(),
                part.content()
            )),
        ));
    }
    let (name, content) = match part {
        BodyPart::Call => (parts.method, parts.params),
        BodyPart::Reply => (parts.method, parts.result),
        BodyPart::Event => (parts.name, parts.params),
    };
    let Some(name) = name.and_then(|span| string(span.of(parts.text))) else {
        return Err((
            format!("{at}/{}", part.tag()),
            Problem::NotEnvelope(format!("the body has no `{}` string", part.tag())),
        ));
    };
    // The name may be one this reader does not know, as long as a frame and
    // holding a line break: quoted cut and escaped, when a failure quotes it.
    let shown = || printable(&shortened(&name, METHOD_CHARS)).into_owned();
    let misfit_at = Cell::new(None);
    let content = content
        .map(|span| Content::in_scan(parts.text, span, parts.tokens).noting_misfits(&misfit_at));
    let Some(content) = content else {
        return Err((
            format!("{at}/{}", part.content()),
            Problem::NotEnvelope(format!(
                "the body of {} has no `{}`",
                shown(),
                part.content()
            )),
        ));
    };
    let bad = |below: String, source: serde_json::Error| {
        (
            format!("{at}/{}{below}", part.content()),
            Problem::BadContent {
                what: format!("the {} of {}", part.content(), shown()),
                source: misfit(&source),
            },
        )
    };
    match T::decode_content(&name, content) {
        Some(Ok(body)) => Ok(body),
        Some(Err(source)) => {
            let below = misfit_at
                .take()
                .or_else(|| TEXT_MISFIT.with(Cell::take))
                .unwrap_or_default();
            Err(bad(below, source))
        }
        None => {
            let content = serde_json::from_str(content.text())
                .map_err(|source| bad(String::new(), source))?;
            Ok(T::from_unknown(Unknown {
                name: name.into_owned(),
                content,
            }))
        }
    }
}

/// The content of a known variant, for the generated `decode_known`.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn content<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let read = crate::strict::from_str(text);
    if read.is_err() {
        note_text_misfit::<T>(text);
    }
    read
}

thread_local! {
    /// The pointer of the misfit [`content`] last found, below the content.
    /// Bindings frozen before [`Content`] existed read through `content`,
    /// whose signature is theirs; this is how their failures reach
    /// [`tagged`] with a place. Set just before the failure it describes,
    /// on the same thread, and taken by it.
    static TEXT_MISFIT: Cell<Option<String>> = const { Cell::new(None) };
}

#[cold]
fn note_text_misfit<T: DeserializeOwned>(text: &str) {
    let pointer = crate::strict::misfit_path::<T>(text)
        .as_ref()
        .map(pointer_of);
    TEXT_MISFIT.with(|cell| cell.set(pointer));
}

/// `Deserialize` for a generated `Envelope`: the raw text of the value, then
/// the decoder `FrameReader` uses ([`decode`]), from any serde_json source
/// (a `Value` is written out once to be read as text).
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn deserialize_envelope<'de, E: EnvelopeParts, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<E, D::Error> {
    let raw = RawText::deserialize(deserializer)?;
    decode(raw.0.as_bytes()).map_err(|err| D::Error::custom(sentence(&err)))
}

/// The raw text of the next JSON value: borrowed from the input where
/// serde_json can lend it (`from_str`, `from_slice`), copied where it cannot.
/// `Box<RawValue>` always copies, and `&RawValue` refuses inputs it cannot
/// borrow from; this asks serde_json the way both of them do (the newtype
/// name below is serde_json's own for "the raw text of the next value"),
/// and takes the text whichever way it comes. A test reads an envelope
/// through every serde_json entry point.
struct RawText<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for RawText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const RAW_VALUE: &str = "$serde_json::private::RawValue";
        struct Outer;
        impl<'de> serde::de::Visitor<'de> for Outer {
            type Value = RawText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawText<'de>, A::Error> {
                map.next_key::<serde::de::IgnoredAny>()?
                    .ok_or_else(|| A::Error::custom("a JSON value"))?;
                map.next_value_seed(Inner)
            }
        }
        struct Inner;
        impl<'de> serde::de::DeserializeSeed<'de> for Inner {
            type Value = RawText<'de>;
            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<RawText<'de>, D::Error> {
                deserializer.deserialize_str(self)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Inner {
            type Value = RawText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the raw text of a JSON value")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<RawText<'de>, E> {
                Ok(RawText(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<RawText<'de>, E> {
                Ok(RawText(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<RawText<'de>, E> {
                Ok(RawText(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_newtype_struct(RAW_VALUE, Outer)
    }
}

/// `Deserialize` for a generated tagged body.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn deserialize_body<'de, T: Tagged, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let raw = Box::<RawValue>::deserialize(deserializer)?;
    decode_body(raw.get()).map_err(|err| D::Error::custom(sentence(&err)))
}

/// `Serialize` for a generated tagged body: the tag, then the content.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn serialize_body<T: Tagged, S: Serializer>(
    body: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    struct Content<'a, T>(&'a T);
    impl<T: Tagged> Serialize for Content<'_, T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.0.serialize_content(serializer)
        }
    }
    let mut out = serializer.serialize_struct("Body", 2)?;
    out.serialize_field(T::PART.tag(), body.wire_name())?;
    out.serialize_field(T::PART.content(), &Content(body))?;
    out.end()
}

/// An integer enum with names (`RpcErrorCode`); the generated bindings give
/// the table, serde and `Display` live here.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub trait CodeEnum: Copy + 'static {
    const ALL: &'static [Self];
    const TYPE_NAME: &'static str;
    fn code(self) -> i64;
    fn name(self) -> &'static str;

    fn from_code(code: i64) -> Option<Self> {
        Self::ALL.iter().copied().find(|known| known.code() == code)
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|known| known.name() == name)
    }
}

#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn serialize_code<C: CodeEnum, S: Serializer>(
    code: C,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_i64(code.code())
}

#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn deserialize_code<'de, C: CodeEnum, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<C, D::Error> {
    let code = i64::deserialize(deserializer)?;
    C::from_code(code).ok_or_else(|| D::Error::custom(format!("{code} is not an {}", C::TYPE_NAME)))
}

#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn parse_code<C: CodeEnum>(name: &str) -> Result<C, String> {
    C::from_name(name).ok_or_else(|| format!("{name:?} is not an {} name", C::TYPE_NAME))
}

/// The envelope format's version. It holds one value, so it is a unit: it
/// writes [`PROTOCOL_VERSION`] and refuses to read anything else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProtocolVersion;

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(PROTOCOL_VERSION)
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = u64::deserialize(deserializer)?;
        if version == PROTOCOL_VERSION {
            Ok(ProtocolVersion)
        } else {
            Err(D::Error::custom(format!(
                "protocol version {version} is not {PROTOCOL_VERSION}"
            )))
        }
    }
}

/// A credential (a field marked `x-secret`). It reads and writes as the plain
/// string on the wire, and `Debug` never prints it, so a logged request does
/// not leak it.
#[derive(Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct SecretString(String);

impl SecretString {
    /// Holds `secret`.
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretString(<redacted>)")
    }
}

impl From<String> for SecretString {
    fn from(secret: String) -> Self {
        Self(secret)
    }
}

/// Reads a field that is present, as a value or `null`: `Some(value)` or
/// `Some(None)`. An absent field never gets here (it takes the field's
/// default, `None`), which is how absent and `null` stay apart.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn present_or_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Reads an optional field that is present as `Some(value)`; `null` is
/// refused as the value's type refuses it (serde's own `Option` reads it as
/// `None`, which the schema does not allow). An absent field takes the
/// default, `None`.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Reads a free-form field that is present, `null` included, as
/// `Some(value)`; an absent field takes the default, `None`.
#[doc(hidden)] // The generated bindings' plumbing (theirs and every release's), not an API.
pub fn present_value<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// What the schemas say about one method, beyond its shapes. Generic over
/// the `Transport` and `RpcErrorCode` of the bindings that hold the table, so
/// every release's frozen bindings can hold one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodInfo<T: 'static = crate::Transport, C: 'static = crate::RpcErrorCode> {
    /// The wire name (`noun.verb`).
    pub name: &'static str,
    /// The method's description.
    pub summary: &'static str,
    /// Where it may be carried (`x-transports`).
    pub transports: &'static [T],
    /// The call errors it may answer with (`x-errors`).
    pub errors: &'static [C],
    /// The contract version that introduced it (`x-since`).
    pub since: &'static str,
    /// Whether it starts processes (`x-spawnsProcess`).
    pub spawns_process: bool,
    /// The Rust type of its params.
    pub params_type: &'static str,
    /// The Rust type of its result.
    pub result_type: &'static str,
}

/// What the schemas say about one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventInfo {
    /// The wire name (`event.<noun>.<what>`).
    pub name: &'static str,
    /// The event's description.
    pub summary: &'static str,
    /// The contract version that introduced it (`x-since`).
    pub since: &'static str,
}
