//! What each emitter writes for each construct, held by snapshots over one
//! small schema set: a string enum, an integer enum, an alias, a struct with
//! bounds, a pattern, a secret and a rule, and the envelope's bodies. A
//! change to an emitter shows here as a diff a reviewer reads, before it
//! shows in the 3,000-line bindings.

use std::path::Path;

use contract::SchemaSet;
use serde_json::{json, Value};

use super::model::{model, Model};

fn doc(rel: &str, title: &str, body: Value) -> (String, String) {
    let mut value = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("https://schemas.vdm.invalid/{rel}"),
        "title": title,
        "description": format!("The {title} of the small set."),
        "x-since": "1.0.0",
    });
    if let (Some(fields), Value::Object(body)) = (value.as_object_mut(), body) {
        fields.extend(body);
    }
    (rel.to_string(), value.to_string())
}

fn branch(tag: &str, name: &str, content: &str, reference: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            tag: {"type": "string", "const": name},
            content: {"$ref": reference},
        },
        "required": [tag, content],
        "additionalProperties": false,
    })
}

/// One method (`thing.make`), one event (`event.thing`) and the types they use.
fn small() -> Model {
    model(&small_set(json!(["dark_green"]))).expect("the small set is modelled")
}

/// The small set, with the event's rule testing its colour against `when`.
fn small_set(when: Value) -> SchemaSet {
    small_set_with(when, Vec::new())
}

/// The small set and `more` documents.
fn small_set_with(when: Value, more: Vec<(String, String)>) -> SchemaSet {
    let docs = [
        doc(
            "envelope/ProtocolVersion.json",
            "ProtocolVersion",
            json!({"type": "integer", "enum": [1]}),
        ),
        doc(
            "envelope/CallBody.json",
            "CallBody",
            json!({"oneOf": [branch("method", "thing.make", "params", "../methods/thing.make.json#/$defs/params")]}),
        ),
        doc(
            "envelope/ReplyBody.json",
            "ReplyBody",
            json!({"oneOf": [branch("method", "thing.make", "result", "../methods/thing.make.json#/$defs/result")]}),
        ),
        doc(
            "envelope/EventBody.json",
            "EventBody",
            json!({"oneOf": [branch("name", "event.thing", "params", "../events/event.thing.json#/$defs/params")]}),
        ),
        doc(
            "methods/thing.make.json",
            "thing.make",
            json!({"$defs": {
                "params": {
                    "title": "ThingMakeParams",
                    "description": "What to make.",
                    "type": "object",
                    "properties": {
                        "color": {"$ref": "../types/Color.json", "description": "Its colour."},
                        "size": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How big."},
                        "label": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$", "description": "A short name."},
                        "password": {"type": "string", "x-secret": true, "description": "Never shown."},
                    },
                    "required": ["color"],
                    "additionalProperties": false,
                },
                "result": {
                    "title": "ThingMakeResult",
                    "description": "What was made.",
                    "type": "object",
                    "properties": {"id": {"$ref": "../types/ThingId.json", "description": "Its id."}},
                    "required": ["id"],
                    "additionalProperties": false,
                },
            }}),
        ),
        doc(
            "events/event.thing.json",
            "event.thing",
            json!({"$defs": {"params": {
                "title": "ThingEvent",
                "description": "What happened.",
                "type": "object",
                "properties": {
                    "level": {"$ref": "../types/Level.json", "description": "How loud."},
                    "color": {"$ref": "../types/Color.json", "description": "Its colour now."},
                    "note": {"type": "string", "description": "Said when dark."},
                },
                "required": ["level", "color"],
                "additionalProperties": false,
                "allOf": [{
                    "x-rule": "thing.note_when_dark",
                    "description": "note is present exactly when the colour is dark.",
                    "if": {"properties": {"color": {"enum": when}}, "required": ["color"]},
                    "then": {"required": ["note"]},
                    "else": {"not": {"required": ["note"]}},
                }],
            }}}),
        ),
        doc(
            "types/Color.json",
            "Color",
            json!({"type": "string", "enum": ["red", "dark_green"]}),
        ),
        doc(
            "types/Level.json",
            "Level",
            json!({"type": "integer", "enum": [1, 2], "x-enum-varnames": ["quiet", "loud"]}),
        ),
        doc(
            "types/ThingId.json",
            "ThingId",
            json!({"type": "string", "minLength": 1, "maxLength": 16}),
        ),
    ];
    SchemaSet::from_texts(
        Path::new("small"),
        docs.iter()
            .chain(&more)
            .map(|(rel, text)| (rel.as_str(), text.as_str())),
    )
    .expect("the small set loads")
}

