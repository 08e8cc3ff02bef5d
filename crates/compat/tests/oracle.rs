//! The other side of soundness: wherever the checker says a direction is
//! compatible, values the writer's schema accepts must pass the reader's.
//! Values are generated from the writer's schema (every bound and its
//! neighbours, every enum value, each union branch, then a few hundred
//! seeded samples), kept when the `jsonschema` crate says the writer accepts
//! them, and validated against the reader's schema with the same crate. A
//! value the writer accepts and the reader refuses is a missed break: the
//! test fails naming it.

use std::path::Path;

use compat::{compare_documents, Options, Verdict};
use contract::SchemaSet;
use serde_json::{json, Map, Value};

/// A small deterministic generator (xorshift), so every run tries the same values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const MAX_VALUES: usize = 600;

/// Candidate values for `schema` (inside `root`, for local `$ref`s).
fn values(schema: &Value, root: &Value, rng: &mut Rng) -> Vec<Value> {
    values_sampled(schema, root, rng, 300)
}

/// [`values`], with `samples` seeded samples after the boundary values.
fn values_sampled(schema: &Value, root: &Value, rng: &mut Rng, samples: usize) -> Vec<Value> {
    let mut out = Vec::new();
    generate(schema, root, 0, rng, &mut out);
    // Seeded samples: recombine what the bounds gave.
    for _ in 0..samples {
        generate_one(schema, root, 0, rng, &mut out);
    }
    let mut unique: Vec<Value> = Vec::new();
    for value in out {
        if !unique.contains(&value) {
            unique.push(value);
        }
        if unique.len() >= MAX_VALUES {
            break;
        }
    }
    unique
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..16 {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() || schema.get("required").is_some() => {
            vec!["object", "string", "null"]
        }
        _ => vec![
            "null", "boolean", "integer", "number", "string", "array", "object",
        ],
    }
}

/// Boundary values and one of each shape, into `out`.
fn generate(schema: &Value, root: &Value, depth: usize, rng: &mut Rng, out: &mut Vec<Value>) {
    let schema = resolve(schema, root);
    if depth > 5 || out.len() > 4 * MAX_VALUES {
        out.push(Value::Null);
        return;
    }
    let Some(map) = schema.as_object() else {
        out.extend([json!(null), json!(0), json!("a"), json!({}), json!([])]);
        return;
    };
    if let Some(value) = map.get("const") {
        out.push(value.clone());
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        out.extend(values.iter().cloned());
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in map.get(key).and_then(Value::as_array).into_iter().flatten() {
            generate(branch, root, depth + 1, rng, out);
        }
    }
    for key in ["if", "then", "else", "not"] {
        if let Some(part) = map.get(key) {
            generate(part, root, depth + 1, rng, out);
        }
    }
    for ty in types_of(schema) {
        scalars(map, ty, out);
        match ty {
            "array" => {
                out.push(json!([]));
                for _ in 0..3 {
                    generate_array(map, root, depth, rng, out);
                }
            }
            "object" => {
                out.push(json!({}));
                for _ in 0..4 {
                    generate_object(map, root, depth, rng, out);
                }
            }
            _ => {}
        }
    }
}

fn generate_one(schema: &Value, root: &Value, depth: usize, rng: &mut Rng, out: &mut Vec<Value>) {
    let mut some = Vec::new();
    generate(schema, root, depth, rng, &mut some);
    if !some.is_empty() {
        let pick = rng.below(some.len());
        out.push(some.swap_remove(pick));
    }
}

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

