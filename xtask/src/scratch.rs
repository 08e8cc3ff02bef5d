//! Scratch copies of the repository for tests that run `cargo xtask` as a
//! developer would, on a tree they may change or break.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, MutexGuard};

use anyhow::Context;

/// One copy at a time: every copy builds its xtask into the shared target
/// folder, and `cargo xtask` in one copy would run the binary another copy
/// built in between.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A copy of the repository under `target/NAME`, without build output or
/// history; removed when dropped. A fixed place, so the crates built from
/// it are rebuilt, not added.
pub struct Scratch {
    pub dir: PathBuf,
    _turn: MutexGuard<'static, ()>,
}

impl Scratch {
    pub fn new(name: &str) -> anyhow::Result<Self> {
        // A test that failed holding the lock leaves nothing to repair.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|err| err.into_inner());
        let dir = crate::root().join("target").join(name);
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(&crate::root(), &dir)?;
        Ok(Scratch { dir, _turn: turn })
    }

    /// Runs `cargo xtask ARGS` in the copy: the xtask is built from it, so
    /// what it reads is the copy's. The target folder is the workspace's
    /// (wherever cargo puts it), but the copies build with a profile of
    /// their own (`scratch`, as `dev`), so nothing they build replaces what
    /// the workspace's tests linked.
    pub fn xtask(&self, args: &[&str]) -> anyhow::Result<Output> {
        let target = crate::target_dir(&crate::root())?;
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        std::process::Command::new(cargo)
            .args([
                "run",
                "--quiet",
                "--profile",
                "scratch",
                "--package",
                "xtask",
                "--",
            ])
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", target)
            .output()
            .with_context(|| format!("running cargo xtask {args:?}"))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What a run printed, both streams.
pub fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    const SKIP: [&str; 5] = ["target", ".git", "node_modules", "corpus", "artifacts"];
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if SKIP.iter().any(|skip| name == *skip) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Scratch;
    use anyhow::Context as _;
    use std::collections::BTreeMap;
    use std::time::SystemTime;

    /// The workspace's own libraries beside this test (the folder the
    /// build that runs it wrote, wherever cargo put it), each with when it
    /// was last written.
    fn workspace_libraries() -> anyhow::Result<BTreeMap<String, SystemTime>> {
        let exe = std::env::current_exe()?;
        let deps = exe.parent().context("the test binary's folder")?;
        // Each library crate's folder under crates/ bears its name.
        let mut members = Vec::new();
        for entry in std::fs::read_dir(crate::root().join("crates"))? {
            members.push(entry?.file_name().to_string_lossy().into_owned());
        }
        let mut found = BTreeMap::new();
        for entry in std::fs::read_dir(deps)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let member = name
                .strip_prefix("lib")
                .and_then(|rest| rest.split_once('-'))
                .is_some_and(|(crate_name, _)| members.iter().any(|member| member == crate_name));
            if member && (name.ends_with(".rlib") || name.ends_with(".rmeta")) {
                found.insert(name, entry.metadata()?.modified()?);
            }
        }
        Ok(found)
    }

    /// A copy's xtask builds apart from the workspace's own build: the
    /// doctests, compiled after every test has run, load the libraries the
    /// test build wrote, and would not load ones a copy wrote over them.
    #[test]
    fn a_copy_builds_nothing_over_the_workspace_build() -> anyhow::Result<()> {
        let before = workspace_libraries()?;
        assert!(
            !before.is_empty(),
            "no workspace library beside the test binary"
        );
        let copy = Scratch::new("builds-apart")?;
        let lint = copy.xtask(&["lint"])?;
        assert!(lint.status.success(), "{}", super::said(&lint));
        let after = workspace_libraries()?;
        let rewritten: Vec<&String> = before
            .iter()
            .filter(|(name, written)| after.get(*name) != Some(written))
            .map(|(name, _)| name)
            .collect();
        assert!(rewritten.is_empty(), "a copy's build rewrote {rewritten:?}");
        Ok(())
    }
}
