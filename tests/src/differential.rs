//! Inputs for the differential tests of the four readers
//! ([`crate::readers`]): one-step mutations of the fixtures' values,
//! byte-level mutations of their text, JSON text edge cases spliced into
//! them, and envelopes drawn from the schemas (`crates/sample`). Seeded: the
//! same seed gives the same inputs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use conformance::Rule;
use sample::Rng;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The JSON names of properties whose schema has `format`: neither binding
/// checks formats (docs/bindings.md), so mutations there prove nothing.
pub fn format_fields() -> BTreeSet<String> {
    fn walk(schema: &Value, out: &mut BTreeSet<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    for (name, sub) in props {
                        if sub.get("format").is_some() {
                            out.insert(name.clone());
                        }
                    }
                }
                map.values().for_each(|value| walk(value, out));
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    if let Ok(set) = contract::SchemaSet::load(&root().join("contracts/schema")) {
        set.docs.iter().for_each(|doc| walk(&doc.value, &mut out));
    }
    out
}

/// Every one-step mutation of `value` ([`sample::one_step_mutations`]), and
/// serde's other forms of a struct and an enum value in each place
/// ([`serde_forms`]).
pub fn mutations(value: &Value, skip: &BTreeSet<String>) -> Vec<Value> {
    let mut out = sample::one_step_mutations(value, skip);
    out.extend(serde_forms(value));
    out
}

