//! `cargo xtask lint`: the schema rules of `schema/`, over `contracts/schema/`.

use std::path::Path;

use anyhow::{anyhow, Context};

pub fn run(root: &Path) -> anyhow::Result<()> {
    check(root).map_err(|failed| failed.error)
}

/// Why lint failed, and whether the working tree's schemas themselves were
/// refused: the gate's checks of values need those, not `VERSION` or the
/// latest release that `x-since` is judged against.
pub struct Failed {
    pub schemas_refused: bool,
    pub error: anyhow::Error,
}

pub fn check(root: &Path) -> Result<(), Failed> {
    let set = contract::SchemaSet::load(&root.join("contracts/schema"))
        .context("loading contracts/schema")
        .map_err(|error| Failed {
            schemas_refused: true,
            error,
        })?;
    let mut violations = contract::lint(&set);
    // `x-since` is judged against the latest release, with VERSION. When
    // either cannot be read, the set's own rules are still reported.
    let since = since(root, &set).map(|found| violations.extend(found));
    for violation in &violations {
        tell!("{}", relative(root, &violation.to_string()));
    }
    let schemas_refused = !violations.is_empty();
    since
        .context("lint: `x-since` not judged")
        .map_err(|error| Failed {
            schemas_refused,
            error,
        })?;
    if schemas_refused {
        return Err(Failed {
            schemas_refused,
            error: anyhow!(
                "lint: {} violation(s) in contracts/schema",
                violations.len()
            ),
        });
    }
    sayln!("lint: ok ({} schema files)", set.docs.len());
    Ok(())
}

/// What `x-since` breaks in `set`, judged with VERSION against the latest
/// release (none: nothing to judge against).
fn since(root: &Path, set: &contract::SchemaSet) -> anyhow::Result<Vec<contract::Violation>> {
    let version = crate::contracts::version(root)?;
    let Some((released, dir)) = crate::contracts::latest(root)? else {
        return Ok(Vec::new());
    };
    let released_set = contract::SchemaSet::load(&dir.join("schema"))
        .with_context(|| format!("loading release {released}"))?;
    let released = contract::Released {
        version: &released,
        set: &released_set,
    };
    Ok(contract::since(set, version.trim(), Some(&released)))
}

/// Messages name files relative to the repository, as a reviewer sees them.
pub fn relative(root: &Path, text: &str) -> String {
    let prefix = format!("{}/", root.display());
    text.replace(&prefix, "")
}
