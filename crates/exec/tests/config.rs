//! Loading a tool set: each refusal names the file, the JSON pointer and what to fix.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use serde_json::json;

fn check_refused(tools: serde_json::Value, pointer: &str, reason: &str) {
    let err = exec::config::parse(Path::new("/etc/vdm/tools.json"), &tools.to_string())
        .expect_err("must be refused");
    assert_eq!(err.file, Path::new("/etc/vdm/tools.json"));
    assert_eq!(err.pointer, pointer, "{err}");
    assert!(err.reason.contains(reason), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("/etc/vdm/tools.json#{pointer}: ")),
        "{err}"
    );
}

#[test]
fn a_good_tool_set_loads() {
    let set = exec::config::parse(
        Path::new("tools.json"),
        &json!({"tools": [{"name": "ls", "command": ["/bin/ls", "-l"], "cwd": "/srv", "subjectCwd": true,
            "inputSchema": {"type": "object"}, "env": ["TERM"], "deadlineSecs": 5}]})
        .to_string(),
    )
    .expect("loads");
    let tool = set.tool("ls").expect("ls");
    assert_eq!(tool.deadline(), std::time::Duration::from_secs(5));
    assert!(set.input_validator("ls").is_some());
}

#[test]
fn an_unknown_field_is_refused() {
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "colour": "red"}]}),
        "/tools/0",
        "unknown field(s) colour",
    );
    check_refused(
        json!({"tools": [], "version": 2}),
        "",
        "unknown field(s) version",
    );
}

#[test]
fn a_duplicate_name_is_refused() {
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"]}, {"name": "ls", "command": ["ls", "-a"]}]}),
        "/tools/1/name",
        "already used by /tools/0",
    );
}

#[test]
fn an_empty_argv_is_refused() {
    check_refused(
        json!({"tools": [{"name": "ls", "command": []}]}),
        "/tools/0/command",
        "",
    );
    check_refused(
        json!({"tools": [{"name": "ls", "command": [""]}]}),
        "/tools/0/command",
        "the argv is empty",
    );
}

#[test]
fn a_relative_cwd_is_refused() {
    for cwd in ["srv/work", ""] {
        check_refused(
            json!({"tools": [{"name": "ls", "command": ["ls"], "cwd": cwd}]}),
            "/tools/0/cwd",
            &format!("{cwd:?} is relative; it would resolve against wherever the executor was started, so give an absolute path"),
        );
    }
}

#[test]
fn an_env_entry_that_names_no_variable_is_refused() {
    for (name, shown) in [
        ("TOKEN=abc", "\"TOKEN=abc\""),
        ("", "\"\""),
        ("A\u{0}B", "\"A\\0B\""),
    ] {
        check_refused(
            json!({"tools": [{"name": "ls", "command": ["ls"], "env": ["LANG", name]}]}),
            "/tools/0/env/1",
            &format!("{shown} is no variable name: env names variables of the executor's own environment to pass through"),
        );
    }
}

/// A value each draft 2020-12 keyword may take (the rest take 1).
fn keyword_value(keyword: &str) -> serde_json::Value {
    match keyword {
        "$schema" => json!("https://json-schema.org/draft/2020-12/schema"),
        "$id" => json!("https://example.invalid/input.json"),
        "$ref" => json!("#"),
        "$anchor" | "$dynamicAnchor" => json!("here"),
        "$dynamicRef" => json!("#here"),
        "$vocabulary" => json!({"https://json-schema.org/draft/2020-12/vocab/core": true}),
        "$comment" | "title" | "description" | "pattern" => json!("a"),
        "format" => json!("date-time"),
        "contentEncoding" => json!("base64"),
        "contentMediaType" => json!("text/plain"),
        "type" => json!("object"),
        "$defs" | "properties" | "patternProperties" | "dependentSchemas" | "dependentRequired" => {
            json!({})
        }
        "prefixItems" | "allOf" | "anyOf" | "oneOf" | "enum" => json!([true]),
        "required" | "examples" => json!([]),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => json!(true),
        "items"
        | "contains"
        | "additionalProperties"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "not"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => {
            json!(true)
        }
        _ => json!(1),
    }
}

