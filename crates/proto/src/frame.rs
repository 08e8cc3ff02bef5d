//! Frames: one envelope on a byte stream.
//!
//! ```text
//! +---------------------------+--------------------------------------+
//! | length N: u32, big-endian | N bytes of UTF-8 JSON: one Envelope  |
//! +---------------------------+--------------------------------------+
//!   4 bytes                     1 ..= MAX_FRAME bytes
//! ```
//!
//! [`MAX_FRAME`] is 1,048,576 bytes. The length is checked *before* any
//! buffer is reserved or any body byte is read: `N == 0` is
//! [`FrameError::Empty`], `N > MAX_FRAME` is [`FrameError::TooLarge`]. A peer
//! can make a reader hold at most what it actually sent, and never more than
//! `MAX_FRAME`: the body buffer grows with the bytes that arrive rather than
//! with the length the peer claims.
//!
//! The body is decoded in two stages ([`crate::wire::decode`]): the head
//! (`v`, `kind`, `id`, the body's name) first, so a failure is a
//! [`FrameError::Decode`] that carries the id when it was readable and the
//! JSON-RPC code to answer with. The envelope's `v` decides before anything
//! else in the body: a `v` other than 1 is a version error whatever else the
//! body holds, since a later version may change everything after it.
//!
//! After [`FrameError::Empty`] or [`FrameError::Decode`] the whole frame has
//! been consumed and the reader stands at the next one, so a server can
//! answer and go on. After
//! [`FrameError::TooLarge`] it does not: the body was not read, and the stream
//! cannot be resynchronised; close it.
//!
//! On the writing side, an envelope is encoded in full before anything is
//! written, so an oversized one, or one the JSON text policy refuses (an
//! integer past ±(2^53 − 1), nesting past the limit:
//! [`FrameError::Unreadable`]), is refused with nothing on the stream. The
//! policy is held while serde_json writes, not by reading the text again.
//! The JSON is serde's: struct fields in alphabetical order (typify sorts
//! them), a tagged enum's tag first, optional fields left out when absent.
//!
//! # Speed
//!
//! `cargo bench -p proto --bench frame` compares reading 100k typical
//! envelopes through [`FrameReader`] with `serde_json::from_slice` of the same
//! bodies already in memory, and writing through [`FrameWriter`] with
//! `serde_json::to_writer` into a reused `Vec`. The figures are kept in
//! `docs/benchmarks.md`.

use std::io::{self, Read, Write};

use crate::wire::{DecodeError, Problem};
use crate::Envelope;

/// The largest body a frame may carry, in bytes.
pub const MAX_FRAME: usize = 1_048_576;

/// The length prefix's size.
pub(crate) const HEADER: usize = 4;

/// Why a frame could not be read or written.
///
/// `Closed`, `Empty`, `Decode`, and `TooLarge` on reading are the peer's
/// doing; `TooLarge` and `Encode` on writing are the caller's (an envelope
/// that does not fit, or does not encode).
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The stream ended cleanly, before the first byte of a frame.
    #[error("the stream closed between frames")]
    Closed,
    /// The length prefix was 0; a frame always carries an envelope.
    #[error("the frame is empty (length 0); a frame carries one envelope")]
    Empty,
    /// The length prefix, or an outgoing body, was larger than [`MAX_FRAME`].
    #[error("the frame's body is {0} bytes, more than the {MAX_FRAME} a frame may carry")]
    TooLarge(usize),
    /// The body is not an envelope this reader can use; the error says what
    /// could be read of it (the id, the kind) and how a server answers.
    #[error("the frame's body is not a usable envelope")]
    Decode(#[source] DecodeError),
    /// An envelope could not be encoded.
    #[error("the envelope could not be encoded")]
    Encode(#[source] serde_json::Error),
    /// An envelope encodes to text a reader would refuse (`crate::text`):
    /// an integer beyond 2^53 − 1 in free JSON, or nesting past the limit.
    /// Nothing is written.
    #[error("the envelope encodes to JSON the wire does not take")]
    Unreadable(#[source] crate::text::TextError),
    /// Any other I/O failure, including a stream that ends inside a frame
    /// (`UnexpectedEof`).
    #[error("{}", io_words(.0))]
    Io(#[from] io::Error),
}

/// What an I/O failure means for a frame: a stream cut inside one is told
/// as cut; any other failure names its cause (the system's words, never
/// bytes of the stream).
fn io_words(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::UnexpectedEof => {
            "the stream ends inside a frame: its length prefix or its body is cut short".into()
        }
        _ => format!("the frame could not be read or written: {err}"),
    }
}

impl FrameError {
    /// Whether the reader still stands at a frame boundary after this error,
    /// so it can answer and read on.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, FrameError::Empty | FrameError::Decode(_))
    }
}

/// The text a length prefix past [`MAX_FRAME`] spells, JSON-quoted, when
/// its four bytes are printable ASCII: most often text (JSON, a log line)
/// where frames were expected, which a reader's error can then name.
pub fn spelled_length(len: usize) -> Option<String> {
    let bytes = u32::try_from(len).ok()?.to_be_bytes();
    if len <= MAX_FRAME || !bytes.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        return None;
    }
    let text = std::str::from_utf8(&bytes).ok()?;
    serde_json::to_string(text).ok()
}