/// `value` with one object written as the array of its members' values (a
/// struct as serde reads one from an array of its fields) or one string as
/// an object naming it (an enum value as serde reads one from
/// `{"name": null}`): forms serde_json takes and the schemas do not.
pub fn serde_forms(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match value {
        Value::Object(map) => {
            out.push(Value::Array(map.values().cloned().collect()));
            for (name, child) in map {
                for form in serde_forms(child) {
                    let mut changed = map.clone();
                    changed.insert(name.clone(), form);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                for form in serde_forms(child) {
                    let mut changed = items.clone();
                    if let Some(slot) = changed.get_mut(index) {
                        *slot = form;
                    }
                    out.push(Value::Array(changed));
                }
            }
        }
        Value::String(text) => {
            let mut named = serde_json::Map::new();
            named.insert(text.clone(), Value::Null);
            out.push(Value::Object(named));
        }
        _ => {}
    }
    out
}

/// Texts that readers have read differently somewhere, to splice in for a value.
const EDGES: &[&str] = &[
    "1.0",
    "1e3",
    "1E3",
    "-0",
    "0.0",
    "-0.0",
    "1.5",
    "9007199254740991",
    "9007199254740992",
    "-9007199254740992",
    "18446744073709551615",
    "18446744073709551616",
    "1e400",
    "-1e400",
    "1e-400",
    "9007199254740990.5",
    "90071952547409e3",
    "9007199254740993.0",
    "-9.1e15",
    "1.0000000000000001",
    "\"\\ud800\"",
    "\"\\udc00\"",
    "\"\\ud83d\\ude00\"",
    "\"\\u0000\"",
    "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"\\u0061\":2}",
    "[]",
    "{}",
    "null",
    "true",
    "\"\"",
    "\"\\u2028\"",
    "\"é\"",
    "[[[[[[[[[[1]]]]]]]]]]",
    "{\"__proto__\":1}",
    "{\"1\":1,\"0\":2}",
];

/// Bytes that readers have read differently somewhere, to insert.
const BYTES: &[u8] = &[
    0x00, b'"', b'\\', b'{', b'[', b',', b':', b'1', b'.', b'e', b'-', 0xff, 0xef, 0xc3, b'\n',
    b'\r', b' ', 0x7f,
];

/// Where the four readers disagree on `inputs`, or the Rust decoder reads
/// the scan's tokens otherwise than the text, each with the input as text.
pub fn disagreements(
    inputs: &[Vec<u8>],
    cpp: &mut crate::readers::Server,
    ts: &mut crate::readers::Server,
    checker: &conformance::Checker,
) -> Vec<String> {
    let (cpp, ts) = (cpp.read_all(inputs), ts.read_all(inputs));
    let mut out = Vec::new();
    for (index, input) in inputs.iter().enumerate() {
        let (Some(c), Some(t)) = (cpp.get(index), ts.get(index)) else {
            out.push("a reader answered fewer inputs than it was given".to_string());
            break;
        };
        let rust = crate::readers::rust(input);
        let conform = crate::readers::conform(checker, input);
        let from_text = crate::readers::rust_from_text(input);
        let why = crate::readers::disagreement(&rust, c, t, &conform)
            .or_else(|| {
                (from_text != rust).then(|| {
                    format!("Rust read the tokens as {rust:?} and the text as {from_text:?}")
                })
            })
            .or_else(|| beyond_the_bindings(&rust, c, &conform, input));
        if let Some(why) = why {
            let shown: String = String::from_utf8_lossy(input).chars().take(600).collect();
            out.push(format!(
                "{why}\n    input ({} bytes): {shown:?}",
                input.len()
            ));
        }
    }
    out
}

/// For inputs that break one rule in one place: how many all three
/// bindings refuse as not fitting the contract, each naming the same JSON
/// pointer; the first input where their pointers differ, if any.
pub fn pointed_alike(
    inputs: &[Vec<u8>],
    cpp: &mut crate::readers::Server,
    ts: &mut crate::readers::Server,
) -> Result<usize, String> {
    use crate::readers::Read;
    let (from_cpp, from_ts) = (cpp.read_all(inputs), ts.read_all(inputs));
    let mut compared = 0;
    for ((input, cpp), ts) in inputs.iter().zip(&from_cpp).zip(&from_ts) {
        if let (Read::Contract(rust), Read::Contract(c), Read::Contract(t)) =
            (crate::readers::rust(input), cpp, ts)
        {
            if rust != *c || c != t {
                return Err(format!(
                    "Rust {rust:?}, C++ {c:?}, TypeScript {t:?}: {}",
                    String::from_utf8_lossy(input)
                ));
            }
            compared += 1;
        }
    }
    Ok(compared)
}

/// Where a binding accepts more than docs/bindings.md lets it: Rust what
/// C++ refuses, beyond what its types leave to the validator; C++ and
/// TypeScript what the schemas refuse, beyond formats and a tolerant
/// reader's unknown members and names. `None` when neither.
pub fn beyond_the_bindings(
    rust: &crate::readers::Read,
    cpp: &crate::readers::Read,
    conform: &[Rule],
    input: &[u8],
) -> Option<String> {
    beyond_shapes(rust, cpp, input).or_else(|| beyond_tolerance(cpp, conform, input))
}

/// Where Rust accepts what C++ refuses for a reason other than the ones
/// its types leave to the validator: the input breaks the schemas even with
/// those keywords taken out ([`Stripped::RustShapes`]).
fn beyond_shapes(
    rust: &crate::readers::Read,
    cpp: &crate::readers::Read,
    input: &[u8],
) -> Option<String> {
    if !rust.accepted() || cpp.accepted() {
        return None;
    }
    broken(Stripped::RustShapes, input).map(|broken| {
        format!("Rust accepts what C++ refuses ({cpp:?}) for more than a bound, length, pattern, format or if/then rule: {broken}")
    })
}

/// Where C++ and TypeScript accept what the schemas refuse for a reason
/// other than the ones docs/bindings.md gives: a format, a semantic rule, a
/// tolerant reader's unknown member or name ([`Stripped::Tolerant`]).
fn beyond_tolerance(cpp: &crate::readers::Read, conform: &[Rule], input: &[u8]) -> Option<String> {
    if !cpp.accepted() || !conform.contains(&Rule::Schema) || names_unknown(input) {
        return None;
    }
    broken(Stripped::Tolerant, input).map(|broken| {
        format!("C++ and TypeScript accept what the schemas refuse for more than a format or an unknown member: {broken}")
    })
}

/// Whether the schemas as C++ and TypeScript hold them (closed objects
/// opened, formats left out) accept `input`: what every binding must read,
/// an unknown member anywhere included (`docs/bindings.md`).
pub fn tolerated(input: &[u8]) -> bool {
    broken(Stripped::Tolerant, input).is_none()
}

/// `value` with a member no version names added to one object, once for
/// each object in it: what a newer peer writes, which a tolerant reader
/// ignores wherever it stands.
pub fn members_added(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut places = vec![String::new()];
    // Every object's pointer, found with a stack (a value may nest deep).
    let mut stack = vec![(String::new(), value)];
    while let Some((at, value)) = stack.pop() {
        match value {
            Value::Object(members) => {
                if !at.is_empty() {
                    places.push(at.clone());
                }
                for (name, child) in members {
                    let name = name.replace('~', "~0").replace('/', "~1");
                    stack.push((format!("{at}/{name}"), child));
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    stack.push((format!("{at}/{index}"), child));
                }
            }
            _ => {}
        }
    }
    for at in places {
        let mut changed = value.clone();
        if let Some(Value::Object(members)) = changed.pointer_mut(&at) {
            let name = (0..)
                .map(|n| format!("addedLater{n}"))
                .find(|name| !members.contains_key(name))
                .unwrap_or_default();
            members.insert(name, serde_json::json!({"nested": [1, "x", null]}));
            out.push(changed);
        }
    }
    out
}

/// Whether the body names a method or event these bindings do not know:
/// every binding reads it as such, and the schemas refuse it.
fn names_unknown(input: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<Value>(input) else {
        return false;
    };
    let body = value.get("body");
    let named = |key: &str| body.and_then(|b| b.get(key)).and_then(Value::as_str);
    match (named("method"), named("name")) {
        (Some(method), _) if value.get("kind") != Some(&Value::from("event")) => {
            !proto::METHODS.iter().any(|m| m.name == method)
        }
        (_, Some(name)) => !proto::EVENTS.iter().any(|e| e.name == name),
        _ => false,
    }
}

/// The schema findings of a stripped checker on `input`, as one line;
/// `None` when it finds none.
fn broken(which: Stripped, input: &[u8]) -> Option<String> {
    let Some(checker) = which.checker() else {
        return Some(format!("the schemas stripped for {which:?} do not compile"));
    };
    let broken: Vec<String> = match checker.check_text("Envelope", input) {
        Ok(findings) => findings
            .into_iter()
            .filter(|f| f.rule == Rule::Schema)
            .map(|f| format!("{}: {}", f.pointer, f.message))
            .collect(),
        Err(err) => vec![err.to_string()],
    };
    (!broken.is_empty()).then(|| broken.join("; "))
}

/// The contract's schemas as a binding holds them (docs/bindings.md, "What
/// a reader checks"), each without the keywords it leaves to the validator.
/// A closed object's `false` goes from both: every binding reads
/// tolerantly.
#[derive(Clone, Copy, Debug)]
enum Stripped {
    /// Rust's types: shapes, without value assertions and `if`/`then` rules.
    RustShapes,
    /// C++ and TypeScript: everything a schema states but formats.
    Tolerant,
}

impl Stripped {
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Stripped::RustShapes => &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "minLength",
                "maxLength",
                "pattern",
                "format",
                "minItems",
                "maxItems",
                "uniqueItems",
                "minProperties",
                "maxProperties",
                "if",
                "then",
                "else",
            ],
            Stripped::Tolerant => &["format"],
        }
    }

    fn checker(self) -> Option<&'static conformance::Checker> {
        type Cell = std::sync::OnceLock<Option<conformance::Checker>>;
        static SHAPES: Cell = Cell::new();
        static TOLERANT: Cell = Cell::new();
        let cell = match self {
            Stripped::RustShapes => &SHAPES,
            Stripped::Tolerant => &TOLERANT,
        };
        cell.get_or_init(|| {
            let mut set = contract::SchemaSet::load(&root().join("contracts/schema")).ok()?;
            for doc in &mut set.docs {
                strip(&mut doc.value, self.keywords(), false);
            }
            conformance::Checker::new(set).ok()
        })
        .as_ref()
    }
}