/// Every draft 2020-12 keyword is read, at the root and in a subschema, and
/// an `x-` extension is taken; a keyword misspelt (or one of another
/// vocabulary, as OpenAPI's `nullable`) is refused at its place: read as an
/// annotation it would ask nothing. A schema of another draft is not looked
/// at for this.
#[test]
fn an_input_schema_keyword_no_validator_reads_is_refused() {
    for keyword in contract::KEYWORDS {
        let mut schema = json!({"x-ui": {"order": 1}});
        schema[*keyword] = keyword_value(keyword);
        if *keyword == "$dynamicRef" {
            schema["$dynamicAnchor"] = json!("here");
        }
        load_input_schema(&schema).unwrap_or_else(|err| panic!("{keyword} at the root: {err}"));
        if *keyword != "$schema" && *keyword != "$vocabulary" {
            load_input_schema(&json!({"properties": {"p": schema}}))
                .unwrap_or_else(|err| panic!("{keyword} in a subschema: {err}"));
        }
        let misspelt = format!("{keyword}s");
        check_refused(
            json!({"tools": [{"name": "t", "command": ["t"],
                "inputSchema": {"type": "object", "properties": {"a/b": {"items": {misspelt.as_str(): 1}}}}}]}),
            &format!(
                "/tools/0/inputSchema/properties/a~1b/items/{}",
                misspelt.replace('/', "~1")
            ),
            &format!("{misspelt:?} is no draft 2020-12 keyword, so no validator reads it"),
        );
    }
    check_refused(
        json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"$defs": {"a": {"type": "string", "nullable": true}}, "$ref": "#/$defs/a"}}]}),
        "/tools/0/inputSchema/$defs/a/nullable",
        "\"nullable\" is no draft 2020-12 keyword",
    );
    load_input_schema(
        &json!({"$schema": "http://json-schema.org/draft-07/schema#", "readOnly": true}),
    )
    .expect("a draft 7 schema is held to draft 7's keywords");
    check_refused(
        json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "maxLenght": 3}}]}),
        "/tools/0/inputSchema/maxLenght",
        "\"maxLenght\" is no draft 7 keyword",
    );
    // A resource inside it that declares draft 7 is read as draft 7 (its
    // `additionalItems` holds), so it is not held to them either; its
    // neighbours, and a resource declaring draft 2020-12, still are.
    let draft_7 = json!({"$id": "https://example.invalid/old",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array", "items": [{"type": "string"}], "additionalItems": false});
    load_input_schema(&json!({"$ref": "https://example.invalid/old", "$defs": {"old": draft_7}}))
        .expect("an embedded draft 7 resource is not held to draft 2020-12's keywords");
    check_refused(
        json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"$defs": {"old": draft_7}, "maxLenght": 3}}]}),
        "/tools/0/inputSchema/maxLenght",
        "\"maxLenght\" is no draft 2020-12 keyword",
    );
    // With an `$id` it is a resource of the draft it declares.
    check_refused(
        json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"$defs": {"old": draft_7, "new": {"$id": "https://example.invalid/new",
                "$schema": "https://json-schema.org/draft/2020-12/schema#", "maxLenght": 3}}}}]}),
        "/tools/0/inputSchema/$defs/new/maxLenght",
        "\"maxLenght\" is no draft 2020-12 keyword",
    );
    // Without one it is no resource, and the validator reads it in the
    // draft it names where it stands (draft 4 here: `prefixItems` asks
    // nothing), in the enclosing one where a `$ref` reaches it (draft
    // 2020-12: it asks): refused where it names another draft, whichever
    // keywords stand beside it.
    let no_resource = |root: &str, inner: &str, keyword: (&str, serde_json::Value)| {
        let mut sub = json!({"$schema": inner});
        sub[keyword.0] = keyword.1;
        json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"$schema": root, "allOf": [sub], "$defs": {"a": true}}}]})
    };
    for tools in [
        no_resource(
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-04/schema#",
            ("prefixItems", json!([false])),
        ),
        no_resource(
            "http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-07/schema#",
            ("if", json!(true)),
        ),
    ] {
        check_refused(
            tools,
            "/tools/0/inputSchema/allOf/0/$schema",
            "\"$schema\" heads no resource here (no \"$id\" beside it), so which draft the subschema is read in depends on the way to it",
        );
    }
    // Naming the draft it is read in either way, it is harmless.
    load_input_schema(
        &no_resource(
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-07/schema",
            ("maxLength", json!(3)),
        )["tools"][0]["inputSchema"],
    )
    .expect("a subschema naming its own draft loads");
    // Resources nest: draft 2019-09 inside draft 7 inside draft 2020-12,
    // each held to its own draft's keywords, a misspelling named in the
    // innermost, one in its neighbours named there.
    let nested = |inner: serde_json::Value| {
        json!({"tools": [{"name": "t", "command": ["t"], "inputSchema": {
            "allOf": [{"$id": "https://example.invalid/seven",
                "$schema": "http://json-schema.org/draft-07/schema#",
                "items": [{"type": "string"}], "additionalItems": false,
                "properties": {"p": inner}}]}}]})
    };
    let draft_2019 = |extra: (&str, serde_json::Value)| {
        let mut resource = json!({"$id": "https://example.invalid/2019",
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": true, "dependentRequired": {"a": ["b"]}});
        resource[extra.0] = extra.1;
        resource
    };
    load_input_schema(&nested(draft_2019(("maxLength", json!(3))))["tools"][0]["inputSchema"])
        .expect("each resource holds its own draft's keywords");
    check_refused(
        nested(draft_2019(("maxLenght", json!(3)))),
        "/tools/0/inputSchema/allOf/0/properties/p/maxLenght",
        "\"maxLenght\" is no draft 2019-09 keyword",
    );
    check_refused(
        nested(draft_2019(("prefixItems", json!([true])))),
        "/tools/0/inputSchema/allOf/0/properties/p/prefixItems",
        "\"prefixItems\" is no draft 2019-09 keyword",
    );
    let mut beside = nested(draft_2019(("maxLength", json!(3))));
    beside["tools"][0]["inputSchema"]["allOf"][0]["dependentRequired"] = json!({"a": ["b"]});
    check_refused(
        beside,
        "/tools/0/inputSchema/allOf/0/dependentRequired",
        "\"dependentRequired\" is no draft 7 keyword",
    );
}

#[test]
fn an_input_schema_that_does_not_compile_is_refused() {
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": {"properties": {"a": {"type": 12}}}}]}),
        "/tools/0/inputSchema/properties/a/type",
        "is not a JSON Schema: 12 is not valid",
    );
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": {"$ref": "#/$defs/gone"}}]}),
        "/tools/0/inputSchema",
        "a reference leads nowhere: Pointer '/$defs/gone' does not exist",
    );
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": {"$schema": "https://example.org/dialect"}}]}),
        "/tools/0/inputSchema",
        "\"$schema\" names \"https://example.org/dialect\", a dialect the executor does not know",
    );
}

