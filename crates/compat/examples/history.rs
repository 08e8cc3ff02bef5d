//! Times `compare_sets` on the contract's own releases: `cargo run --release -p compat --example history`.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let load = |dir: &str| contract::SchemaSet::load(&root.join(dir));
    let (Ok(old), Ok(new), Ok(work)) = (
        load("contracts/released/1.0.0/schema"),
        load("contracts/released/1.1.0/schema"),
        load("contracts/schema"),
    ) else {
        eprintln!("cannot load the releases");
        return;
    };
    for (label, a, b) in [
        ("1.0.0 → 1.1.0", &old, &new),
        ("1.1.0 → working tree", &new, &work),
        ("1.0.0 → working tree", &old, &work),
    ] {
        for search in [0, 64] {
            let started = std::time::Instant::now();
            let result = compat::compare_sets(
                a,
                b,
                compat::Options {
                    search,
                    ..Default::default()
                },
            );
            match result {
                Ok(c) => println!(
                    "{label} (search {search}): bump {} W {:?} R {:?} in {:?}",
                    c.bump,
                    c.writer,
                    c.reader,
                    started.elapsed()
                ),
                Err(err) => println!("{label}: {err}"),
            }
        }
    }
}