fn scalars(map: &Map<String, Value>, ty: &str, out: &mut Vec<Value>) {
    match ty {
        "null" => out.push(Value::Null),
        "boolean" => out.extend([json!(true), json!(false)]),
        "integer" | "number" => {
            let mut points = vec![0.0, 1.0, -1.0, 2.0, 100.0, 1e6, -1e6];
            for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if let Some(x) = number(map, key) {
                    points.extend([x - 1.0, x, x + 1.0, x - 0.5, x + 0.5]);
                }
            }
            if let Some(m) = number(map, "multipleOf") {
                points.extend([m, 2.0 * m, m / 2.0, 3.0 * m]);
            }
            for x in points {
                if ty == "number" || x.fract() == 0.0 {
                    out.push(if x.fract() == 0.0 && x.abs() < 9e15 {
                        json!(x as i64)
                    } else {
                        json!(x)
                    });
                }
            }
            if ty == "number" {
                out.extend([json!(0.5), json!(-2.5)]);
            }
        }
        "string" => {
            out.extend(
                [
                    "",
                    "a",
                    "abc",
                    "A",
                    "Z9",
                    "0",
                    "12345",
                    "x_y-z",
                    "lower",
                    "UPPER",
                    "not a date",
                    "2026-01-01T00:00:00Z",
                    "2026-01-01",
                    "someone@example.org",
                    "https://example.org/a",
                    "S_x",
                    "I_x",
                    "ab",
                    "xyz",
                ]
                .map(|s| json!(s)),
            );
            for key in ["minLength", "maxLength"] {
                if let Some(n) = number(map, key) {
                    let n = (n.max(0.0) as usize).min(64);
                    for len in [n.saturating_sub(1), n, n + 1] {
                        out.push(json!("x".repeat(len)));
                    }
                }
            }
            if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
                let literal: String = pattern
                    .trim_start_matches('^')
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                    .collect();
                out.extend([
                    json!(literal.clone()),
                    json!(format!("{literal}x")),
                    json!(format!("{literal}1")),
                ]);
            }
        }
        _ => {}
    }
}

fn generate_array(
    map: &Map<String, Value>,
    root: &Value,
    depth: usize,
    rng: &mut Rng,
    out: &mut Vec<Value>,
) {
    let mut items = Vec::new();
    for (index, item) in map
        .get("prefixItems")
        .or_else(|| map.get("items").filter(|i| i.is_array()))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let _ = index;
        generate_one(item, root, depth + 1, rng, &mut items);
    }
    let rest = map
        .get("items")
        .filter(|i| i.is_object() || i.is_boolean())
        .or_else(|| map.get("additionalItems"))
        .cloned()
        .unwrap_or(json!(true));
    let min = number(map, "minItems").map_or(0, |n| (n.max(0.0) as usize).min(8));
    let count = min + rng.below(4);
    while items.len() < count {
        generate_one(&rest, root, depth + 1, rng, &mut items);
    }
    if let Some(contains) = map.get("contains") {
        generate_one(contains, root, depth + 1, rng, &mut items);
    }
    if rng.below(3) == 0 {
        if let Some(first) = items.first().cloned() {
            items.push(first);
        }
    }
    out.push(Value::Array(items));
}

fn generate_object(
    map: &Map<String, Value>,
    root: &Value,
    depth: usize,
    rng: &mut Rng,
    out: &mut Vec<Value>,
) {
    let mut object = Map::new();
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, schema) in map
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if required.contains(&name.as_str()) || rng.below(2) == 0 {
            let mut one = Vec::new();
            generate_one(schema, root, depth + 1, rng, &mut one);
            if let Some(value) = one.pop() {
                object.insert(name.clone(), value);
            }
        }
    }
    for name in &required {
        object.entry(name.to_string()).or_insert(json!(0));
    }
    for (pattern, schema) in map
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let literal: String = pattern
            .trim_start_matches('^')
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut one = Vec::new();
        generate_one(schema, root, depth + 1, rng, &mut one);
        if let Some(value) = one.pop() {
            object.insert(format!("{literal}x"), value);
        }
    }
    if rng.below(3) == 0 {
        let mut one = Vec::new();
        generate_one(
            map.get("additionalProperties").unwrap_or(&json!(true)),
            root,
            depth + 1,
            rng,
            &mut one,
        );
        object.insert("zz".into(), one.pop().unwrap_or(json!(1)));
    }
    out.push(Value::Object(object));
}

fn validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}

/// Values `writer` accepts and `reader` refuses.
fn missed(writer: &Value, reader: &Value, seed: u64) -> Vec<Value> {
    let (Some(writes), Some(reads)) = (validator(writer), validator(reader)) else {
        return Vec::new(); // a schema the crate cannot compile decides nothing here
    };
    let mut rng = Rng(seed | 1);
    values(writer, writer, &mut rng)
        .into_iter()
        .filter(|v| writes.is_valid(v) && !reads.is_valid(v))
        .collect()
}

fn set(schema: &Value) -> SchemaSet {
    SchemaSet::from_texts(
        Path::new("cases"),
        [("types/Case.json", schema.to_string().as_str())],
    )
    .expect("one schema loads")
}

