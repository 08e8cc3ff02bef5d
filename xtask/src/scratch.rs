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
    /// what it reads is the copy's. The target folder is shared, so only
    /// the workspace's own crates build again.
    pub fn xtask(&self, args: &[&str]) -> anyhow::Result<Output> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        std::process::Command::new(cargo)
            .arg("xtask")
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", crate::root().join("target"))
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
