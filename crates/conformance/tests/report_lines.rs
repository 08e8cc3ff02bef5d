//! Whatever a message holds, each finding is one report line that says only
//! what it says: generated envelopes get member names and values built to
//! break a log (line breaks, terminal escapes, U+2028, bidirectional
//! overrides, quotes, text as long as a frame), are checked, and every
//! format's lines are held to what `docs/conformance.md` promises.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use conformance::report::{render, Format, Violation};
use conformance::Checker;
use sample::Rng;
use serde_json::Value;

/// Text made to forge a line, move a cursor, reorder words or flood a log.
fn hostile(rng: &mut Rng) -> String {
    let pieces = [
        "\n".to_string(),
        "\r\nx.jsonl:9 [message 8] /: [schema] forged".to_string(),
        "\u{1b}[2J\u{7}".to_string(),
        "\u{2028}\u{2029}\u{85}".to_string(),
        "\u{202e}\u{2066}\u{200f}".to_string(),
        "a\"b\\c".to_string(),
        "\u{0}".to_string(),
        "é".repeat(20_000),
        "%0A::error::forged".to_string(),
    ];
    let mut text = String::from("h");
    for _ in 0..=rng.below(3) {
        text.push_str(rng.pick(&pieces).map_or("", String::as_str));
    }
    text
}

/// The pointers of every object and every string in `value`.
fn places(value: &Value, at: String, objects: &mut Vec<String>, strings: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            objects.push(at.clone());
            for (name, item) in map {
                let token = name.replace('~', "~0").replace('/', "~1");
                places(item, format!("{at}/{token}"), objects, strings);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                places(item, format!("{at}/{index}"), objects, strings);
            }
        }
        Value::String(_) => strings.push(at),
        _ => {}
    }
}

fn break_a_log(message: &mut Value, rng: &mut Rng) {
    let (mut objects, mut strings) = (Vec::new(), Vec::new());
    places(message, String::new(), &mut objects, &mut strings);
    if rng.below(2) == 0 {
        let at = rng.pick(&objects).cloned().unwrap_or_default();
        let (name, text) = (hostile(rng), hostile(rng));
        if let Some(Value::Object(map)) = message.pointer_mut(&at) {
            map.insert(name, Value::String(text));
        }
    } else {
        let at = rng.pick(&strings).cloned().unwrap_or_default();
        let text = hostile(rng);
        if let Some(node) = message.pointer_mut(&at) {
            *node = Value::String(text);
        }
    }
}

/// A character a report line must not hold raw.
fn breaks_a_line(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[test]
fn every_finding_is_one_line_that_says_only_what_it_says() {
    let checker = Checker::embedded().unwrap();
    let mut drawn = Vec::new();
    conformance::generate::generate(&checker, "Envelope", 400, 0x1095, &mut drawn).unwrap();
    let mut rng = Rng::new(0x1095);
    let (mut findings_seen, mut problems) = (0, Vec::new());
    for (index, line) in String::from_utf8(drawn).unwrap().lines().enumerate() {
        let mut message: Value = serde_json::from_str(line).unwrap();
        for _ in 0..=rng.below(2) {
            break_a_log(&mut message, &mut rng);
        }
        // JSON escapes what the text policy would refuse raw.
        let text = serde_json::to_string(&message).unwrap();
        let findings = checker.check_text("Envelope", text.as_bytes()).unwrap();
        findings_seen += findings.len();
        let violations: Vec<Violation> = findings
            .into_iter()
            .map(|finding| Violation {
                file: "x.jsonl".into(),
                index: Some(index),
                line: Some(index + 1),
                offset: None,
                finding,
            })
            .collect();
        for format in [Format::Human, Format::Github] {
            let report = render(&violations, format);
            let lines: Vec<&str> = report.lines().collect();
            if lines.len() != violations.len() {
                problems.push(format!(
                    "{format:?}: {} lines for {} findings: {report}",
                    lines.len(),
                    violations.len()
                ));
            }
            for line in lines {
                // A message and a pointer are each cut to 1,024 characters
                // before escaping, which may make one six of each.
                if line.chars().any(breaks_a_line) || line.chars().count() > 13_000 {
                    problems.push(format!("{format:?}: {line:?}"));
                }
            }
        }
        // `json` keeps the pointer exact, one object a finding.
        let report = render(&violations, Format::Json);
        let read: Vec<Value> = report
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let pointers: Vec<&str> = read.iter().filter_map(|v| v["pointer"].as_str()).collect();
        let exact: Vec<&str> = violations
            .iter()
            .map(|v| v.finding.pointer.as_str())
            .collect();
        if pointers != exact {
            problems.push(format!("json: {pointers:?} against {exact:?}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems, the first: {}",
        problems.len(),
        problems.first().map_or("", |p| &p[..p.len().min(2000)])
    );
    // The edits break the messages: there were findings to print.
    assert!(findings_seen > 300, "only {findings_seen} findings");
}
