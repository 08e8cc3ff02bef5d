//! The report a reviewer reads, for the real 1.0.0 → 1.1.0 step (both
//! releases are frozen, so the snapshot only changes when the report does).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use compat::{compare_sets, declared_bump, report, Options};
use contract::SchemaSet;

/// A set of one file, `types/Case.json`, holding `schema`.
fn case(schema: &serde_json::Value) -> SchemaSet {
    SchemaSet::from_texts(
        Path::new("cases"),
        [("types/Case.json", schema.to_string().as_str())],
    )
    .expect("one schema loads")
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

#[test]
fn the_report_for_1_1_0_reads_as_a_changelog_starts() {
    let comparison = compare_sets(&release("1.0.0"), &release("1.1.0"), Options::default())
        .expect("the schemas register");
    let declared = declared_bump("1.0.0", "1.1.0").expect("versions");
    insta::assert_snapshot!(
        "report_1_0_0_to_1_1_0",
        report::human(&comparison, Some(declared))
    );
    let json = serde_json::to_value(&comparison).expect("serializes");
    assert_eq!(json["writer"], "compatible");
    assert_eq!(json["reader"], "compatible");
    assert_eq!(json["bump"], "minor");
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["changes"][0]["rule"], "property.added");
    assert_eq!(
        json["changes"][0]["oldPointer"],
        "types/TaskSummary.json#/properties"
    );
}

/// A change set that breaks: 1.1.0 with `effectiveBufferBytes` removed (API)
/// and `TaskId` narrowed to 32 characters (R), against 1.1.0.
fn breaking() -> (SchemaSet, SchemaSet) {
    let old = release("1.1.0");
    let mut new = old.clone();
    for doc in &mut new.docs {
        match doc.name.as_str() {
            "TaskSummary" => {
                if let Some(props) = doc.value["properties"].as_object_mut() {
                    props.remove("effectiveBufferBytes");
                }
            }
            "TaskId" => doc.value["maxLength"] = serde_json::json!(32),
            _ => {}
        }
    }
    (old, new)
}

/// Places as `cargo xtask compat` gives them: the file under the release and
/// the line of the changed keyword.
fn locate(place: &str) -> Option<(String, usize)> {
    let (file, pointer) = place.split_once('#')?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/released/1.1.0/schema");
    let text = std::fs::read_to_string(dir.join(file)).ok()?;
    Some((
        format!("contracts/released/1.1.0/schema/{file}"),
        report::line_of(&text, pointer),
    ))
}

#[test]
fn the_review_formats_read_as_their_readers_expect() {
    let comparison = compare_sets(&release("1.0.0"), &release("1.1.0"), Options::default())
        .expect("the schemas register");
    let declared = declared_bump("1.0.0", "1.1.0").ok();
    insta::assert_snapshot!(
        "markdown_1_0_0_to_1_1_0",
        report::markdown(&comparison, declared, "1.0.0 → 1.1.0")
    );
    let (old, new) = breaking();
    let comparison = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    insta::assert_snapshot!(
        "markdown_breaking",
        report::markdown(
            &comparison,
            declared_bump("1.1.0", "1.1.1").ok(),
            "1.1.0 → working tree"
        )
    );
    insta::assert_snapshot!(
        "github_breaking",
        report::github(&comparison, declared_bump("1.1.0", "1.1.1").ok(), &locate)
    );
    insta::assert_snapshot!(
        "sarif_breaking",
        serde_json::to_string_pretty(&report::sarif(
            &comparison,
            declared_bump("1.1.0", "1.1.1").ok(),
            &locate,
            report::VERSION_FILE
        ))
        .expect("JSON")
    );
}