/// `schema` without `keywords` and closed objects; `names` when its
/// members are names (of properties or definitions), not keywords.
fn strip(schema: &mut Value, keywords: &[&str], names: bool) {
    match schema {
        Value::Object(map) => {
            if !names {
                map.retain(|key, value| {
                    let closed = matches!(
                        key.as_str(),
                        "additionalProperties" | "unevaluatedProperties"
                    ) && *value == Value::Bool(false);
                    !closed && !keywords.contains(&key.as_str())
                });
            }
            for (key, value) in map.iter_mut() {
                let holds_names = !names
                    && matches!(
                        key.as_str(),
                        "properties"
                            | "$defs"
                            | "definitions"
                            | "patternProperties"
                            | "dependentSchemas"
                    );
                strip(value, keywords, holds_names);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| strip(item, keywords, false)),
        _ => {}
    }
}

/// `count` inputs from the fixtures (and the schemas), seeded.
pub fn inputs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let fixtures = conformance::fixtures::load_fixtures(&root().join("conformance"), "valid")
        .unwrap_or_default();
    let envelopes: Vec<&Value> = fixtures
        .iter()
        .filter(|f| f.type_name == "Envelope")
        .map(|f| &f.value)
        .collect();
    let skip = format_fields();
    // The schemas' faults, and a newer peer's members, which the bindings
    // take and the checker refuses.
    let mutants_of = |base: &Value| {
        let mut mutants = mutations(base, &skip);
        mutants.extend(members_added(base));
        mutants
    };
    let mut drawn = Drawn::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let Some(base) = rng.pick(&envelopes).copied() else {
            break;
        };
        let input = match rng.below(5) {
            0 => {
                let mutants = mutants_of(base);
                rng.pick(&mutants).map(|v| v.to_string().into_bytes())
            }
            1 => Some(bytes(&base.to_string(), &mut rng)),
            2 if rng.chance(25) => Some(escape(&base.to_string(), &mut rng)),
            2 => Some(splice(&base.to_string(), &mut rng)),
            3 => drawn.next(&mut rng),
            _ => {
                // Two steps: a mutant's text, then a byte or an edge.
                let mutants = mutants_of(base);
                rng.pick(&mutants).map(|v| {
                    let text = v.to_string();
                    if rng.chance(50) {
                        bytes(&text, &mut rng)
                    } else {
                        splice(&text, &mut rng)
                    }
                })
            }
        };
        if let Some(input) = input.filter(|i| !i.is_empty() && i.len() <= proto::MAX_FRAME) {
            out.push(input);
        }
    }
    out
}

