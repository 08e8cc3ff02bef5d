//! Mounts the generated code. Nothing below `generated/` is edited by hand:
//! it is written by `cargo xtask codegen` from `contracts/schema/`, and a test
//! fails when it is stale.

#[allow(clippy::all, clippy::pedantic, missing_docs, rustdoc::all)]
pub mod tables;
#[allow(clippy::all, clippy::pedantic, missing_docs, rustdoc::all)]
pub mod types;
