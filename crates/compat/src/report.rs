//! The comparison as a reviewer reads it: grouped by method or type, one line
//! per change, the verdict each way, the pointers, the counterexample.

use std::fmt::Write as _;

use crate::{Bump, Comparison, Verdict};

fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Compatible => "ok",
        Verdict::Breaking => "BREAKS",
    }
}

/// The human report. `declared` is the bump `VERSION` makes, when known.
pub fn human(comparison: &Comparison, declared: Option<Bump>) -> String {
    let mut out = String::new();
    let mut group = None;
    for change in &comparison.changes {
        if group != Some(&change.group) {
            let _ = writeln!(out, "{}", change.group);
            group = Some(&change.group);
        }
        let _ = writeln!(
            out,
            "  {:<32} W {:<6} R {:<6} API {:<6} {}",
            change.rule,
            mark(change.writer),
            mark(change.reader),
            mark(change.api),
            change.detail
        );
        let pointers = [
            change.old_pointer.as_deref().map(|p| format!("old {p}")),
            change.new_pointer.as_deref().map(|p| format!("new {p}")),
        ];
        let _ = writeln!(
            out,
            "      {}",
            pointers
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("  ")
        );
        if let Some(why) = &change.why {
            let _ = writeln!(out, "      why: {why}");
        }
        if let Some(example) = &change.example {
            let at = if example.path.is_empty() {
                "(root)".into()
            } else {
                example.path.clone()
            };
            let _ = writeln!(
                out,
                "      e.g. at {at}: {} (the {} schema accepts it, the other refuses it)",
                short(&example.value),
                example.accepted_by
            );
        }
    }
    if comparison.changes.is_empty() {
        let _ = writeln!(out, "no changes");
    }
    let _ = writeln!(
        out,
        "\nnew writer → old reader (W): {}; old writer → new reader (R): {}; code on the generated bindings (API): {}; the change set needs a {} bump",
        verdict_word(comparison.writer),
        verdict_word(comparison.reader),
        verdict_word(comparison.api),
        comparison.bump
    );
    if let Some(declared) = declared {
        let _ = writeln!(
            out,
            "VERSION declares a {declared} bump{}",
            if declared >= comparison.bump {
                ""
            } else {
                ": too little"
            }
        );
    }
    out
}

/// A value for a message: at most 80 characters of its JSON, control
/// characters escaped (JSON text escapes them already; this keeps it so).
pub fn short(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        format!("{cut}… ({})", kind(value))
    } else {
        cut
    }
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Text from elsewhere (a validator's message quoting a value) with its
/// control characters escaped, so a message is one line that says only
/// what it says.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_control() {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Compatible => "compatible",
        Verdict::Breaking => "breaking",
    }
}

/// Where a change is, for annotations: the file to name and the line of the
/// changed keyword. Built by the caller, who knows where the schemas live.
pub type Locate<'a> = dyn Fn(&str) -> Option<(String, usize)> + 'a;

/// Changes in review order: breaking first (any of W, R, API), then by place.
fn review_order(comparison: &Comparison) -> Vec<&crate::Change> {
    let mut changes: Vec<&crate::Change> = comparison.changes.iter().collect();
    changes.sort_by_key(|c| {
        (
            c.writer.holds() && c.reader.holds() && c.api.holds(),
            c.group.clone(),
        )
    });
    changes
}

/// Where a reviewer looks: the new schema, or the old one for what was removed.
fn where_of(change: &crate::Change) -> &str {
    let (first, second) = if change.rule.is_removal() {
        (&change.old_pointer, &change.new_pointer)
    } else {
        (&change.new_pointer, &change.old_pointer)
    };
    first.as_deref().or(second.as_deref()).unwrap_or("")
}

fn readings(comparison: &Comparison) -> String {
    format!(
        "{} readers, formats read as {}",
        match comparison.readers {
            crate::Readers::Strict => "strict",
            crate::Readers::Tolerant => "tolerant",
        },
        match comparison.formats {
            crate::Formats::Assertion => "assertions",
            crate::Formats::Annotation => "annotations",
        }
    )
}

