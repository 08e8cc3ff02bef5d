//! `cargo xtask test`: the whole suite on any machine. What the C++ and
//! TypeScript tests need besides Rust (g++, clang++, CMake, nlohmann::json,
//! node and the pinned TypeScript compiler, the SpiderMonkey and
//! JavaScriptCore shells, libc++, the locales' sources) is installed by `.ci/setup` when any of it is
//! missing; then `cargo test --workspace --all-features --locked`
//! runs, with any further arguments passed on, and `proto`'s tests again
//! with the serde_json features a lane's build may turn on.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};

/// What is missing for the C++ and TypeScript tests, by name.
fn missing(root: &Path) -> Vec<&'static str> {
    let runs = |tool: &str, args: &[&str]| {
        Command::new(tool)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok_and(|output| output.status.success())
    };
    let mut out = Vec::new();
    for tool in ["g++", "clang++", "cmake", "node", "npm", "js102"] {
        if !runs(tool, &["--version"]) {
            out.push(tool);
        }
    }
    // JavaScriptCore's shell has no --version.
    if !runs("jsc", &["-e", ""]) {
        out.push("jsc");
    }
    if !Path::new("/usr/include/nlohmann/json.hpp").exists() {
        out.push("nlohmann::json");
    }
    let libcxx = Command::new("clang++")
        .args(["-stdlib=libc++", "-x", "c++", "-fsyntax-only", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                std::io::Write::write_all(&mut stdin, b"#include <vector>\n")?;
            }
            child.wait()
        })
        .is_ok_and(|status| status.success());
    if !libcxx {
        out.push("libc++");
    }
    if !Path::new("/usr/share/i18n/locales/de_DE").exists() {
        out.push("the locales' sources (to build a German locale)");
    }
    if !root
        .join("bindings/ts/node_modules/typescript/bin/tsc")
        .exists()
    {
        out.push("the TypeScript compiler (npm ci in bindings/ts)");
    }
    out
}

pub fn run(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let missing = missing(root);
    if !missing.is_empty() {
        sayln!(
            "test: installing what the tests need: {}",
            missing.join(", ")
        );
        let status = Command::new("bash")
            .arg(root.join(".ci/setup"))
            .current_dir(root)
            .status()
            .context("running .ci/setup")?;
        if !status.success() {
            bail!(
                ".ci/setup failed ({status}); it installs {}",
                missing.join(", ")
            );
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .args(["test", "--workspace", "--all-features", "--locked"])
        .args(args)
        .current_dir(root)
        .status()
        .context("running cargo test")?;
    if !status.success() {
        bail!("cargo test failed ({status})");
    }
    // Cargo unifies a crate's features across a build: a lane whose graph
    // turns on serde_json's `arbitrary_precision` or `preserve_order` reads
    // with a serde_json this workspace never builds otherwise.
    let features = LANE_SERDE_JSON_FEATURES.join(",");
    sayln!("test: proto again, with serde_json's {features}");
    let status = Command::new(&cargo)
        .args([
            "test",
            "-p",
            "proto",
            "--locked",
            "--all-features",
            "--features",
            &features,
        ])
        .args(args.iter().filter(|arg| **arg == "--no-fail-fast"))
        .current_dir(root)
        .status()
        .context("running cargo test -p proto")?;
    if !status.success() {
        bail!("cargo test -p proto --features {features} failed ({status})");
    }
    Ok(())
}

/// serde_json features a lane's dependency graph may turn on, which change
/// how serde_json reads numbers and objects into a `Value`.
const LANE_SERDE_JSON_FEATURES: [&str; 3] = [
    "serde_json/arbitrary_precision",
    "serde_json/preserve_order",
    "serde_json/float_roundtrip",
];
