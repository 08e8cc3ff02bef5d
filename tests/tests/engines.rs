//! The TypeScript bindings read and write alike in the JavaScript engines a
//! lane meets: V8 (node, Chrome, Electron), SpiderMonkey (Firefox; the shell
//! of release 102, an ES2022 engine) and JavaScriptCore (Safari). Each runs
//! `tests/ts/engines.mjs` on the same inputs (the differential fuzzer's,
//! and every message fixture), with `String.prototype.isWellFormed` and
//! without it, with `Object.prototype` polluted with every member name
//! the messages use, and with the built-ins frozen (hardened JavaScript),
//! for the working tree's bindings and every release's,
//! and every line must be the same.
//!
//! `VDM_ENGINES_SEED` and `VDM_ENGINES_COUNT` draw other or more inputs:
//!
//! ```sh
//! VDM_ENGINES_SEED=7 VDM_ENGINES_COUNT=200000 cargo test -p contract-tests --test engines
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{name}={value}: a count"))
        })
        .unwrap_or(default)
}

/// The inputs as JSON strings: the fuzzer's (those that are UTF-8: bytes
/// that are not are the frame decoder's, whose `TextDecoder` the engine
/// does not provide here) and every message fixture's value.
fn inputs() -> Vec<String> {
    let seed = setting("VDM_ENGINES_SEED", 1);
    let count = setting("VDM_ENGINES_COUNT", 20_000);
    let mut out: Vec<String> =
        contract_tests::differential::inputs(seed, usize::try_from(count).unwrap())
            .into_iter()
            .filter_map(|input| String::from_utf8(input).ok())
            .collect();
    for folder in ["valid", "invalid"] {
        let fixtures =
            conformance::fixtures::load_fixtures(&root().join("conformance"), folder).unwrap();
        out.extend(
            fixtures
                .iter()
                .filter(|f| f.type_name == "Envelope")
                .map(|f| f.value.to_string()),
        );
    }
    out
}

/// Every member name of the valid fixtures, each with the first value it
/// has there: what a prototype pollution would have to give a reader that
/// reads inherited members, to fill a member a message lacks with one that
/// fits.
fn pollution() -> serde_json::Map<String, Value> {
    fn walk(value: &Value, out: &mut serde_json::Map<String, Value>) {
        match value {
            Value::Object(members) => {
                for (name, member) in members {
                    if name != "__proto__" && !out.contains_key(name) {
                        out.insert(name.clone(), member.clone());
                    }
                    walk(member, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = serde_json::Map::new();
    for fixture in
        conformance::fixtures::load_fixtures(&root().join("conformance"), "valid").unwrap()
    {
        walk(&fixture.value, &mut out);
    }
    out
}

/// One engine's run: its command line, without the script's arguments.
struct Engine {
    name: &'static str,
    program: &'static str,
    before_script: &'static [&'static str],
    before_arguments: &'static [&'static str],
}

const ENGINES: &[Engine] = &[
    Engine {
        name: "V8 (node)",
        program: "node",
        before_script: &[],
        before_arguments: &[],
    },
    Engine {
        name: "SpiderMonkey 102",
        program: "js102",
        before_script: &["-m"],
        before_arguments: &["--"],
    },
    Engine {
        name: "JavaScriptCore",
        program: "jsc",
        before_script: &["-m"],
        before_arguments: &["--"],
    },
];

#[test]
fn the_typescript_bindings_read_alike_in_v8_spidermonkey_and_javascriptcore() {
    let inputs = inputs();
    // ASCII, so that every shell reads the strings alike, half surrogate
    // pairs too.
    let given = serde_json::json!({ "inputs": inputs, "pollution": pollution() });
    let text = serde_json::to_string(&given)
        .unwrap()
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|unit| format!("\\u{unit:04x}"))
                    .collect()
            }
        })
        .collect::<String>();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("engines");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("inputs.json");
    std::fs::write(&file, text).unwrap();
    let script = root().join("tests/ts/engines.mjs");
    // The working tree's bindings, and every release's: a lane pinned to
    // one runs it in the same browsers.
    let mut bindings = vec![root().join("bindings/ts/index.js")];
    for release in std::fs::read_dir(root().join("contracts/released")).unwrap() {
        let index = release.unwrap().path().join("ts/index.js");
        if index.exists() {
            bindings.push(index);
        }
    }
    assert!(bindings.len() >= 3, "{bindings:?}");
    for index in &bindings {
        engines_agree(&inputs, &script, &file, index);
    }
}

fn engines_agree(inputs: &[String], script: &Path, file: &Path, index: &Path) {
    let mut runs: Vec<(String, String, Vec<String>)> = Vec::new();
    for engine in ENGINES {
        for mode in [
            None,
            Some("--without-is-well-formed"),
            Some("--with-polluted-prototype"),
            Some("--with-frozen-intrinsics"),
        ] {
            let mut command = Command::new(engine.program);
            command
                .args(engine.before_script)
                .arg(script)
                .args(engine.before_arguments)
                .arg(file)
                .arg(index)
                .args(mode);
            let output = contract_tests::run(command, b"");
            let mut lines = output.lines().map(str::to_owned);
            let header = lines.next().unwrap_or_default();
            let name = match mode {
                Some(mode) => format!("{} {mode}", engine.name),
                None => engine.name.to_owned(),
            };
            runs.push((name, header, lines.collect()));
        }
    }

    // Both ways of telling a half surrogate pair ran.
    let headers: Vec<&str> = runs.iter().map(|(_, header, _)| header.as_str()).collect();
    assert!(
        headers.contains(&"wellFormed: native") && headers.contains(&"wellFormed: regex"),
        "{}: {headers:?}",
        index.display()
    );
    let (first, _, want) = &runs[0];
    assert_eq!(want.len(), inputs.len(), "{first}: one line per input");
    for (name, _, got) in &runs[1..] {
        assert_eq!(got.len(), want.len(), "{name}: one line per input");
        if let Some(at) = (0..want.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{first} and {name} read {} differently with {}:\n  {first}: {}\n  {name}: {}",
                Value::String(inputs[at].clone()),
                index.display(),
                want[at],
                got[at]
            );
        }
    }
}
