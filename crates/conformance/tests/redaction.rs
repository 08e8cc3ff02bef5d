//! No finding prints a credential, whatever shape the message holding it
//! has: `download.provideAuth` calls drawn from the contract, then broken the
//! ways clients break them (params encoded twice, wrapped in an array, an
//! unknown method, the wrong kind, the secret of another type), checked, and
//! every finding's text searched for the password.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use conformance::Checker;
use sample::{Rng, Sampler};
use serde_json::{json, Value};

/// The places a mutation may hit: the password's ancestors, where a change
/// of shape is what moves the secret out of the walk's reach.
const ANCESTORS: &[&str] = &["", "/body", "/body/params", "/body/params/password"];

fn mutate(message: &mut Value, rng: &mut Rng, password: &str) {
    let at = rng.pick(ANCESTORS).copied().unwrap_or("");
    match rng.below(8) {
        // Encoded twice (or thrice).
        0 => {
            if let Some(node) = message.pointer_mut(at) {
                *node = Value::String(node.to_string());
            }
        }
        1 => {
            if let Some(node) = message.pointer_mut(at) {
                *node = json!([node.take()]);
            }
        }
        2 => {
            let method = rng
                .pick(&[
                    json!("download.provideAuthX"),
                    json!("download.pause"),
                    json!(42),
                    Value::Null,
                ])
                .cloned()
                .unwrap_or(Value::Null);
            if let Some(node) = message.pointer_mut("/body/method") {
                *node = method;
            }
        }
        3 => {
            let kind = rng
                .pick(&["reply", "event", "error", "x"])
                .copied()
                .unwrap_or("x");
            if let Some(node) = message.pointer_mut("/kind") {
                *node = json!(kind);
            }
        }
        4 => {
            let other = rng
                .pick(&[
                    json!({"pin": password}),
                    json!([password]),
                    json!(format!("{password}\n")),
                    json!({"nested": {"deeper": password}}),
                ])
                .cloned()
                .unwrap_or(Value::Null);
            if let Some(node) = message.pointer_mut("/body/params/password") {
                *node = other;
            }
        }
        5 => {
            if let Some(Value::Object(params)) = message.pointer_mut("/body/params") {
                params.insert("save".into(), json!("yes"));
                params.insert("extra".into(), json!(1));
            }
        }
        6 => {
            if let Some(Value::Object(params)) = message.pointer_mut("/body/params") {
                params.remove("taskId");
            }
        }
        _ => {
            if let Some(node) = message.pointer_mut("/id") {
                *node = json!(rng.pick(&["7", "-1", "x"]).copied().unwrap_or("x"));
            }
        }
    }
}

#[test]
fn no_finding_prints_a_password_however_the_call_is_broken() {
    let checker = Checker::embedded().expect("the embedded schemas compile");
    let registry = checker.schema_set().registry().expect("a registry");
    let uri = format!(
        "{}methods/download.provideAuth.json#/$defs/params",
        contract::ID_BASE
    );
    let mut rng = Rng::new(0x5ec7e7);
    let mut sampler = Sampler::new(&registry, rng.next_u64());
    let (mut broken, mut leaks) = (0, Vec::new());
    for case in 0..3000 {
        let mut params = sampler.draw(&uri).expect("params are drawn");
        // Letters a message would not hold by chance, one password a case.
        let password = format!("Pw{case}zQx{}", rng.next_u64() % 100_000);
        if let Some(Value::Object(map)) = Some(&mut params) {
            map.insert("password".into(), json!(password));
        }
        let mut message = json!({"v": 1, "kind": "call", "id": case,
            "body": {"method": "download.provideAuth", "params": params}});
        for _ in 0..=rng.below(3) {
            mutate(&mut message, &mut rng, &password);
        }
        let findings = checker.check("Envelope", &message).expect("checked");
        broken += usize::from(!findings.is_empty());
        for finding in findings {
            if finding.message.contains(&password) {
                leaks.push(format!(
                    "{message}\n  {} {}: {}",
                    finding.pointer, finding.rule, finding.message
                ));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks, the first:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
    // The mutations really break the calls: most cases have findings to print.
    assert!(broken > 2000, "only {broken} of 3000 calls were refused");
}

/// A credential the schema cannot mark: an HTTP header that carries one in
/// the free-form `headers` map (any case), and a URL with user information.
/// Every finding on a broken call is searched for the secret.
#[test]
fn no_finding_prints_a_credential_header_or_a_password_in_a_url() {
    let checker = Checker::embedded().expect("the embedded schemas compile");
    let secret = "Zq9SecretXy";
    let long = secret.repeat(1000);
    // One header past `maxProperties`: the finding is about the whole map.
    let mut many: serde_json::Map<String, Value> =
        (0..64).map(|i| (format!("X-{i}"), json!("v"))).collect();
    many.insert("authorization".into(), json!(secret));
    let specs = [
        json!({"url": "https://example.com/f", "headers": {"Authorization": format!("Bearer {long}")}}),
        json!({"url": "https://example.com/f", "headers": {"COOKIE": [secret]}}),
        json!({"url": "https://example.com/f", "headers": {"Proxy-Authorization": 7, "X": secret.len()}}),
        json!({"url": format!("ftp://user:{secret}@example.com/f"), "segments": 0}),
        json!({"url": format!("gopher://user:{secret}@example.com/f")}),
        json!({"url": format!("//user:{secret}@example.com/f")}),
        json!({"url": "https://example.com/f", "headers": many}),
        json!({"url": "https://example.com/f", "headers": {"X-Raw": [format!("Cookie: a=1\r\nAuthorization : Basic {secret}")]}}),
        json!({"url": "https://example.com/f", "headers": {"Authorization ": [secret]}}),
        json!([format!("https://{secret}@example.com/f")]),
        json!({"url": "https://example.com/f", "headers": format!("{{\"authorization\": \"{secret}\"}}")}),
        json!(format!("{{\"url\": \"https://u:{secret}@example.com/f\"}}")),
    ];
    let mut refused = 0;
    for spec in specs {
        let message = json!({"v": 1, "kind": "call", "id": 1,
            "body": {"method": "download.add", "params": {"spec": spec}}});
        let findings = checker.check("Envelope", &message).expect("checked");
        refused += usize::from(!findings.is_empty());
        for finding in findings {
            assert!(
                !finding.message.contains(secret),
                "{message}\n  {} {}: {}",
                finding.pointer,
                finding.rule,
                finding.message
            );
        }
    }
    assert_eq!(refused, 12, "every call above is broken");
}
