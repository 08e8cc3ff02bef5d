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
            let mut seen = BTreeSet::new();
            find_secret(
                set,
                doc,
                params,
                &Pointer::root().push("$defs").push("params"),
                &mut seen,
            )
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

pub(super) fn find_secret<'a>(
    set: &'a SchemaSet,
    doc: &'a SchemaDoc,
    schema: &'a Value,
    at: &Pointer,
    seen: &mut BTreeSet<(String, String)>,
) -> Option<String> {
    let map = schema.as_object()?;
    if map.get("x-secret").and_then(Value::as_bool) == Some(true) {
        return Some(format!("{}#{}", doc.rel, at.as_str()));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        if let Ok(target) = resolve_ref(set, doc, reference) {
            // Each target once: recursive types must not loop.
            if seen.insert((target.doc.rel.clone(), target.pointer.to_string())) {
                let here = Pointer::from_text(target.pointer);
                if let Some(found) = find_secret(set, target.doc, target.schema, &here, seen) {
                    return Some(found);
                }
            }
        }
    }
    let children = map
        .iter()
        .flat_map(|(key, value)| -> Vec<(Pointer, &Value)> {
            match (key.as_str(), value) {
                ("properties" | "$defs", Value::Object(props)) => props
                    .iter()
                    .map(|(name, sub)| (at.push(key).push(name), sub))
                    .collect(),
                ("items" | "additionalProperties", sub) => vec![(at.push(key), sub)],
                ("oneOf" | "anyOf" | "allOf", Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(index, sub)| (at.push(key).push(index), sub))
                    .collect(),
                _ => Vec::new(),
            }
        });
    for (here, sub) in children {
        if let Some(found) = find_secret(set, doc, sub, &here, seen) {
            return Some(found);
        }
    }
    None
}