/// Checks a length prefix, before anything is reserved or read.
pub(crate) fn check_length(prefix: [u8; HEADER]) -> Result<usize, FrameError> {
    // u32 always fits usize on the targets this crate builds for (32 and 64 bit).
    let len = u32::from_be_bytes(prefix) as usize;
    match len {
        0 => Err(FrameError::Empty),
        len if len > MAX_FRAME => Err(FrameError::TooLarge(len)),
        len => Ok(len),
    }
}

/// Decodes one frame's body (for callers that read bodies with
/// [`FrameReader::read_raw`]), in two stages: see [`crate::wire::decode`].
pub fn decode_body(body: &[u8]) -> Result<Envelope, FrameError> {
    crate::wire::decode(body).map_err(FrameError::Decode)
}

/// Encodes one envelope as a whole frame into `buf` (cleared first).
pub(crate) fn encode_frame(envelope: &Envelope, buf: &mut Vec<u8>) -> Result<(), FrameError> {
    buf.clear();
    buf.extend_from_slice(&[0; HEADER]);
    // A writer sends nothing its peers' readers would refuse, and the
    // policy is held while writing rather than by reading the text again.
    let mut refused = None;
    let written = {
        let formatter = Policed {
            depth: 0,
            refused: &mut refused,
        };
        let mut serializer = serde_json::Serializer::with_formatter(&mut *buf, formatter);
        serde::Serialize::serialize(envelope, &mut serializer)
    };
    if let Some(problem) = refused {
        let offset = buf.len() - HEADER;
        buf.clear();
        return Err(FrameError::Unreadable(crate::text::TextError {
            offset,
            problem,
        }));
    }
    if let Err(err) = written {
        buf.clear();
        return Err(FrameError::Encode(err));
    }
    let len = buf.len() - HEADER;
    if len > MAX_FRAME {
        buf.clear();
        return Err(FrameError::TooLarge(len));
    }
    // len <= MAX_FRAME < u32::MAX, so the conversion cannot fail.
    let prefix = u32::try_from(len)
        .map_err(|_| FrameError::TooLarge(len))?
        .to_be_bytes();
    if let Some(header) = buf.get_mut(..HEADER) {
        header.copy_from_slice(&prefix);
    }
    Ok(())
}

/// serde_json's compact output, held to the JSON text policy as it is
/// written. What serde_json writes from an [`Envelope`] is UTF-8 JSON with
/// control characters escaped, no byte-order mark and no half surrogate (a
/// Rust string cannot hold one); its objects are structs and
/// `serde_json::Map`s, whose member names are unique; a non-finite float is
/// written as `null`. What is left to hold is the nesting depth and the
/// integers, which this does as they are written.
struct Policed<'a> {
    depth: usize,
    refused: &'a mut Option<crate::text::TextProblem>,
}