/// The problems a code-scanning upload would have with a SARIF report: what
/// SARIF 2.1.0's own schema refuses (formats asserted: a `uri` must be one),
/// and what GitHub asks beyond it (it refuses the whole upload for one
/// result without a location or with an empty artifact URI): every result
/// located, at a line, under a rule its run lists.
fn upload_problems(sarif: &serde_json::Value) -> Vec<String> {
    let mut schema: serde_json::Value =
        serde_json::from_str(include_str!("data/sarif/sarif-schema-2.1.0.json"))
            .expect("the SARIF schema is JSON");
    // The published pattern of `language` (of a run, of a tool) has a stray
    // `]`, which the validator's check of the schema refuses as a regular
    // expression; the reports never write `language`, so it is left out.
    for definition in ["run", "toolComponent"] {
        schema["definitions"][definition]["properties"]["language"]
            .as_object_mut()
            .map(|language| language.remove("pattern"));
    }
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let mut problems: Vec<String> = validator
        .iter_errors(sarif)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect();
    for run in sarif["runs"].as_array().into_iter().flatten() {
        let rules: Vec<&serde_json::Value> = run["tool"]["driver"]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|rule| &rule["id"])
            .collect();
        for result in run["results"].as_array().into_iter().flatten() {
            if !rules.contains(&&result["ruleId"]) {
                problems.push(format!("rule {} not listed", result["ruleId"]));
            }
            let locations = result["locations"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            if locations.is_empty() {
                problems.push(format!("no location: {result}"));
            }
            for location in locations {
                let place = &location["physicalLocation"];
                if place["artifactLocation"]["uri"]
                    .as_str()
                    .is_none_or(str::is_empty)
                    || place["region"]["startLine"]
                        .as_u64()
                        .is_none_or(|line| line < 1)
                {
                    problems.push(format!("not a place in a file: {location}"));
                }
            }
        }
    }
    problems
}

