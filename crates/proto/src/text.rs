//! The JSON text policy: what every reader of this wire takes as JSON.
//!
//! The Rust, C++ and TypeScript bindings and `vdm-conform` apply the same
//! rules to a message's bytes before anything is built from them, so the
//! four never read one text four ways (`docs/wire.md`, "JSON text"):
//!
//! - UTF-8, without a byte-order mark;
//! - RFC 8259 JSON, one value, whitespace around it only (so no NUL, no
//!   raw control character, nothing after the value);
//! - nested at most [`MAX_DEPTH`] arrays and objects deep;
//! - no object names a member twice (compared after unescaping);
//! - no `\u` escape that leaves half a surrogate pair;
//! - no integer literal beyond ±(2^53 − 1), and no number a double cannot
//!   hold at all (`1e400`): decided on the number's text, never on a
//!   rounded double.
//!
//! [`check`] walks the bytes once, without recursion and without building a
//! value; on its way it notes where the members an envelope's decoder needs
//! first stand ([`Head`]), so the decoder does not read the text again to
//! find them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

// Slices of the text are taken as `get(range).unwrap_or_default()`, not by
// indexing, which would panic: every such range is one the scan has already
// walked, so the default (an empty slice) is never taken. Where a slice is
// then read as UTF-8 or as a number, a failure refuses the text.

/// How deep arrays and objects may nest: serde_json's default recursion
/// limit (128) reads no deeper than this, so every reader holds what the
/// policy lets through.
pub const MAX_DEPTH: usize = 127;

/// The largest integer a JSON reader in any language keeps exactly.
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// Why a text is not JSON this wire accepts, and where (a byte offset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// The byte of the text where the rule broke.
    pub offset: usize,
    /// The rule it broke.
    pub problem: TextProblem,
}

/// The rule of the JSON text policy a text breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextProblem {
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// The text starts with a byte-order mark.
    ByteOrderMark,
    /// Not JSON: what was expected.
    Syntax(&'static str),
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// An object names this member twice (the name as JSON, escaped).
    DuplicateKey(String),
    /// A `\u` escape leaves half of a surrogate pair.
    LoneSurrogate,
    /// An integer literal beyond ±(2^53 − 1).
    UnsafeInteger,
    /// A number no double holds (it would read as infinity).
    NumberOutOfRange,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset;
        match &self.problem {
            TextProblem::NotUtf8 => write!(f, "byte {at} is not UTF-8"),
            TextProblem::ByteOrderMark => write!(f, "the text starts with a byte-order mark"),
            TextProblem::Syntax(expected) => write!(f, "not JSON at byte {at}: expected {expected}"),
            TextProblem::TooDeep => {
                write!(f, "arrays and objects nest more than {MAX_DEPTH} deep at byte {at}")
            }
            TextProblem::DuplicateKey(name) => {
                write!(f, "the member {name} appears twice in one object (byte {at})")
            }
            TextProblem::LoneSurrogate => {
                write!(f, "a \\u escape at byte {at} leaves half a surrogate pair")
            }
            TextProblem::UnsafeInteger => write!(
                f,
                "the integer at byte {at} is beyond ±{MAX_SAFE_INTEGER}, which not every reader holds exactly"
            ),
            TextProblem::NumberOutOfRange => {
                write!(f, "the number at byte {at} is beyond what a double holds")
            }
        }
    }
}

impl std::error::Error for TextError {}

/// Where an envelope's head stands in its text: the root object's `v`,
/// `kind`, `id` and `body`, and the body's `method`, `name`, `params` and
/// `result`, as byte ranges of their values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Head {
    /// The root's `v`.
    pub v: Option<Span>,
    /// The root's `kind`.
    pub kind: Option<Span>,
    /// The root's `id`.
    pub id: Option<Span>,
    /// The root's `body`.
    pub body: Option<Span>,
    /// The body's `method` (calls and replies).
    pub method: Option<Span>,
    /// The body's `name` (events).
    pub name: Option<Span>,
    /// The body's `params` (calls and events).
    pub params: Option<Span>,
    /// The body's `result` (replies).
    pub result: Option<Span>,
    /// Whether the root is an object (the spans mean nothing otherwise).
    pub object: bool,
    /// Whether `body` is an object.
    pub body_object: bool,
    /// Whether any number is written with a fraction or an exponent (a
    /// reader that must tell `1.0` from `1` at an integer's place looks
    /// further only then).
    pub fractions: bool,
}

/// A byte range of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// The byte after the last.
    pub end: usize,
}

