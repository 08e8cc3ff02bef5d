//! Draws moved towards the semantic rules before `check` judges them.

use serde_json::{Map, Value};

/// Moves every object in `value` towards the semantic rules
/// (`docs/conformance.md`): the schemas' `if`/`then`/`else` rules
/// ([`Condition`]), and the byte geometry of tasks, summaries and segments
/// (segments listed by index that tile `[0, sizeBytes - 1]`, downloaded
/// counts within their ranges and summed into the summary, complete means
/// full). A value the sampler built is bounded in depth, so the walk is too.
pub(super) fn repair(value: &mut Value, conditions: &[Condition]) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|item| repair(item, conditions)),
        Value::Object(fields) => {
            fields
                .values_mut()
                .for_each(|field| repair(field, conditions));
            for condition in conditions {
                condition.apply(fields);
            }
            repair_segment(fields);
            repair_summary(fields);
            repair_detail(fields);
        }
        _ => {}
    }
}

fn uint(fields: &Map<String, Value>, name: &str) -> Option<u64> {
    fields.get(name).and_then(Value::as_u64)
}

fn is_complete(fields: &Map<String, Value>) -> bool {
    fields.get("state").and_then(Value::as_str) == Some("complete")
}

fn repair_segment(segment: &mut Map<String, Value>) {
    let (Some(start), Some(end)) = (uint(segment, "startByte"), uint(segment, "endByte")) else {
        return;
    };
    let (start, end) = (start.min(end), start.max(end));
    segment.insert("startByte".into(), start.into());
    segment.insert("endByte".into(), end.into());
    fill(segment, (end - start).saturating_add(1));
}

/// Keeps `downloadedBytes` within `length`, and equal to it when complete.
fn fill(fields: &mut Map<String, Value>, length: u64) {
    if let Some(done) = uint(fields, "downloadedBytes") {
        let done = if is_complete(fields) {
            length
        } else {
            done.min(length)
        };
        fields.insert("downloadedBytes".into(), done.into());
    }
}

fn repair_summary(summary: &mut Map<String, Value>) {
    if let Some(size) = uint(summary, "sizeBytes") {
        fill(summary, size);
    }
}

fn repair_detail(detail: &mut Map<String, Value>) {
    let Some(Value::Object(summary)) = detail.get("summary") else {
        return;
    };
    let size = uint(summary, "sizeBytes").unwrap_or(0);
    let complete = is_complete(summary);
    let Some(Value::Array(segments)) = detail.get_mut("segmentDetail") else {
        return;
    };
    if size == 0 {
        segments.clear();
        return;
    }
    if segments.is_empty() {
        return;
    }
    let count = u64::try_from(segments.len()).unwrap_or(u64::MAX).min(size);
    segments.truncate(usize::try_from(count).unwrap_or(usize::MAX));
    let (base, longer) = (size / count, size % count);
    let (mut start, mut sum) = (0u64, 0u64);
    for (index, segment) in (0u64..).zip(segments.iter_mut()) {
        let Value::Object(segment) = segment else {
            continue;
        };
        let length = base + u64::from(index < longer);
        segment.insert("index".into(), index.into());
        segment.insert("startByte".into(), start.into());
        segment.insert("endByte".into(), (start + (length - 1)).into());
        if complete {
            segment.insert("downloadedBytes".into(), length.into());
        }
        fill(segment, length);
        sum = sum.saturating_add(uint(segment, "downloadedBytes").unwrap_or(0));
        start = start.saturating_add(length);
    }
    if let Some(Value::Object(summary)) = detail.get_mut("summary") {
        summary.insert("segments".into(), count.into());
        summary.insert("downloadedBytes".into(), sum.into());
    }
}

