//! The report a reviewer reads, for the real 1.0.0 → 1.1.0 step (both
//! releases are frozen, so the snapshot only changes when the report does).

use std::path::Path;

use compat::{compare_sets, declared_bump, report, Options};
use contract::SchemaSet;

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
    assert_eq!(json["changes"][0]["oldPointer"], "types/TaskSummary.json#");
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
    insta::assert_snapshot!("github_breaking", report::github(&comparison, &locate));
    insta::assert_snapshot!(
        "sarif_breaking",
        serde_json::to_string_pretty(&report::sarif(&comparison, &locate)).expect("JSON")
    );
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
}