impl Span {
    /// The text of this span.
    pub fn of<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.start..self.end).unwrap_or_default()
    }
}

/// Which members [`scan`] notes, and where the message's root stands: an
/// envelope's (`v`, `kind`, `id`, `body` and the body's tag and content), a
/// bare body's, or none for a message one level down in a container (a
/// trace record's `msg`, an element of an array of messages), whose depth
/// counts from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A whole envelope: its head and its body's head are noted.
    Envelope,
    /// A body alone: its tag and content are noted.
    Body,
    /// Messages one level down: the container adds one to the depth allowed.
    Contained,
}

/// What the first bytes of a file say of it when it is UTF-16 or UTF-32
/// text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideText {
    /// `UTF-16` or `UTF-32`.
    pub name: &'static str,
    /// Why: a byte-order mark, or NULs beside the first character.
    pub why: &'static str,
    /// Its encoding as `iconv` names it (`UTF-16` or `UTF-32` when a
    /// byte-order mark says which end comes first).
    pub encoding: &'static str,
}

/// Whether a file of `bytes` is UTF-16 or UTF-32 text, by its first four
/// bytes: a byte-order mark, or NULs beside a character a JSON text starts
/// with (no JSON text in UTF-8 has a NUL among its first bytes). For
/// readers of files, so that one saved as UTF-16 (PowerShell 5's `>`,
/// Notepad's "Unicode") or UTF-32 is told as such rather than as a byte
/// that is not UTF-8; the wire's policy ([`check`]) words a refusal as
/// every reader does, and does not guess at encodings.
pub fn wide_text(bytes: &[u8]) -> Option<WideText> {
    let starts_json = |byte: &u8| b"{[\"-0123456789tfn \t\r\n".contains(byte);
    let told = |name, why, encoding| {
        Some(WideText {
            name,
            why,
            encoding,
        })
    };
    let mark16 = "it starts with a UTF-16 byte-order mark";
    let mark32 = "it starts with a UTF-32 byte-order mark";
    let nul = "a NUL byte beside its first character";
    let nuls = "three NUL bytes beside its first character";
    // UTF-32's little-endian mark starts as UTF-16's does: it goes first.
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] | [0, 0, 0xFE, 0xFF, ..] => told("UTF-32", mark32, "UTF-32"),
        // Two characters' worth, so that a frame's length prefix
        // (`00 00 00 7B`, then the text) is not taken for UTF-32.
        [0, 0, 0, byte, 0, 0, 0, ..] if starts_json(byte) => told("UTF-32", nuls, "UTF-32BE"),
        [byte, 0, 0, 0, _, 0, 0, 0, ..] if starts_json(byte) => told("UTF-32", nuls, "UTF-32LE"),
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => told("UTF-16", mark16, "UTF-16"),
        [0, byte, ..] if starts_json(byte) => told("UTF-16", nul, "UTF-16BE"),
        [byte, 0, ..] if starts_json(byte) => told("UTF-16", nul, "UTF-16LE"),
        _ => None,
    }
}

/// Checks `bytes` against the policy.
pub fn check(bytes: &[u8]) -> Result<&str, TextError> {
    scan(bytes, Layout::Envelope).map(|(text, _)| text)
}

/// Checks `bytes` against the policy and notes where the head members of
/// `layout` stand.
pub fn scan(bytes: &[u8], layout: Layout) -> Result<(&str, Head), TextError> {
    scan_into(bytes, layout, None)
}

/// [`scan`], recording every token of the text on `tape` (cleared first) on
/// the way, for a decoder that then reads the tokens instead of the text.
pub(crate) fn scan_recording<'b>(
    bytes: &'b [u8],
    layout: Layout,
    tape: &mut Vec<Token>,
) -> Result<(&'b str, Head), TextError> {
    tape.clear();
    // Tokens hold offsets as u32 (half the size, a fifth faster to record);
    // a longer text is scanned without a tape, and read from its text.
    let tape = (u32::try_from(bytes.len()).is_ok()).then_some(tape);
    scan_into(bytes, layout, tape)
}

