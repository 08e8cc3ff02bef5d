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

/// Writes one line of a report, its control characters escaped: names and
/// pointers come from schema files, and a newline in one would start a
/// line of its own (a forged annotation in a CI log, a broken table).
fn line(out: &mut String, text: std::fmt::Arguments<'_>) {
    out.push_str(&contract::plain(&text.to_string()));
    out.push('\n');
}

/// [`line`], when `out` stays within `budget` bytes with it and nothing was
/// left out before; otherwise counts it in `omitted`, so the rows shown are
/// the first ones in order.
fn line_within(
    out: &mut String,
    budget: usize,
    omitted: &mut usize,
    text: std::fmt::Arguments<'_>,
) {
    let text = contract::plain(&text.to_string());
    if *omitted > 0 || out.len() + text.len() + 1 > budget {
        *omitted += 1;
        return;
    }
    out.push_str(&text);
    out.push('\n');
}

/// The human report. `declared` is the bump `VERSION` makes, when known.
pub fn human(comparison: &Comparison, declared: Option<Bump>) -> String {
    let mut out = String::new();
    let mut group = None;
    for change in &comparison.changes {
        if group != Some(&change.group) {
            line(&mut out, format_args!("{}", change.group));
            if let Some(reaches) = reaches(comparison, &change.group) {
                line(&mut out, format_args!("  reaches: {reaches}"));
            }
            group = Some(&change.group);
        }
        line(
            &mut out,
            format_args!(
                "  {:<32} W {:<6} R {:<6} API {:<6} {}",
                change.rule,
                mark(change.writer),
                mark(change.reader),
                mark(change.api),
                change.detail
            ),
        );
        // A place through a name of thousands of characters is cut as the
        // detail is; `--format json` keeps it whole.
        let pointers = [
            change
                .old_pointer
                .as_deref()
                .map(|p| format!("old {}", cut(p))),
            change
                .new_pointer
                .as_deref()
                .map(|p| format!("new {}", cut(p))),
        ];
        let pointers = pointers.into_iter().flatten().collect::<Vec<_>>();
        if !pointers.is_empty() {
            line(&mut out, format_args!("      {}", pointers.join("  ")));
        }
        if let Some(why) = &change.why {
            line(&mut out, format_args!("      why: {why}"));
        }
        if let Some(example) = &change.example {
            let at = if example.path.is_empty() {
                "(root)".into()
            } else {
                cut(&example.path)
            };
            line(
                &mut out,
                format_args!(
                    "      e.g. at {at}: {} (the {} schema accepts it, the other refuses it)",
                    short(&example.value),
                    example.accepted_by
                ),
            );
        }
    }
    if comparison.changes.is_empty() {
        line(&mut out, format_args!("no changes"));
    }
    out.push('\n');
    line(&mut out, format_args!(
        "new writer → old reader (W): {}; old writer → new reader (R): {}; code on the generated bindings (API): {}; the change set needs {}",
        verdict_word(comparison.writer),
        verdict_word(comparison.reader),
        verdict_word(comparison.api),
        comparison.bump.phrase()
    ));
    if let Some(declared) = declared {
        line(
            &mut out,
            format_args!(
                "VERSION declares {}{}",
                declared.phrase(),
                if declared >= comparison.bump {
                    ""
                } else {
                    ": too little"
                }
            ),
        );
    }
    out
}