/// A pull-request comment: one summary line, a table of changes breaking
/// first, the reasons and examples folded away.
pub fn markdown(comparison: &Comparison, declared: Option<Bump>, label: &str) -> String {
    let mut out = String::new();
    let cell = |v: Verdict| match v {
        Verdict::Compatible => "ok",
        Verdict::Breaking => "**breaks**",
    };
    let _ = writeln!(
        out,
        "**Contract compatibility ({label}): {} bump needed** — W {} · R {} · API {}{} ({})\n",
        comparison.bump,
        verdict_word(comparison.writer),
        verdict_word(comparison.reader),
        verdict_word(comparison.api),
        declared.map_or(String::new(), |d| format!(
            " · VERSION declares {d}{}",
            if d >= comparison.bump {
                ""
            } else {
                ", too little"
            }
        )),
        readings(comparison),
    );
    if comparison.changes.is_empty() {
        let _ = writeln!(out, "No changes.");
        return out;
    }
    let _ = writeln!(out, "| rule | W | R | API | where | change | example |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for change in review_order(comparison) {
        let example = change.example.as_ref().map_or(String::new(), |e| {
            format!("`{}`", short(&e.value).replace('|', "\\|"))
        });
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | `{}` | {} | {} |",
            change.rule,
            cell(change.writer),
            cell(change.reader),
            cell(change.api),
            where_of(change),
            change.detail.replace('|', "\\|"),
            example
        );
    }
    if comparison.changes.iter().all(|c| c.why.is_none()) {
        return out;
    }
    let _ = writeln!(out, "\n<details><summary>Why each break</summary>\n");
    for change in review_order(comparison) {
        if let Some(why) = &change.why {
            let _ = writeln!(
                out,
                "- `{}` at `{}`: {}",
                change.rule,
                where_of(change),
                why
            );
        }
    }
    let _ = writeln!(out, "\n</details>");
    out
}

/// GitHub workflow annotations, one per change, at the changed keyword's
/// file and line: `error` for a break, `notice` otherwise.
pub fn github(comparison: &Comparison, locate: &Locate<'_>) -> String {
    let mut out = String::new();
    for change in review_order(comparison) {
        let breaks = !(change.writer.holds() && change.reader.holds() && change.api.holds());
        let place = locate(where_of(change)).map_or(String::new(), |(file, line)| {
            format!(" file={file},line={line},")
        });
        let message = format!(
            "W {} R {} API {}: {}{}",
            mark(change.writer),
            mark(change.reader),
            mark(change.api),
            change.detail,
            change
                .why
                .as_deref()
                .map_or(String::new(), |w| format!(" — {w}"))
        );
        let _ = writeln!(
            out,
            "::{}{}title=compat {}::{}",
            if breaks { "error" } else { "notice" },
            if place.is_empty() {
                " ".to_string()
            } else {
                place
            },
            change.rule,
            escape_github(&message)
        );
    }
    out
}

/// Workflow commands end at a newline and read `%` specially.
fn escape_github(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// SARIF 2.1.0 for code scanning: one result per change, `error` for a break.
pub fn sarif(comparison: &Comparison, locate: &Locate<'_>) -> serde_json::Value {
    let mut rules: Vec<String> = comparison
        .changes
        .iter()
        .map(|c| c.rule.to_string())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let results: Vec<serde_json::Value> = review_order(comparison)
        .into_iter()
        .map(|change| {
            let breaks = !(change.writer.holds() && change.reader.holds() && change.api.holds());
            let mut result = serde_json::json!({
                "ruleId": change.rule.to_string(),
                "level": if breaks { "error" } else { "note" },
                "message": {"text": format!(
                    "{} (W {}, R {}, API {}){}",
                    change.detail,
                    mark(change.writer),
                    mark(change.reader),
                    mark(change.api),
                    change.why.as_deref().map_or(String::new(), |w| format!(": {w}"))
                )},
                "properties": {"group": change.group, "writer": change.writer, "reader": change.reader, "api": change.api},
            });
            if let Some((file, line)) = locate(where_of(change)) {
                result["locations"] = serde_json::json!([{"physicalLocation": {
                    "artifactLocation": {"uri": file},
                    "region": {"startLine": line}
                }}]);
            }
            result
        })
        .collect();
    serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "vdm-compat",
                "rules": rules.iter().map(|id| serde_json::json!({"id": id})).collect::<Vec<_>>()
            }},
            "results": results
        }]
    })
}

/// The line (1-based) of the key a JSON pointer ends at, in a pretty-printed
/// JSON text: each token is searched as a `"key":` after the previous one.
/// Array indices are stepped over; the line of the deepest key found is given.
pub fn line_of(text: &str, pointer: &str) -> usize {
    let mut at = 0;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.parse::<usize>().is_ok() {
            continue;
        }
        let key = serde_json::Value::String(token).to_string();
        let rest = text.get(at..).unwrap_or_default();
        // The quoted key, then a colon (with any spaces between).
        let squeezed: Option<usize> = rest.match_indices(key.as_str()).map(|(i, _)| i).find(|i| {
            rest.get(i + key.len()..)
                .is_some_and(|after| after.trim_start().starts_with(':'))
        });
        match squeezed {
            Some(found) => at += found,
            None => break,
        }
    }
    text.get(..at)
        .map_or(1, |before| before.matches('\n').count() + 1)
}