fn scan_into<'b>(
    bytes: &'b [u8],
    layout: Layout,
    tape: Option<&mut Vec<Token>>,
) -> Result<(&'b str, Head), TextError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(TextError {
            offset: 0,
            problem: TextProblem::ByteOrderMark,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|err| TextError {
        offset: err.valid_up_to(),
        problem: TextProblem::NotUtf8,
    })?;
    // The stacks are kept from one text to the next on each thread: a
    // reader scans message after message, and two allocations per message
    // cost a fifth of the scan.
    let (frames, keys) = STACKS.with(|stacks| stacks.take());
    let mut scanner = Scanner {
        bytes,
        at: 0,
        frames,
        sets: Vec::new(),
        keys,
        head: Head::default(),
        layout,
        tape,
    };
    let result = scanner.run();
    let Scanner {
        mut frames,
        mut keys,
        head,
        ..
    } = scanner;
    frames.clear();
    keys.clear();
    // A stack grown by a deep or wide text is not kept.
    if frames.capacity() <= KEPT && keys.capacity() <= KEPT {
        STACKS.with(|stacks| stacks.set((frames, keys)));
    }
    result.map(|()| (text, head))
}

/// The most frames and names a kept stack holds.
const KEPT: usize = 256;

type Stacks = (Vec<Frame>, Vec<(usize, usize)>);

thread_local! {
    static STACKS: std::cell::Cell<Stacks> = const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// An open array or object.
#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    /// Whether a name of this object has an escape (names are then compared unescaped).
    escaped: bool,
    /// Where this object's member names start in `Scanner::keys`.
    first_key: usize,
    /// The head member whose value this frame is (for objects at depth 1 and 2).
    member: Member,
    /// This array's or object's token on the tape, when one is recorded.
    token: usize,
}

/// The most tokens a tape records (1 MiB of them). A tape takes 16 bytes a
/// token, up to eight times its text (`[1,1,…]`); past this a text is
/// decoded from its text, as a message of a few hundred tokens never is.
const MAX_TOKENS: usize = 1 << 16;

/// The most characters of a member name a refusal quotes.
const SHOWN_CHARS: usize = 200;

/// One token of a scanned text: a value, or an object's member name (which
/// comes right before its value). Tokens stand in the order of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    /// Where the token starts in the text: its first byte (an opening
    /// bracket, a quote, a sign or digit, a literal's letter).
    pub(crate) start: u32,
    /// The byte after the token's last (the closing bracket or quote
    /// included).
    pub(crate) end: u32,
    /// The index of the first token after this one and everything in it.
    pub(crate) after: u32,
}

/// What a [`Token`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Null,
    True,
    False,
    /// A number written as an integer: no fraction, no exponent.
    Integer,
    /// A number written with a fraction or an exponent.
    Fraction,
    /// A string; `escaped` when it holds an escape.
    String {
        escaped: bool,
    },
    Array,
    Object,
}

/// A member of the envelope's head, or none.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    None,
    V,
    Kind,
    Id,
    Body,
    Method,
    Name,
    Params,
    Result,
}

/// An object with more members than this checks names in a hash set.
const LINEAR_KEYS: usize = 16;

struct Scanner<'b, 't> {
    bytes: &'b [u8],
    at: usize,
    frames: Vec<Frame>,
    /// The names of the open objects with more than [`LINEAR_KEYS`]
    /// members, unescaped, by the depth of the object.
    sets: Vec<(usize, HashSet<Vec<u8>>)>,
    /// Member names of the open objects, as byte ranges.
    keys: Vec<(usize, usize)>,
    head: Head,
    layout: Layout,
    /// Where tokens are recorded, when they are.
    tape: Option<&'t mut Vec<Token>>,
}

impl Scanner<'_, '_> {
    /// Records a token that ends at the scanner's place.
    // Offsets and indexes fit in u32: a tape is only recorded for a text
    // shorter than 4 GiB, which has fewer tokens than bytes.
    #[allow(clippy::cast_possible_truncation)]
    fn record(&mut self, kind: TokenKind, start: usize) {
        let end = self.at;
        if let Some(tape) = self.tape.as_deref_mut() {
            if tape.len() >= MAX_TOKENS {
                self.stop_recording();
                return;
            }
            let after = tape.len() + 1;
            tape.push(Token {
                kind,
                start: start as u32,
                end: end as u32,
                after: after as u32,
            });
        }
    }

    fn fail<T>(&self, problem: TextProblem) -> Result<T, TextError> {
        Err(TextError {
            offset: self.at,
            problem,
        })
    }

    fn syntax<T>(&self, expected: &'static str) -> Result<T, TextError> {
        self.fail(TextProblem::Syntax(expected))
    }

    fn byte(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.byte() {
            self.at += 1;
        }
    }

