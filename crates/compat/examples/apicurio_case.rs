//! Prints the comparison of one Apicurio case by id (a debugging aid for
//! `tests/apicurio-disagreements.json`): `cargo run -p compat --example apicurio_case -- "Array: tuples 1"`.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

fn main() {
    let id = std::env::args().nth(1).unwrap_or_default();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/apicurio/compatibility-test-data.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {}", path.display());
        return;
    };
    let data: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    for case in data["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["id"] == id.as_str())
    {
        let load = |v: &serde_json::Value| {
            contract::SchemaSet::from_texts(
                Path::new("case"),
                [("types/Case.json", v.to_string().as_str())],
            )
        };
        let (Ok(old), Ok(new)) = (load(&case["original"]), load(&case["updated"])) else {
            continue;
        };
        let options = compat::Options {
            readers: compat::Readers::Strict,
            ..Default::default()
        };
        let comparison = match compat::compare_documents(&old, &new, options) {
            Ok(comparison) => comparison,
            Err(err) => {
                eprintln!("{id}: {err}");
                continue;
            }
        };
        println!("{id}: expected {}", case["compatibility"]);
        print!("{}", compat::report::human(&comparison, None));
    }
}