#[test]
fn an_input_schema_with_a_pattern_that_backtracks_is_refused() {
    for pattern in ["^(a|a)+\\1$", "^(?=a)a$", "^(?<=a)a$", "^(?!b)a$", "["] {
        for (schema, inside) in [
            (
                json!({"type": "string", "pattern": pattern}),
                "/pattern".to_string(),
            ),
            (
                json!({"type": "object", "patternProperties": {pattern: {"type": "integer"}}}),
                format!("/patternProperties/{pattern}"),
            ),
        ] {
            check_refused(
                json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": schema}]}),
                &format!("/tools/0/inputSchema{inside}"),
                &format!("the pattern {} is not a regular expression the executor reads: it matches in linear time", json!(pattern)),
            );
        }
    }
    // What the linear engine reads still loads, and checks.
    let set = exec::config::parse(
        Path::new("tools.json"),
        &json!({"tools": [{"name": "ls", "command": ["ls"],
            "inputSchema": {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}}]})
        .to_string(),
    )
    .expect("loads");
    let validator = set.input_validator("ls").expect("compiled");
    assert!(validator.is_valid(&json!(["aaa"])));
    assert!(!validator.is_valid(&json!(["a".repeat(30) + "b"])));
}

#[test]
fn an_input_schema_that_would_fetch_is_refused() {
    for (reference, uri) in [
        (
            "https://example.org/schema.json",
            "https://example.org/schema.json",
        ),
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("other.json", "other.json"),
    ] {
        check_refused(
            json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": {"$ref": reference}}]}),
            "/tools/0/inputSchema",
            &format!("refers to {uri:?}, which the executor never fetches"),
        );
    }
}

#[test]
fn an_input_schema_checks_its_formats() {
    // As every validator of the project does: a `format` read as an
    // annotation would let any string through, and a misspelt one too.
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "inputSchema": {"properties": {"when": {"format": "datetime"}}}}]}),
        "/tools/0/inputSchema/properties/when/format",
        "the format \"datetime\" is none the executor knows",
    );
    let set = exec::config::parse(
        Path::new("tools.json"),
        &json!({"tools": [{"name": "mail", "command": ["cat"],
            "inputSchema": {"properties": {"to": {"format": "email"}, "at": {"format": "date-time"}}}}]})
        .to_string(),
    )
    .expect("loads");
    let validator = set.input_validator("mail").expect("compiled");
    assert!(validator.is_valid(&json!({"to": "a@b.example", "at": "2026-12-04T08:00:00Z"})));
    assert!(!validator.is_valid(&json!({"to": "not an address"})));
    assert!(!validator.is_valid(&json!({"at": "yesterday"})));
}

#[test]
fn a_zero_deadline_is_refused() {
    check_refused(
        json!({"tools": [{"name": "ls", "command": ["ls"], "deadlineSecs": 0}]}),
        "/tools/0/deadlineSecs",
        "minimum of 1",
    );
}

#[test]
fn a_file_that_is_not_json_is_refused() {
    let err = exec::config::parse(Path::new("tools.json"), "{tools: []}").expect_err("not JSON");
    assert!(
        err.to_string().starts_with("tools.json#: not JSON"),
        "{err}"
    );
}

/// A byte that is not UTF-8 is named where it stands, as the wire's
/// policy names it.
#[test]
fn a_file_with_a_byte_that_is_not_utf8_names_the_byte() {
    let path = std::env::temp_dir().join(format!("vdm-exec-utf8-{}.json", std::process::id()));
    std::fs::write(&path, b"{\"tools\": [], \"x\": \"\xc3\x28\"}").unwrap();
    let err = exec::load(&path).expect_err("not UTF-8");
    let _ = std::fs::remove_file(&path);
    assert!(
        err.to_string()
            .ends_with("#: not JSON: byte 20 is not UTF-8"),
        "{err}"
    );
}

/// A tool-set file saved as UTF-16 (PowerShell 5's `>`) or UTF-32 is named
/// as such, with a byte-order mark or without.
#[test]
fn a_file_saved_as_utf16_or_utf32_is_named_as_such() {
    let path = std::env::temp_dir().join(format!("vdm-exec-wide-{}.json", std::process::id()));
    let text = r#"{"tools": []}"#;
    let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let utf32: Vec<u8> = text
        .chars()
        .flat_map(|c| u32::from(c).to_le_bytes())
        .collect();
    for (bom, body, said) in [
        (
            &[0xFF, 0xFE][..],
            &utf16,
            "UTF-16, not UTF-8 (it starts with a UTF-16 byte-order mark)",
        ),
        (
            &[][..],
            &utf16,
            "UTF-16, not UTF-8 (a NUL byte beside its first character)",
        ),
        (
            &[0xFF, 0xFE, 0, 0][..],
            &utf32,
            "UTF-32, not UTF-8 (it starts with a UTF-32 byte-order mark)",
        ),
        (
            &[][..],
            &utf32,
            "UTF-32, not UTF-8 (three NUL bytes beside its first character)",
        ),
    ] {
        let mut bytes = bom.to_vec();
        bytes.extend(body);
        std::fs::write(&path, bytes).unwrap();
        let err = exec::load(&path).expect_err("not UTF-8");
        assert!(
            err.to_string().ends_with(&format!(
                "#: not JSON: the file is {said}; save it as UTF-8"
            )),
            "{err}"
        );
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_missing_file_is_refused_by_name() {
    let err = exec::load(Path::new("/nonexistent/tools.json")).expect_err("missing");
    assert!(
        err.to_string()
            .starts_with("/nonexistent/tools.json#: cannot read"),
        "{err}"
    );
}

/// `contracts/schema/config/ToolSet.json` is a contract file like the others;
/// the loader's Rust types must describe exactly what it says.
#[test]
fn the_tool_set_types_match_the_contract_file() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../contracts/schema/config/ToolSet.json"
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("ToolSet.json")).expect("JSON");
    assert_eq!(
        exec::config::schema(),
        file,
        "contracts/schema/config/ToolSet.json and exec::config's types disagree: change both together"
    );
}