    /// The text, one token at a time: a value where one is expected, then
    /// the commas and closing brackets after it, until the next value is
    /// expected or the text ends. No recursion: open containers are frames.
    fn run(&mut self) -> Result<(), TextError> {
        // The head member whose value comes next.
        let mut member = Member::None;
        loop {
            self.skip_space();
            let start = self.at;
            let Some(byte) = self.byte() else {
                return self.syntax("more JSON, not the end of the text");
            };
            match byte {
                b'{' | b'[' => {
                    let object = byte == b'{';
                    self.open(object, member, start)?;
                    self.skip_space();
                    match self.byte() {
                        Some(b'}') if object => self.close(),
                        Some(b']') if !object => self.close(),
                        _ if object => {
                            member = self.member_name()?;
                            continue;
                        }
                        _ => {
                            member = Member::None;
                            continue;
                        }
                    }
                }
                b'"' => {
                    let escaped = self.string()?;
                    self.record(TokenKind::String { escaped }, start);
                    self.note(member, start);
                }
                b'-' | b'0'..=b'9' => {
                    let kind = if self.number()? {
                        TokenKind::Integer
                    } else {
                        TokenKind::Fraction
                    };
                    self.record(kind, start);
                    self.note(member, start);
                }
                b't' | b'f' | b'n' => {
                    let (word, kind): (&'static [u8], _) = match byte {
                        b't' => (b"true", TokenKind::True),
                        b'f' => (b"false", TokenKind::False),
                        _ => (b"null", TokenKind::Null),
                    };
                    self.literal(word)?;
                    self.record(kind, start);
                    self.note(member, start);
                }
                _ => return self.syntax("a value"),
            }
            // After a value: close what ends here, until a comma asks for
            // the next value.
            loop {
                self.skip_space();
                let Some(frame) = self.frames.last().copied() else {
                    return match self.byte() {
                        None => Ok(()),
                        Some(_) => self.syntax("the end of the text after the value"),
                    };
                };
                match self.byte() {
                    Some(b',') => {
                        self.at += 1;
                        member = if frame.object {
                            self.skip_space();
                            self.member_name()?
                        } else {
                            Member::None
                        };
                        break;
                    }
                    Some(b'}') if frame.object => self.close(),
                    Some(b']') if !frame.object => self.close(),
                    None => return self.syntax("more JSON, not the end of the text"),
                    Some(_) if frame.object => return self.syntax("`,` or `}` after a member"),
                    Some(_) => return self.syntax("`,` or `]` after an item"),
                }
            }
        }
    }

    /// Drops the tape: a text with more than [`MAX_TOKENS`] is read from
    /// its text, and no partial tape is left for a decoder to trust.
    fn stop_recording(&mut self) {
        if let Some(tape) = self.tape.take() {
            tape.clear();
        }
    }

    /// Opens an array or object at `start`, the value of `member`.
    #[allow(clippy::cast_possible_truncation)] // As in `record`.
    fn open(&mut self, object: bool, member: Member, start: usize) -> Result<(), TextError> {
        let limit = MAX_DEPTH + usize::from(self.layout == Layout::Contained);
        if self.frames.len() >= limit {
            return self.fail(TextProblem::TooDeep);
        }
        if object {
            match (self.frames.len(), member) {
                (0, _) => self.head.object = true,
                (1, Member::Body) => self.head.body_object = true,
                _ => {}
            }
        }
        if self
            .tape
            .as_deref()
            .is_some_and(|tape| tape.len() >= MAX_TOKENS)
        {
            self.stop_recording();
        }
        let token = match self.tape.as_deref_mut() {
            Some(tape) => {
                tape.push(Token {
                    kind: if object {
                        TokenKind::Object
                    } else {
                        TokenKind::Array
                    },
                    start: start as u32,
                    end: start as u32,
                    after: 0,
                });
                tape.len() - 1
            }
            None => 0,
        };
        self.frames.push(Frame {
            object,
            escaped: false,
            first_key: self.keys.len(),
            member,
            token,
        });
        if let Some(slot) = self.slot(member) {
            *slot = Some(Span { start, end: start });
        }
        self.at += 1;
        Ok(())
    }

    /// Closes the innermost array or object at its closing bracket.
    #[allow(clippy::cast_possible_truncation)] // As in `record`.
    fn close(&mut self) {
        self.at += 1;
        let Some(frame) = self.frames.pop() else {
            return;
        };
        if frame.object {
            self.keys.truncate(frame.first_key);
            let depth = self.frames.len() + 1;
            if self.sets.last().is_some_and(|(at, _)| *at == depth) {
                self.sets.pop();
            }
        }
        let end = self.at;
        if let Some(tape) = self.tape.as_deref_mut() {
            let after = tape.len();
            if let Some(token) = tape.get_mut(frame.token) {
                token.end = end as u32;
                token.after = after as u32;
            }
        }
        if let Some(Some(span)) = self.slot(frame.member) {
            span.end = end;
        }
    }

