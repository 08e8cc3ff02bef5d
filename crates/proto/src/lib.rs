//! The vdm wire in Rust: types generated from the contract schemas
//! ([`generated`]), the hand-written code they use ([`wire`]: the two-stage
//! envelope decoder, the unknown-name variant, the error a server answers
//! with), and the frame codec ([`frame`]) that carries one [`Envelope`] per
//! length-prefixed frame. This crate does no process spawning and no
//! networking; its only I/O is the `Read`/`Write` it is given.

#[cfg(feature = "tokio")]
pub mod codec;
pub mod frame;
pub mod generated;
mod shown;
mod strict;
mod tape;
pub mod text;
pub mod wire;

#[cfg(feature = "tokio")]
pub use codec::FrameCodec;
pub use frame::{read_frame, write_frame, FrameError, FrameReader, FrameWriter, MAX_FRAME};
pub use generated::tables::*;
pub use generated::types::*;
pub use wire::{
    DecodeError, EnvelopeKind, EventInfo, MethodInfo, Problem, ProtocolVersion, SecretString,
    Unknown,
};

impl Envelope {
    /// Which of the four kinds this envelope is.
    pub fn kind(&self) -> EnvelopeKind {
        wire::EnvelopeParts::kind(self)
    }

    /// The body's contents when it names a method or event this version of
    /// the contract does not know (a reader skips it, or answers
    /// `method_not_found` to a call).
    pub fn unknown(&self) -> Option<&Unknown> {
        wire::EnvelopeParts::unknown(self)
    }
}

impl CallBody {
    /// The wire name of the method called.
    pub fn method(&self) -> &str {
        wire::Tagged::wire_name(self)
    }
}

impl ReplyBody {
    /// The wire name of the method answered.
    pub fn method(&self) -> &str {
        wire::Tagged::wire_name(self)
    }
}

impl EventBody {
    /// The wire name of the event.
    pub fn name(&self) -> &str {
        wire::Tagged::wire_name(self)
    }
}

/// The method with this wire name, if this version of the contract has it.
pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|info| info.name == name)
}

/// The event with this wire name, if this version of the contract has it.
pub fn event_info(name: &str) -> Option<&'static EventInfo> {
    EVENTS.iter().find(|info| info.name == name)
}
