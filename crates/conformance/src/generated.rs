//! Mounts the generated code: the schema set as text, written by
//! `cargo xtask codegen` (never edited by hand).

#[allow(clippy::all, missing_docs)]
pub mod schemas;