    fn slot(&mut self, member: Member) -> Option<&mut Option<Span>> {
        let head = &mut self.head;
        Some(match member {
            Member::None => return None,
            Member::V => &mut head.v,
            Member::Kind => &mut head.kind,
            Member::Id => &mut head.id,
            Member::Body => &mut head.body,
            Member::Method => &mut head.method,
            Member::Name => &mut head.name,
            Member::Params => &mut head.params,
            Member::Result => &mut head.result,
        })
    }

    /// Notes where a scalar value of `member` stands (it ends here).
    fn note(&mut self, member: Member, start: usize) {
        let end = self.at;
        if let Some(slot) = self.slot(member) {
            *slot = Some(Span { start, end });
        }
    }

    /// A member name and its colon: checked against the other names of its
    /// object, and told which head member it is.
    fn member_name(&mut self) -> Result<Member, TextError> {
        if self.byte() != Some(b'"') {
            return self.syntax("a member name in quotes");
        }
        let member = self.key()?;
        self.skip_space();
        if self.byte() != Some(b':') {
            return self.syntax("`:` after a member name");
        }
        self.at += 1;
        Ok(member)
    }

    fn key(&mut self) -> Result<Member, TextError> {
        let start = self.at;
        let escaped = self.string()?;
        self.record(TokenKind::String { escaped }, start);
        let raw = (start + 1, self.at - 1);
        self.duplicate(raw, escaped, start)?;
        let depth = self.frames.len();
        if depth > 2 || self.layout == Layout::Contained {
            return Ok(Member::None);
        }
        // An escaped name is the name it spells (`"\u006bind"` is `kind`).
        let name: Cow<[u8]> = if escaped {
            Cow::Owned(unescaped(self.bytes, raw))
        } else {
            Cow::Borrowed(self.bytes.get(raw.0..raw.1).unwrap_or_default())
        };
        let parent = self.frames.last().map_or(Member::None, |f| f.member);
        // The body's members stand one level down in an envelope, at the top of a bare body.
        let in_body = match self.layout {
            Layout::Envelope => depth == 2 && parent == Member::Body,
            Layout::Body => depth == 1,
            Layout::Contained => false,
        };
        Ok(match (self.layout, depth, in_body, &*name) {
            (Layout::Envelope, 1, _, b"v") => Member::V,
            (Layout::Envelope, 1, _, b"kind") => Member::Kind,
            (Layout::Envelope, 1, _, b"id") => Member::Id,
            (Layout::Envelope, 1, _, b"body") => Member::Body,
            (_, _, true, b"method") => Member::Method,
            (_, _, true, b"name") => Member::Name,
            (_, _, true, b"params") => Member::Params,
            (_, _, true, b"result") => Member::Result,
            _ => Member::None,
        })
    }

    /// Refuses a name the innermost object has already: compared as bytes,
    /// or unescaped where an escape is involved.
    fn duplicate(
        &mut self,
        raw: (usize, usize),
        escaped: bool,
        at: usize,
    ) -> Result<(), TextError> {
        let depth = self.frames.len();
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        let bytes = self.bytes;
        let text = |(start, end): (usize, usize)| bytes.get(start..end).unwrap_or_default();
        let unescaped = |span: (usize, usize)| unescaped(bytes, span);
        frame.escaped |= escaped;
        let own = self.keys.get(frame.first_key..).unwrap_or_default();
        let set = match self.sets.last_mut() {
            Some((at, set)) if *at == depth => Some(set),
            _ => None,
        };
        let repeated = match set {
            Some(set) => !set.insert(if escaped {
                unescaped(raw)
            } else {
                text(raw).to_vec()
            }),
            // The usual case: a few names, none escaped, compared as bytes
            // with nothing allocated.
            None if !frame.escaped => own.iter().any(|k| text(*k) == text(raw)),
            None => {
                let name = unescaped(raw);
                own.iter().any(|k| unescaped(*k) == name)
            }
        };
        let has_set = self.sets.last().is_some_and(|(at, _)| *at == depth);
        if !repeated && !has_set && own.len() + 1 > LINEAR_KEYS {
            let set: HashSet<Vec<u8>> = own
                .iter()
                .chain(std::iter::once(&raw))
                .map(|k| unescaped(*k))
                .collect();
            self.sets.push((depth, set));
        }
        if repeated {
            let name = unescaped(raw);
            let name = String::from_utf8_lossy(&name);
            // A name may be as long as a frame: its first characters are
            // shown, as the C++ and TypeScript readers show them, then its
            // length. Writing a string as JSON cannot fail.
            let head: String = name.chars().take(SHOWN_CHARS).collect();
            let mut shown = serde_json::to_string(&head).unwrap_or_default();
            if head.len() < name.len() {
                shown.push_str(&format!("... ({} characters)", name.chars().count()));
            }
            let shown = crate::shown::printable(&shown).into_owned();
            return Err(TextError {
                offset: at,
                problem: TextProblem::DuplicateKey(shown),
            });
        }
        self.keys.push(raw);
        Ok(())
    }

