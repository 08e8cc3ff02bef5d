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

/// `count` mutants of `target`, each held to breaking exactly the rule it
/// names, first at the place it names; the rules they name.
fn single_fault_mutants(checker: &Checker, target: &str, count: usize) -> BTreeSet<String> {
    let mut out = Vec::new();
    let done = conformance::generate::mutants(checker, target, count, 2, &mut out)
        .unwrap_or_else(|err| panic!("{target}: {err}"));
    assert_eq!(done.by_rule.values().sum::<usize>(), count, "{target}");
    let mut reached = BTreeSet::new();
    for line in String::from_utf8(out).unwrap().lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let rule = record["rule"].as_str().unwrap();
        let found = checker
            .check_text(target, record["msg"].to_string().as_bytes())
            .unwrap();
        assert!(
            !found.is_empty(),
            "{target}: the mutant breaks nothing: {line}"
        );
        assert!(
            found.iter().all(|finding| finding.rule.id() == rule),
            "{target}: a {rule} mutant breaks more: {line}\n{found:#?}"
        );
        // Where a lane's reader should say it is, and by which keyword.
        let at = record["at"].as_str().unwrap();
        assert_eq!(found[0].pointer, at, "{target}: {line}");
        assert_eq!(
            record.get("keyword").and_then(serde_json::Value::as_str),
            found[0].keyword.as_deref(),
            "{target}: {line}"
        );
        if rule == "schema" {
            assert!(record["keyword"].is_string(), "{target}: {line}");
        }
        reached.insert(rule.to_string());
    }
    reached
}

/// Every type has mutants, a string or an integer type and a result with
/// no members too (such a value is changed as a whole).
#[test]
fn every_type_has_single_fault_mutants() {
    let checker = Checker::embedded().unwrap();
    for target in checker.type_names() {
        single_fault_mutants(&checker, target, 4);
    }
}

#[test]
fn every_mutant_breaks_exactly_its_rule_and_every_message_rule_has_mutants() {
    let checker = Checker::embedded().unwrap();
    let mut reached = BTreeSet::new();
    for (target, count) in [
        ("Envelope", 200),
        ("TaskDetail", 120),
        ("TaskSummary", 60),
        ("Segment", 60),
        ("TaskError", 60),
        ("Checksum", 40),
    ] {
        reached.extend(single_fault_mutants(&checker, target, count));
    }
    // Every rule a single message can break (the frame, mirror, trace and
    // drive rules are about streams, headers, conversations and live peers).
    let message_rules: BTreeSet<String> = conformance::Rule::ALL
        .iter()
        .map(|rule| rule.id().to_string())
        .filter(|id| {
            !["frame.", "mirror.", "trace.", "drive."]
                .iter()
                .any(|p| id.starts_with(p))
        })
        .collect();
    let missing: Vec<_> = message_rules.difference(&reached).collect();
    assert!(missing.is_empty(), "no mutant breaks {missing:?}");
}