/// Missed breaks for one pair of single schemas under strict readers.
fn check_pair(label: &str, old: &Value, new: &Value, seed: u64) -> Vec<String> {
    let comparison = compare_documents(
        &set(old),
        &set(new),
        Options {
            strict_readers: true,
            ..Default::default()
        },
    );
    let mut found = Vec::new();
    for (direction, verdict, writer, reader) in [
        ("W (new writer → old reader)", comparison.writer, new, old),
        ("R (old writer → new reader)", comparison.reader, old, new),
    ] {
        if verdict != Verdict::Compatible {
            continue;
        }
        if let Some(value) = missed(writer, reader, seed).first() {
            found.push(format!("{label}: {direction} is called compatible, but {value} passes the writer and fails the reader"));
        }
    }
    found
}

#[test]
fn no_compatible_verdict_on_the_apicurio_cases_is_refuted_by_a_value() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/apicurio/compatibility-test-data.json");
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cases")).expect("JSON");
    let cases = data["tests"].as_array().expect("tests");
    let mut found = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let label = format!("{} (case {index})", case["id"].as_str().unwrap_or("?"));
        found.extend(check_pair(
            &label,
            &case["original"],
            &case["updated"],
            index as u64 + 1,
        ));
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
}

/// A random schema from the keywords the checker supports.
fn random_schema(rng: &mut Rng, depth: usize) -> Value {
    let pick = if depth > 2 {
        rng.below(6)
    } else {
        rng.below(11)
    };
    match pick {
        0 => json!({"type": "integer", "minimum": rng.below(5), "maximum": 5 + rng.below(5)}),
        1 => json!({"type": "string", "maxLength": 1 + rng.below(6), "minLength": rng.below(2)}),
        2 => {
            let values: Vec<Value> = [json!("a"), json!("b"), json!("c"), json!(1), json!(null)]
                .into_iter()
                .take(1 + rng.below(5))
                .collect();
            json!({ "enum": values })
        }
        3 => json!({"type": ["string", "null"]}),
        4 => {
            let step = [0.5, 1.0, 2.0].get(rng.below(3)).copied().unwrap_or(1.0);
            json!({"type": "number", "multipleOf": step})
        }
        5 => json!({"type": "boolean"}),
        6 => {
            let mut props = Map::new();
            for name in ["a", "b", "c"].iter().take(1 + rng.below(3)) {
                props.insert((*name).into(), random_schema(rng, depth + 1));
            }
            let mut schema = json!({"type": "object", "properties": props});
            if rng.below(2) == 0 {
                schema["required"] = json!(["a"]);
            }
            if rng.below(2) == 0 {
                schema["additionalProperties"] = json!(false);
            }
            if rng.below(3) == 0 {
                schema["maxProperties"] = json!(1 + rng.below(3));
            }
            schema
        }
        7 => {
            json!({"type": "array", "items": random_schema(rng, depth + 1), "maxItems": 1 + rng.below(3), "uniqueItems": rng.below(2) == 0})
        }
        8 => json!({"anyOf": [random_schema(rng, depth + 1), random_schema(rng, depth + 1)]}),
        9 => json!({"oneOf": [random_schema(rng, depth + 1), random_schema(rng, depth + 1)]}),
        _ => json!({"allOf": [random_schema(rng, depth + 1), random_schema(rng, depth + 1)]}),
    }
}

/// A schema like `schema` with one thing changed.
fn mutated(schema: &Value, rng: &mut Rng) -> Value {
    let mut out = schema.clone();
    if let Some(map) = out.as_object_mut() {
        match rng.below(6) {
            0 => {
                if let Some(Value::Number(n)) = map.get("maximum").cloned() {
                    map.insert("maximum".into(), json!(n.as_f64().unwrap_or(0.0) + 1.0));
                }
            }
            1 => {
                map.remove("required");
            }
            2 => {
                map.insert("additionalProperties".into(), json!(false));
            }
            3 => {
                if let Some(Value::Array(values)) = map.get_mut("enum") {
                    values.push(json!("z"));
                }
            }
            4 => return random_schema(rng, 1),
            _ => {
                for value in map.values_mut() {
                    if value.is_object() {
                        *value = mutated(value, rng);
                        break;
                    }
                }
            }
        }
    }
    out
}

