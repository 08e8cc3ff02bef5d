//! The frame rules for tokio: a `tokio_util::codec` `Decoder` and `Encoder`
//! with the same limits, checks and errors as [`crate::frame`], sharing its
//! length check and body decoding so the two cannot drift. Like the sync
//! reader, it never reserves the length a peer claims: the buffer grows with
//! the bytes that arrive (`FramedRead` reads in its own small steps).

use bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use crate::frame::{check_length, decode_body, encode_frame, FrameError, HEADER};
use crate::Envelope;

/// Frames for `tokio_util::codec::Framed`.
///
/// After `Empty` or `Decode` the frame has been consumed and decoding can go
/// on; after `TooLarge` nothing was consumed and the stream
/// cannot be resynchronised.
#[derive(Debug, Default)]
pub struct FrameCodec {
    scratch: Vec<u8>,
}

impl FrameCodec {
    /// A codec for one stream.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Decoder for FrameCodec {
    type Item = Envelope;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Envelope>, FrameError> {
        let Some(prefix) = src
            .get(..HEADER)
            .and_then(|bytes| <[u8; HEADER]>::try_from(bytes).ok())
        else {
            return Ok(None);
        };
        let len = match check_length(prefix) {
            Ok(len) => len,
            Err(FrameError::Empty) => {
                src.advance(HEADER);
                return Err(FrameError::Empty);
            }
            Err(err) => return Err(err),
        };
        let Some(body) = src.get(HEADER..HEADER + len) else {
            // Not all here yet. Nothing is reserved for the rest: a peer that
            // claims a megabyte and sends ten bytes costs ten bytes.
            return Ok(None);
        };
        let decoded = decode_body(body);
        src.advance(HEADER + len);
        decoded.map(Some)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Envelope>, FrameError> {
        match self.decode(src)? {
            Some(envelope) => Ok(Some(envelope)),
            None if src.is_empty() => Ok(None),
            // Bytes of a frame that never completed: cut off, as in the sync reader.
            None => Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into()),
        }
    }
}

impl Encoder<&Envelope> for FrameCodec {
    type Error = FrameError;

    fn encode(&mut self, envelope: &Envelope, dst: &mut BytesMut) -> Result<(), FrameError> {
        encode_frame(envelope, &mut self.scratch)?;
        dst.put_slice(&self.scratch);
        Ok(())
    }
}
