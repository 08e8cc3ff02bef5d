//! The conformance gate over `conformance/`: valid fixtures pass every rule,
//! each invalid fixture is refused by exactly the rule it names, every enum
//! value and every method and event direction is covered, the generated Rust
//! types agree with the validator (or the difference is listed with a
//! reason), and the frame fixtures read as their sidecars say.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{Checker, Error, Rule};

/// One fixture file.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Path under `conformance/` (`valid/x.json`).
    pub path: String,
    /// What the fixture shows.
    pub description: String,
    /// The type the value is checked as (`Envelope` for messages).
    pub type_name: String,
    /// The value checked.
    pub value: Value,
    /// For invalid fixtures: the rule that must refuse it.
    pub rule: Option<String>,
    /// Rules that necessarily break with it (half-open ranges break coverage too).
    pub also_breaks: Vec<String>,
    /// Where the rule must be reported, if the fixture says.
    pub pointer: Option<String>,
    /// For invalid fixtures: the JSON Schema keywords its rule fires by,
    /// one per finding (`["required"]`), if the fixture says; a `schema`
    /// fixture must.
    pub keywords: Option<Vec<String>>,
}

/// What the gate found: lines to print, and failures (empty when it passes).
#[derive(Debug, Default)]
pub struct GateReport {
    /// What to print, a line each.
    pub lines: Vec<String>,
    /// What failed, a sentence each.
    pub failures: Vec<String>,
}

/// Every fixture under `root/folder`, by path; the first that cannot be
/// read is the error.
pub fn load_fixtures(root: &Path, folder: &str) -> Result<Vec<Fixture>, Error> {
    read_fixtures(root, folder)?
        .into_iter()
        .map(|(_, read)| read)
        .collect()
}

/// A fixture file's path as [`Fixture::path`] says it (`folder/name`),
/// and the fixture read from it.
type Read = (String, Result<Fixture, Error>);

/// Every fixture under `root/folder`, by path, each read on its own: a file
/// that is not a fixture is its own error, and the others are still read.
fn read_fixtures(root: &Path, folder: &str) -> Result<Vec<Read>, Error> {
    let dir = root.join(folder);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| input(&dir, e.to_string()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    Ok(paths
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            (format!("{folder}/{name}"), read_fixture(path, folder))
        })
        .collect())
}

/// A file's bytes, up to `contract::MAX_FILE`; a FIFO or a device, which
/// would block the read or never end it, is refused by name, and so is a
/// name that could not be shown as it is.
fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if let Cow::Owned(shown) = proto::wire::printable(&name) {
        // Every message names its file: this one would start a line of its
        // own in a log, or show another text than it holds.
        return Err(input(
            &path.with_file_name(shown),
            "a file name with a control or line-breaking character, which no message could show as it is; rename it".into(),
        ));
    }
    if path.exists() && !path.is_file() {
        return Err(input(path, "not a regular file".into()));
    }
    Ok(contract::read_file(path)?)
}

/// A JSON file of the conformance folder, read as the schemas are: a byte
/// that is not UTF-8 is named with its line and column, and a member named
/// twice is refused, where serde_json would keep only its last value.
fn read_document(path: &Path) -> Result<Value, Error> {
    let bytes = read_file(path)?;
    let text = contract::utf8(path, &bytes)?;
    match contract::read_json(text).map_err(|e| input(path, format!("not JSON: {e}")))? {
        Ok(value) => Ok(value),
        Err(deep) => Err(input(
            path,
            format!("nests {} levels deep at {}", deep.depth, deep.pointer),
        )),
    }
}

