//! The vdm wire in Rust: types generated from the contract schemas
//! ([`generated`]), and the frame codec ([`frame`]) that carries one
//! [`Envelope`] per length-prefixed frame. This crate does no process
//! spawning and no networking; its only I/O is the `Read`/`Write` it is given.

#[cfg(feature = "tokio")]
pub mod codec;
pub mod frame;
pub mod generated;

#[cfg(feature = "tokio")]
pub use codec::FrameCodec;
pub use frame::{read_frame, write_frame, FrameError, FrameReader, FrameWriter, MAX_FRAME};
pub use generated::tables::*;
pub use generated::types::*;