/// One `if`/`then`/`else` rule of a type's `allOf`, whose `if` tests one
/// property against a `const` or an `enum` (the shape the contract's rules
/// take: `error.http_status`, `error.cause`, `summary.error_state`,
/// `checksum.length`). Read from the schemas, so each release repairs by its
/// own rules.
pub(super) struct Condition {
    /// The type's properties and required names: an object is taken for
    /// the type when it has every required one and no other.
    properties: Map<String, Value>,
    required: Vec<String>,
    tested: String,
    values: Vec<Value>,
    then: Value,
    otherwise: Value,
}

impl Condition {
    pub(super) fn all(set: &contract::SchemaSet) -> Vec<Condition> {
        let mut out = Vec::new();
        for doc in set.of_kind(contract::DocKind::Type) {
            let schema = &doc.value;
            let (Some(properties), Some(parts)) = (
                schema.get("properties").and_then(Value::as_object),
                schema.get("allOf").and_then(Value::as_array),
            ) else {
                continue;
            };
            let required: Vec<String> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| crate::strings(names))
                // No `required`: none are, as JSON Schema reads it.
                .unwrap_or_default();
            for part in parts {
                let Some((tested, test)) = part
                    .pointer("/if/properties")
                    .and_then(Value::as_object)
                    .filter(|tests| tests.len() == 1)
                    .and_then(|tests| tests.iter().next())
                else {
                    continue;
                };
                let values = match (test.get("const"), test.get("enum")) {
                    (Some(one), None) => vec![one.clone()],
                    (None, Some(Value::Array(many))) => many.clone(),
                    _ => continue,
                };
                out.push(Condition {
                    properties: properties.clone(),
                    required: required.clone(),
                    tested: tested.clone(),
                    values,
                    then: part.get("then").cloned().unwrap_or(Value::Bool(true)),
                    otherwise: part.get("else").cloned().unwrap_or(Value::Bool(true)),
                });
            }
        }
        out
    }

    /// Makes `fields` meet the branch its tested property picks, where the
    /// branch says how: a forbidden member removed, a missing one given its
    /// schema's `minimum`, a string brought within its lengths, a forbidden
    /// `const` removed.
    fn apply(&self, fields: &mut Map<String, Value>) {
        // The tested member first: most objects lack it, and are passed by
        // one lookup.
        let Some(tested) = fields.get(&self.tested) else {
            return;
        };
        let is_instance = fields.len() >= self.required.len()
            && self.required.iter().all(|name| fields.contains_key(name))
            && fields.keys().all(|name| self.properties.contains_key(name));
        if !is_instance {
            return;
        }
        let branch = if self.values.contains(tested) {
            &self.then
        } else {
            &self.otherwise
        };
        let names = |at: &str| -> Vec<String> {
            branch
                .pointer(at)
                .and_then(Value::as_array)
                .map(|names| crate::strings(names))
                // No `required`: none are, as JSON Schema reads it.
                .unwrap_or_default()
        };
        for name in names("/not/required") {
            fields.remove(&name);
        }
        for name in names("/required") {
            let minimum = self
                .properties
                .get(&name)
                .and_then(|schema| schema.get("minimum"));
            if let (false, Some(minimum)) = (fields.contains_key(&name), minimum) {
                fields.insert(name, minimum.clone());
            }
        }
        let Some(constrained) = branch.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, schema) in constrained {
            let forbidden = schema.pointer("/not/const");
            if forbidden.is_some() && fields.get(name) == forbidden {
                fields.remove(name);
            }
            let length = |keyword: &str| {
                schema
                    .get(keyword)
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
            };
            if let Some(Value::String(text)) = fields.get_mut(name) {
                resize(text, length("minLength"), length("maxLength"));
            }
        }
    }
}

/// Brings `text` within `[min, max]` characters: cut, or its own characters
/// repeated.
fn resize(text: &mut String, min: Option<usize>, max: Option<usize>) {
    let count = text.chars().count();
    if let Some(max) = max.filter(|max| count > *max) {
        *text = text.chars().take(max).collect();
    } else if let Some(min) = min.filter(|min| count < *min && count > 0) {
        *text = text.chars().cycle().take(min).collect();
    }
}