fn read_fixture(path: &Path, folder: &str) -> Result<Fixture, Error> {
    let raw = read_document(path)?;
    if !raw.is_object() {
        return Err(input(
            path,
            format!(
                "a fixture is a JSON object with \"description\", \"type\" and \"value\"; this is {}",
                crate::kind_of(&raw)
            ),
        ));
    }
    let field = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_string);
    // Present but not text is said so, not called missing.
    let text = |key: &str| {
        field(key).ok_or_else(|| match raw.get(key) {
            None => input(path, format!("missing \"{key}\"")),
            Some(other) => input(
                path,
                format!("\"{key}\" is {}, not a string", crate::kind_of(other)),
            ),
        })
    };
    let invalid = folder == "invalid";
    // In the folders the gate reads, a member it does not read is refused,
    // not skipped: a misspelt "pointer" or "alsoBreaks" would leave what it
    // says unchecked. Another folder's fixtures may carry what their own
    // tests read.
    let members: Option<(&[&str], &str)> = match folder {
        "invalid" => Some((
            &[
                "description",
                "type",
                "value",
                "rule",
                "pointer",
                "alsoBreaks",
                "keywords",
            ],
            "an invalid fixture",
        )),
        "valid" => Some((&["description", "type", "value"], "a valid fixture")),
        _ => None,
    };
    if let Some((members, what)) = members {
        refuse_other_members(path, &raw, members, what)?;
    }
    // A file read from a folder has a name: the default is never taken.
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let strings = |key: &str, what: &str| match raw.get(key) {
        None => Ok(None),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>(),
        )),
        Some(_) => Err(input(
            path,
            format!("\"{key}\" is a list of {what} (strings)"),
        )),
    };
    let also_breaks = strings("alsoBreaks", "rule ids")?.unwrap_or_default();
    let keywords = strings("keywords", "JSON Schema keywords")?;
    // A rule that is not text is said so; a missing one is the gate's own
    // failure, which names the member to add.
    let rule = match raw.get("rule") {
        None => None,
        Some(_) => Some(text("rule")?),
    };
    Ok(Fixture {
        path: format!("{folder}/{name}"),
        description: text("description")?,
        type_name: text("type")?,
        value: raw
            .get("value")
            .cloned()
            .ok_or_else(|| input(path, "missing \"value\"".into()))?,
        rule,
        also_breaks,
        // The gate judges an invalid fixture at its place.
        pointer: if invalid {
            Some(text("pointer")?)
        } else {
            None
        },
        keywords,
    })
}

