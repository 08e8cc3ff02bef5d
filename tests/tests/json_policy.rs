//! The JSON text policy (`docs/wire.md`, "JSON text") held by all four
//! readers: each hostile input below goes as a frame to the Rust, C++ and
//! TypeScript bindings and to `vdm-conform`, and each must answer as the
//! policy says.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use contract_tests::readers::{self, Read, Server};
use serde_json::{json, Value};

/// A valid call to build the cases from.
fn call(params: Value) -> Value {
    json!({"v": 1, "kind": "call", "id": 7, "body": {"method": "tool.invoke", "params": params}})
}

fn text(value: &Value) -> String {
    value.to_string()
}

/// `{"x":[[[…1…]]]}` nested `depth` arrays deep.
fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// What the policy says of one input: read, or refused as text, or refused
/// as not what the contract says.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Says {
    Read,
    Text,
    Contract,
}

fn cases() -> Vec<(&'static str, Vec<u8>, Says)> {
    let invoke = |input: &str| {
        format!(
            r#"{{"v":1,"kind":"call","id":7,"body":{{"method":"tool.invoke","params":{{"tool":"t","input":{input}}}}}}}"#
        )
    };
    let progress = |bytes: &str| {
        format!(
            r#"{{"v":1,"kind":"event","body":{{"name":"event.task.progress","params":{{"taskId":"t_01","downloadedBytes":{bytes},"speedBytesPerSec":0,"segments":[]}}}}}}"#
        )
    };
    // An object naming one member twice, the name as written in the text.
    let twice = |name: &str| format!(r#"{{"{name}":1,"{name}":2}}"#);
    let version = |v: &str| {
        format!(
            r#"{{"v":{v},"kind":"event","body":{{"name":"event.task.removed","params":{{"taskId":"t_01"}}}}}}"#
        )
    };
    vec![
        ("a plain call", text(&call(json!({"tool": "t", "input": {"a": [1, 2.5, "é"]}}))).into_bytes(), Says::Read),
        ("input 100,000 arrays deep", invoke(&nested(100_000)).into_bytes(), Says::Text),
        ("input 124 arrays deep (127 in all)", invoke(&nested(124)).into_bytes(), Says::Read),
        ("input 125 arrays deep (128 in all)", invoke(&nested(125)).into_bytes(), Says::Text),
        ("an error's data 100,000 deep", format!(r#"{{"v":1,"kind":"error","id":7,"body":{{"code":-32603,"message":"m","data":{}}}}}"#, nested(100_000)).into_bytes(), Says::Text),
        ("an unknown method's params 100,000 deep", format!(r#"{{"v":1,"kind":"call","id":7,"body":{{"method":"x.y","params":{}}}}}"#, nested(100_000)).into_bytes(), Says::Text),
        ("a NUL after the envelope", [text(&call(json!({"tool": "t", "input": 1}))).as_bytes(), b"\x00garbage"].concat(), Says::Text),
        ("a raw NUL inside a string", invoke("\"a\u{0}b\"").into_bytes(), Says::Text),
        ("an escaped NUL inside a string", invoke("\"a\\u0000b\"").into_bytes(), Says::Read),
        ("a byte-order mark", [b"\xEF\xBB\xBF".as_slice(), text(&call(json!({"tool": "t", "input": 1}))).as_bytes()].concat(), Says::Text),
        ("invalid UTF-8 in a string", [invoke("\"").as_bytes().split_last().map_or(&[][..], |(_, rest)| rest), b"\xff\"}}}"].concat(), Says::Text),
        ("a lone high surrogate", invoke("\"\\ud800\"").into_bytes(), Says::Text),
        ("a lone low surrogate", invoke("\"\\udc00x\"").into_bytes(), Says::Text),
        ("a surrogate pair", invoke("\"\\ud83d\\ude00\"").into_bytes(), Says::Read),
        ("a member named twice", invoke(r#"{"a":1,"a":2}"#).into_bytes(), Says::Text),
        ("a member named twice, once escaped", invoke(r#"{"a":1,"\u0061":2}"#).into_bytes(), Says::Text),
        ("a member named twice, its name holding what breaks a line", invoke(&twice("a\\n\u{2028}\u{85}\u{202e}b")).into_bytes(), Says::Text),
        ("a member named twice, its name 200 characters long", invoke(&twice(&"é".repeat(200))).into_bytes(), Says::Text),
        ("a member named twice, its 200th character outside the BMP", invoke(&twice(&format!("{}😀{}", "n".repeat(199), "x".repeat(10)))).into_bytes(), Says::Text),
        ("a member named twice, its name 453 characters long", invoke(&twice(&format!("{}\u{2028}\\n\u{85}{}", "é".repeat(150), "n".repeat(300)))).into_bytes(), Says::Text),
        ("an envelope member named twice", br#"{"v":1,"v":1,"kind":"event","body":{"name":"event.task.removed","params":{"taskId":"t_01"}}}"#.to_vec(), Says::Text),
        ("2^53 in free JSON", invoke("9007199254740992").into_bytes(), Says::Text),
        ("2^53 − 1 in free JSON", invoke("9007199254740991").into_bytes(), Says::Read),
        ("2^64 in free JSON", invoke("18446744073709551616").into_bytes(), Says::Text),
        ("1e400 in free JSON", invoke("1e400").into_bytes(), Says::Text),
        ("a fraction in free JSON", invoke("0.1").into_bytes(), Says::Read),
        // Doubles past 2^53 that are whole numbers: read, and written back
        // as doubles (JSON.stringify would spell them as integers past 2^53).
        ("a double past 2^53 written with an exponent in free JSON", invoke("90071952547409e3").into_bytes(), Says::Read),
        ("a double past 2^53 written with a fraction in free JSON", invoke("9007199254740993.0").into_bytes(), Says::Read),
        ("a double below -2^53 written with an exponent in free JSON", invoke("-9.1e15").into_bytes(), Says::Read),
        ("a double of 20 digits written with an exponent in free JSON", invoke("1.5e20").into_bytes(), Says::Read),
        ("an integer written 1.0", progress("1.0").into_bytes(), Says::Contract),
        ("an integer written 1e3", progress("1e3").into_bytes(), Says::Contract),
        ("an integer written with a fraction past 2^52", progress("9007199254740990.5").into_bytes(), Says::Contract),
        ("an integer written 1.0000000000000001", progress("1.0000000000000001").into_bytes(), Says::Contract),
        ("an id written -0", br#"{"v":1,"kind":"reply","id":-0,"body":{"method":"download.pause","result":{}}}"#.to_vec(), Says::Contract),
        ("-0 in free JSON", invoke("-0").into_bytes(), Says::Read),
        ("a reply id written 7.0", br#"{"v":1,"kind":"reply","id":7.0,"body":{"method":"download.pause","result":{}}}"#.to_vec(), Says::Contract),
        ("a call id written 7e0", br#"{"v":1,"kind":"call","id":7e0,"body":{"method":"download.pause","params":{"taskId":"t_01"}}}"#.to_vec(), Says::Contract),
        ("an error id written 7.0", br#"{"v":1,"kind":"error","id":7.0,"body":{"code":-32603,"message":"m"}}"#.to_vec(), Says::Contract),
        ("v written 1.0", version("1.0").into_bytes(), Says::Contract),
        ("v past 2^53", version("9007199254740993").into_bytes(), Says::Text),
        ("v between 2^63 and 2^64", version("18446744073709551615").into_bytes(), Says::Text),
        ("envelope member names written with escapes", br#"{"\u0076":1,"\u006bind":"call","i\u0064":7,"body":{"\u006dethod":"download.pause","p\u0061rams":{"taskId":"t_01"}}}"#.to_vec(), Says::Read),
        ("an event's name written with escapes", br#"{"v":1,"kind":"event","body":{"n\u0061me":"event.task.removed","params":{"taskId":"t_01"}}}"#.to_vec(), Says::Read),
        ("an envelope member named twice, once escaped", br#"{"v":1,"kind":"event","\u006bind":"event","body":{"name":"event.task.removed","params":{"taskId":"t_01"}}}"#.to_vec(), Says::Text),
        ("an unknown method without params", br#"{"v":1,"kind":"call","id":7,"body":{"method":"x.y"}}"#.to_vec(), Says::Contract),
        ("an unknown event without params", br#"{"v":1,"kind":"event","body":{"name":"event.x.y"}}"#.to_vec(), Says::Contract),
    ]
}

fn says(read: &Read) -> Option<Says> {
    match read {
        Read::Ok(_) => Some(Says::Read),
        Read::Text(_) => Some(Says::Text),
        Read::Contract(_) | Read::Version(_) => Some(Says::Contract),
        _ => None,
    }
}

#[test]
fn every_reader_reads_the_hostile_inputs_as_the_policy_says() {
    let cases = cases();
    let bodies: Vec<Vec<u8>> = cases.iter().map(|(_, body, _)| body.clone()).collect();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let cpp = Server::cpp(&out).read_all(&bodies);
    let ts = Server::ts().read_all(&bodies);
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let mut wrong = Vec::new();
    for (index, (name, body, expected)) in cases.iter().enumerate() {
        let rust = readers::rust(body);
        let conform = readers::conform(&checker, body);
        let conform_says = if conform.is_empty() {
            Says::Read
        } else if conform.contains(&conformance::Rule::Json) {
            Says::Text
        } else {
            Says::Contract
        };
        for (reader, said) in [
            ("Rust", says(&rust)),
            ("C++", cpp.get(index).and_then(says)),
            ("TypeScript", ts.get(index).and_then(says)),
            ("vdm-conform", Some(conform_says)),
        ] {
            if said != Some(*expected) {
                wrong.push(format!(
                    "{name}: {reader} says {said:?}, the policy {expected:?}"
                ));
            }
        }
        let (Some(c), Some(t)) = (cpp.get(index), ts.get(index)) else {
            continue;
        };
        if let Some(why) = readers::disagreement(&rust, c, t, &conform) {
            wrong.push(format!("{name}: {why}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
