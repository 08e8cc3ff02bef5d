//! The rules about the set as a whole: the envelope names every method and
//! event once, and secrets and process spawning stay on unix.

use super::*;

/// The envelope's `CallBody`, `ReplyBody` and `EventBody` must name every
/// method and event once, each branch in the one shape a body has
/// (`crate::envelope`): the tag equal to the name and the part taken from
/// that method's or event's own file.
pub(super) fn envelope_coverage(set: &SchemaSet, out: &mut Vec<Violation>) {
    for part in &crate::envelope::BODIES {
        let (body, kind) = (part.name, part.names);
        let Some(doc) = set.get(DocKind::Envelope, body) else {
            if set.of_kind(kind).next().is_some() {
                out.push(Violation {
                    file: set.origin.join("envelope").join(format!("{body}.json")),
                    pointer: Pointer::root(),
                    rule: LintRule::EnvelopeCoverage,
                    message: format!(
                        "missing envelope/{body}.json, which must list every {}",
                        kind.folder()
                    ),
                });
            }
            continue;
        };
        let file = set.display_path(doc);
        let mut report = |pointer: Pointer, message: String| {
            out.push(Violation {
                file: file.clone(),
                pointer,
                rule: LintRule::EnvelopeCoverage,
                message,
            });
        };
        // The shape of each branch (and a name listed twice).
        for (pointer, message) in part.departures(doc) {
            report(pointer, message);
        }
        // Every method or event once, and nothing else.
        for (pointer, message) in part.uncovered(doc, set) {
            report(pointer, message);
        }
    }
}

/// The names Windows keeps for devices, whatever their case and whatever
/// follows a dot (`Aux.json` is the device `AUX`).
const WINDOWS_DEVICES: [&str; 22] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Every file's place is one every file system a lane clones onto keeps:
/// no two are one file where case is ignored (macOS's and Windows' file
/// systems by default; a clone there keeps one of the two, and the other's
/// generated files, its reference page, collide the same way: the later of
/// each pair, by its place, is the one named), and no name is one Windows
/// keeps for a device (a clone there fails, as would the reference page).
pub(super) fn places_every_file_system_keeps(set: &SchemaSet, out: &mut Vec<Violation>) {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    let mut docs: Vec<&SchemaDoc> = set.docs.iter().collect();
    docs.sort_by(|a, b| a.rel.cmp(&b.rel));
    for doc in docs {
        let file_name = doc.rel.rsplit('/').next().unwrap_or_default();
        let device = file_name
            .split('.')
            .next()
            .unwrap_or_default()
            .to_lowercase();
        if WINDOWS_DEVICES.contains(&device.as_str()) {
            out.push(Violation {
                file: set.display_path(doc),
                pointer: Pointer::root(),
                rule: LintRule::Id,
                message: format!(
                    "Windows keeps the name {} for a device, so no clone there holds this \
                     file: rename it",
                    device.to_uppercase()
                ),
            });
        }
        let folded = doc.rel.to_lowercase();
        if let Some(first) = seen.get(&folded) {
            out.push(Violation {
                file: set.display_path(doc),
                pointer: Pointer::root(),
                rule: LintRule::Id,
                message: format!(
                    "this file and {first} differ only in case, and are one file where case is \
                     ignored (macOS's and Windows' file systems by default): rename one"
                ),
            });
        } else {
            seen.insert(folded, &doc.rel);
        }
    }
}

/// Every place a value is checked against (a method's params and result,
/// an event's params, any other file's root) meets at most
/// [`crate::MAX_EXPANDED`] subschemas, each reference followed where it
/// stands, and no schema applies again to one part of the value by two
/// paths: references that fan out make checking every value exponential,
/// in every tool that checks one. (Definitions are measured where these
/// places reach them, so a chain of them is walked once per place, not
/// once per link.)
pub(super) fn expansion_bound(set: &SchemaSet, out: &mut Vec<Violation>) {
    for doc in &set.docs {
        let parts: &[&str] = match doc.kind {
            DocKind::Method => &["params", "result"],
            DocKind::Event => &["params"],
            _ => &[],
        };
        let places: Vec<(Pointer, &Value)> = if parts.is_empty() {
            vec![(Pointer::root(), &doc.value)]
        } else {
            parts
                .iter()
                .filter_map(|part| {
                    let at = Pointer::root().push("$defs").push(part);
                    doc.value.pointer(at.as_str()).map(|schema| (at, schema))
                })
                .collect()
        };
        for (at, schema) in places {
            if let Err(why) = crate::expansion(set, doc, schema, crate::MAX_EXPANDED) {
                out.push(Violation {
                    file: set.display_path(doc),
                    pointer: at,
                    rule: LintRule::Ref,
                    message: why.to_string(),
                });
            }
        }
    }
}

