//! `cargo xtask bench bindings`: decoding with the C++ and TypeScript
//! bindings beside their JSON parser alone (`nlohmann::json::parse`,
//! `JSON.parse`), on the corpus `bench conformance` uses, in one run.
//!
//! Each side is one thread in one process (`bindings/cpp/bench/decode.cpp`
//! at -O2, `bindings/ts/bench/decode.mjs` under node); the two loops are
//! interleaved run by run, so a slower moment of the machine falls on both.
//! A run counts what each side did: every line must parse, and every line
//! must decode (a refusal is fast and is not the work measured). Not part
//! of CI.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};

/// The targets the bindings are held to: decoding over parsing alone.
const CPP_TARGET: f64 = 1.3;
const TS_TARGET: f64 = 1.6;

pub fn run(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let mut count = 100_000usize;
    let mut runs = 7usize;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--count" => count = rest.next().context("--count N")?.parse()?,
            "--runs" => runs = rest.next().context("--runs N")?.parse()?,
            other => bail!("unknown argument {other}; use --count N, --runs N"),
        }
    }
    if runs < 2 {
        bail!("--runs must be at least 2: the first run warms up and is not counted");
    }
    let dir = root.join("target/bench-bindings");
    std::fs::create_dir_all(&dir)?;
    let (_, jsonl) = crate::bench::write_corpus(&dir, count)?;
    sayln!("{runs} runs per side, the first one discarded");

    let program = dir.join("decode");
    let status = Command::new("g++")
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root.join("bindings/cpp/include"))
        .arg(root.join("bindings/cpp/bench/decode.cpp"))
        .arg("-o")
        .arg(&program)
        .status()
        .context("running g++ (.ci/setup installs it)")?;
    if !status.success() {
        bail!("g++ refused bindings/cpp/bench/decode.cpp");
    }
    let mut cpp = Command::new(&program);
    cpp.arg(&jsonl).arg(runs.to_string());
    report(
        "C++",
        "nlohmann::json::parse",
        "parse_envelope",
        CPP_TARGET,
        count,
        &mut cpp,
    )?;

    let mut node = Command::new("node");
    node.arg(root.join("bindings/ts/bench/decode.mjs"))
        .arg(&jsonl)
        .arg(runs.to_string());
    report(
        "TypeScript",
        "JSON.parse",
        "parseEnvelopeText",
        TS_TARGET,
        count,
        &mut node,
    )?;
    Ok(())
}

fn report(
    lang: &str,
    baseline: &str,
    measured: &str,
    target: f64,
    count: usize,
    command: &mut Command,
) -> anyhow::Result<()> {
    let output = command
        .output()
        .with_context(|| format!("running {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = String::from_utf8(output.stdout)?;
    let mut times = Vec::new();
    let mut counts = None;
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            ["counts", parsed, decoded, refused] => {
                counts = Some((
                    parsed.parse::<usize>()?,
                    decoded.parse::<usize>()?,
                    refused.parse::<usize>()?,
                ))
            }
            [parse, decode] => times.push((parse.parse::<f64>()?, decode.parse::<f64>()?)),
            _ => bail!("{lang}: unexpected line {line:?}"),
        }
    }
    let Some((parsed, decoded, refused)) = counts else {
        bail!("{lang}: no counts line");
    };
    if parsed != count || decoded != count || refused != 0 {
        bail!("{lang}: parsed {parsed}, decoded {decoded}, refused {refused} of {count}: both sides must do all the work");
    }
    // The first run warms caches (and node's JIT) and is left out.
    let mut ratios: Vec<f64> = times
        .iter()
        .skip(1)
        .map(|(parse, decode)| decode / parse)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let (Some(low), Some(high)) = (ratios.first(), ratios.last()) else {
        bail!("{lang}: no timed runs");
    };
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(*high);
    let best = |pick: fn(&(f64, f64)) -> f64| {
        times.iter().skip(1).map(pick).fold(f64::INFINITY, f64::min) / 1e6
    };
    sayln!(
        "{lang}: {baseline} {:.1} ms, {measured} {:.1} ms (best runs; one thread each, {count} envelopes parsed and decoded by both)",
        best(|t| t.0),
        best(|t| t.1)
    );
    sayln!(
        "{lang}: ratio median {median:.2} (min {low:.2}, max {high:.2}, {} runs); target at most {target} — {}",
        ratios.len(),
        if median <= target { "met" } else { "NOT met" }
    );
    Ok(())
}