#[test]
fn sarif_reports_are_uploadable_wherever_a_change_is() {
    let declared = declared_bump("1.1.0", "1.1.1").ok();
    let (old, new) = breaking();
    let breaking = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    let compatible = compare_sets(&release("1.0.0"), &release("1.1.0"), Options::default())
        .expect("the schemas register");
    let nowhere = |_: &str| -> Option<(String, usize)> { None };
    let odd_names = |place: &str| -> Option<(String, usize)> {
        Some((format!("dir with space/#{}:?%é.json", place.len()), 0))
    };
    let reports = [
        (
            "breaking, located",
            report::sarif(&breaking, declared, &locate, report::VERSION_FILE),
        ),
        (
            "breaking, located nowhere",
            report::sarif(&breaking, declared, &nowhere, report::VERSION_FILE),
        ),
        (
            "odd file names",
            report::sarif(&breaking, declared, &odd_names, "a b.json"),
        ),
        (
            "compatible",
            report::sarif(
                &compatible,
                declared_bump("1.0.0", "1.1.0").ok(),
                &locate,
                report::VERSION_FILE,
            ),
        ),
        (
            "failed, placed",
            report::sarif_failure(
                Some(("types/a b#.json".into(), 3)),
                report::VERSION_FILE,
                "not JSON",
            ),
        ),
        (
            "failed, no place",
            report::sarif_failure(None, report::VERSION_FILE, "no schema"),
        ),
    ];
    for (what, sarif) in &reports {
        let problems = upload_problems(sarif);
        assert!(problems.is_empty(), "{what}: {problems:#?}\n{sarif:#}");
        assert!(
            sarif["runs"][0]["results"]
                .as_array()
                .is_some_and(|r| !r.is_empty()),
            "{what}: a report with something to say"
        );
    }
    // A result located nowhere is shown where the caller said, and a path is
    // written as a URI reference that names the same file.
    let uris = |sarif: &serde_json::Value| -> Vec<String> {
        sarif["runs"][0]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    assert!(uris(&reports[1].1)
        .iter()
        .all(|uri| uri == report::VERSION_FILE));
    // (The last result is the short bump's, at VERSION.)
    let odd = uris(&reports[2].1);
    assert!(
        odd.len() > 1
            && odd
                .iter()
                .filter(|uri| *uri != report::VERSION_FILE)
                .all(|uri| {
                    uri.starts_with("dir%20with%20space/%23")
                        && uri.ends_with("%3A%3F%25%C3%A9.json")
                }),
        "{odd:?}"
    );
    assert_eq!(uris(&reports[4].1), ["types/a%20b%23.json"]);
    // The checker can fail: the same check refuses a result without a place.
    let mut unplaced = reports[5].1.clone();
    unplaced["runs"][0]["results"][0]
        .as_object_mut()
        .map(|result| result.remove("locations"));
    assert!(!upload_problems(&unplaced).is_empty());
    unplaced["runs"][0]["results"][0]["locations"] = serde_json::json!([{"physicalLocation": {"artifactLocation": {"uri": "a b"}, "region": {"startLine": 1}}}]);
    assert!(!upload_problems(&unplaced).is_empty(), "a space is no URI");
}

#[test]
fn line_of_finds_the_changed_keyword() {
    let text = "{\n  \"properties\": {\n    \"a\": {\n      \"maxLength\": 3\n    }\n  }\n}\n";
    assert_eq!(report::line_of(text, ""), 1);
    assert_eq!(report::line_of(text, "/properties/a"), 3);
    assert_eq!(report::line_of(text, "/properties/a/maxLength"), 4);
    assert_eq!(
        report::line_of(text, "/properties/b"),
        2,
        "the deepest key found"
    );
    // Array elements, keys that appear earlier nested elsewhere, escapes.
    let text = "{\n  \"x\": {\"enum\": [\"no\"]},\n  \"enum\": [\n    \"a\",\n    {\"b\": \"]\\\"\"},\n    \"c\"\n  ],\n  \"a/b~\": 1\n}\n";
    assert_eq!(report::line_of(text, "/enum"), 3);
    assert_eq!(report::line_of(text, "/enum/0"), 4);
    assert_eq!(report::line_of(text, "/enum/2"), 6);
    assert_eq!(
        report::line_of(text, "/enum/3"),
        3,
        "past the end: the array"
    );
    assert_eq!(report::line_of(text, "/x/enum/0"), 2);
    assert_eq!(report::line_of(text, "/a~1b~0"), 8);
}

/// Every change kind points at its keyword's line, so an annotation lands
/// inside the diff; a break is an error unless VERSION declares a major bump,
/// and a VERSION that falls short is an error of its own.
#[test]
fn annotations_land_on_the_changed_line_at_the_level_version_allows() {
    let old = release("1.1.0");
    let mut new = old.clone();
    for doc in &mut new.docs {
        match doc.name.as_str() {
            "TaskState" => {
                if let Some(values) = doc.value["enum"].as_array_mut() {
                    values.push(serde_json::json!("archived"));
                }
            }
            "DownloadSpec" => {
                if let Some(required) = doc.value["required"].as_array_mut() {
                    required.push(serde_json::json!("fileName"));
                }
            }
            _ => {}
        }
    }
    // The new files as a reviewer's diff shows them.
    let texts: std::collections::BTreeMap<String, String> = new
        .docs
        .iter()
        .map(|doc| {
            let text = serde_json::to_string_pretty(&doc.value).unwrap_or_default();
            (doc.rel.clone(), text)
        })
        .collect();
    let locate = |place: &str| -> Option<(String, usize)> {
        let (file, pointer) = place.split_once('#')?;
        Some((file.to_string(), report::line_of(texts.get(file)?, pointer)))
    };
    let line_with = |file: &str, needle: &str| {
        texts.get(file).and_then(|text| {
            text.lines()
                .position(|line| line.contains(needle))
                .map(|index| index + 1)
        })
    };
    let comparison = compare_sets(&old, &new, Options::default()).expect("compared");
    for (declared, level) in [("1.2.0", "error"), ("2.0.0", "warning")] {
        let annotations =
            report::github(&comparison, declared_bump("1.1.0", declared).ok(), &locate);
        let line_of = |rule: &str| {
            annotations
                .lines()
                .find(|line| line.contains(&format!("title=compat {rule}")))
                .map(str::to_string)
                .unwrap_or_default()
        };
        let added = line_of("enum.value_added");
        let archived = line_with("types/TaskState.json", "\"archived\"");
        assert!(
            added.starts_with(&format!(
                "::{level} file=types/TaskState.json,line={},",
                archived.unwrap_or(0)
            )),
            "{added}"
        );
        assert!(added.contains("reaches "), "{added}");
        let required = line_of("required.added");
        let spec_line = texts.get("types/DownloadSpec.json").and_then(|text| {
            let at = text.find("\"required\"")?;
            let line = text
                .get(at..)?
                .lines()
                .position(|l| l.contains("\"fileName\""))?;
            Some(text.get(..at)?.matches('\n').count() + 1 + line)
        });
        assert!(
            required.starts_with(&format!(
                "::{level} file=types/DownloadSpec.json,line={},",
                spec_line.unwrap_or(0)
            )),
            "{required}"
        );
        let short = annotations.contains("::error file=contracts/VERSION,line=1");
        assert_eq!(short, declared == "1.2.0", "{annotations}");
    }
}

/// A change that breaks both ways alone, where the other changes beside it
/// make one way hold: the way that still breaks keeps its reason and says
/// so, and the reason of the way that holds is gone.
#[test]
fn a_break_stays_explained_when_the_other_way_holds_together() {
    let old = case(&serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"x": {"type": "string"}}
    }));
    // No integer is both at most 5 and at least 6: new writers write no
    // `x`, so W holds together; old writers' strings still fail (R).
    let new = case(&serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"x": {"type": "integer", "maximum": 5, "minimum": 6}}
    }));
    let comparison = compat::compare_documents(&old, &new, Options::default()).expect("compared");
    assert!(comparison.writer.holds() && !comparison.reader.holds());
    let changed = comparison
        .changes
        .iter()
        .find(|c| c.rule == "type.changed")
        .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
    assert!(
        changed.writer.holds() && !changed.reader.holds(),
        "{changed:?}"
    );
    let why = changed
        .why
        .as_deref()
        .unwrap_or_else(|| panic!("{changed:?}"));
    assert!(
        why.starts_with("an old writer's value fails a new reader: ")
            && !why.contains("a new writer's value"),
        "{why}"
    );
    assert!(
        changed
            .example
            .as_ref()
            .is_none_or(|e| e.accepted_by == "old"),
        "{changed:?}"
    );
    assert!(changed
        .detail
        .ends_with("(W breaks alone, holds together with the other changes here)"));
}

