//! The differential test of the four readers for as long as asked:
//!
//!     cargo run --release -p contract-tests --example differential -- --seconds 1200 [--seed S]
//!
//!     cargo run --release -p contract-tests --example differential -- --file INPUTS
//!
//! With `--file`, each line of INPUTS (its bytes as they stand, without the
//! line feed) is one input, read once. Otherwise rounds of 2,000 generated inputs (a new seed each round) go to the Rust,
//! C++ and TypeScript readers and `vdm-conform` (and the Rust decoder reads
//! each from the scan's tokens and from its text); every disagreement is
//! printed with its input, and the run ends with the count of inputs, the
//! rate and the disagreements found (exit 1 when there were any).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::time::{Duration, Instant};

use contract_tests::differential;
use contract_tests::readers::Server;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    let seconds = value("--seconds").unwrap_or(60);
    let mut seed = value("--seed").unwrap_or(1);
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/differential");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let Ok(checker) = conformance::Checker::embedded() else {
        eprintln!("differential: the embedded schemas do not compile");
        std::process::exit(2);
    };
    if let Some(path) = args
        .iter()
        .position(|a| a == "--file")
        .and_then(|i| args.get(i + 1))
    {
        let Ok(text) = std::fs::read(path) else {
            eprintln!("differential: cannot read {path}");
            std::process::exit(2);
        };
        let batch: Vec<Vec<u8>> = text
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(<[u8]>::to_vec)
            .collect();
        let lines = differential::disagreements(&batch, &mut cpp, &mut ts, &checker);
        for line in &lines {
            println!("{path}: {line}");
        }
        println!(
            "differential: {} inputs from {path}, {} disagreements",
            batch.len(),
            lines.len()
        );
        std::process::exit(i32::from(!lines.is_empty()));
    }
    let started = Instant::now();
    let (mut inputs, mut found) = (0usize, 0usize);
    while started.elapsed() < Duration::from_secs(seconds) {
        let batch = differential::inputs(seed, 2_000);
        for line in differential::disagreements(&batch, &mut cpp, &mut ts, &checker) {
            found += 1;
            println!("seed {seed}: {line}");
        }
        inputs += batch.len();
        seed += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "differential: {inputs} inputs in {elapsed:.0} s ({:.0} per second), seeds up to {}, {found} disagreements",
        inputs as f64 / elapsed,
        seed - 1
    );
    std::process::exit(i32::from(found > 0));
}