/// One byte-level change: a byte flipped, inserted or removed, or a slice doubled.
fn bytes(text: &str, rng: &mut Rng) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let at = rng.below(bytes.len() + 1);
    match rng.below(4) {
        0 => {
            if let Some(byte) = bytes.get_mut(at) {
                *byte ^= 1 << rng.below(8);
            }
        }
        1 => bytes.insert(at.min(bytes.len()), rng.pick(BYTES).copied().unwrap_or(0)),
        2 => {
            if at < bytes.len() {
                bytes.remove(at);
            }
        }
        _ => {
            let end = (at + 1 + rng.below(16)).min(bytes.len());
            let slice = bytes.get(at..end).unwrap_or_default().to_vec();
            for (offset, byte) in slice.into_iter().enumerate() {
                bytes.insert(end + offset, byte);
            }
        }
    }
    bytes
}

/// One letter that opens a string (a member name or a value) written as a
/// `\u` escape: the same text to every reader.
fn escape(text: &str, rng: &mut Rng) -> Vec<u8> {
    let bytes = text.as_bytes();
    let places: Vec<usize> = (1..bytes.len())
        .filter(|&i| {
            bytes.get(i - 1) == Some(&b'"') && bytes.get(i).is_some_and(u8::is_ascii_alphabetic)
        })
        .collect();
    let Some(at) = rng.pick(&places).copied() else {
        return bytes.to_vec();
    };
    let letter = bytes.get(at).copied().unwrap_or(b'a');
    [
        bytes.get(..at).unwrap_or_default(),
        format!("\\u{letter:04x}").as_bytes(),
        bytes.get(at + 1..).unwrap_or_default(),
    ]
    .concat()
}

/// An edge case put where a value stands (after a colon, or a comma or
/// bracket inside an array).
fn splice(text: &str, rng: &mut Rng) -> Vec<u8> {
    let places: Vec<usize> = text.match_indices(':').map(|(i, _)| i + 1).collect();
    let Some(at) = rng.pick(&places).copied() else {
        return text.as_bytes().to_vec();
    };
    // The value there ends at the next `,` or `}` at the same depth; cut
    // one token (good enough: the readers must agree on broken text too).
    let rest = text.get(at..).unwrap_or_default();
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    let edge = rng.pick(EDGES).copied().unwrap_or("1.0");
    format!(
        "{}{edge}{}",
        text.get(..at).unwrap_or_default(),
        rest.get(end..).unwrap_or_default()
    )
    .into_bytes()
}

/// Envelopes drawn from the contract's schemas.
struct Drawn {
    registry: Option<jsonschema::Registry<'static>>,
}

impl Drawn {
    fn new() -> Self {
        let registry = contract::SchemaSet::load(&root().join("contracts/schema"))
            .ok()
            .and_then(|set| set.registry().ok());
        Drawn { registry }
    }

    fn next(&mut self, rng: &mut Rng) -> Option<Vec<u8>> {
        let registry = self.registry.as_ref()?;
        let mut sampler = sample::Sampler::new(registry, rng.next_u64());
        sampler
            .draw(&format!("{}envelope/Envelope.json", contract::ID_BASE))
            .ok()
            .map(|v| v.to_string().into_bytes())
    }
}