impl Policed<'_> {
    fn refuse(&mut self, problem: crate::text::TextProblem) -> std::io::Result<()> {
        *self.refused = Some(problem);
        Err(std::io::Error::other(
            "the JSON text policy refuses this envelope",
        ))
    }

    fn enter(&mut self) -> std::io::Result<()> {
        self.depth += 1;
        if self.depth > crate::text::MAX_DEPTH {
            return self.refuse(crate::text::TextProblem::TooDeep);
        }
        Ok(())
    }

    fn integer(&mut self, magnitude: u128) -> std::io::Result<()> {
        if magnitude > u128::from(crate::text::MAX_SAFE_INTEGER) {
            return self.refuse(crate::text::TextProblem::UnsafeInteger);
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for Policed<'_> {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.enter()?;
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        writer.write_all(b"]")
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.enter()?;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        writer.write_all(b"}")
    }

    fn write_i64<W: ?Sized + Write>(&mut self, writer: &mut W, value: i64) -> std::io::Result<()> {
        self.integer(u128::from(value.unsigned_abs()))?;
        serde_json::ser::CompactFormatter.write_i64(writer, value)
    }

    fn write_u64<W: ?Sized + Write>(&mut self, writer: &mut W, value: u64) -> std::io::Result<()> {
        self.integer(u128::from(value))?;
        serde_json::ser::CompactFormatter.write_u64(writer, value)
    }

    fn write_i128<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        value: i128,
    ) -> std::io::Result<()> {
        self.integer(value.unsigned_abs())?;
        serde_json::ser::CompactFormatter.write_i128(writer, value)
    }

    fn write_u128<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        value: u128,
    ) -> std::io::Result<()> {
        self.integer(value)?;
        serde_json::ser::CompactFormatter.write_u128(writer, value)
    }

    fn write_number_str<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        value: &str,
    ) -> std::io::Result<()> {
        if let Err(err) = crate::text::check(value.as_bytes()) {
            return self.refuse(err.problem);
        }
        writer.write_all(value.as_bytes())
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // Raw JSON is checked whole, its depth counted from where it stands.
        let nested = "[".repeat(self.depth) + fragment + &"]".repeat(self.depth);
        if let Err(err) = crate::text::check(nested.as_bytes()) {
            return self.refuse(err.problem);
        }
        writer.write_all(fragment.as_bytes())
    }
}

/// Reads frames from `R`, reusing one body buffer across frames.
///
/// ```
/// use proto::{write_frame, Envelope, FrameError, FrameReader};
///
/// let call: Envelope = serde_json::from_str(
///     r#"{"v": 1, "kind": "call", "id": 7, "body": {"method": "download.pause", "params": {"taskId": "t_01"}}}"#,
/// )?;
/// let mut wire = Vec::new();
/// write_frame(&mut wire, &call)?;
/// let mut reader = FrameReader::new(wire.as_slice());
/// assert_eq!(reader.read()?, call);
/// assert!(matches!(reader.read(), Err(FrameError::Closed)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FrameReader<R> {
    inner: R,
    body: Vec<u8>,
}

impl<R: Read> FrameReader<R> {
    /// A reader of the frames on `inner`; give it a buffered reader when
    /// `inner` is a file or a socket, since each frame is two reads.
    /// `inner` must block: a `WouldBlock` inside a frame is returned as an
    /// error and the bytes of that frame read so far are lost, so a
    /// non-blocking socket is read with the `tokio` feature's
    /// `codec::FrameCodec`, which keeps them.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            body: Vec::new(),
        }
    }

    /// Reads the next envelope.
    pub fn read(&mut self) -> Result<Envelope, FrameError> {
        let len = self.read_body()?;
        // `read_body` filled `len` bytes; the default is never taken.
        decode_body(self.body.get(..len).unwrap_or_default())
    }

    /// Reads the next frame's body without decoding it (for tools that check
    /// bodies themselves). The bytes stay valid until the next read.
    pub fn read_raw(&mut self) -> Result<&[u8], FrameError> {
        let len = self.read_body()?;
        // `read_body` filled `len` bytes; the default is never taken.
        Ok(self.body.get(..len).unwrap_or_default())
    }

    fn read_body(&mut self) -> Result<usize, FrameError> {
        let mut prefix = [0u8; HEADER];
        let mut filled = 0;
        while filled < HEADER {
            let Some(rest) = prefix.get_mut(filled..) else {
                break;
            };
            match self.inner.read(rest) {
                Ok(0) if filled == 0 => return Err(FrameError::Closed),
                Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into()),
                Ok(n) => filled += n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err.into()),
            }
        }
        let len = check_length(prefix)?;
        self.body.clear();
        // `take` bounds the read to this frame; the buffer grows with what
        // arrives, so a peer that claims a megabyte and sends ten bytes costs
        // ten bytes (plus the buffer kept from earlier frames).
        let read = (&mut self.inner)
            .take(len as u64)
            .read_to_end(&mut self.body)?;
        if read < len {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
        }
        Ok(len)
    }

    /// The stream read from.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The stream read from; what was read ahead of a frame is not kept.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> Iterator for FrameReader<R> {
    type Item = Result<Envelope, FrameError>;

    /// Frames until the stream closes. An error that leaves the reader at a
    /// frame boundary is yielded and reading goes on; any other error is
    /// yielded once and ends the iteration.
    fn next(&mut self) -> Option<Self::Item> {
        match self.read() {
            Err(FrameError::Closed) => None,
            other => Some(other),
        }
    }
}