#[test]
fn no_compatible_verdict_on_random_schema_pairs_is_refuted_by_a_value() {
    let mut rng = Rng(0x5eed_cafe);
    let mut found = Vec::new();
    let mut compatible = 0;
    for index in 0..300 {
        let old = random_schema(&mut rng, 0);
        let new = mutated(&old, &mut rng);
        let label = format!("pair {index}: {old} → {new}");
        let comparison = compare_documents(
            &set(&old),
            &set(&new),
            Options {
                strict_readers: true,
                ..Default::default()
            },
        );
        compatible +=
            usize::from(comparison.writer.holds()) + usize::from(comparison.reader.holds());
        found.extend(check_pair(&label, &old, &new, index + 7));
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        compatible > 100,
        "only {compatible} compatible directions: the oracle had little to check"
    );
}

/// A schema set as one document: each file under `$defs` by its path, every
/// reference rewritten to point inside it, so one generator and one
/// validator see the whole set.
fn bundle(set: &SchemaSet, open: bool) -> Value {
    fn rewrite(value: &mut Value, set: &SchemaSet, doc: &contract::SchemaDoc) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    if let Ok(target) = contract::resolve_ref(set, doc, reference) {
                        let place = format!(
                            "#/$defs/{}{}",
                            contract::escape_pointer_token(&target.doc.rel),
                            target.pointer
                        );
                        map.insert("$ref".into(), Value::String(place));
                    }
                }
                map.values_mut().for_each(|v| rewrite(v, set, doc));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| rewrite(v, set, doc)),
            _ => {}
        }
    }
    let mut defs = Map::new();
    for doc in &set.docs {
        let mut value = doc.value.clone();
        rewrite(&mut value, set, doc);
        if let Value::Object(map) = &mut value {
            map.remove("$id");
            map.remove("$schema");
        }
        if open {
            compat::confirm::open_objects(&mut value);
        }
        defs.insert(doc.rel.clone(), value);
    }
    json!({ "$defs": defs })
}

fn release(version: &str) -> SchemaSet {
    SchemaSet::load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../contracts/released")
            .join(version)
            .join("schema"),
    )
    .expect("release loads")
}

/// Every method's params and result and every event's params, in each
/// direction the checker calls compatible between two releases (tolerant
/// readers, as the contract's are).
#[test]
fn no_compatible_verdict_between_the_contracts_releases_is_refuted_by_a_value() {
    let (old, new) = (release("1.0.0"), release("1.1.0"));
    let working =
        SchemaSet::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema"))
            .expect("working tree loads");
    let mut found = Vec::new();
    let mut checked = 0;
    for (label, old, new) in [
        ("1.0.0 → 1.1.0", &old, &new),
        ("1.1.0 → working tree", &new, &working),
    ] {
        let comparison = compat::compare_sets(old, new, Options::default());
        for (direction, verdict, writer, reader) in [
            ("W", comparison.writer, new, old),
            ("R", comparison.reader, old, new),
        ] {
            if verdict != Verdict::Compatible {
                continue;
            }
            let (written, read) = (bundle(writer, false), bundle(reader, true));
            for doc in writer
                .docs
                .iter()
                .filter(|d| matches!(d.kind, contract::DocKind::Method | contract::DocKind::Event))
            {
                if !reader.docs.iter().any(|d| d.rel == doc.rel) {
                    continue; // added: judged by the contract's rules
                }
                for shape in ["params", "result"] {
                    if doc.value.pointer(&format!("/$defs/{shape}")).is_none() {
                        continue;
                    }
                    let at = json!({"$ref": format!("#/$defs/{}/$defs/{shape}", contract::escape_pointer_token(&doc.rel))});
                    let mut writer_schema = written.clone();
                    let mut reader_schema = read.clone();
                    writer_schema["$ref"] = at["$ref"].clone();
                    reader_schema["$ref"] = at["$ref"].clone();
                    let (Some(writes), Some(reads)) =
                        (validator(&writer_schema), validator(&reader_schema))
                    else {
                        found.push(format!("{label}: {} {shape} does not compile", doc.rel));
                        continue;
                    };
                    let mut rng = Rng(checked as u64 + 11);
                    for value in values_sampled(&writer_schema, &writer_schema, &mut rng, 40) {
                        if writes.is_valid(&value) {
                            checked += 1;
                            if !reads.is_valid(&value) {
                                found.push(format!("{label} {direction}: {} {shape}: {value} passes the writer and fails the reader", doc.rel));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        checked > 200,
        "only {checked} writer-valid values were generated: the oracle had little to check"
    );
}