/// The small set, `more` documents, and the contract's own error types: the
/// envelope's hand-written C++ reads an error's body as RpcError, so a
/// program built on the headers needs them.
fn small_set_and_errors(mut more: Vec<(String, String)>) -> SchemaSet {
    for name in ["RpcError", "RpcErrorCode"] {
        let rel = format!("types/{name}.json");
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../contracts/schema")
            .join(&rel);
        let text = std::fs::read_to_string(path).expect("the contract's error types");
        more.push((rel, text));
    }
    small_set_with(json!(["dark_green"]), more)
}

/// `source`, a program on the headers under `dir/vdm`, built by g++ as
/// C++17 with `flags` into `program`; a refusal fails the test with what
/// g++ said.
fn build_cpp<'a>(
    dir: &Path,
    source: &Path,
    program: &Path,
    flags: impl IntoIterator<Item = &'a str>,
) {
    let built = std::process::Command::new("g++")
        .arg("-std=c++17")
        .args(flags)
        .arg("-I")
        .arg(dir)
        .arg(source)
        .arg("-o")
        .arg(program)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        built.status.success(),
        "{} does not compile:\n{}",
        source.display(),
        String::from_utf8_lossy(&built.stderr)
    );
}

/// Containers inside containers (arrays of arrays, maps of arrays, arrays
/// of maps) name each level's variables apart: the C++ header compiles
/// with the strict warnings lanes build with (`-Wshadow` among them), and
/// both languages read a value of every level and write it back as it was.
/// Descriptions that end in a backslash continue no comment onto a field.
#[test]
fn nested_containers_read_and_compile_with_strict_warnings() {
    let digits = json!({"type": "array", "maxItems": 4, "items": {"type": "integer", "minimum": 0, "maximum": 9}});
    let grid = doc(
        "types/Grid.json",
        "Grid",
        json!({
            "type": "object",
            "properties": {
                "rows": {"type": "array", "items": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "description": "Cells, each a path such as C:\\"},
                "byName": {"type": "object", "additionalProperties": digits, "description": "Digits by name (*/ is no end)\\ "},
                "maps": {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": digits}}, "description": "Maps."},
            },
            "required": [],
            "additionalProperties": false,
        }),
    );
    let model = model(&small_set_and_errors(vec![grid])).expect("modelled");
    let origin = super::Origin {
        command: "test",
        schemas: "small".into(),
    };
    let value =
        r#"{"byName":{"a":[1,2],"b":[]},"maps":[{"x":{"y":[3]}},{}],"rows":[[["p","q"],[]],[]]}"#;
    let dir = std::env::temp_dir().join(format!("vdm-nested-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("vdm")).expect("a scratch folder");
    for (name, text) in super::cpp::files(&model, "0.0.0", &origin).expect("C++ emitted") {
        std::fs::write(dir.join("vdm").join(name), text).expect("a header written");
    }
    for (name, text) in super::ts::files(&model, "0.0.0", &origin).expect("TypeScript emitted") {
        std::fs::write(dir.join(name), text).expect("a module written");
    }
    let source = dir.join("nested.cpp");
    std::fs::write(
        &source,
        format!(
            "#include <iostream>\n#include \"vdm/contract.hpp\"\n#include \"vdm/frame.hpp\"\n\n\
             int main() {{\n  vdm::contract::Grid grid;\n  vdm::contract::from_json(nlohmann::json::parse(R\"({value})\"), grid);\n\
             \x20 nlohmann::json back = grid;\n  std::cout << back.dump();\n  return 0;\n}}\n"
        ),
    )
    .expect("the source is written");
    let program = dir.join("nested");
    let warnings = include_str!("../../../bindings/cpp/strict-warnings.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    build_cpp(
        &dir,
        &source,
        &program,
        ["-Werror"].into_iter().chain(warnings),
    );
    let cpp = std::process::Command::new(&program)
        .output()
        .expect("the program runs");
    let ts = std::process::Command::new("node")
        .arg("--input-type=module")
        .arg("-e")
        .arg(format!(
            "import {{ reserialize }} from {:?}; process.stdout.write(JSON.stringify(reserialize(\"Grid\", {value})));",
            dir.join("index.js").display().to_string()
        ))
        .output()
        .unwrap_or_else(|err| panic!("node cannot start ({err}); `cargo xtask test` installs it"));
    let _ = std::fs::remove_dir_all(&dir);
    for (language, output) in [("C++", cpp), ("TypeScript", ts)] {
        assert!(
            output.status.success(),
            "{language}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let back: Value = serde_json::from_slice(&output.stdout).expect("JSON written back");
        let sent: Value = serde_json::from_str(value).expect("JSON");
        assert_eq!(back, sent, "{language} wrote back another value");
    }
}

#[test]
fn a_rule_testing_other_than_strings_is_refused() {
    for when in [json!([2]), json!([])] {
        let err = model(&small_set(when.clone()))
            .err()
            .unwrap_or_else(|| panic!("{when} was modelled"));
        let text = format!("{err:#}");
        assert!(text.starts_with("events/event.thing.json#/"), "{text}");
        assert!(text.contains("`enum` or `const` of strings"), "{text}");
        // Said as lint says its findings: the place, then the rule.
        let (place, rest) = text.split_once(": ").expect("a place");
        assert!(!place.contains(' '), "{text}");
        assert!(rest.starts_with("[codegen.model] "), "{text}");
    }
}

macro_rules! snapshots {
    ($($test:ident: $name:expr;)*) => {$(
        #[test]
        fn $test() {
            let model = small();
            insta::assert_snapshot!(
                concat!("cpp_", stringify!($test)),
                super::cpp::emitted(&model, $name).expect("C++ emitted")
            );
            insta::assert_snapshot!(
                concat!("ts_", stringify!($test)),
                super::ts::emitted(&model, $name).expect("TypeScript emitted")
            );
        }
    )*};
}

snapshots! {
    string_enum: Some("Color");
    int_enum: Some("Level");
    alias: Some("ThingId");
    struct_with_bounds_pattern_and_secret: Some("ThingMakeParams");
    struct_with_a_rule: Some("ThingEvent");
    bodies: None;
}

/// A free-form value inside a named type inside a struct's field (the
/// type itself, a list of it, a map of it, an optional one): a write that
/// refuses it for its depth throws from inside the nested `to_json`, and
/// leaks nothing (built under AddressSanitizer with its leak check).
/// nlohmann does not destroy what a throwing `to_json` built inside its
/// converting constructor, so each level writes into a json already built.
#[test]
fn a_refused_write_nested_in_named_fields_leaks_nothing() {
    let inner = doc(
        "types/Inner.json",
        "Inner",
        json!({
            "type": "object",
            "properties": {"data": {"description": "Anything."}},
            "required": ["data"],
            "additionalProperties": false,
        }),
    );
    let at = |field: &str| json!({"$ref": "Inner.json", "description": format!("The {field}.")});
    let outer = doc(
        "types/Outer.json",
        "Outer",
        json!({
            "type": "object",
            "properties": {
                "one": at("one"),
                "list": {"type": "array", "items": at("item"), "description": "A list."},
                "byName": {"type": "object", "additionalProperties": at("entry"), "description": "A map."},
                "grid": {"type": "array", "items": {"type": "array", "items": at("cell")}, "description": "Lists."},
                "maybe": at("maybe"),
            },
            "required": ["one", "list", "byName", "grid"],
            "additionalProperties": false,
        }),
    );
    let model = model(&small_set_and_errors(vec![inner, outer])).expect("modelled");
    let origin = super::Origin {
        command: "test",
        schemas: "small".into(),
    };
    let dir = std::env::temp_dir().join(format!("vdm-nested-leak-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("vdm")).expect("a scratch folder");
    for (name, text) in super::cpp::files(&model, "0.0.0", &origin).expect("C++ emitted") {
        std::fs::write(dir.join("vdm").join(name), text).expect("a header written");
    }
    let source = dir.join("leak.cpp");
    std::fs::write(
        &source,
        r#"#include <iostream>
#include "vdm/contract.hpp"

using vdm::contract::Inner;
using vdm::contract::Outer;

int main() {
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 200; i++) deep = nlohmann::json::array({deep});
  Inner bad;
  bad.data = deep;
  Inner good;
  good.data = 1;
  const char* places[] = {"one", "list", "byName", "grid", "maybe"};
  for (const char* place : places) {
    Outer outer;
    outer.one = good;
    const std::string at = place;
    if (at == "one") outer.one = bad;
    if (at == "list") outer.list = {good, bad};
    if (at == "byName") outer.by_name = {{"a", good}, {"b", bad}};
    if (at == "grid") outer.grid = {{good}, {good, bad}};
    if (at == "maybe") outer.maybe = bad;
    nlohmann::json j;
    try {
      vdm::contract::to_json(j, outer);
      std::cerr << "written with a value too deep at " << at << "\n";
      return 1;
    } catch (const vdm::contract::ContractError&) {
    }
  }
  Outer fine;
  fine.one = good;
  fine.list = {good};
  nlohmann::json j;
  vdm::contract::to_json(j, fine);
  std::cout << j.dump();
  return 0;
}
"#,
    )
    .expect("the source is written");
    let program = dir.join("leak");
    build_cpp(
        &dir,
        &source,
        &program,
        [
            "-O1",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
        ],
    );
    let run = std::process::Command::new(&program)
        .env("ASAN_OPTIONS", "detect_leaks=1")
        .output()
        .expect("the program runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written: Value = serde_json::from_slice(&run.stdout).expect("JSON written");
    assert_eq!(
        written,
        json!({"one": {"data": 1}, "list": [{"data": 1}], "byName": {}, "grid": []})
    );
}