/// Writes frames to `W`, reusing one encoding buffer across frames.
#[derive(Debug)]
pub struct FrameWriter<W> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> FrameWriter<W> {
    /// A writer of frames to `inner`; each frame goes out in one write and
    /// is flushed.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            buf: Vec::new(),
        }
    }

    /// Encodes `envelope`, then writes the length, the body, and flushes.
    /// An envelope over [`MAX_FRAME`] is refused with nothing written.
    pub fn write(&mut self, envelope: &Envelope) -> Result<(), FrameError> {
        encode_frame(envelope, &mut self.buf)?;
        self.inner.write_all(&self.buf)?;
        self.inner.flush()?;
        Ok(())
    }

    /// The stream written to.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The stream written to.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Writes one envelope as a frame. See [`FrameWriter::write`].
pub fn write_frame<W: Write>(writer: &mut W, envelope: &Envelope) -> Result<(), FrameError> {
    let mut buf = Vec::new();
    encode_frame(envelope, &mut buf)?;
    writer.write_all(&buf)?;
    writer.flush()?;
    Ok(())
}

/// Reads one envelope from a frame. See [`FrameReader::read`]; this one does
/// not reuse a buffer across calls.
pub fn read_frame<R: Read>(reader: &mut R) -> Result<Envelope, FrameError> {
    FrameReader::new(reader).read()
}

/// A read's outcome in one word, as `conformance/frames/*.expect.json`
/// sidecars and the C++ and TypeScript examples spell it (`envelope:call`,
/// `empty`, `too_large:1048577`, `bad_version:2`, `json`,
/// `io:unexpected_eof`, `closed`).
pub fn outcome_word(result: &Result<Envelope, FrameError>) -> String {
    match result {
        Ok(Envelope::Call { .. }) => "envelope:call".into(),
        Ok(Envelope::Reply { .. }) => "envelope:reply".into(),
        Ok(Envelope::Error { .. }) => "envelope:error".into(),
        Ok(Envelope::Event { .. }) => "envelope:event".into(),
        Err(FrameError::Closed) => "closed".into(),
        Err(FrameError::Empty) => "empty".into(),
        Err(FrameError::TooLarge(n)) => format!("too_large:{n}"),
        Err(FrameError::Decode(DecodeError {
            problem: Problem::BadVersion(v),
            ..
        })) => format!("bad_version:{v}"),
        Err(FrameError::Decode(_) | FrameError::Encode(_) | FrameError::Unreadable(_)) => {
            "json".into()
        }
        Err(FrameError::Io(err)) if err.kind() == io::ErrorKind::UnexpectedEof => {
            "io:unexpected_eof".into()
        }
        Err(FrameError::Io(err)) => format!("io:{}", err.kind()),
    }
}

/// A frame of a stream that [`FrameWriter`] would write otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwritten {
    /// Which frame, from 1.
    pub frame: usize,
    /// The body `FrameWriter` writes for the envelope read from it.
    pub written: Vec<u8>,
    /// The body the stream holds.
    pub found: Vec<u8>,
}

/// The first frame of `bytes` that is not what [`FrameWriter`] writes for
/// the envelope read from it (spaces, members in another order): a stream
/// written by hand, as a fixture is, can hold the same envelopes in other
/// bytes. `None` when every frame is as written, or when a frame does not
/// read as an envelope (nothing to write it from).
pub fn first_unwritten(bytes: &[u8]) -> Option<Unwritten> {
    let envelopes: Vec<Envelope> = FrameReader::new(bytes).collect::<Result<_, _>>().ok()?;
    let mut rest = bytes;
    for (index, envelope) in envelopes.iter().enumerate() {
        let mut writer = FrameWriter::new(Vec::new());
        writer.write(envelope).ok()?;
        let written = writer.into_inner();
        let header: [u8; 4] = rest.get(..4)?.try_into().ok()?;
        let end = usize::try_from(u32::from_be_bytes(header))
            .ok()?
            .checked_add(4)?;
        let frame = rest.get(..end)?;
        if written != frame {
            return Some(Unwritten {
                frame: index + 1,
                written: written.get(4..).unwrap_or_default().to_vec(),
                found: frame.get(4..).unwrap_or_default().to_vec(),
            });
        }
        rest = rest.get(end..)?;
    }
    None
}

/// Reads a whole stream, one outcome word per read, until it closes or an
/// error leaves the reader off a frame boundary.
pub fn outcomes<R: Read>(reader: R) -> Vec<String> {
    let mut reader = FrameReader::new(reader);
    let mut out = Vec::new();
    loop {
        let result = reader.read();
        out.push(outcome_word(&result));
        match result {
            Ok(_) => {}
            Err(err) if err.is_recoverable() => {}
            Err(_) => return out,
        }
    }
}
