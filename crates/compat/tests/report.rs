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
    let comparison = compare_sets(&release("1.0.0"), &release("1.1.0"), Options::default());
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