#[test]
fn the_same_seed_gives_the_same_mutants() {
    let checker = Checker::embedded().unwrap();
    let run = |seed| {
        let mut out = Vec::new();
        conformance::generate::mutants(&checker, "Envelope", 60, seed, &mut out).unwrap();
        out
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}

fn transitions() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/traces/transitions.json");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn generated_conversations_hold_every_trace_rule_and_say_everything() {
    let checker = Checker::embedded().unwrap();
    let table = transitions();
    let mut out = Vec::new();
    let done =
        conformance::generate::conversations(&checker, 300, 8, Some(&table), &mut out).unwrap();
    assert_eq!(done.written, 300);
    let text = String::from_utf8(out).unwrap();
    // All of them as one stream, as `trace --closed --transitions` reads it.
    let parsed = conformance::trace::Transitions::parse_for(&checker, &table).unwrap();
    let mut tracer = conformance::trace::Tracer::new(&checker, Some(parsed));
    let mut found = Vec::new();
    let mut said = BTreeSet::new();
    let mut conns = BTreeSet::new();
    for (line, record) in text.lines().enumerate() {
        found.extend(tracer.feed_line(line + 1, record.as_bytes()));
        let record: serde_json::Value = serde_json::from_str(record).unwrap();
        let msg = &record["msg"];
        let name = msg["body"]["method"]
            .as_str()
            .or(msg["body"]["name"].as_str());
        said.insert(format!(
            "{} {} {}",
            record["transport"].as_str().unwrap(),
            msg["kind"].as_str().unwrap(),
            name.unwrap_or("-")
        ));
        conns.insert(record["conn"].as_str().unwrap().to_string());
    }
    found.extend(tracer.unanswered());
    assert!(found.is_empty(), "{:#?}", &found[..found.len().min(5)]);
    assert_eq!(conns.len(), 300);
    assert_eq!(tracer.records, done.records);
    // Every event, every method called and answered on the unix socket,
    // errors, and the websocket too.
    let set = checker.schema_set();
    let mut wanted: BTreeSet<String> = ["unix error -", "websocket error -"]
        .map(str::to_string)
        .into();
    for doc in set.of_kind(contract::DocKind::Method) {
        wanted.insert(format!("unix call {}", doc.name));
        wanted.insert(format!("unix reply {}", doc.name));
    }
    for doc in set.of_kind(contract::DocKind::Event) {
        wanted.insert(format!("unix event {}", doc.name));
    }
    let missing: Vec<_> = wanted.difference(&said).collect();
    assert!(missing.is_empty(), "never said: {missing:?}");
}

#[test]
fn the_same_seed_gives_the_same_conversations() {
    let checker = Checker::embedded().unwrap();
    let run = |seed| {
        let mut out = Vec::new();
        conformance::generate::conversations(&checker, 20, seed, None, &mut out).unwrap();
        out
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn every_conversation_mutant_breaks_exactly_its_trace_rule_and_every_trace_rule_has_one() {
    let checker = Checker::embedded().unwrap();
    let table = transitions();
    let mut out = Vec::new();
    let done =
        conformance::generate::conversation_mutants(&checker, 140, 3, Some(&table), &mut out)
            .unwrap();
    assert_eq!(done.by_rule.values().sum::<usize>(), 140);
    let mut by_conn: std::collections::BTreeMap<String, (String, Vec<String>)> = Default::default();
    for line in String::from_utf8(out).unwrap().lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let conn = record["conn"].as_str().unwrap().to_string();
        let rule = record["mutant"].as_str().unwrap().to_string();
        let entry = by_conn
            .entry(conn)
            .or_insert_with(|| (rule.clone(), Vec::new()));
        assert_eq!(entry.0, rule, "one rule per connection: {line}");
        entry.1.push(line.to_string());
    }
    assert_eq!(by_conn.len(), 140);
    let mut reached = BTreeSet::new();
    for (conn, (rule, records)) in &by_conn {
        let parsed = conformance::trace::Transitions::parse_for(&checker, &table).unwrap();
        let mut tracer = conformance::trace::Tracer::new(&checker, Some(parsed));
        let mut found = Vec::new();
        for (line, record) in records.iter().enumerate() {
            found.extend(tracer.feed_line(line + 1, record.as_bytes()));
        }
        found.extend(tracer.unanswered());
        assert!(!found.is_empty(), "{conn} breaks nothing");
        assert!(
            found
                .iter()
                .all(|finding| finding.finding.rule.id() == rule),
            "{conn}, a {rule} mutant, breaks more: {found:#?}"
        );
        reached.insert(rule.clone());
    }
    let trace_rules: BTreeSet<String> = conformance::Rule::ALL
        .iter()
        .map(|rule| rule.id().to_string())
        .filter(|id| id.starts_with("trace."))
        .collect();
    let missing: Vec<_> = trace_rules.difference(&reached).collect();
    assert!(
        missing.is_empty(),
        "no conversation mutant breaks {missing:?}"
    );
}

/// What a spread of generated values was asked to reach, and missed.
#[derive(Default)]
struct Edges {
    asked: usize,
    missed: Vec<String>,
}

impl Edges {
    fn ask(&mut self, reached: bool, what: impl FnOnce() -> String) {
        self.asked += 1;
        if !reached {
            self.missed.push(what());
        }
    }

    /// The bounds and enum values of `schema`, among `values` (at `at`).
    fn of(&mut self, at: &str, schema: &serde_json::Value, values: &[&serde_json::Value]) {
        let lengths: BTreeSet<u64> = values
            .iter()
            .filter_map(|v| v.as_str())
            .map(|s| s.chars().count() as u64)
            .collect();
        let numbers: Vec<f64> = values.iter().filter_map(|v| v.as_f64()).collect();
        for word in ["minLength", "maxLength"] {
            if let Some(n) = schema[word].as_u64() {
                self.ask(lengths.contains(&n), || format!("{at}: {word} {n}"));
            }
        }
        let counts: BTreeSet<u64> = values
            .iter()
            .filter_map(|v| v.as_array())
            .map(|items| items.len() as u64)
            .collect();
        for word in ["minItems", "maxItems"] {
            // A list of 100,000 tasks fits no frame: the sampler draws an
            // array at its `maxItems` up to 256 items.
            if let Some(n) = schema[word].as_u64().filter(|n| *n <= 256) {
                self.ask(counts.contains(&n), || format!("{at}: {word} {n}"));
            }
        }
        for (word, inward) in [("minimum", 1.0), ("maximum", -1.0)] {
            if let Some(n) = schema[word].as_f64() {
                self.ask(numbers.contains(&n), || format!("{at}: {word} {n}"));
                // And its neighbour inside, for an integer, where that is valid.
                let next = n + inward;
                let inside = schema["minimum"].as_f64().is_none_or(|min| next >= min)
                    && schema["maximum"].as_f64().is_none_or(|max| next <= max);
                if schema["type"] == "integer"
                    && schema["enum"].is_null()
                    && inside
                    && next.abs() < 9.0e15
                {
                    self.ask(numbers.contains(&next), || {
                        format!("{at}: {word} {n} + {inward}")
                    });
                }
            }
        }
        for value in schema["enum"].as_array().into_iter().flatten() {
            self.ask(values.contains(&value), || {
                format!("{at}: enum value {value}")
            });
        }
    }
}

/// Every type the contract declares, by name, with its schema: the files of
/// `types/`, and the titled params and results of `methods/` and `events/`.
fn declared_types() -> Vec<(String, serde_json::Value)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema");
    let mut out = Vec::new();
    for folder in ["types", "methods", "events"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let schema: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            if folder == "types" {
                let name = file.file_stem().unwrap().to_str().unwrap().to_string();
                out.push((name, schema));
                continue;
            }
            for part in schema["$defs"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(_, s)| s)
            {
                if let (Some(title), true) =
                    (part["title"].as_str(), part["properties"].is_object())
                {
                    out.push((title.to_string(), part.clone()));
                }
            }
        }
    }
    out
}