/// A method whose params reach an `x-secret` field, or which spawns
/// processes, must be carried on the unix socket only: nothing that carries a
/// credential or starts a process may be reachable from a browser.
pub(super) fn secret_transport(set: &SchemaSet, out: &mut Vec<Violation>) {
    for doc in set.of_kind(DocKind::Method) {
        let transports = doc.transports();
        if transports == ["unix"] {
            continue;
        }
        let spawns = doc.value.get("x-spawnsProcess").and_then(Value::as_bool) == Some(true);
        let secret = doc.value.pointer("/$defs/params").and_then(|params| {
            let at = Pointer::root().push("$defs").push("params");
            find_secret(set, doc, params, &at)
        });
        let why = match (secret, spawns) {
            (Some(at), _) => Some(format!("its params carry a credential at {at} (x-secret)")),
            (None, true) => Some("it spawns processes (x-spawnsProcess)".to_string()),
            (None, false) => None,
        };
        if let Some(why) = why {
            out.push(Violation {
                file: set.display_path(doc),
                pointer: Pointer::root().push("x-transports"),
                rule: LintRule::SecretTransport,
                message: format!(
                    "{} is carried on {transports:?}, but {why}; such a method must be [\"unix\"] only, \
                     so a browser can never reach it",
                    doc.name
                ),
            });
        }
    }
}

/// Where `schema` (at `at` in `doc`), or anything it reaches through
/// `$ref`, marks a credential (`x-secret: true`). Every value below it is
/// looked into, whatever keyword holds it (a secret under `then` or
/// `prefixItems` is as carried as one under `properties`), and each
/// reference target once; a stack, not recursion, so a chain of references
/// of any length is walked.
pub(super) fn find_secret(
    set: &SchemaSet,
    doc: &SchemaDoc,
    schema: &Value,
    at: &Pointer,
) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![(doc, schema, at.clone())];
    while let Some((doc, value, at)) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.get("x-secret").and_then(Value::as_bool) == Some(true) {
                    return Some(format!("{}#{}", doc.rel, at.as_str()));
                }
                // Children in reverse, so the first is looked into first.
                for (key, sub) in map.iter().rev() {
                    // Definitions count where they are referred to.
                    if !matches!(key.as_str(), "$defs" | "definitions") {
                        stack.push((doc, sub, at.push(key)));
                    }
                }
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    if let Ok(target) = resolve_ref(set, doc, reference) {
                        if seen.insert((target.doc.rel.clone(), target.pointer.clone())) {
                            let here = Pointer::from_text(target.pointer);
                            stack.push((target.doc, target.schema, here));
                        }
                    }
                }
            }
            Value::Array(items) => {
                for (index, sub) in items.iter().enumerate().rev() {
                    stack.push((doc, sub, at.push(index)));
                }
            }
            _ => {}
        }
    }
    None
}

/// Every value of the contract's `Transport` is one a method's
/// `x-transports` may name: the meta-schema lists those, and the tools give
/// each its meaning (which a browser reaches, which carries a credential).
/// A value added to `Transport` alone would be a transport nothing can
/// carry a method on, and a new transport is a change to those too.
pub(super) fn transport_vocabulary(set: &SchemaSet, out: &mut Vec<Violation>) {
    let Some(doc) = set.get(DocKind::Type, "Transport") else {
        return;
    };
    let meta: Option<Value> = std::str::from_utf8(walk::META_SCHEMA)
        .ok()
        .and_then(|text| serde_json::from_str(text).ok());
    let known: Vec<&str> = meta
        .as_ref()
        .and_then(|meta| meta.pointer("/$defs/method/properties/x-transports/items/enum"))
        .and_then(Value::as_array)
        .map(|values| values.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (index, value) in doc
        .value
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if !value.as_str().is_some_and(|name| known.contains(&name)) {
            out.push(Violation {
                file: set.display_path(doc),
                pointer: Pointer::root().push("enum").push(index),
                rule: LintRule::Annotation,
                message: format!(
                    "{value} is a transport no method can name: `x-transports` takes {} (schema/contract-schema.json), and the tools give each transport its meaning (which a browser reaches, which may carry a credential); a new transport is a change to those too",
                    known.join(", ")
                ),
            });
        }
    }
}