    /// A string, from its opening quote; `true` when it holds an escape.
    fn string(&mut self) -> Result<bool, TextError> {
        self.at += 1;
        let mut escaped = false;
        loop {
            let rest = self.bytes.get(self.at..).unwrap_or_default();
            let Some(offset) = string_stop(rest) else {
                self.at = self.bytes.len();
                return self.syntax("the end of a string");
            };
            self.at += offset;
            match self.byte() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.escape()?;
                }
                _ => return self.syntax("an escape, not a raw control character, inside a string"),
            }
        }
    }

    /// One escape, from its backslash.
    fn escape(&mut self) -> Result<(), TextError> {
        self.at += 1;
        match self.byte() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.at += 1;
                Ok(())
            }
            Some(b'u') => {
                let start = self.at - 1;
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by an escaped low one.
                        let low = if self.bytes.get(self.at..self.at + 2) == Some(b"\\u") {
                            self.at += 1;
                            Some(self.hex4()?)
                        } else {
                            None
                        };
                        if !matches!(low, Some(0xDC00..=0xDFFF)) {
                            self.at = start;
                            return self.fail(TextProblem::LoneSurrogate);
                        }
                        Ok(())
                    }
                    0xDC00..=0xDFFF => {
                        self.at = start;
                        self.fail(TextProblem::LoneSurrogate)
                    }
                    _ => Ok(()),
                }
            }
            _ => self.syntax("one of \" \\ / b f n r t u after a backslash"),
        }
    }

    /// `u` and four hex digits, as a code unit.
    fn hex4(&mut self) -> Result<u32, TextError> {
        self.at += 1;
        let digits = self.bytes.get(self.at..self.at + 4).unwrap_or_default();
        let text = std::str::from_utf8(digits).unwrap_or_default();
        if digits.len() != 4 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return self.syntax("four hex digits after \\u");
        }
        self.at += 4;
        u32::from_str_radix(text, 16).or_else(|_| self.syntax("four hex digits after \\u"))
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<(), TextError> {
        if self.bytes.get(self.at..self.at + word.len()) == Some(word) {
            self.at += word.len();
            Ok(())
        } else {
            self.syntax("true, false or null")
        }
    }

    /// A number; an integer literal must be safe, any number finite.
    /// `true` when it is written as an integer (no fraction, no exponent).
    fn number(&mut self) -> Result<bool, TextError> {
        let start = self.at;
        if self.byte() == Some(b'-') {
            self.at += 1;
        }
        let int_start = self.at;
        // The integer part's value, kept while its digits are read (17 digits
        // or more are past 2^53 − 1 whatever they say).
        let mut value: u64 = 0;
        match self.byte() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                while let Some(digit @ b'0'..=b'9') = self.byte() {
                    value = value
                        .saturating_mul(10)
                        .saturating_add(u64::from(digit - b'0'));
                    self.at += 1;
                }
            }
            _ => return self.syntax("a digit"),
        }
        let int_digits = self.at - int_start;
        let mut literal_integer = true;
        if self.byte() == Some(b'.') {
            literal_integer = false;
            self.at += 1;
            if !matches!(self.byte(), Some(b'0'..=b'9')) {
                return self.syntax("a digit after the decimal point");
            }
            self.digits();
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = self.byte() {
            literal_integer = false;
            exponent = true;
            self.at += 1;
            if let Some(b'+' | b'-') = self.byte() {
                self.at += 1;
            }
            if !matches!(self.byte(), Some(b'0'..=b'9')) {
                return self.syntax("a digit in the exponent");
            }
            self.digits();
        }
        self.head.fractions |= !literal_integer;
        if literal_integer {
            if int_digits > 16 || value > MAX_SAFE_INTEGER {
                self.at = start;
                return self.fail(TextProblem::UnsafeInteger);
            }
        } else if exponent || self.at - start > 300 {
            let text = std::str::from_utf8(self.bytes.get(start..self.at).unwrap_or_default())
                .unwrap_or_default();
            if !text.parse::<f64>().is_ok_and(f64::is_finite) {
                self.at = start;
                return self.fail(TextProblem::NumberOutOfRange);
            }
        }
        Ok(literal_integer)
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.byte() {
            self.at += 1;
        }
    }
}

