//! `cargo xtask release`: freezes the current contract under
//! `contracts/released/<VERSION>/` (the schemas and the valid fixtures), once.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

pub fn run(root: &Path) -> anyhow::Result<()> {
    let version = std::fs::read_to_string(root.join("contracts/VERSION"))
        .context("reading contracts/VERSION")?;
    let version = version.trim();
    compat::declared_bump("0.0.0", version).map_err(anyhow::Error::msg)?;
    let dest = root.join("contracts/released").join(version);
    if dest.exists() {
        bail!("contracts/released/{version} exists: a release is frozen; bump contracts/VERSION for a new one");
    }
    crate::gate(root).context("the gate must pass before a release")?;
    // Copy into a temporary folder first, so a failure leaves no half release.
    let staging = root
        .join("contracts/released")
        .join(format!(".{version}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    copy_dir(&root.join("contracts/schema"), &staging.join("schema"))?;
    copy_dir(&root.join("conformance/valid"), &staging.join("valid"))?;
    std::fs::rename(&staging, &dest)
        .with_context(|| format!("moving the release into {}", dest.display()))?;
    println!("released {version} into contracts/released/{version}");
    Ok(())
}

/// The newest release: `(version, folder)`.
pub fn latest(root: &Path) -> anyhow::Result<Option<(String, PathBuf)>> {
    let dir = root.join("contracts/released");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(None);
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
        .pop()
        .map(|(_, name)| (name.clone(), dir.join(name))))
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
