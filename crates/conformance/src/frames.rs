//! The words `conformance/frames/*.expect.json` sidecars name a frame read's
//! outcome with (`envelope:call`, `empty`, `too_large:1048577`,
//! `bad_version:2`, `json`, `io:unexpected_eof`, `closed`). They are this
//! checker's vocabulary, shared with the C++ and TypeScript examples that
//! print them; the codec itself speaks in `FrameError`s.

use std::io::{self, Read};

use proto::wire::{DecodeError, Problem};
use proto::{Envelope, FrameError, FrameReader};

/// A read's outcome in one word.
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
