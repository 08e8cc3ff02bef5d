//! The baseline for `cargo xtask bench conformance`: the bare `jsonschema`
//! crate validating each line of a JSON Lines file against the envelope
//! schema, on one thread, with no semantic rules and no reporting. It is what
//! `vdm-conform check` costs over.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bare_jsonschema FILE.jsonl");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::from(2);
        }
    };
    let pairs = conformance::generated::schemas::SCHEMAS
        .iter()
        .filter_map(|(_, text)| {
            let value: serde_json::Value = serde_json::from_slice(text).ok()?;
            Some((value.get("$id")?.as_str()?.to_string(), value))
        });
    let registry = match jsonschema::Registry::new()
        .extend(pairs)
        .and_then(|b| b.prepare())
    {
        Ok(registry) => registry,
        Err(err) => {
            eprintln!("registry: {err}");
            return ExitCode::from(2);
        }
    };
    let schema =
        serde_json::json!({"$ref": format!("{}envelope/Envelope.json", contract::ID_BASE)});
    let validator = match jsonschema::options()
        .with_registry(&registry)
        .should_validate_formats(true)
        .build(&schema)
    {
        Ok(validator) => validator,
        Err(err) => {
            eprintln!("schema: {err}");
            return ExitCode::from(2);
        }
    };
    let mut invalid = 0usize;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(value) if validator.is_valid(&value) => {}
            _ => invalid += 1,
        }
    }
    println!("{invalid} invalid");
    ExitCode::SUCCESS
}
