//! `cargo xtask release`: freezes the current contract under
//! `contracts/released/<VERSION>/` — the schemas, the valid fixtures, and the
//! bindings generated from them (`rust/`, `cpp/include/vdm/`, `ts/`) — once. The frozen bindings
//! are what a lane pinned to that version runs; the top-level `tests/` crate
//! compiles every release's and reads every other release's fixtures with
//! them.

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
    freeze_bindings(&staging, version, &|_| false)?;
    std::fs::rename(&staging, &dest)
        .with_context(|| format!("moving the release into {}", dest.display()))?;
    println!("released {version} into contracts/released/{version}");
    // vdm-conform compiles every release in: its embedded list grows.
    crate::codegen::run(root, crate::codegen::Mode::Write)?;
    Ok(())
}

/// Where a release keeps its frozen Rust bindings.
pub const BINDINGS_DIR: &str = "rust";

/// The folders inside a release that hold each language's frozen bindings.
const LANGUAGES: [&str; 3] = [BINDINGS_DIR, "cpp/include/vdm", "ts"];

/// Writes each language's bindings from `<release>/schema/`, skipping the
/// folders `keep` says exist already.
fn freeze_bindings(
    release: &Path,
    version: &str,
    keep: &dyn Fn(&str) -> bool,
) -> anyhow::Result<()> {
    let set = contract::SchemaSet::load(&release.join("schema"))
        .with_context(|| format!("loading the schemas of {version}"))?;
    let origin = crate::codegen::Origin {
        command: "cargo xtask release",
        schemas: format!("contracts/released/{version}/schema/"),
    };
    let [cpp, ts] = crate::codegen::cpp_and_ts_bindings(&set, version, &origin)?;
    let rust = crate::codegen::rust_bindings(&set, &origin)?;
    for (folder, files) in LANGUAGES.into_iter().zip([rust, cpp, ts]) {
        if keep(folder) {
            continue;
        }
        let dir = release.join(folder);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        for (file, text) in files {
            std::fs::write(dir.join(file), text)
                .with_context(|| format!("writing {}", dir.join(file).display()))?;
        }
    }
    Ok(())
}

/// `cargo xtask release --backfill-bindings`: gives each release frozen
/// before a language's bindings were frozen with it that language's folder,
/// from its own schemas. Folders that exist are left alone.
pub fn backfill_bindings(root: &Path) -> anyhow::Result<()> {
    let dir = root.join("contracts/released");
    for (version, release) in releases(root)? {
        let has = |folder: &str| release.join(folder).exists();
        if LANGUAGES.iter().all(|folder| has(folder)) {
            continue;
        }
        // Written beside, then renamed, so a failure leaves no half folder.
        let staging = dir.join(format!(".{version}.bindings.partial"));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging)?;
        copy_dir(&release.join("schema"), &staging.join("schema"))?;
        freeze_bindings(&staging, &version, &has)?;
        for folder in LANGUAGES.iter().filter(|folder| !has(folder)) {
            let target = release.join(folder);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::rename(staging.join(folder), &target)?;
            println!("froze the {folder} bindings of {version} into contracts/released/{version}/{folder}");
        }
        std::fs::remove_dir_all(&staging)?;
    }
    Ok(())
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
