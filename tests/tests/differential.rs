//! The four readers (Rust, C++, TypeScript, `vdm-conform`) on the same
//! generated inputs must agree as `readers::disagreement` says. A bounded
//! run here; `cargo run --release -p contract-tests --example differential
//! -- --seconds N` runs for as long as asked.

use std::path::Path;

use contract_tests::differential;
use contract_tests::readers::Server;

#[test]
fn the_four_readers_agree_on_generated_inputs() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let inputs = differential::inputs(0xd1ff, 4_000);
    assert_eq!(inputs.len(), 4_000);
    let found = differential::disagreements(&inputs, &mut cpp, &mut ts, &checker);
    assert!(
        found.is_empty(),
        "{} of {} inputs:\n{}",
        found.len(),
        inputs.len(),
        found
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