/// A change that breaks both ways alone and holds both ways together (a
/// reference wrapped in `allOf` beside the keyword it replaces) says so
/// once: each direction settled it, and the second note replaces the
/// first.
#[test]
fn a_change_settled_both_ways_says_so_once() {
    let old = case(&serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": "#/definitions/a",
        "definitions": {"a": {"type": "string"}}
    }));
    let new = case(&serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "allOf": [{"$ref": "#/definitions/a"}],
        "definitions": {"a": {"type": "string"}}
    }));
    let comparison = compat::compare_documents(&old, &new, Options::default()).expect("compared");
    assert!(comparison.writer.holds() && comparison.reader.holds());
    let notes: Vec<usize> = comparison
        .changes
        .iter()
        .map(|c| {
            c.detail
                .matches("holds together with the other changes here")
                .count()
        })
        .collect();
    assert!(notes.contains(&1), "{:#?}", comparison.changes);
    assert!(notes.iter().all(|n| *n <= 1), "{:#?}", comparison.changes);
}

/// A `maxLength` dropped where a `pattern` now bounds the length: dropped
/// alone it lets longer strings through (W breaks), but the new schema as a
/// whole refuses them, and the prover cannot decide the pattern. The
/// value its reason names is one of the change alone, and it says so; the
/// direction stays breaking, the safe answer.
#[test]
fn a_value_found_for_a_change_alone_is_said_to_be_so() {
    let set = |x: serde_json::Value| {
        case(&serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"x": x}
        }))
    };
    let old = set(serde_json::json!({"type": "string", "maxLength": 3}));
    let new = set(serde_json::json!({"type": "string", "pattern": "^.{0,3}$"}));
    let comparison = compat::compare_documents(&old, &new, Options::default()).expect("compared");
    assert!(!comparison.writer.holds());
    let dropped = comparison
        .changes
        .iter()
        .find(|c| c.rule == "length.widened")
        .unwrap_or_else(|| panic!("{:#?}", comparison.changes));
    assert!(!dropped.writer.holds(), "{dropped:?}");
    assert!(
        dropped.detail.ends_with(
            "(W breaks alone; with the other changes here it cannot be decided: pattern)"
        ),
        "{dropped:?}"
    );
    let why = dropped.why.as_deref().unwrap_or_default();
    assert!(
        why.starts_with("with this change alone, a new writer's value fails an old reader: "),
        "{why}"
    );
    assert!(dropped.example.is_none(), "{dropped:?}");

    // A change alone in its part, or one whose own reason is that it
    // cannot decide, is no "break alone".
    let old = set(
        serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}},
        "unevaluatedProperties": false}),
    );
    let new = set(
        serde_json::json!({"type": "object", "properties": {"a": {"type": "string"},
        "c": {"type": "boolean"}}, "unevaluatedProperties": false}),
    );
    let comparison = compat::compare_documents(&old, &new, Options::default()).expect("compared");
    for change in &comparison.changes {
        assert!(!change.detail.contains("breaks alone"), "{change:?}");
        let why = change.why.as_deref().unwrap_or_default();
        assert!(!why.contains("with this change alone"), "{change:?}");
    }
}

