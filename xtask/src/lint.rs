//! `cargo xtask lint`: the schema rules of `schema/`, over `contracts/schema/`.

use std::path::Path;

use anyhow::{bail, Context};

pub fn run(root: &Path) -> anyhow::Result<()> {
    let set = contract::SchemaSet::load(&root.join("contracts/schema"))
        .context("loading contracts/schema")?;
    let mut violations = contract::lint(&set);
    // `x-since` is judged against the latest release, with VERSION.
    let version = crate::contracts::version(root)?;
    if let Some((released, dir)) = crate::contracts::latest(root)? {
        let released_set = contract::SchemaSet::load(&dir.join("schema"))
            .with_context(|| format!("loading release {released}"))?;
        let released = contract::Released {
            version: &released,
            set: &released_set,
        };
        violations.extend(contract::since(&set, version.trim(), Some(&released)));
    }
    for violation in &violations {
        eprintln!("{}", relative(root, &violation.to_string()));
    }
    if !violations.is_empty() {
        bail!(
            "lint: {} violation(s) in contracts/schema",
            violations.len()
        );
    }
    println!("lint: ok ({} schema files)", set.docs.len());
    Ok(())
}

/// Messages name files relative to the repository, as a reviewer sees them.
pub fn relative(root: &Path, text: &str) -> String {
    let prefix = format!("{}/", root.display());
    text.replace(&prefix, "")
}
