//! `cargo xtask conformance`: the conformance gate over `conformance/`, with
//! the checker built from the schemas on disk (not the copy compiled in), so a
//! schema edit is judged before it is regenerated.

use std::path::Path;

use anyhow::{bail, Context};

pub fn run(root: &Path) -> anyhow::Result<()> {
    let set = contract::SchemaSet::load(&root.join("contracts/schema"))
        .context("loading contracts/schema")?;
    let checker = conformance::Checker::new(set)?;
    let report = conformance::fixtures::gate(&root.join("conformance"), &checker)?;
    for line in &report.lines {
        sayln!("{line}");
    }
    for failure in &report.failures {
        tell!("{}", crate::lint::relative(root, failure));
    }
    if !report.failures.is_empty() {
        bail!("conformance: {} failure(s)", report.failures.len());
    }
    sayln!("conformance: ok");
    Ok(())
}
