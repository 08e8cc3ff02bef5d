//! `vdm-conform generate`: every value it writes passes `check`, it reaches
//! every kind of message, and the same seed gives the same values.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeSet;

use conformance::generate::generate;
use conformance::Checker;

fn lines(checker: &Checker, target: &str, count: usize, seed: u64) -> Vec<String> {
    let mut out = Vec::new();
    let done = generate(checker, target, count, seed, &mut out).expect("generates");
    assert_eq!(done.written, count);
    let text = String::from_utf8(out).expect("UTF-8");
    text.lines().map(str::to_string).collect()
}

#[test]
fn every_type_generates_values_check_passes() {
    let checker = Checker::embedded().unwrap();
    for target in checker.type_names() {
        let values = lines(&checker, target, 25, 11);
        assert_eq!(values.len(), 25, "{target}");
        for value in &values {
            let found = checker.check_text(target, value.as_bytes()).unwrap();
            assert!(found.is_empty(), "{target}: {value}\n{found:#?}");
        }
    }
}

#[test]
fn generated_messages_reach_every_method_event_and_error_code() {
    let checker = Checker::embedded().unwrap();
    let mut seen = BTreeSet::new();
    for line in lines(&checker, "Envelope", 3_000, 5) {
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let body = &value["body"];
        let name = body["method"]
            .as_str()
            .or(body["name"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| body["code"].to_string());
        seen.insert(format!("{} {name}", value["kind"].as_str().unwrap()));
    }
    let set = checker.schema_set();
    let mut wanted = BTreeSet::new();
    for doc in &set.docs {
        match doc.kind {
            contract::DocKind::Method => {
                wanted.insert(format!("call {}", doc.name));
                wanted.insert(format!("reply {}", doc.name));
            }
            contract::DocKind::Event => {
                wanted.insert(format!("event {}", doc.name));
            }
            _ => {}
        }
    }
    let missing: Vec<_> = wanted.difference(&seen).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    let errors = seen
        .iter()
        .filter(|kind| kind.starts_with("error "))
        .count();
    assert!(errors >= 10, "error codes seen: {seen:?}");
}

#[test]
fn the_same_seed_gives_the_same_values_and_another_seed_others() {
    let checker = Checker::embedded().unwrap();
    let first = lines(&checker, "Envelope", 200, 42);
    assert_eq!(first, lines(&checker, "Envelope", 200, 42));
    assert_ne!(first, lines(&checker, "Envelope", 200, 43));
}

#[test]
fn a_frozen_release_generates_values_its_checker_passes() {
    let oldest = conformance::contract_versions()[0];
    let checker = Checker::embedded_contract(oldest).unwrap();
    for line in lines(&checker, "Envelope", 300, 9) {
        let found = checker.check_text("Envelope", line.as_bytes()).unwrap();
        assert!(found.is_empty(), "{oldest}: {line}\n{found:#?}");
    }
}

#[test]
fn an_unknown_type_is_an_error_naming_the_known_ones() {
    let checker = Checker::embedded().unwrap();
    let err = generate(&checker, "NoSuchType", 1, 0, &mut Vec::new()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("NoSuchType") && message.contains("TaskDetail"),
        "{message}"
    );
}
