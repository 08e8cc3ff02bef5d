//! The schema sets compiled into this crate (feature `embedded`, on by
//! default): the working tree's and every frozen release's, written into
//! `generated/schemas.rs` by `cargo xtask codegen`. The xtask builds the
//! checker without them, so a schema renamed or removed, which leaves that
//! file naming what is gone, never stops codegen or the gate compiling.

use std::path::Path as FsPath;

use contract::SchemaSet;

use crate::{generated, Checker, Error};

/// The contract versions compiled into this binary, oldest first: every
/// frozen release, then the working tree's version if it is not one of them.
pub fn contract_versions() -> Vec<&'static str> {
    let mut versions: Vec<&str> = generated::schemas::RELEASES
        .iter()
        .map(|(version, _)| *version)
        .collect();
    if !versions.contains(&generated::schemas::VERSION) {
        versions.push(generated::schemas::VERSION);
    }
    versions
}

/// The newest contract compiled in: the working tree's.
pub const NEWEST_CONTRACT: &str = generated::schemas::VERSION;

impl Checker {
    /// The checker for one contract version compiled into this binary (the
    /// newest is the working tree's schemas; older ones are frozen releases).
    pub fn embedded_contract(version: &str) -> Result<Self, Error> {
        if version == generated::schemas::VERSION {
            return Self::embedded();
        }
        let Some((_, files)) = generated::schemas::RELEASES
            .iter()
            .find(|(name, _)| *name == version)
        else {
            return Err(Error::UnknownContract(
                version.to_string(),
                contract_versions().join(", "),
            ));
        };
        let set = SchemaSet::from_bytes(
            FsPath::new(&format!("contracts/released/{version}/schema")),
            files.iter().copied(),
        )?;
        Self::new(set)
    }

    /// The checker for the schemas compiled into this binary.
    pub fn embedded() -> Result<Self, Error> {
        let set = SchemaSet::from_bytes(
            FsPath::new("contracts/schema"),
            generated::schemas::SCHEMAS.iter().copied(),
        )?;
        Self::new(set)
    }
}