/// Where a string's plain run ends in `rest`: the first quote, backslash or
/// control byte. Eight bytes are tested at a time (the bit tricks of
/// serde_json's own string scan), then the rest one by one.
fn string_stop(rest: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` that is zero sets its high bit here (and only a byte at
    // or after the first zero can be set spuriously, which is past the stop).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut offset = 0;
    let mut chunks = rest.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let stops = zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if stops != 0 {
            return Some(offset + (stops.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|at| offset + at)
}

/// The bytes of the string between `span` (its quotes left out), escapes
/// read; the bytes as they stand if they do not read as a string (the scan
/// has checked them, so that does not happen).
fn unescaped(bytes: &[u8], span: (usize, usize)) -> Vec<u8> {
    let quoted = bytes
        .get(span.0.saturating_sub(1)..span.1 + 1)
        .unwrap_or_default();
    serde_json::from_slice::<String>(quoted)
        .map(String::into_bytes)
        .unwrap_or_else(|_| bytes.get(span.0..span.1).unwrap_or_default().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &[u8]) -> Option<TextProblem> {
        check(text).err().map(|e| e.problem)
    }

    #[test]
    fn wide_text_is_told_by_a_byte_order_mark_or_nuls_beside_the_first_character() {
        let mark16 = "it starts with a UTF-16 byte-order mark";
        let mark32 = "it starts with a UTF-32 byte-order mark";
        let nul = "a NUL byte beside its first character";
        let nuls = "three NUL bytes beside its first character";
        for (bytes, said) in [
            (
                &b"\xFF\xFE{\x00}\x00"[..],
                Some(("UTF-16", mark16, "UTF-16")),
            ),
            (b"\xFE\xFF\x00{\x00}", Some(("UTF-16", mark16, "UTF-16"))),
            (b"{\x00}\x00", Some(("UTF-16", nul, "UTF-16LE"))),
            (b"\x00[\x00]", Some(("UTF-16", nul, "UTF-16BE"))),
            (b" \x00{\x00", Some(("UTF-16", nul, "UTF-16LE"))),
            (b"{\x00", Some(("UTF-16", nul, "UTF-16LE"))),
            (b"\x00\x00\x00{\"a\": 1}", None),
            (
                b"\xFF\xFE\x00\x00{\x00\x00\x00",
                Some(("UTF-32", mark32, "UTF-32")),
            ),
            (
                b"\x00\x00\xFE\xFF\x00\x00\x00{",
                Some(("UTF-32", mark32, "UTF-32")),
            ),
            (
                b"{\x00\x00\x00}\x00\x00\x00",
                Some(("UTF-32", nuls, "UTF-32LE")),
            ),
            (
                b"\x00\x00\x00[\x00\x00\x00]",
                Some(("UTF-32", nuls, "UTF-32BE")),
            ),
            (b"{}", None),
            (b"\x00\x00\x00\x05hello", None),
            (b"", None),
        ] {
            let told = wide_text(bytes).map(|u| (u.name, u.why, u.encoding));
            assert_eq!(told, said, "{bytes:?}");
        }
    }

    #[test]
    fn the_policy_refuses_what_it_says_and_takes_the_rest() {
        let cases: &[(&[u8], Option<TextProblem>)] = &[
            (br#"{"a": [1, 2.5, -0, "x\u00e9", true, null, {}]}"#, None),
            (b"\xEF\xBB\xBF{}", Some(TextProblem::ByteOrderMark)),
            (b"{\"a\": \"\xff\"}", Some(TextProblem::NotUtf8)),
            (
                b"{}\x00",
                Some(TextProblem::Syntax("the end of the text after the value")),
            ),
            (
                b"{\"a\": \"\x01\"}",
                Some(TextProblem::Syntax(
                    "an escape, not a raw control character, inside a string",
                )),
            ),
            (
                br#"{"a": 1, "a": 2}"#,
                Some(TextProblem::DuplicateKey("\"a\"".into())),
            ),
            (
                br#"{"a": 1, "\u0061": 2}"#,
                Some(TextProblem::DuplicateKey("\"a\"".into())),
            ),
            (br#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#, None),
            (br#""\ud800""#, Some(TextProblem::LoneSurrogate)),
            (br#""\udc00""#, Some(TextProblem::LoneSurrogate)),
            (br#""\ud83d\ude00""#, None),
            (b"9007199254740991", None),
            (b"-9007199254740991", None),
            (b"9007199254740992", Some(TextProblem::UnsafeInteger)),
            (b"18446744073709551616", Some(TextProblem::UnsafeInteger)),
            (b"9007199254740992.0", None),
            (b"1e400", Some(TextProblem::NumberOutOfRange)),
            (b"1e-400", None),
            (
                b"01",
                Some(TextProblem::Syntax("the end of the text after the value")),
            ),
            (b"[1,]", Some(TextProblem::Syntax("a value"))),
        ];
        for (text, expected) in cases {
            assert_eq!(
                &problem(text),
                expected,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn a_strings_plain_run_ends_at_its_first_quote_backslash_or_control_byte() {
        let plain = |rest: &[u8]| {
            rest.iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        };
        let mut rng: u64 = 0x5eed;
        for len in 0..40 {
            for _ in 0..200 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        rng = rng
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        // Mostly plain bytes, high ones too; now and then a stop.
                        match (rng >> 33) % 40 {
                            0 => b'"',
                            1 => b'\\',
                            2 => (rng >> 40) as u8 % 0x20,
                            _ => 0x20 + (rng >> 40) as u8 % 0xe0,
                        }
                    })
                    .collect();
                assert_eq!(string_stop(&text), plain(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_without_recursion() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(problem(deep(MAX_DEPTH).as_bytes()), None);
        assert_eq!(
            problem(deep(MAX_DEPTH + 1).as_bytes()),
            Some(TextProblem::TooDeep)
        );
        assert_eq!(
            problem(deep(1_000_000).as_bytes()),
            Some(TextProblem::TooDeep)
        );
    }

    #[test]
    fn an_object_with_many_members_finds_a_repeat_too() {
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{i}\": {i},"));
        }
        text.push_str("\"k7\": 0}");
        assert_eq!(
            problem(text.as_bytes()),
            Some(TextProblem::DuplicateKey("\"k7\"".into()))
        );
    }

    /// A repeated name is quoted cut, and with what breaks or reorders a
    /// line escaped: a name may be as long as a frame.
    #[test]
    fn a_repeated_name_is_shown_cut_and_escaped() {
        let name = format!("\u{2028}{}", "n".repeat(1000));
        let text = format!("{{\"{name}\": 1, \"{name}\": 2}}");
        let Some(TextProblem::DuplicateKey(shown)) = problem(text.as_bytes()) else {
            panic!("a repeat");
        };
        assert_eq!(
            shown,
            format!("\"\\u2028{}\"... (1001 characters)", "n".repeat(199))
        );
    }

    #[test]
    fn a_tape_records_every_token_up_to_its_limit_and_none_past_it() {
        let mut tape = Vec::new();
        let small = br#"{"a":[1,-2.5,"x\n",true,null],"b":{}}"#;
        scan_recording(small, Layout::Contained, &mut tape).unwrap();
        let kinds: Vec<TokenKind> = tape.iter().map(|t| t.kind).collect();
        use TokenKind::*;
        assert_eq!(
            kinds,
            [
                Object,
                String { escaped: false },
                Array,
                Integer,
                Fraction,
                String { escaped: true },
                True,
                Null,
                String { escaped: false },
                Object
            ]
        );
        // The array's token ends at its bracket and skips to the next name.
        assert_eq!((tape[2].start, tape[2].end, tape[2].after), (5, 29, 8));
        assert_eq!(tape[0].after as usize, tape.len());
        let items = vec!["1"; MAX_TOKENS].join(",");
        let large = format!("[{items}]");
        scan_recording(large.as_bytes(), Layout::Contained, &mut tape).unwrap();
        assert!(tape.is_empty(), "{} tokens kept", tape.len());
    }

    #[test]
    fn the_head_of_an_envelope_is_found_on_the_way() {
        let text = br#"{"v":1,"kind":"call","id":7,"body":{"method":"download.pause","params":{"taskId":"t"}}}"#;
        let (text, head) = scan(text, Layout::Envelope).expect("policy");
        assert_eq!(head.v.map(|s| s.of(text)), Some("1"));
        assert_eq!(head.kind.map(|s| s.of(text)), Some("\"call\""));
        assert_eq!(head.id.map(|s| s.of(text)), Some("7"));
        assert_eq!(head.method.map(|s| s.of(text)), Some("\"download.pause\""));
        assert_eq!(head.params.map(|s| s.of(text)), Some(r#"{"taskId":"t"}"#));
        assert!(head.object && head.body_object);
    }
}