/// Generated values spread to the edges of every type the contract
/// declares: every enum value, a string's length bounds, an array's item
/// counts, a number's bounds (and an integer's next ones inside), every
/// field present and every optional one absent, in 600 values of the type.
#[test]
fn generated_values_reach_the_edges_of_every_type() {
    use serde_json::Value;
    let checker = Checker::embedded().unwrap();
    let mut edges = Edges::default();
    let declared = declared_types();
    assert!(declared.len() > 30, "{} types", declared.len());
    for (name, schema) in declared {
        let values: Vec<Value> = lines(&checker, &name, 600, 21)
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        edges.of(&name, &schema, &values.iter().collect::<Vec<_>>());
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for (field, field_schema) in schema["properties"].as_object().into_iter().flatten() {
            let present: Vec<&Value> = values.iter().filter_map(|v| v.get(field)).collect();
            let at = format!("{name}.{field}");
            edges.ask(!present.is_empty(), || format!("{at}: never present"));
            if !required.contains(&field.as_str()) {
                edges.ask(present.len() < values.len(), || {
                    format!("{at}: never absent")
                });
            }
            edges.of(&at, field_schema, &present);
        }
    }
    assert!(edges.asked > 50, "{} edges asked", edges.asked);
    assert!(
        edges.missed.is_empty(),
        "{} of {} edges missed:\n{}",
        edges.missed.len(),
        edges.asked,
        edges.missed.join("\n")
    );
}
