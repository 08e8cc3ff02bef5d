//! The vdm wire: types generated from the contract schemas.

pub mod generated;

pub use generated::tables::*;
pub use generated::types::*;
