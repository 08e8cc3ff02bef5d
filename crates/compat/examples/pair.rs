//! One generated schema pair by its seed, compared and printed:
//! `cargo run -p compat --example pair -- SEED [tolerant|strict]` (the seed
//! the fuzz target takes from its input's bytes 1 to 8, little-endian).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let readers = match args.next().as_deref() {
        Some("strict") => compat::Readers::Strict,
        _ => compat::Readers::Tolerant,
    };
    let mut rng = sample::Rng::new(seed);
    let old = sample::schemas::document(&mut rng);
    let new = sample::schemas::changed(&old, &mut rng);
    println!("old: {old}\nnew: {new}");
    let load = |v: &serde_json::Value| {
        contract::SchemaSet::from_texts(
            Path::new("pair"),
            [("types/Case.json", v.to_string().as_str())],
        )
    };
    let (Ok(o), Ok(n)) = (load(&old), load(&new)) else {
        eprintln!("not schemas");
        return;
    };
    let options = compat::Options {
        readers,
        search: 100,
        ..Default::default()
    };
    match compat::compare_documents(&o, &n, options) {
        Ok(comparison) => {
            print!("{}", compat::report::human(&comparison, None));
            for defect in &comparison.defects {
                println!(
                    "DEFECT {:?}: {} ({})",
                    defect.direction, defect.value, defect.why
                );
            }
        }
        Err(err) => eprintln!("{err}"),
    }
}