/// A tool-set file is read by the wire's JSON text policy: a member named
/// twice is refused, not read as its last value, so the command a reviewer
/// reads first is never swapped for another.
#[test]
fn a_member_named_twice_is_refused() {
    let text = r#"{"tools": [{"name": "list", "command": ["/usr/bin/ls"], "command": ["/usr/bin/rm", "-rf", "/srv"]}]}"#;
    let err = exec::config::parse(Path::new("tools.json"), text).expect_err("refused");
    let said = err.to_string();
    assert!(said.starts_with("tools.json#: not JSON"), "{said}");
    assert!(said.contains("\"command\" appears twice"), "{said}");
}

/// A path to something that never ends (`/dev/zero`) or is far larger
/// than a tool set is refused after a bounded read, not read until memory
/// runs out.
#[test]
fn a_file_past_the_size_bound_is_refused_after_a_bounded_read() {
    let err = exec::load(Path::new("/dev/zero")).expect_err("must be refused");
    assert_eq!(err.pointer, "");
    assert!(err.reason.contains("larger than 16 MiB"), "{}", err.reason);
}

/// What each keyword asks (`sample::keyword_probes`), and two ways of
/// referring: into `$defs` (as into `definitions`), and by `$dynamicRef`.
fn probes() -> Vec<(&'static str, serde_json::Value, serde_json::Value)> {
    let mut probes = sample::keyword_probes();
    probes.push((
        "$defs",
        json!({"$ref": "#/$defs/a", "$defs": {"a": false}}),
        json!(1),
    ));
    probes.push((
        "$dynamicRef",
        json!({"$dynamicRef": "#/$defs/a", "$defs": {"a": false}}),
        json!(1),
    ));
    // Draft 2019-09's recursion, which the 2020-12 meta-schema still lists.
    probes.push((
        "$recursiveRef",
        json!({"type": "object", "properties": {"n": {"type": "integer"}, "c": {"$recursiveRef": "#"}}}),
        json!({"c": {"n": "x"}}),
    ));
    probes
}

/// The `$schema` of each draft, and the keyword naming a resource in it.
const DRAFTS: [(&str, &str, &str); 5] = [
    ("draft 4", "http://json-schema.org/draft-04/schema#", "id"),
    ("draft 6", "http://json-schema.org/draft-06/schema#", "$id"),
    ("draft 7", "http://json-schema.org/draft-07/schema#", "$id"),
    (
        "draft 2019-09",
        "https://json-schema.org/draft/2019-09/schema",
        "$id",
    ),
    (
        "draft 2020-12",
        "https://json-schema.org/draft/2020-12/schema",
        "$id",
    ),
];