/// Refuses a member of a conformance file other than `members`, naming it
/// and the members `what` has.
fn refuse_other_members(
    path: &Path,
    raw: &Value,
    members: &[&str],
    what: &str,
) -> Result<(), Error> {
    let other = raw
        .as_object()
        .and_then(|object| object.keys().find(|name| !members.contains(&name.as_str())));
    match other {
        Some(name) => Err(input(
            path,
            format!(
                "{what} has no member \"{}\": its members are {}",
                proto::wire::printable(&proto::wire::shortened(name, 200)),
                members.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// `conformance/known-divergences`: fixture path, then the reason the
/// generated types accept it although the validator does not. A line
/// without a reason, or a file that cannot be read, is a failure in
/// `failures`; the lines that can be read are still used.
pub fn load_divergences(path: &Path, failures: &mut Vec<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let bytes = match read_file(path) {
        Ok(bytes) => bytes,
        Err(err) => {
            failures.push(err.to_string());
            return out;
        }
    };
    // A byte that is not UTF-8 is a failure naming its place, and the
    // other lines still count: dropping the whole list made every entry's
    // fixture a failure of its own, burying the one that mattered.
    if let Err(err) = contract::utf8(path, &bytes) {
        failures.push(err.to_string());
    }
    let text = String::from_utf8_lossy(&bytes);
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (fixture, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if reason.trim().is_empty() {
            failures.push(format!(
                "{}:{}: {} is listed without a reason",
                path.display(),
                number + 1,
                proto::wire::printable(fixture)
            ));
            continue;
        }
        out.insert(fixture.to_string(), reason.trim().to_string());
    }
    out
}

/// Runs the whole gate over `root` (the `conformance/` folder), with the
/// checker built from `contracts/schema`.
pub fn gate(root: &Path, checker: &Checker) -> Result<GateReport, Error> {
    let mut report = GateReport::default();
    unknown_rules(checker, &mut report.failures);
    // A fixture that cannot be read is a failure of its own; every other
    // fixture is still checked.
    // So is one naming a type the contract does not have; such fixtures
    // are left out, and a divergence listed for one is not called stale.
    let mut unchecked = BTreeSet::new();
    let mut readable = |folder: &str| -> Result<Vec<Fixture>, Error> {
        let mut fixtures = Vec::new();
        for (path, read) in read_fixtures(root, folder)? {
            let checked = read.and_then(|fixture| {
                checker.require_type(&fixture.type_name).map_err(|err| {
                    input(
                        Path::new(&format!("{}#/type", fixture.path)),
                        err.to_string(),
                    )
                })?;
                Ok(fixture)
            });
            match checked {
                Ok(fixture) => fixtures.push(fixture),
                Err(err) => {
                    report.failures.push(err.to_string());
                    unchecked.insert(path);
                }
            }
        }
        Ok(fixtures)
    };
    let valid = readable("valid")?;
    let invalid = readable("invalid")?;
    let divergences = load_divergences(&root.join("known-divergences"), &mut report.failures);

    for fixture in &valid {
        if let Err(err) = valid_fixture(checker, fixture, &mut report) {
            report.failures.push(format!("{}: {err}", fixture.path));
        }
    }
    let mut used_divergences = unchecked;
    for fixture in &invalid {
        let Some(rule) = &fixture.rule else {
            report.failures.push(format!(
                "{}: an invalid fixture must name the rule it breaks (\"rule\")",
                fixture.path
            ));
            continue;
        };
        let listed = divergences.contains_key(&fixture.path);
        if listed {
            used_divergences.insert(fixture.path.clone());
        }
        let exact = match invalid_fixture(checker, fixture, rule, &mut report) {
            Ok(exact) => exact,
            Err(err) => {
                report.failures.push(format!("{}: {err}", fixture.path));
                continue;
            }
        };
        // A fixture that breaks another rule too (a field made required
        // that it lacks) says nothing about its own rule's divergence: the
        // failure above is the one to mend.
        if exact {
            divergence(fixture, rule, listed, &mut report);
        }
    }
    for listed in divergences.keys() {
        if !used_divergences.contains(listed) {
            report.failures.push(format!(
                "conformance/known-divergences names {listed}, which is not an invalid fixture"
            ));
        }
    }

    coverage(checker, &valid, &mut report);
    frame_fixtures(checker, &root.join("frames"), &mut report)?;
    trace_fixtures(checker, &root.join("traces"), &mut report)?;
    report.lines.push(format!(
        "fixtures: {} valid, {} invalid, {} known divergences",
        valid.len(),
        invalid.len(),
        divergences.len()
    ));
    Ok(report)
}

/// Every `x-rule` a schema names is a rule the checker knows: one it does
/// not would have its failures reported as `schema`, and the fixture that
/// names it refused as breaking another rule.
fn unknown_rules(checker: &Checker, failures: &mut Vec<String>) {
    for doc in &checker.schema_set().docs {
        // Iterative: a schema's depth is the author's, not bounded here.
        // Each entry says whether its members are names (`properties`,
        // `$defs`, ...), where any key, `const` too, holds a schema.
        let mut stack = vec![(&doc.value, String::new(), false)];
        while let Some((value, pointer, names)) = stack.pop() {
            let Value::Object(map) = value else {
                if let Value::Array(items) = value {
                    for (index, item) in items.iter().enumerate() {
                        stack.push((item, format!("{pointer}/{index}"), false));
                    }
                }
                continue;
            };
            if let Some(id) = map.get("x-rule").and_then(Value::as_str).filter(|_| !names) {
                if Rule::from_id(id).is_none() {
                    failures.push(format!(
                        "{}#{pointer}/x-rule: {id:?} is no rule vdm-conform knows, so a failure there is reported as `schema`: add it to `Rule` in crates/conformance/src/rules.rs (its id and what it asks) and to docs/conformance.md",
                        doc.rel
                    ));
                }
            }
            for (key, child) in map {
                // Values, not schemas: an `x-rule` member there is data.
                if !names && matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    continue;
                }
                let holds_names = !names
                    && matches!(
                        key.as_str(),
                        "properties"
                            | "patternProperties"
                            | "$defs"
                            | "definitions"
                            | "dependentSchemas"
                    );
                let at = format!("{pointer}/{}", contract::escape_pointer_token(key));
                stack.push((child, at, holds_names));
            }
        }
    }
}

/// A valid fixture passes every rule, and the generated Rust type reads it
/// and writes back what it read.
fn valid_fixture(
    checker: &Checker,
    fixture: &Fixture,
    report: &mut GateReport,
) -> Result<(), Error> {
    let findings = read_as_text(checker, fixture)?;
    for finding in findings {
        report.failures.push(format!(
            "{}: a valid fixture breaks {} at {}: {}",
            fixture.path,
            finding.rule,
            pointer_text(&finding.pointer),
            finding.message
        ));
    }
    match proto::reserialize(&fixture.type_name, &fixture.value) {
        Some(Ok(again)) if again == fixture.value => {}
        Some(Ok(again)) => report.failures.push(format!(
            "{}: the generated {} type does not write back what it read: {again}",
            fixture.path, fixture.type_name
        )),
        Some(Err(err)) => report.failures.push(format!(
            "{}: the generated {} type refuses a valid fixture: {err}",
            fixture.path, fixture.type_name
        )),
        None => report.failures.push(format!(
            "{}: no generated type is called {}",
            fixture.path, fixture.type_name
        )),
    }
    Ok(())
}

/// What `check` finds in a fixture's value as every reader meets it: as
/// text, read by the JSON text policy first. The value alone would hide a
/// fault of the text, such as an integer past 2^53 − 1 where any value is
/// taken (an error's `data`), which every reader refuses.
fn read_as_text(checker: &Checker, fixture: &Fixture) -> Result<Vec<crate::Finding>, Error> {
    checker.check_text(&fixture.type_name, fixture.value.to_string().as_bytes())
}

/// An invalid fixture breaks the rule it names (and the ones it says it also
/// breaks), nothing else, at its pointer when it gives one. Whether the
/// rules it broke were exactly those.
fn invalid_fixture(
    checker: &Checker,
    fixture: &Fixture,
    rule: &str,
    report: &mut GateReport,
) -> Result<bool, Error> {
    let findings = read_as_text(checker, fixture)?;
    let fired: BTreeSet<&str> = findings.iter().map(|f| f.rule.id()).collect();
    let allowed: BTreeSet<&str> = std::iter::once(rule)
        .chain(fixture.also_breaks.iter().map(String::as_str))
        .collect();
    // Whether a failure was told already: the keywords are asked only of a
    // fixture refused by its rules at its place, one failure per fault.
    let mut told = fired != allowed;
    if fired != allowed {
        // What the fixture was not meant to break is told in full: it is
        // what needs mending, often after a change elsewhere in the schema.
        let detail: Vec<String> = findings
            .iter()
            .map(|f| {
                let at = format!("{} at {}", f.rule, pointer_text(&f.pointer));
                if allowed.contains(f.rule.id()) {
                    at
                } else {
                    format!("{at}: {}", f.message)
                }
            })
            .collect();
        report.failures.push(format!(
            "{}: expected to be refused by {} exactly, but got [{}]",
            fixture.path,
            allowed.iter().copied().collect::<Vec<_>>().join(" + "),
            detail.join(", ")
        ));
    } else if let Some(pointer) = &fixture.pointer {
        let within = |at: &str| {
            at == pointer
                || at
                    .strip_prefix(pointer.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        if !findings
            .iter()
            .any(|f| f.rule.id() == rule && within(&f.pointer))
        {
            told = true;
            report.failures.push(format!(
                "{}: {rule} fired, but not at {} (it fired at {})",
                fixture.path,
                pointer_text(pointer),
                findings
                    .iter()
                    .map(|f| pointer_text(&f.pointer))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        } else {
            // A fixture holds one fault: a second one would let a reader
            // pass it by refusing the wrong thing. Where its rule fired at
            // the place itself, the fault is there, and a finding under it
            // is a second one (a field of the wrong type beside the missing
            // one the fixture is about); a fault that spans the place
            // (ranges out of order in an array) fires only under it.
            let at_the_place = findings
                .iter()
                .any(|f| f.rule.id() == rule && &f.pointer == pointer);
            let second = findings
                .iter()
                .find(|f| !within(&f.pointer) || (at_the_place && &f.pointer != pointer));
            if let Some(second) = second {
                told = true;
                let place = pointer_text(pointer);
                let relation = if within(&second.pointer) {
                    format!("under {place}, where {rule} fired and")
                } else {
                    format!("outside {place}, where")
                };
                report.failures.push(format!(
                    "{}: {} also fired at {}, {relation} the fixture says its fault is: {}",
                    fixture.path,
                    second.rule,
                    pointer_text(&second.pointer),
                    second.message
                ));
            }
        }
    }
    match &fixture.keywords {
        _ if told => {}
        Some(keywords) => same_keywords(fixture, rule, keywords, &findings, report),
        // The rule alone would take any fault at the place: the fixture
        // says which, and is told what fired to say it with.
        None if rule == Rule::Schema.id() => {
            let mut fired: Vec<String> = findings
                .iter()
                .filter(|f| f.rule == Rule::Schema)
                .filter_map(|f| f.keyword.as_deref())
                .map(|keyword| format!("{keyword:?}"))
                .collect();
            fired.sort_unstable();
            report.failures.push(format!(
                "{}: a schema fixture names the keywords that refuse it, one per finding (here \"keywords\": [{}]): `schema` alone would take any fault at its place",
                fixture.path,
                fired.join(", ")
            ));
        }
        None => {}
    }
    Ok(fired == allowed)
}

/// The findings of `rule` are refusals by `keywords`, one each: an object
/// place refused by `required` is refused by `type` too when it becomes a
/// string, and by `required` twice when a second member goes, and the
/// rule and the place alone cannot tell those faults from the one the
/// fixture is about.
fn same_keywords(
    fixture: &Fixture,
    rule: &str,
    keywords: &[String],
    findings: &[crate::Finding],
    report: &mut GateReport,
) {
    let mut expected: Vec<&str> = keywords.iter().map(String::as_str).collect();
    let mut fired: Vec<(&str, &crate::Finding)> = findings
        .iter()
        .filter(|f| f.rule.id() == rule)
        .map(|f| (f.keyword.as_deref().unwrap_or("(no keyword)"), f))
        .collect();
    expected.sort_unstable();
    fired.sort_by(|a, b| a.0.cmp(b.0));
    if fired
        .iter()
        .map(|(keyword, _)| *keyword)
        .eq(expected.iter().copied())
    {
        return;
    }
    let told: Vec<String> = fired
        .iter()
        .map(|(keyword, f)| format!("{keyword} at {}: {}", pointer_text(&f.pointer), f.message))
        .collect();
    report.failures.push(format!(
        "{}: {rule} fired by [{}], but the fixture names [{}] (\"keywords\", one per finding): [{}]",
        fixture.path,
        fired
            .iter()
            .map(|(keyword, _)| *keyword)
            .collect::<Vec<_>>()
            .join(", "),
        expected.join(", "),
        told.join("; ")
    ));
}

/// The generated Rust types refuse an invalid fixture, or it is listed in
/// `known-divergences` with a reason: never both, never neither.
fn divergence(fixture: &Fixture, rule: &str, listed: bool, report: &mut GateReport) {
    let accepted = matches!(
        proto::reserialize(&fixture.type_name, &fixture.value),
        Some(Ok(_))
    );
    if accepted && !listed {
        report.failures.push(format!(
            "{}: the generated {} type accepts this value, which {rule} refuses; list it in conformance/known-divergences with a reason, or make the types refuse it",
            fixture.path, fixture.type_name
        ));
    }
    if !accepted && listed {
        report.failures.push(format!(
            "{}: listed in conformance/known-divergences, but the generated types refuse it now; remove the entry",
            fixture.path
        ));
    }
}

fn pointer_text(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

/// Every value of every enum the envelope reaches appears in a valid fixture;
/// so does every field it can carry, and every method and event.
fn coverage(checker: &Checker, valid: &[Fixture], report: &mut GateReport) {
    let set = checker.schema_set();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wire_enums: BTreeSet<String> = BTreeSet::new();
    // Which enums are on the wire at all: walk the envelope's schema graph once.
    checker.enums_reached_from("Envelope", &mut wire_enums);
    for fixture in valid {
        checker.visit_all(&fixture.type_name, &fixture.value, &mut |visit| {
            if let Some(enum_type) = visit.enum_type {
                let text = visit
                    .value
                    .as_str()
                    .map_or_else(|| visit.value.to_string(), str::to_string);
                seen.entry(enum_type.to_string()).or_default().insert(text);
            }
        });
    }
    report.lines.push("enum coverage:".into());
    for doc in set
        .of_kind(contract::DocKind::Type)
        .filter(|doc| wire_enums.contains(&doc.name))
    {
        let values: Vec<String> = doc
            .value
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        // No fixture reached it: nothing was seen, and the gap is reported.
        let got = seen.get(&doc.name).cloned().unwrap_or_default();
        let missing: Vec<&String> = values.iter().filter(|v| !got.contains(*v)).collect();
        report.lines.push(format!(
            "  {:<18} {:>3}/{:<3} {}",
            doc.name,
            values.len() - missing.len(),
            values.len(),
            if missing.is_empty() {
                "ok".to_string()
            } else {
                format!("missing {missing:?}")
            }
        ));
        if !missing.is_empty() {
            report.failures.push(format!(
                "{}: no valid fixture uses {}",
                doc.name,
                missing
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    field_coverage(checker, valid, report);
    direction_coverage(valid, report);
}

/// Every method has a valid call and a valid reply, every event a valid event.
fn direction_coverage(valid: &[Fixture], report: &mut GateReport) {
    let mut directions: BTreeSet<(String, String)> = BTreeSet::new();
    for fixture in valid.iter().filter(|f| f.type_name == "Envelope") {
        // Valid fixtures passed the schema, so kind is there; an error has no
        // method or name, and its ("", "error") counts towards nothing.
        let kind = fixture
            .value
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let body = fixture.value.get("body");
        let name = body
            .and_then(|b| b.get("method").or_else(|| b.get("name")))
            .and_then(Value::as_str)
            .unwrap_or_default();
        directions.insert((name.to_string(), kind.to_string()));
    }
    report.lines.push("method and event coverage:".into());
    let wanted = proto::METHODS
        .iter()
        .flat_map(|m| [(m.name, "call"), (m.name, "reply")])
        .chain(proto::EVENTS.iter().map(|e| (e.name, "event")));
    let mut missing = Vec::new();
    let mut total = 0;
    for (name, kind) in wanted {
        total += 1;
        if !directions.contains(&(name.to_string(), kind.to_string())) {
            missing.push(format!("{name} ({kind})"));
        }
    }
    report.lines.push(format!(
        "  {}/{total} directions have a valid fixture",
        total - missing.len()
    ));
    for gap in missing {
        report.failures.push(format!("no valid fixture for {gap}"));
    }
}

/// Every field the envelope can carry appears in a valid fixture, where its
/// schema declares it: a field added without a fixture that uses it is a
/// field no test has seen on the wire.
fn field_coverage(checker: &Checker, valid: &[Fixture], report: &mut GateReport) {
    let mut used = BTreeSet::new();
    for fixture in valid {
        if let Err(err) = checker.fields_used(&fixture.type_name, &fixture.value, &mut used) {
            report.failures.push(format!("{}: {err}", fixture.path));
        }
    }
    let declared = declared_fields(checker);
    let missing: Vec<&(String, String)> = declared.iter().filter(|f| !used.contains(*f)).collect();
    report.lines.push("field coverage:".into());
    report.lines.push(format!(
        "  {}/{} fields appear in a valid fixture",
        declared.len() - missing.len(),
        declared.len()
    ));
    for (place, name) in missing {
        report
            .failures
            .push(format!("{place}: no valid fixture has the field {name:?}"));
    }
}

/// Every field the envelope's schemas declare: `(file#pointer of the
/// properties keyword, name)`, in the files the envelope reaches.
fn declared_fields(checker: &Checker) -> BTreeSet<(String, String)> {
    let set = checker.schema_set();
    let mut files = BTreeSet::new();
    for doc in set.of_kind(contract::DocKind::Envelope) {
        files.insert(doc.rel.clone());
        files.extend(contract::files_reached(set, doc, &doc.value));
    }
    let mut out = BTreeSet::new();
    for doc in set.docs.iter().filter(|doc| files.contains(&doc.rel)) {
        let mut stack = vec![(String::new(), &doc.value)];
        while let Some((pointer, schema)) = stack.pop() {
            let Some(map) = schema.as_object() else {
                continue;
            };
            for (key, sub) in map {
                let at = format!("{pointer}/{}", contract::escape_pointer_token(key));
                match (key.as_str(), sub) {
                    // An assertion's properties describe values, not fields
                    // a message carries.
                    (
                        "not" | "if" | "else" | "then" | "const" | "enum" | "default" | "examples",
                        _,
                    ) => {}
                    ("properties", Value::Object(fields)) => {
                        for (name, field) in fields {
                            out.insert((format!("{}#{at}", doc.rel), name.clone()));
                            let field_at = format!("{at}/{}", contract::escape_pointer_token(name));
                            stack.push((field_at, field));
                        }
                    }
                    (_, Value::Object(_)) => stack.push((at, sub)),
                    (_, Value::Array(items)) => {
                        for (index, item) in items.iter().enumerate() {
                            stack.push((format!("{at}/{index}"), item));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// A file of the fixtures that cannot be read, or read as what it should be.
fn input(path: &Path, message: String) -> Error {
    Error::Input {
        path: path.display().to_string(),
        message,
    }
}

/// The rules a trace file breaks, each with its place and why (`rule at
/// line N /pointer: message`), and how many of its lines are not blank.
fn trace_rules(
    checker: &Checker,
    table: &crate::trace::Transitions,
    path: &Path,
) -> Result<(usize, Vec<String>), Error> {
    // Bytes, not text: a line that is not UTF-8 is the `json` finding an
    // invalid trace may be about, at its line.
    let bytes = read_file(path)?;
    let mut tracer = crate::trace::Tracer::new(checker, Some(table.clone()));
    let mut rules: Vec<String> = Vec::new();
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let mut records = 0;
    for (index, line) in body.split(|&byte| byte == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        records += usize::from(!line.trim_ascii().is_empty());
        let found = tracer.feed_line(index + 1, line);
        rules.extend(found.iter().map(said));
    }
    rules.extend(tracer.unanswered().iter().map(said));
    Ok((records, rules))
}

/// A trace finding as the gate tells it: the rule and place first, which
/// the invalid traces are held to.
fn said(found: &crate::trace::TraceFinding) -> String {
    format!(
        "{} at {} {}: {}",
        found.finding.rule,
        found.place,
        pointer_text(&found.finding.pointer),
        found.finding.message
    )
}

/// The `.jsonl` files of `dir`, in name order.
fn jsonl_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| input(dir, e.to_string()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// `conformance/traces/`: every valid trace conforms (its calls all
/// answered, its transitions in `transitions.json`), and every invalid one,
/// named after its rule (`<rule>.jsonl` or `<rule>--<case>.jsonl`), breaks exactly that rule; and every trace rule has
/// an invalid trace.
fn trace_fixtures(checker: &Checker, dir: &Path, report: &mut GateReport) -> Result<(), Error> {
    let table_path = dir.join("transitions.json");
    let table = read_file(&table_path).and_then(|bytes| {
        let text = contract::utf8(&table_path, &bytes)?;
        crate::trace::Transitions::parse_for(checker, text)
            .map(|table| table.read_from(table_path.display().to_string()))
            .map_err(|why| input(&table_path, why))
    });
    // Every trace is judged against the table: without it there is nothing
    // to run them by, and that is the failure.
    let table = match table {
        Ok(table) => table,
        Err(err) => {
            report.failures.push(err.to_string());
            return Ok(());
        }
    };
    // A state no row names cannot appear in a valid trace, nor in a
    // conversation `generate` writes by this table.
    for state in table.unnamed(checker) {
        report.failures.push(format!(
            "{}: the TaskState \"{state}\" is in no row, as a state or a move: no trace may reach or leave it; add the moves lanes allow to and from it",
            table_path.display()
        ));
    }
    let run = |path: &Path| trace_rules(checker, &table, path);
    let list = |folder: &str| jsonl_files(&dir.join(folder));
    let (valid, invalid) = (list("valid")?, list("invalid")?);
    // A trace that cannot be read is a failure of its own.
    let mut read = |path: &Path| {
        run(path)
            .map_err(|err| report.failures.push(err.to_string()))
            .ok()
    };
    let mut read_valid = Vec::new();
    for path in &valid {
        let Some(found) = read(path) else { continue };
        read_valid.push((path, found));
    }
    let mut read_invalid = Vec::new();
    for path in &invalid {
        let Some(found) = read(path) else { continue };
        read_invalid.push((path, found));
    }
    for (path, (records, found)) in read_valid {
        if records == 0 {
            report.failures.push(format!(
                "{}: a valid trace holds no record, so it shows nothing conforms",
                path.display()
            ));
        }
        if !found.is_empty() {
            report.failures.push(format!(
                "{}: a valid trace breaks {}",
                path.display(),
                found.join(", ")
            ));
        }
    }
    let mut covered = Vec::new();
    for (path, (_, found)) in read_invalid {
        // `<rule>.jsonl`, or `<rule>--<case>.jsonl` for more than one way
        // to break it.
        let stem = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or_default();
        let rule = stem
            .split_once("--")
            .map_or(stem, |(rule, _)| rule)
            .to_string();
        // Once: a trace holds one fault, so a checker that misses it cannot
        // pass the trace by finding another of the same rule (a reply from
        // the client beside a call from the server).
        let once = matches!(found.as_slice(), [one] if one.starts_with(&format!("{rule} at")));
        if !once {
            let got = if found.is_empty() {
                "it breaks nothing".to_string()
            } else {
                format!("it breaks {}", found.join("; "))
            };
            report.failures.push(format!(
                "{}: expected to break {rule} once, but {got}",
                path.display()
            ));
        }
        covered.push(rule);
    }
    for rule in Rule::ALL.iter().filter(|r| r.id().starts_with("trace.")) {
        if !covered.iter().any(|c| c == rule.id()) {
            report.failures.push(format!(
                "no invalid trace breaks {rule} (add conformance/traces/invalid/{rule}.jsonl)"
            ));
        }
    }
    report.lines.push(format!(
        "trace fixtures: {} valid, {} invalid",
        valid.len(),
        invalid.len()
    ));
    Ok(())
}

/// The first frame of `bytes` whose body `check` finds more than one fault
/// in (from 1), with what it found: a frame fixture shows one fault, as a
/// message fixture does. The text policy stops at its first fault, so
/// this sees a second one where the text reads (a member missing beside
/// one of the wrong type).
fn second_fault(checker: &Checker, bytes: &[u8]) -> Option<(usize, Vec<String>)> {
    let mut reader = proto::frame::FrameReader::new(bytes);
    for frame in 1.. {
        let body = match reader.read_raw() {
            Ok(body) => body,
            Err(err) if err.is_recoverable() => continue,
            Err(_) => return None,
        };
        let findings = match checker.check_text("Envelope", body) {
            Ok(findings) => findings,
            Err(err) => return Some((frame, vec![err.to_string()])),
        };
        if findings.len() > 1 {
            let said = findings
                .iter()
                .map(|f| format!("{} at {}: {}", f.rule, pointer_text(&f.pointer), f.message))
                .collect();
            return Some((frame, said));
        }
    }
    None
}

/// `conformance/frames/*.bin` read as their `*.expect.json` sidecars say.
fn frame_fixtures(checker: &Checker, dir: &Path, report: &mut GateReport) -> Result<(), Error> {
    let mut count = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| input(dir, e.to_string()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .collect();
    paths.sort();
    for path in paths {
        let sidecar = path.with_extension("expect.json");
        // A fixture or sidecar that cannot be read is a failure of its own.
        let read = read_file(&path).and_then(|bytes| Ok((bytes, read_document(&sidecar)?)));
        let (bytes, expected) = match read {
            Ok(read) => read,
            Err(err) => {
                report.failures.push(err.to_string());
                continue;
            }
        };
        let outcomes = refuse_other_members(
            &sidecar,
            &expected,
            &["description", "outcomes"],
            "a sidecar",
        )
        .and_then(|()| match expected.get("description") {
            Some(Value::String(_)) => Ok(()),
            _ => Err(input(
                &sidecar,
                "a sidecar says what its stream shows in \"description\", a string".into(),
            )),
        })
        .and_then(|()| match expected.get("outcomes") {
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                Ok(items.iter().filter_map(Value::as_str).collect::<Vec<_>>())
            }
            _ => Err(input(
                &sidecar,
                "a sidecar lists what each read gives in \"outcomes\", a list of strings".into(),
            )),
        });
        let expected = match outcomes {
            Ok(outcomes) => outcomes,
            Err(err) => {
                report.failures.push(err.to_string());
                continue;
            }
        };
        let got = proto::frame::outcomes(&bytes[..]);
        if got != expected {
            report.failures.push(format!(
                "{}: read as {got:?}, its sidecar {} says {expected:?}",
                path.display(),
                sidecar.display()
            ));
        } else if let Some((frame, findings)) = second_fault(checker, &bytes) {
            report.failures.push(format!(
                "{}: frame {frame} holds more than one fault, so a reader could refuse it for one it was not meant to show: [{}]",
                path.display(),
                findings.join("; ")
            ));
        } else if let Some(unwritten) = proto::frame::first_unwritten(&bytes) {
            // A valid stream is also what the writers write, byte for byte.
            report.failures.push(format!(
                "{}: frame {} is not what FrameWriter writes (no spaces, members in the generated types' order); write its body as {}",
                path.display(),
                unwritten.frame,
                String::from_utf8_lossy(&unwritten.written)
            ));
        }
        count += 1;
    }
    report.lines.push(format!(
        "frame fixtures: {count} read as their sidecars say"
    ));
    Ok(())
}