/// A release against itself: every report says no bump is needed, in words.
#[test]
fn an_unchanged_contract_needs_no_bump_in_every_report() {
    let same = release("1.1.0");
    let comparison = compare_sets(&same, &same, Options::default()).expect("the schemas register");
    let declared = declared_bump("1.1.0", "1.1.0").expect("versions");
    let human = report::human(&comparison, Some(declared));
    assert!(
        human.contains("the change set needs no bump\nVERSION declares no bump\n"),
        "{human}"
    );
    let markdown = report::markdown(&comparison, Some(declared), "1.1.0 → 1.1.0");
    assert!(
        markdown.contains("no bump needed** — W compatible"),
        "{markdown}"
    );
    assert!(markdown.contains("VERSION declares no bump"), "{markdown}");
    assert!(!human.contains("none") && !markdown.contains("none"));
}

/// A name from a schema file cannot start a line of its own in any text
/// report: a property named with a newline and a workflow command.
#[test]
fn a_name_with_a_newline_forges_no_line() {
    let old = release("1.1.0");
    let mut new = old.clone();
    let forged = "x\n::error file=README.md::forged\r\u{1b}[2J";
    for doc in &mut new.docs {
        if doc.name == "Segment" {
            if let Some(props) = doc.value["properties"].as_object_mut() {
                props.insert(
                    forged.into(),
                    serde_json::json!({"type": "string", "description": "d"}),
                );
            }
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    assert!(!comparison.changes.is_empty());
    let place = |_: &str| Some(("types/a,b:c\n::error::x.json".to_string(), 1));
    for (format, text) in [
        ("human", report::human(&comparison, None)),
        (
            "markdown",
            report::markdown(&comparison, None, "1.1.0 → new"),
        ),
        ("github", report::github(&comparison, None, &place)),
    ] {
        assert!(
            text.lines()
                .filter(|line| line.starts_with("::"))
                .all(|line| line
                    .starts_with("::notice file=types/a%2Cb%3Ac\\u000a%3A%3Aerror%3A%3Ax.json,")),
            "{format}:\n{text}"
        );
        assert!(!text.contains(['\r', '\u{1b}']), "{format}:\n{text}");
        // Escaped where it is shown, in a pointer and in a detail's quoted
        // name alike, as every report escapes input.
        assert!(
            text.contains("x\\u000a::error file=README.md::forged"),
            "{format}:\n{text}"
        );
        assert!(!text.contains("x\\n::error"), "{format}:\n{text}");
    }
}

/// A change quoting a huge value (an enum value of 100,000 characters) is
/// reported in lines of bounded length: a pull-request comment has a limit,
/// and a log line is read by people. The counterexample in the JSON report
/// stays whole, for a tool to check it.
#[test]
fn a_huge_value_is_reported_in_short_lines() {
    let old = release("1.1.0");
    let mut new = old.clone();
    let huge = "y".repeat(100_000);
    for doc in &mut new.docs {
        if doc.name == "SegmentState" {
            if let Some(values) = doc.value["enum"].as_array_mut() {
                values.push(serde_json::json!(huge));
            }
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    assert!(!comparison.changes.is_empty());
    let place = |_: &str| Some(("types/SegmentState.json".to_string(), 1));
    for (format, text) in [
        ("human", report::human(&comparison, None)),
        (
            "markdown",
            report::markdown(&comparison, None, "1.1.0 → new"),
        ),
        ("github", report::github(&comparison, None, &place)),
    ] {
        let longest = text.lines().map(|line| line.chars().count()).max();
        assert!(longest < Some(3_000), "{format}: a line of {longest:?}");
        assert!(text.contains("characters left out"), "{format}:\n{text}");
    }
    let json = serde_json::to_string(&comparison).expect("a comparison is JSON");
    assert!(
        json.contains(&format!("\"{huge}\"")),
        "the example is cut in JSON"
    );

    // A place through a name that long still gets its row in the comment.
    let mut named = old.clone();
    for doc in &mut named.docs {
        if doc.name == "Segment" {
            if let Some(props) = doc.value["properties"].as_object_mut() {
                props.insert(
                    huge.clone(),
                    serde_json::json!({"type": "string", "description": "d"}),
                );
            }
        }
    }
    let comparison = compare_sets(&old, &named, Options::default()).expect("the schemas register");
    let text = report::markdown(&comparison, None, "1.1.0 → new");
    let longest = text.lines().map(|line| line.chars().count()).max();
    assert!(longest < Some(3_000), "markdown: a line of {longest:?}");
    assert!(!text.contains("left out to keep"), "{text}");
    assert!(text.contains("| `property.added` |"), "{text}");

    // The human report cuts such a place too, and the counterexample's
    // path through it, when the field's type changes.
    let mut retyped = named.clone();
    for doc in &mut retyped.docs {
        if doc.name == "Segment" {
            doc.value["properties"][&huge]["type"] = serde_json::json!("integer");
        }
    }
    let comparison =
        compare_sets(&named, &retyped, Options::default()).expect("the schemas register");
    let text = report::human(&comparison, None);
    assert!(text.contains("e.g. at /"), "{text}");
    let longest = text.lines().map(|line| line.chars().count()).max();
    assert!(longest < Some(3_000), "human: a line of {longest:?}");
}

/// A change set of thousands of changes still makes a comment GitHub takes
/// (at most 65,536 characters): the first rows in review order are shown,
/// the rest counted, and the comment still closes what it opens.
#[test]
fn a_comment_on_thousands_of_changes_fits_a_pull_request() {
    let old = release("1.1.0");
    let mut new = old.clone();
    for doc in &mut new.docs {
        if doc.name == "SegmentState" {
            if let Some(values) = doc.value["enum"].as_array_mut() {
                values.extend((0..3_000).map(|n| serde_json::json!(format!("state_{n}"))));
            }
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    assert!(comparison.changes.len() >= 3_000);
    let text = report::markdown(&comparison, None, "1.1.0 → new");
    assert!(
        text.chars().count() <= 65_536,
        "{} characters",
        text.chars().count()
    );
    assert!(text.contains("more changes, left out"), "{text}");
    assert!(text.contains("more reasons, left out"), "{text}");
    assert!(text.trim_end().ends_with("</details>"), "{text}");
    assert!(text.contains("`enum.value_added`"), "no change is shown");
}

/// A review comment says what changed whatever the values hold: an enum
/// value that would open an HTML comment, a code span, emphasis, a link or
/// math, or end a table cell, is shown as it is. The comment is read back
/// with a CommonMark parser (GitHub's tables, strikethrough and math on).
#[test]
fn markdown_shows_hostile_values_as_they_are() {
    use pulldown_cmark::{Event, Options as Markdown, Parser, Tag, TagEnd};
    const HOSTILE: [&str; 8] = [
        "<!-- hidden",
        "a`b|c",
        "**bold**",
        "``x`` `",
        "$x$",
        "[l](https://example.org)",
        "~~s~~",
        "&lt;<b>",
    ];
    let new = release("1.1.0");
    let mut old = new.clone();
    for doc in &mut old.docs {
        if doc.name == "TaskState" {
            let values = doc.value["enum"].as_array_mut().expect("an enum");
            values.extend(HOSTILE.iter().map(|v| serde_json::json!(v)));
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("compares");
    let markdown = report::markdown(&comparison, None, "a <!-- b");
    let options = Markdown::ENABLE_TABLES | Markdown::ENABLE_STRIKETHROUGH | Markdown::ENABLE_MATH;
    let (mut rows, mut cells, mut cell, mut strong) = (Vec::new(), Vec::new(), String::new(), 0);
    let mut in_cell = false;
    for event in Parser::new_ext(&markdown, options) {
        match event {
            // The report's own fold, and nothing else.
            Event::Html(ref html)
                if html.as_ref() == "<details><summary>Why each break</summary>\n"
                    || html.as_ref() == "</details>\n" => {}
            Event::Html(_)
            | Event::InlineHtml(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_) => {
                panic!("{event:?} in:\n{markdown}")
            }
            Event::Start(Tag::Emphasis | Tag::Strikethrough | Tag::Link { .. }) => {
                panic!("{event:?} in:\n{markdown}")
            }
            Event::Start(Tag::Strong) => strong += 1,
            Event::Start(Tag::TableCell) => {
                in_cell = true;
                cell.clear();
            }
            Event::End(TagEnd::TableCell) => {
                in_cell = false;
                cells.push(std::mem::take(&mut cell));
            }
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                rows.push(std::mem::take(&mut cells))
            }
            Event::Text(text) | Event::Code(text) if in_cell => cell.push_str(&text),
            _ => {}
        }
    }
    // The summary, and R and API breaking in each of the eight rows.
    assert_eq!(strong, 1 + 2 * HOSTILE.len(), "{markdown}");
    assert_eq!(rows.len(), 1 + comparison.changes.len(), "{markdown}");
    assert!(rows.iter().all(|row| row.len() == 7), "{rows:#?}");
    let details: std::collections::BTreeSet<&str> =
        rows.iter().skip(1).map(|row| row[5].as_str()).collect();
    for change in &comparison.changes {
        assert!(
            details.contains(change.detail.as_str()),
            "{:?} in {details:#?}",
            change.detail
        );
    }
    for value in HOSTILE {
        let shown = serde_json::json!(value).to_string();
        assert!(
            rows.iter().any(|row| row[6] == shown),
            "{shown} in {rows:#?}"
        );
    }
}

/// Two long values that start alike read as one when each is cut to its
/// start: a change inside a list of conditions names where they first
/// differ.
#[test]
fn a_change_deep_in_a_long_keyword_names_where_it_is() {
    let old = release("1.1.0");
    let mut new = old.clone();
    for doc in &mut new.docs {
        if doc.name == "Checksum" {
            doc.value["allOf"][0]["then"]["properties"]["value"]["maxLength"] =
                serde_json::json!(31);
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("the schemas register");
    let details: Vec<&str> = comparison
        .changes
        .iter()
        .map(|change| change.detail.as_str())
        .collect();
    assert!(
        details
            .contains(&"`allOf`, first different at /0/then/properties/value/maxLength: 32 → 31"),
        "{details:#?}"
    );
}

#[test]
fn a_change_alone_that_holds_whole_is_not_said_to_hold_with_others() {
    // `not: {required: [zzz]}` holds nothing on a closed object without
    // `zzz`: taken away, a condition is widened, which breaks as a kind of
    // change, and not here. (A bound for numbers or `not: {type: number}`
    // would not do: beside the object's `type`, the change alone is seen
    // to hold.)
    let new = release("1.1.0");
    let mut old = new.clone();
    for doc in &mut old.docs {
        if doc.name == "download.get" {
            doc.value["$defs"]["result"]["not"] = serde_json::json!({"required": ["zzz"]});
        }
    }
    let comparison = compare_sets(&old, &new, Options::default()).expect("compared");
    assert!(comparison.writer.holds() && comparison.reader.holds());
    let [widened] = &comparison.changes[..] else {
        panic!("{:#?}", comparison.changes)
    };
    assert!(
        widened.detail.ends_with(
            "(breaks as a change of its kind may; the schemas compared whole hold here)"
        ),
        "{}",
        widened.detail
    );
}

/// Every property name of `value` with `suffix` after it.
fn with_hostile_names(value: &serde_json::Value, suffix: &str) -> serde_json::Value {
    use serde_json::Value;
    let hostile = |name: &str| format!("{name}{suffix}");
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let item = match (key.as_str(), item) {
                        ("properties", Value::Object(members)) => Value::Object(
                            members
                                .iter()
                                .map(|(name, schema)| {
                                    (hostile(name), with_hostile_names(schema, suffix))
                                })
                                .collect(),
                        ),
                        ("required", Value::Array(names)) => Value::Array(
                            names
                                .iter()
                                .map(|name| match name {
                                    Value::String(name) => Value::String(hostile(name)),
                                    other => other.clone(),
                                })
                                .collect(),
                        ),
                        _ => with_hostile_names(item, suffix),
                    };
                    (key.clone(), item)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| with_hostile_names(item, suffix))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whatever a schema names, each text report stays lines that say only what
/// they say: generated schema pairs whose property names carry line breaks,
/// a forged workflow command, terminal escapes, line separators, bidi
/// overrides, markdown and HTML, and 4,000 characters, compared; the human,
/// markdown and GitHub reports hold no raw character that breaks or
/// reorders a line, no line past 3,000 characters, and GitHub's are all
/// commands.
#[test]
fn hostile_names_in_generated_pairs_forge_no_line() {
    use serde_json::Value;
    let long = "é".repeat(4_000);
    let suffixes = [
        "\n::error file=README.md::forged",
        "\r\u{1b}[2J\u{7}",
        "\u{2028}\u{2029}\u{85}",
        "\u{202e}\u{2066}",
        "<!-- `|` **b** [l](x) $m$",
        "a\"b\\c%0A",
        long.as_str(),
    ];
    let breaks_a_line = |c: char| {
        c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    let set = |schema: &Value| {
        SchemaSet::from_texts_with(
            Path::new("cases"),
            [("types/Case.json", schema.to_string().as_str())],
            contract::DeepDocuments::Keep,
        )
        .expect("one schema loads")
    };
    let place = |_: &str| Some(("types/Case.json".to_string(), 1));
    let mut rng = sample::Rng::new(0x1095_2026);
    let (mut changes, mut shown, mut problems) = (0, 0, Vec::new());
    for pair in 0..350 {
        let old = sample::schemas::document(&mut rng);
        let new = sample::schemas::changed(&old, &mut rng);
        let suffix = suffixes[pair % suffixes.len()];
        let (old, new) = (
            with_hostile_names(&old, suffix),
            with_hostile_names(&new, suffix),
        );
        let Ok(comparison) = compat::compare_documents(&set(&old), &set(&new), Options::default())
        else {
            continue;
        };
        changes += comparison.changes.len();
        for (format, text) in [
            ("human", report::human(&comparison, None)),
            ("markdown", report::markdown(&comparison, None, "old → new")),
            ("github", report::github(&comparison, None, &place)),
        ] {
            for line in text.lines() {
                shown += usize::from(line.contains("\\u000a::error file=README.md::forged"));
                let bad = line.chars().any(breaks_a_line)
                    || line.chars().count() > 3_000
                    || (format == "github" && !line.starts_with("::"));
                if bad {
                    problems.push(format!("{format}: {line:?}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems, the first: {}",
        problems.len(),
        problems.first().map_or("", |p| &p[..p.len().min(3000)])
    );
    assert!(changes > 100, "only {changes} changes reported");
    assert!(shown >= 5, "a forged name was shown in only {shown} lines");
}

/// A file from elsewhere, with an absolute `$id`: the checker resolves its
/// references against it, but the report quotes them as the file does.
#[test]
fn a_changed_reference_is_shown_as_the_file_writes_it() {
    let old = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/x/root.json",
        "$defs": {"a": {"$id": "a.json", "type": "string"}},
        "properties": {"p": {"$ref": "a.json", "minLength": 1}}
    });
    let mut new = old.clone();
    new["properties"]["p"]["$ref"] = "c.json".into();
    let comparison = compat::compare_documents(&case(&old), &case(&new), Options::default())
        .expect("the schemas register");
    let change = comparison
        .changes
        .iter()
        .find(|change| change.new_pointer.as_deref() == Some("types/Case.json#/properties/p/$ref"))
        .expect("a change where the reference is");
    assert_eq!(change.detail, r#"`$ref`: "a.json" → "c.json""#);
}