/// Which method and event parts use a changed type, and which way each
/// travels: `download.get result (daemon → client), …`. `None` for a group
/// that is not a type.
pub fn reaches(comparison: &Comparison, group: &str) -> Option<String> {
    let reaches = comparison.reaches.get(group)?;
    if reaches.is_empty() {
        return Some("no method or event uses it".into());
    }
    Some(
        reaches
            .iter()
            .map(|r| format!("{} {} ({} → {})", r.name, r.part, r.writer, r.reader))
            .collect::<Vec<_>>()
            .join(", "),
    )
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

/// [`where_of`] as a comment shows it: a pointer through a name of
/// thousands of characters is cut like a change's detail, so its row fits.
fn shown_place(change: &crate::Change) -> String {
    cut(where_of(change))
}

/// A place as people read it: cut like a change's detail past
/// [`crate::DETAIL_CHARS`].
fn cut(place: &str) -> String {
    let mut place = place.to_string();
    crate::bound(&mut place, crate::DETAIL_CHARS);
    place
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

/// GitHub refuses a comment longer than 65,536 characters. The comment
/// stops each part short of its share of this (in bytes, never fewer than
/// characters) and says how many rows it left out.
const COMMENT_BYTES: usize = 60_000;

/// Says how many rows a part of the comment left out: the table stops at
/// two thirds of the budget, who reads what at three quarters, the reasons
/// at all of it (and the lines after the last part are short).
fn left_out(out: &mut String, rows: usize, [one, many]: [&str; 2]) {
    if rows > 0 {
        let what = if rows == 1 { one } else { many };
        out.push('\n');
        line(
            out,
            format_args!(
                "*… and {rows} more {what}, left out to keep the comment within GitHub's size: `cargo xtask compat` prints every one.*"
            ),
        );
    }
}

/// A pull-request comment: one summary line, a table of changes breaking
/// first, the reasons and examples folded away. Past about 60,000
/// characters, the rows that do not fit are counted instead of shown.
pub fn markdown(comparison: &Comparison, declared: Option<Bump>, label: &str) -> String {
    let mut out = String::new();
    let cell = |v: Verdict| match v {
        Verdict::Compatible => "ok",
        Verdict::Breaking => "**breaks**",
    };
    line(
        &mut out,
        format_args!(
            "**Contract compatibility ({}): {} needed** — W {} · R {} · API {}{} ({})",
            markdown_text(label),
            match comparison.bump {
                Bump::None => "no bump".to_string(),
                bump => format!("{bump} bump"),
            },
            verdict_word(comparison.writer),
            verdict_word(comparison.reader),
            verdict_word(comparison.api),
            declared.map_or(String::new(), |d| format!(
                " · VERSION declares {}{}",
                d.phrase(),
                if d >= comparison.bump {
                    ""
                } else {
                    ", too little"
                }
            )),
            readings(comparison),
        ),
    );
    out.push('\n');
    if comparison.changes.is_empty() {
        line(&mut out, format_args!("No changes."));
        return out;
    }
    line(
        &mut out,
        format_args!("| rule | W | R | API | where | change | example |"),
    );
    line(&mut out, format_args!("|---|---|---|---|---|---|---|"));
    let mut omitted = 0;
    for change in review_order(comparison) {
        let example = change
            .example
            .as_ref()
            .map_or(String::new(), |e| code_cell(&short(&e.value)));
        line_within(
            &mut out,
            COMMENT_BYTES * 2 / 3,
            &mut omitted,
            format_args!(
                "| `{}` | {} | {} | {} | {} | {} | {} |",
                change.rule,
                cell(change.writer),
                cell(change.reader),
                cell(change.api),
                code_cell(&shown_place(change)),
                markdown_text(&change.detail),
                example
            ),
        );
    }
    left_out(&mut out, omitted, ["change", "changes"]);
    if !comparison.reaches.is_empty() {
        out.push('\n');
        line(&mut out, format_args!("Who reads what changed:"));
        out.push('\n');
        let mut omitted = 0;
        for group in comparison.reaches.keys() {
            if let Some(reaches) = reaches(comparison, group) {
                line_within(
                    &mut out,
                    COMMENT_BYTES * 3 / 4,
                    &mut omitted,
                    format_args!("- {}: {}", code(group), markdown_text(&reaches)),
                );
            }
        }
        left_out(&mut out, omitted, ["type", "types"]);
    }
    if comparison.changes.iter().all(|c| c.why.is_none()) {
        return out;
    }
    out.push('\n');
    line(
        &mut out,
        format_args!("<details><summary>Why each break</summary>"),
    );
    out.push('\n');
    let mut omitted = 0;
    for change in review_order(comparison) {
        if let Some(why) = &change.why {
            line_within(
                &mut out,
                COMMENT_BYTES,
                &mut omitted,
                format_args!(
                    "- `{}` at {}: {}",
                    change.rule,
                    code(&shown_place(change)),
                    markdown_text(why)
                ),
            );
        }
    }
    left_out(&mut out, omitted, ["reason", "reasons"]);
    out.push('\n');
    line(&mut out, format_args!("</details>"));
    out
}

/// Text markdown shows as it is: what could open a code span, emphasis, a
/// link, math, an HTML comment or tag, or end a table cell is escaped
/// (CommonMark shows an escaped punctuation character as itself), so a
/// value from a schema (an enum value `<!--`) cannot hide the rest of a
/// review or change what it says.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '&' | '~' | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as one inline code span: fenced by one backtick more than its
/// longest run of them, and spaced when it starts or ends with one
/// (CommonMark), so no value ends the span early.
fn code(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// [`code`] in a table cell, where GitHub ends the cell at any `|` not
/// escaped, code spans included.
fn code_cell(text: &str) -> String {
    code(&text.replace('|', "\\|"))
}

/// How much an annotation weighs: a break is an error unless `VERSION`
/// declares the major bump it needs (then a warning, still to be read); any
/// other change is a notice.
fn level(change: &crate::Change, declared: Option<Bump>) -> Level {
    let breaks = !(change.writer.holds() && change.reader.holds() && change.api.holds());
    match (breaks, declared) {
        (false, _) => Level::Notice,
        (true, Some(Bump::Major)) => Level::Warning,
        (true, _) => Level::Error,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Notice,
    Warning,
    Error,
}

impl Level {
    fn github(self) -> &'static str {
        match self {
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    fn sarif(self) -> &'static str {
        match self {
            Level::Notice => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// Where `VERSION` is, for the annotation that says it falls short.
pub const VERSION_FILE: &str = "contracts/VERSION";

/// The sentence for a `VERSION` that declares less than the changes need.
fn shortfall(comparison: &Comparison, declared: Option<Bump>) -> Option<String> {
    let declared = declared?;
    (declared < comparison.bump).then(|| {
        format!(
            "VERSION declares {}, and the changes need {}",
            declared.phrase(),
            comparison.bump.phrase()
        )
    })
}

/// GitHub workflow annotations: an error at `VERSION` when it declares
/// less than the changes need, then one per change, at the changed
/// keyword's file and line, weighed by `level`.
pub fn github(comparison: &Comparison, declared: Option<Bump>, locate: &Locate<'_>) -> String {
    let mut out = String::new();
    // First: GitHub shows a step's first ten errors only, and this one says
    // what to do about all the others.
    if let Some(why) = shortfall(comparison, declared) {
        let _ = writeln!(
            out,
            "::error file={VERSION_FILE},line=1,title=compat bump::{}",
            contract::github_data(&why)
        );
    }
    for change in review_order(comparison) {
        let place = locate(where_of(change)).map_or(String::new(), |(file, line)| {
            format!(" file={},line={line},", contract::github_property(&file))
        });
        let message = format!(
            "W {} R {} API {}: {}{}{}",
            mark(change.writer),
            mark(change.reader),
            mark(change.api),
            change.detail,
            change
                .why
                .as_deref()
                .map_or(String::new(), |w| format!(" — {w}")),
            reaches(comparison, &change.group).map_or(String::new(), |r| format!(" — reaches {r}"))
        );
        let _ = writeln!(
            out,
            "::{}{}title=compat {}::{}",
            level(change, declared).github(),
            if place.is_empty() {
                " ".to_string()
            } else {
                place
            },
            change.rule,
            contract::github_data(&message)
        );
    }
    out
}

/// A GitHub workflow error for a comparison that could not be made at all
/// (a file that is not JSON, a document that is not a schema), at the file
/// and line it names where it names one: a lane's review shows it where the
/// change annotations would have been.
pub fn github_failure(place: Option<(String, usize)>, message: &str) -> String {
    let place = place.map_or(String::new(), |(file, line)| {
        format!(" file={},line={line},", contract::github_property(&file))
    });
    format!(
        "::error{}title=compat::{}\n",
        if place.is_empty() { " " } else { &place },
        contract::github_data(message)
    )
}

/// SARIF 2.1.0 for code scanning: one result per change, `error` for a break.
/// Every result has a location: GitHub's code scanning refuses a whole upload
/// when one result lacks one, so a change `locate` finds no place for is
/// shown at line 1 of `fallback`.
pub fn sarif(
    comparison: &Comparison,
    declared: Option<Bump>,
    locate: &Locate<'_>,
    fallback: &str,
) -> serde_json::Value {
    let mut rules: Vec<String> = comparison
        .changes
        .iter()
        .map(|c| c.rule.to_string())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let mut results: Vec<serde_json::Value> = review_order(comparison)
        .into_iter()
        .map(|change| {
            let mut result = serde_json::json!({
                "ruleId": change.rule.to_string(),
                "level": level(change, declared).sarif(),
                "message": {"text": format!(
                    "{} (W {}, R {}, API {}){}",
                    change.detail,
                    mark(change.writer),
                    mark(change.reader),
                    mark(change.api),
                    change.why.as_deref().map_or(String::new(), |w| format!(": {w}"))
                )},
                "properties": {
                    "group": change.group,
                    "writer": change.writer,
                    "reader": change.reader,
                    "api": change.api,
                    "reaches": comparison.reaches.get(&change.group),
                },
            });
            if let Some(fields) = result.as_object_mut() {
                let (file, line) =
                    locate(where_of(change)).unwrap_or_else(|| (fallback.to_string(), 1));
                fields.insert("locations".into(), sarif_locations(&file, line));
            }
            result
        })
        .collect();
    if let Some(why) = shortfall(comparison, declared) {
        rules.push("bump".into());
        results.push(serde_json::json!({
            "ruleId": "bump",
            "level": "error",
            "message": {"text": why},
            "locations": sarif_locations(VERSION_FILE, 1)
        }));
    }
    sarif_log(vec![serde_json::json!({
        "tool": {"driver": {
            "name": "vdm-compat",
            "rules": rules.iter().map(|id| sarif_rule(id)).collect::<Vec<_>>()
        }},
        "results": results
    })])
}

/// A SARIF 2.1.0 log of these runs.
pub fn sarif_log(runs: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": runs
    })
}

/// A SARIF rule: its id and what it means.
fn sarif_rule(id: &str) -> serde_json::Value {
    let text = match id {
        "bump" => "contracts/VERSION declares less of a bump than the changes need".to_string(),
        "compat.failed" => "the comparison could not be made: a file is not JSON, not a schema, or not at its `$id`".to_string(),
        _ => crate::Rule::all()
            .into_iter()
            .find(|rule| rule.id() == id)
            .map_or_else(String::new, crate::Rule::explain),
    };
    serde_json::json!({"id": id, "shortDescription": {"text": text}})
}

/// SARIF for a comparison that could not be made at all: one error at the
/// file and line it names, or at line 1 of `fallback` where it names none
/// (see [`sarif`]), and a run that says it did not finish.
pub fn sarif_failure(
    place: Option<(String, usize)>,
    fallback: &str,
    message: &str,
) -> serde_json::Value {
    let (file, line) = place.unwrap_or_else(|| (fallback.to_string(), 1));
    let result = serde_json::json!({
        "ruleId": "compat.failed",
        "level": "error",
        "message": {"text": message},
        "locations": sarif_locations(&file, line),
    });
    sarif_log(vec![serde_json::json!({
        "tool": {"driver": {"name": "vdm-compat", "rules": [sarif_rule("compat.failed")]}},
        "invocations": [{"executionSuccessful": false}],
        "results": [result]
    })])
}

/// Bytes a path keeps as they are in a URI reference: RFC 3986's unreserved
/// characters, sub-delimiters, `@` and the `/` between segments (a `:` is
/// escaped: in a relative path's first segment it would read as a scheme).
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'@')
    .remove(b'/');

/// A SARIF `locations` array of one place: the file as a URI reference (a
/// space or a `#` in a path would otherwise make another URI, or none), the
/// line at least 1, as SARIF's `region` requires.
fn sarif_locations(file: &str, line: usize) -> serde_json::Value {
    let uri = percent_encoding::utf8_percent_encode(file, URI_PATH).to_string();
    serde_json::json!([{"physicalLocation": {
        "artifactLocation": {"uri": uri},
        "region": {"startLine": line.max(1)}
    }}])
}

/// The line (1-based) where what a JSON pointer names starts in a JSON
/// text: an object member's key, an array element. When the pointer goes
/// further than the text, the line of the deepest part found. serde_json
/// keeps no positions, so the text is walked once here, skipping what the
/// pointer does not enter.
pub fn line_of(text: &str, pointer: &str) -> usize {
    let bytes = text.as_bytes();
    let mut found = 0;
    let mut at = skip_space(bytes, 0);
    for token in pointer.split('/').skip(1) {
        let token = contract::unescape_pointer_token(token);
        let next = match bytes.get(at) {
            Some(b'{') => member(bytes, at, &token),
            Some(b'[') => token
                .parse()
                .ok()
                .and_then(|index| element(bytes, at, index)),
            _ => None,
        };
        let Some((start, value)) = next else { break };
        found = start;
        at = value;
    }
    text.get(..found)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The end of the string starting at `at` (just past its closing quote).
fn skip_string(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    while let Some(&byte) = bytes.get(at) {
        at += match byte {
            b'\\' => 2,
            b'"' => return at + 1,
            _ => 1,
        };
    }
    at
}

/// The end of the value starting at `at`.
fn skip_value(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut at = at;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                at = skip_string(bytes, at);
                if depth == 0 {
                    return at;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth <= 1 {
                    return at + 1;
                }
                depth -= 1;
            }
            b',' | b':' if depth == 0 => return at,
            byte if depth == 0 && byte.is_ascii_whitespace() => return at,
            _ => {}
        }
        at += 1;
    }
    at
}

/// In the object at `at`, the member named `name`: where its key starts and
/// where its value starts.
fn member(bytes: &[u8], at: usize, name: &str) -> Option<(usize, usize)> {
    let mut at = skip_space(bytes, at + 1);
    while bytes.get(at) == Some(&b'"') {
        let key_end = skip_string(bytes, at);
        let key: String = serde_json::from_slice(bytes.get(at..key_end)?).ok()?;
        let colon = skip_space(bytes, key_end);
        let value = skip_space(bytes, colon + 1);
        if key == name {
            return Some((at, value));
        }
        at = skip_space(bytes, skip_value(bytes, value));
        if bytes.get(at) != Some(&b',') {
            return None;
        }
        at = skip_space(bytes, at + 1);
    }
    None
}

/// In the array at `at`, where element `index` starts (twice: it is both
/// what is named and its value).
fn element(bytes: &[u8], at: usize, index: usize) -> Option<(usize, usize)> {
    let mut at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        at = skip_space(bytes, skip_value(bytes, at));
        if bytes.get(at) != Some(&b',') {
            return None;
        }
        at = skip_space(bytes, at + 1);
    }
    Some((at, at))
}
