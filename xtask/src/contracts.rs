//! What `contracts/` holds: the working tree's version and the releases.
//! Code generation, the release, compat and the lint read it here, so none
//! of them reaches into another for it.

use std::path::{Path, PathBuf};

/// The working tree's contract version, `contracts/VERSION` trimmed: the one
/// place the xtask reads it.
pub fn version(root: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(root.join("contracts/VERSION"))
        .map_err(|e| anyhow::anyhow!("reading contracts/VERSION: {e}"))?;
    let version = text.trim();
    if version.is_empty() {
        anyhow::bail!(
            "contracts/VERSION is empty: it holds the contract version, for example 1.2.0"
        );
    }
    Ok(version.to_string())
}

/// Every release, oldest first: `(version, folder)`.
pub fn releases(root: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let dir = root.join("contracts/released");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut versions: Vec<((u64, u64, u64), String)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let parts: Vec<Option<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
        if let [Some(a), Some(b), Some(c)] = parts.as_slice() {
            versions.push(((*a, *b, *c), name));
        }
    }
    versions.sort();
    Ok(versions
        .into_iter()
        .map(|(_, name)| (name.clone(), dir.join(name)))
        .collect())
}

/// The newest release: `(version, folder)`.
pub fn latest(root: &Path) -> anyhow::Result<Option<(String, PathBuf)>> {
    Ok(releases(root)?.pop())
}