/// The keyword check and the validator agree, in every draft, at the root
/// and in a resource of any draft inside a schema of any other: a schema
/// holding a keyword loads exactly when the validator reads the keyword
/// (some instance it refuses). Which keywords a draft reads is the
/// validator's answer, not a list of this test's.
#[test]
fn an_input_schema_loads_exactly_when_the_validator_reads_its_keywords() {
    let mut disagreements = Vec::new();
    let mut compared = (0, 0);
    let mut try_one = |label: String,
                       schema: serde_json::Value,
                       instance: &serde_json::Value,
                       annotation: bool,
                       probe: (&str, &serde_json::Value, &str)| {
        // A schema the validator refuses to compile is refused for that.
        let Ok(validator) = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
        else {
            return;
        };
        let reads = !validator.is_valid(instance) || annotation;
        if reads {
            compared.0 += 1
        } else {
            compared.1 += 1
        }
        match (reads, load_input_schema(&schema)) {
            (true, Err(err)) => disagreements.push(format!("{label}: read, and refused: {err}")),
            (false, Ok(_)) => disagreements.push(format!("{label}: not read, and loaded")),
            (false, Err(err)) if !refuses_a_keyword_of(&err.reason, probe.0, probe.1, probe.2) => {
                disagreements.push(format!("{label}: not read, and refused otherwise: {err}"));
            }
            _ => {}
        }
    };
    // Annotations ask nothing of any instance, so the validator cannot
    // tell whether a draft defines them: the test above loads them.
    let probes = probes()
        .into_iter()
        .filter(|(k, ..)| instance_refused_anywhere(k));
    for (keyword, fragment, instance) in probes {
        for (name, uri, _) in DRAFTS {
            let mut schema = fragment.clone();
            schema["$schema"] = json!(uri);
            let defined = content_annotation(keyword, name);
            try_one(
                format!("{keyword} in {name}"),
                schema,
                &instance,
                defined,
                (keyword, &fragment, name),
            );
            for (inner, inner_uri, id) in DRAFTS {
                let mut resource = fragment.clone();
                resource["$schema"] = json!(inner_uri);
                resource[id] = json!("https://example.invalid/inner.json");
                // Where the fragment refers within itself, its resource is
                // the one referred from.
                let schema = json!({"$schema": uri, "allOf": [resource]});
                let defined = content_annotation(keyword, inner);
                try_one(
                    format!("{keyword} in {inner} inside {name}"),
                    schema,
                    &instance,
                    defined,
                    (keyword, &fragment, inner),
                );
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // Both answers came up often: the drafts differ.
    assert!(compared.0 > 200 && compared.1 > 100, "{compared:?}");
}

/// Whether `reason` is the refusal, as no keyword of `draft`, of the
/// probed `keyword` or another keyword of the probe's `fragment` (a probe
/// may hold several the draft does not read: `then` comes with `if`).
fn refuses_a_keyword_of(
    reason: &str,
    keyword: &str,
    fragment: &serde_json::Value,
    draft: &str,
) -> bool {
    let members = fragment.as_object().map(|members| members.keys());
    std::iter::once(keyword)
        .chain(members.into_iter().flatten().map(String::as_str))
        .any(|name| {
            reason.starts_with(&format!(
                "{name:?} is no {draft} keyword, so no validator reads it"
            ))
        })
}

/// Where a subschema stands in a schema of `draft` (each applicator that
/// holds one), with the fragment there and an instance that reaches it.
fn positions(
    draft: &str,
    fragment: &serde_json::Value,
    instance: &serde_json::Value,
) -> Vec<(&'static str, serde_json::Value, serde_json::Value)> {
    let (f, i) = (fragment, instance);
    let mut at = vec![
        (
            "properties",
            json!({"properties": {"p": f}}),
            json!({"p": i}),
        ),
        (
            "patternProperties",
            json!({"patternProperties": {"^p$": f}}),
            json!({"p": i}),
        ),
        (
            "additionalProperties",
            json!({"additionalProperties": f}),
            json!({"p": i}),
        ),
        ("items", json!({"items": f}), json!([i])),
        ("allOf", json!({"allOf": [f]}), i.clone()),
        ("anyOf", json!({"anyOf": [f]}), i.clone()),
        ("oneOf", json!({"oneOf": [f]}), i.clone()),
    ];
    if draft != "draft 2020-12" {
        at.push(("items as a list", json!({"items": [f]}), json!([i])));
        at.push((
            "additionalItems",
            json!({"items": [true], "additionalItems": f}),
            json!([0, i]),
        ));
    } else {
        at.push(("prefixItems", json!({"prefixItems": [f]}), json!([i])));
    }
    if draft != "draft 4" {
        at.push(("contains", json!({"contains": f}), json!([i])));
    }
    if !matches!(draft, "draft 4" | "draft 6") {
        at.push(("then", json!({"if": true, "then": f}), i.clone()));
        at.push(("else", json!({"if": false, "else": f}), i.clone()));
    }
    at
}

/// The keyword check and the validator agree at every place a subschema
/// stands, in every draft, for a plain subschema and for a resource of
/// every draft: where a meta-schema offers a choice (draft 7's `items`, one
/// schema or a list of them), a keyword failing one branch is still found.
#[test]
fn an_input_schema_loads_exactly_when_the_validator_reads_its_keywords_anywhere() {
    let mut disagreements = Vec::new();
    let mut compared = (0, 0);
    let probes = probes()
        .into_iter()
        .filter(|(k, ..)| instance_refused_anywhere(k))
        // `#` names the root, which is another schema than the probe's here.
        .filter(|(k, ..)| *k != "$recursiveRef");
    for (keyword, fragment, instance) in probes {
        // The fragment as it is, read in the draft around it, and as a
        // resource of each draft.
        let resources = DRAFTS.iter().map(|(inner, inner_uri, id)| {
            let mut resource = fragment.clone();
            resource["$schema"] = json!(inner_uri);
            resource[*id] = json!("https://example.invalid/inner.json");
            (Some(*inner), resource)
        });
        for (inner, sub) in std::iter::once((None, fragment.clone())).chain(resources) {
            for (name, uri, _) in DRAFTS {
                let read_in = inner.unwrap_or(name);
                for (place, mut schema, instance) in positions(name, &sub, &instance) {
                    schema["$schema"] = json!(uri);
                    // A schema the validator refuses to compile (a fragment
                    // referring to its own root, now elsewhere) is refused
                    // for that.
                    let Ok(validator) = jsonschema::options()
                        .should_validate_formats(true)
                        .build(&schema)
                    else {
                        continue;
                    };
                    let reads =
                        !validator.is_valid(&instance) || content_annotation(keyword, read_in);
                    if reads {
                        compared.0 += 1
                    } else {
                        compared.1 += 1
                    }
                    let label = match inner {
                        None => format!("{keyword} under {place} in {name}"),
                        Some(inner) => {
                            format!("{keyword} in a {inner} resource under {place} in {name}")
                        }
                    };
                    match (reads, load_input_schema(&schema)) {
                        (true, Err(err)) => {
                            disagreements.push(format!("{label}: read, and refused: {err}"))
                        }
                        (false, Ok(_)) => {
                            disagreements.push(format!("{label}: not read, and loaded"))
                        }
                        (false, Err(err))
                            if !refuses_a_keyword_of(&err.reason, keyword, &fragment, read_in) =>
                        {
                            disagreements
                                .push(format!("{label}: not read, and refused otherwise: {err}"));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(compared.0 > 6000 && compared.1 > 1300, "{compared:?}");
}

/// Where a draft keeps subschemas to refer to.
fn definitions(draft: &str) -> &'static str {
    match draft {
        "draft 4" | "draft 6" | "draft 7" => "definitions",
        _ => "$defs",
    }
}

/// A `$ref` by JSON pointer reads its target in the draft of the resource
/// the pointer starts from: a schema that loads reads every subschema a
/// reference reaches as the draft it is written in. Each probe, written as
/// a resource of each draft (and under that resource's definitions) inside
/// a schema of each draft, is referred to by pointer, by `$id`, and by
/// `$id` and a pointer; where it loads, the validator answers as the probe
/// alone in its own draft answers. A fifth way goes through a definition
/// that refers on by pointer.
#[test]
fn a_schema_that_loads_reads_what_a_reference_reaches_in_its_own_draft() {
    let mut misread = Vec::new();
    let (mut loaded, mut refused) = (0, 0);
    let id_uri = "https://example.invalid/inner.json";
    let probes = probes()
        .into_iter()
        .filter(|(k, ..)| instance_refused_anywhere(k));
    for (keyword, fragment, instance) in probes {
        for (inner, inner_uri, id) in DRAFTS {
            let mut alone = fragment.clone();
            alone["$schema"] = json!(inner_uri);
            let Ok(alone) = jsonschema::options()
                .should_validate_formats(true)
                .build(&alone)
            else {
                continue;
            };
            let written = alone.is_valid(&instance);
            let mut at_root = fragment.clone();
            at_root["$schema"] = json!(inner_uri);
            at_root[id] = json!(id_uri);
            let inner_defs = definitions(inner);
            let deeper = json!({"$schema": inner_uri, id: id_uri, inner_defs: {"c": fragment}});
            for (name, uri, _) in DRAFTS {
                let defs = definitions(name);
                let ways = [
                    (&at_root, format!("#/{defs}/a")),
                    (&at_root, id_uri.to_string()),
                    (&deeper, format!("#/{defs}/a/{inner_defs}/c")),
                    (&deeper, format!("{id_uri}#/{inner_defs}/c")),
                    // Through a definition that refers on.
                    (&at_root, format!("#/{defs}/hop")),
                ];
                for (resource, reference) in ways {
                    // `#` names the resource's root, which is another
                    // schema than the probe's under its definitions.
                    if keyword == "$recursiveRef" && resource == &deeper {
                        continue;
                    }
                    let mut schema = json!({
                        "$schema": uri,
                        defs: {"a": resource},
                        "properties": {"b": {"$ref": reference}}
                    });
                    if reference.ends_with("/hop") {
                        schema[defs]["hop"] = json!({"$ref": format!("#/{defs}/a")});
                    }
                    let Ok(validator) = jsonschema::options()
                        .should_validate_formats(true)
                        .build(&schema)
                    else {
                        continue;
                    };
                    if load_input_schema(&schema).is_err() {
                        refused += 1;
                        continue;
                    }
                    loaded += 1;
                    if validator.is_valid(&json!({"b": instance})) != written {
                        misread.push(format!(
                            "{keyword} in a {inner} resource inside {name}, referred to as {reference}: loaded, and read otherwise"
                        ));
                    }
                }
            }
        }
    }
    assert!(misread.is_empty(), "{}", misread.join("\n"));
    // Both answers came up often: by `$id` the drafts are kept.
    assert!(loaded > 2000 && refused > 2000, "{loaded} {refused}");
}

/// What a `$ref` reaches is read as a schema wherever it stands: under an
/// `x-` extension or a `default`, where no keyword of the schema's holds a
/// schema, the keyword check did not look, and the validator held it to no
/// meta-schema. Each probe there, in every draft, loads exactly when it
/// loads as a schema of its own, and then reads as it does there.
#[test]
fn what_a_reference_reaches_loads_exactly_when_it_loads_alone() {
    let mut disagreements = Vec::new();
    let mut loaded = (0, 0);
    let probes = probes()
        .into_iter()
        // `#` names the root, which is another schema than the probe's here.
        .filter(|(k, ..)| *k != "$recursiveRef");
    for (keyword, fragment, instance) in probes {
        for (name, uri, _) in DRAFTS {
            let mut alone = fragment.clone();
            alone["$schema"] = json!(uri);
            let alone = load_input_schema(&alone);
            let places = [
                (
                    "an extension",
                    json!({"x-shared": {"a": fragment}}),
                    "#/x-shared/a",
                ),
                ("a default", json!({"default": fragment}), "#/default"),
            ];
            for (place, mut schema, reference) in places {
                schema["$schema"] = json!(uri);
                schema["properties"] = json!({"b": {"$ref": reference}});
                // A probe referring within itself leads nowhere here.
                let builds = jsonschema::options()
                    .should_validate_formats(true)
                    .build(&schema);
                if builds.is_err() {
                    continue;
                }
                let label = format!("{keyword} in {place}, reached by {reference}, in {name}");
                match (&alone, load_input_schema(&schema)) {
                    (Ok(alone), Ok(here)) => {
                        loaded.0 += 1;
                        let read = |loaded: &exec::config::Loaded, instance| {
                            loaded.input_validator("t").map(|v| v.is_valid(instance))
                        };
                        if read(alone, &instance) != read(&here, &json!({"b": instance})) {
                            disagreements.push(format!("{label}: read otherwise"));
                        }
                    }
                    (Err(_), Err(_)) => loaded.1 += 1,
                    (Ok(_), Err(err)) => {
                        disagreements.push(format!("{label}: loads alone, refused here: {err}"))
                    }
                    (Err(err), Ok(_)) => {
                        disagreements.push(format!("{label}: refused alone ({err}), loaded here"))
                    }
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(loaded.0 > 350 && loaded.1 > 100, "{loaded:?}");
}

#[test]
fn a_misspelt_keyword_a_reference_reaches_is_refused_by_place() {
    check_refused(
        json!({"tools": [{"name": "t", "command": ["t"], "inputSchema": {
            "x-shared": {"short": {"type": "string", "maxLenght": 3}},
            "properties": {"name": {"$ref": "#/x-shared/short"}}}}]}),
        "/tools/0/inputSchema/x-shared/short/maxLenght",
        "\"maxLenght\" is no draft 2020-12 keyword, so no validator reads it and it asks nothing: check its spelling, or write an extension as \"x-…\" (read as a schema since \"#/x-shared/short\" at /properties/name/$ref reaches it)",
    );
}

/// Probes down random chains of subschemas: each level in place under an
/// applicator or reached by a `$ref` from its parent (by a pointer from the
/// root, or by the level's `$id`), each level a resource of a random draft
/// or not, under a root of a random draft. Wherever the schema loads, the
/// validator reads the probe as the probe alone reads in the draft it is
/// written in. `EXEC_CHAINS` and `EXEC_CHAINS_SEED` draw more, or others.
#[test]
fn a_schema_that_loads_reads_a_probe_down_any_chain_as_written() {
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    let mut rng = sample::Rng::new(number("EXEC_CHAINS_SEED", 7));
    let probes: Vec<_> = probes()
        .into_iter()
        .filter(|(k, ..)| instance_refused_anywhere(k) && *k != "$recursiveRef")
        .collect();
    let root_uri = "https://example.invalid/root.json";
    let (mut loaded, mut refused, mut misread) = (0, 0, Vec::new());
    for case in 0..number("EXEC_CHAINS", 3000) {
        let (Some((keyword, fragment, instance)), Some(&(root_name, root_schema, root_id))) =
            (rng.pick(&probes), rng.pick(&DRAFTS))
        else {
            continue;
        };
        let (mut node, mut wrapped) = (fragment.clone(), instance.clone());
        // The draft the probe is written in: that of the innermost resource
        // around it where it stands.
        let mut written: Option<(&str, &str)> = None;
        let mut defs = serde_json::Map::new();
        let mut way = Vec::new();
        for level in 0..1 + rng.below(3) {
            let uri = format!("https://example.invalid/r{level}.json");
            let resource = rng.chance(50);
            if resource {
                if let Some(&(name, schema, id)) = rng.pick(&DRAFTS) {
                    node["$schema"] = json!(schema);
                    node[id] = json!(uri);
                    written = written.or(Some((name, schema)));
                    way.push(format!("a {name} resource"));
                }
            }
            node = match rng.below(5) {
                0 => {
                    wrapped = json!({"p": wrapped});
                    way.push("under properties".into());
                    json!({"properties": {"p": node}})
                }
                1 => {
                    wrapped = json!([wrapped]);
                    way.push("under items".into());
                    json!({"items": node})
                }
                2 => {
                    way.push("under allOf".into());
                    json!({"allOf": [node]})
                }
                by_pointer_or_id => {
                    // It now stands under the root's definitions.
                    written = written.or(Some((root_name, root_schema)));
                    let name = format!("n{level}");
                    let reference = if by_pointer_or_id == 3 || !resource {
                        format!("{root_uri}#/$defs/{name}")
                    } else {
                        uri
                    };
                    defs.insert(name, node);
                    way.push(format!("reached by {reference}"));
                    json!({"$ref": reference})
                }
            };
        }
        let (_, written_schema) = written.unwrap_or((root_name, root_schema));
        let schema = json!({
            "$schema": root_schema,
            root_id: root_uri,
            "$defs": defs,
            "allOf": [node]
        });
        let mut alone = fragment.clone();
        alone["$schema"] = json!(written_schema);
        let (Ok(alone), Ok(validator)) = (
            jsonschema::options()
                .should_validate_formats(true)
                .build(&alone),
            jsonschema::options()
                .should_validate_formats(true)
                .build(&schema),
        ) else {
            continue;
        };
        if load_input_schema(&schema).is_err() {
            refused += 1;
            continue;
        }
        loaded += 1;
        if validator.is_valid(&wrapped) != alone.is_valid(instance) {
            way.reverse();
            misread.push(format!(
                "case {case}: {keyword} in {root_name}, {}: loaded, and read otherwise",
                way.join(", ")
            ));
        }
    }
    assert!(misread.is_empty(), "{}", misread.join("\n"));
    assert!(loaded > 1200 && refused > 500, "{loaded} {refused}");
}

#[test]
fn a_ref_by_pointer_into_a_resource_of_another_draft_is_refused_by_place() {
    let resource = json!({"$id": "https://example.invalid/list.json",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "prefixItems": [{"type": "integer"}]});
    let tools = |reference: &str| {
        json!({"tools": [{"name": "t", "command": ["t"], "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"list": resource},
            "properties": {"ids": {"$ref": reference}}}}]})
    };
    check_refused(
        tools("#/definitions/list"),
        "/tools/0/inputSchema/properties/ids/$ref",
        "\"#/definitions/list\" reaches \"/definitions/list\", written in draft 2020-12, by a JSON pointer from a draft 7 resource, so the validator reads it as draft 7",
    );
    // By its `$id`, it is read as written.
    let loaded = exec::config::parse(
        Path::new("tools.json"),
        &tools("https://example.invalid/list.json").to_string(),
    )
    .expect("loads");
    let validator = loaded.input_validator("t").expect("validator");
    assert!(!validator.is_valid(&json!({"ids": ["x"]})));
}

/// A subschema naming another draft than the one around it, and no
/// resource (no `$id`), never loads: the validator reads it one way where
/// it stands and another where a `$ref` reaches it.
#[test]
fn a_subschema_naming_another_draft_without_an_id_never_loads() {
    let mut loaded = Vec::new();
    let mut tried = 0;
    for (keyword, fragment, _) in probes() {
        for (name, uri, _) in DRAFTS {
            for (inner, inner_uri, _) in DRAFTS.iter().filter(|(inner, ..)| *inner != name) {
                let mut sub = fragment.clone();
                sub["$schema"] = json!(inner_uri);
                let schema = json!({"$schema": uri, "allOf": [sub]});
                if jsonschema::validator_for(&schema).is_err() {
                    continue;
                }
                tried += 1;
                if load_input_schema(&schema).is_ok() {
                    loaded.push(format!("{keyword} in {inner} inside {name}"));
                }
            }
        }
    }
    assert!(loaded.is_empty(), "{}", loaded.join("\n"));
    assert!(tried > 500, "{tried}");
}

/// Beside a `$ref`, drafts 4, 6 and 7 read no other keyword, and the later
/// drafts read every one: a keyword there loads exactly when the validator
/// reads it there.
#[test]
fn a_keyword_beside_a_ref_loads_exactly_when_the_validator_reads_it_there() {
    let mut disagreements = Vec::new();
    let mut compared = (0, 0);
    for (keyword, fragment, instance) in sample::keyword_probes() {
        if fragment.get("$ref").is_some() || !instance_refused_anywhere(keyword) {
            continue;
        }
        for (name, uri, _) in DRAFTS {
            let mut beside = fragment.clone();
            beside["$ref"] = json!("#/definitions/any");
            for (place, mut schema, instance) in positions(name, &beside, &instance) {
                schema["$schema"] = json!(uri);
                schema["definitions"] = json!({"any": true});
                let Ok(validator) = jsonschema::options()
                    .should_validate_formats(true)
                    .build(&schema)
                else {
                    continue;
                };
                let reads = !validator.is_valid(&instance);
                let annotation = content_annotation(keyword, name);
                if reads {
                    compared.0 += 1;
                } else {
                    compared.1 += 1;
                }
                let label = format!("{keyword} beside a $ref under {place} in {name}");
                match (reads || annotation, load_input_schema(&schema)) {
                    (true, Err(err)) => {
                        disagreements.push(format!("{label}: read, and refused: {err}"));
                    }
                    (false, Ok(_)) => disagreements.push(format!("{label}: not read, and loaded")),
                    (false, Err(err)) if !err.reason.contains("asks nothing") => {
                        disagreements.push(format!("{label}: refused otherwise: {err}"));
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(compared.0 > 500 && compared.1 > 500, "{compared:?}");
}

/// Whether some instance is refused by a schema holding `keyword` where it
/// is read: no annotation's is.
fn instance_refused_anywhere(keyword: &str) -> bool {
    !matches!(
        keyword,
        "title"
            | "description"
            | "default"
            | "examples"
            | "readOnly"
            | "writeOnly"
            | "deprecated"
            | "$comment"
    )
}

/// Keywords drafts 2019-09 and 2020-12 define as annotations (the content
/// vocabulary): they load, though they ask nothing of an instance.
fn content_annotation(keyword: &str, draft: &str) -> bool {
    matches!(
        keyword,
        "contentMediaType" | "contentEncoding" | "contentSchema"
    ) && matches!(draft, "draft 2019-09" | "draft 2020-12")
}

/// A tool set of one tool with `schema` as its `inputSchema`, loaded.
fn load_input_schema(
    schema: &serde_json::Value,
) -> Result<exec::config::Loaded, exec::ConfigError> {
    exec::config::parse(
        Path::new("tools.json"),
        &json!({"tools": [{"name": "t", "command": ["t"], "inputSchema": schema}]}).to_string(),
    )
}

/// What came from the file is shown escaped: a member name with a line
/// break in it starts no line of its own (a forged `error:` in a CI log),
/// and a bidirectional override reorders nothing; the pointer itself is
/// kept as it is.
#[test]
fn a_refusal_shows_what_came_from_the_file_on_one_line() {
    let name = "a\nerror: forged \u{202e}";
    let err = exec::config::parse(
        Path::new("tools.json"),
        &json!({"tools": [{"name": "t", "command": ["t"],
            "inputSchema": {"properties": {name: {"maxLenght": 1}}}}]})
        .to_string(),
    )
    .expect_err("refused");
    assert_eq!(
        err.pointer,
        format!("/tools/0/inputSchema/properties/{name}/maxLenght")
    );
    let shown = err.to_string();
    assert!(
        !shown.contains('\n') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert!(
        shown.starts_with(
            "tools.json#/tools/0/inputSchema/properties/a\\u000aerror: forged \\u202e/maxLenght: "
        ),
        "{shown}"
    );
}
