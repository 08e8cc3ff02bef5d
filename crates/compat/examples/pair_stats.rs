//! How the prover answers on generated schema pairs: `cargo run --release -p compat --example pair_stats -- [PAIRS] [SEED]`.
//! Counts, per direction, "holds", "breaks" shown by a value, "breaks"
//! proven without one, and "cannot decide" by keyword; and the search's defects.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let pairs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = sample::Rng::new(seed);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let started = std::time::Instant::now();
    for index in 0..pairs {
        let pair_started = std::time::Instant::now();
        let old = sample::schemas::document(&mut rng);
        let new = sample::schemas::changed(&old, &mut rng);
        let load = |v: &serde_json::Value| {
            contract::SchemaSet::from_texts(
                Path::new("pair"),
                [("types/Case.json", v.to_string().as_str())],
            )
        };
        let (Ok(o), Ok(n)) = (load(&old), load(&new)) else {
            continue;
        };
        if std::env::var_os("PAIR_TRACE").is_some() {
            eprintln!("pair {index}: {old} → {new}");
        }
        let options = compat::Options {
            readers: compat::Readers::Strict,
            search: 200,
            ..Default::default()
        };
        let comparison = match compat::compare_documents(&o, &n, options) {
            Ok(comparison) => comparison,
            Err(err) => {
                // Counted by kind: the variant's name, as `Debug` starts it.
                let kind = format!("{err:?}");
                let kind = kind.split([' ', '(', '{']).next().unwrap_or_default();
                *counts.entry(format!("error: {kind}")).or_default() += 1;
                continue;
            }
        };
        if pair_started.elapsed().as_millis() > 500 {
            println!(
                "SLOW pair {index} took {:?}: {old} → {new}",
                pair_started.elapsed()
            );
        }
        for defect in &comparison.defects {
            println!(
                "DEFECT {:?}: {} → {}: {} ({})",
                defect.direction, old, new, defect.value, defect.why
            );
        }
        for (verdict, label) in [(comparison.writer, "W"), (comparison.reader, "R")] {
            let key = if verdict.holds() {
                "holds".to_string()
            } else {
                let undecided = comparison.changes.iter().find_map(|c| c.undecided.clone());
                let shown = comparison.changes.iter().any(|c| c.example.is_some());
                match (undecided, shown) {
                    (Some(k), _) => format!("cannot decide: {k}"),
                    (None, true) => "breaks, shown".into(),
                    (None, false) => "breaks, no value".into(),
                }
            };
            *counts.entry(format!("{label} {key}")).or_default() += 1;
        }
    }
    for (key, count) in counts {
        println!("{count:6} {key}");
    }
    println!("{pairs} pairs in {:?}", started.elapsed());
}
