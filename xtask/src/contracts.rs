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
    // Checked before anything is generated from it: the version is written
    // into every binding (a C++ constant, a package's version).
    let parts: Vec<&str> = version.split('.').collect();
    // Digits only, without leading zeros (semver's own rule); `u64`'s
    // parser alone would take `+1`.
    let number = |part: &&str| {
        !part.is_empty()
            && part.bytes().all(|byte| byte.is_ascii_digit())
            && (*part == "0" || !part.starts_with('0'))
            && part.parse::<u64>().is_ok()
    };
    if parts.len() != 3 || !parts.iter().all(number) {
        anyhow::bail!(
            "contracts/VERSION holds {version:?}, not a version: MAJOR.MINOR.PATCH, for example 1.2.0"
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

#[cfg(test)]
mod tests {
    /// A VERSION that is not `MAJOR.MINOR.PATCH` is refused, saying what it
    /// holds, before codegen writes it into a binding.
    #[test]
    fn a_version_that_is_not_semver_is_refused() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("vdm-version-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("contracts"))?;
        let refused = ["one point one", "1.2", "1.2.0-rc1", "+1.2.0", "1.02.0"];
        std::fs::write(dir.join("contracts/VERSION"), "1.2.0\n")?;
        let kept = super::version(&dir).map_err(|err| err.to_string());
        let mut said = Vec::new();
        for text in refused {
            std::fs::write(dir.join("contracts/VERSION"), format!("{text}\n"))?;
            said.push(super::version(&dir).map_err(|err| err.to_string()));
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(kept, Ok("1.2.0".to_string()));
        for (said, text) in said.iter().zip(refused) {
            assert_eq!(
                said,
                &Err(format!(
                    "contracts/VERSION holds {text:?}, not a version: MAJOR.MINOR.PATCH, for example 1.2.0"
                ))
            );
        }
        Ok(())
    }
}
