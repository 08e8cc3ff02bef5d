//! The conformance gate passes on the repository, and fails — saying why —
//! when a fixture, a divergence or the coverage is wrong.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use conformance::fixtures::{gate, GateReport};
use conformance::Checker;
use serde_json::json;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn checker() -> Checker {
    let set = contract::SchemaSet::load(&repo().join("contracts/schema")).expect("schemas load");
    Checker::new(set).expect("checker builds")
}

/// A copy of `conformance/` to plant things in.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("vdm-gate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&repo().join("conformance"), &dir);
        Scratch(dir)
    }

    fn write(&self, rel: &str, value: &serde_json::Value) {
        std::fs::write(
            self.0.join(rel),
            serde_json::to_string_pretty(value).expect("json"),
        )
        .expect("write");
    }

    fn run(&self) -> GateReport {
        gate(&self.0, &checker()).expect("the gate runs")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn check_fails(report: &GateReport, needle: &str) {
    assert!(
        report
            .failures
            .iter()
            .any(|failure| failure.contains(needle)),
        "expected a failure mentioning {needle:?}, got:\n{}",
        report.failures.join("\n")
    );
}

#[test]
fn the_conformance_gate_passes_on_the_repository() {
    let report = gate(&repo().join("conformance"), &checker()).expect("the gate runs");
    assert!(report.failures.is_empty(), "{}", report.failures.join("\n"));
    // Every value of an enum is covered, however many the contract has.
    let codes: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("contracts/schema/types/TaskErrorCode.json"))
            .expect("TaskErrorCode.json reads"),
    )
    .expect("TaskErrorCode.json is JSON");
    let count = codes["enum"].as_array().map_or(0, Vec::len);
    assert!(count > 0);
    assert!(
        report.lines.iter().any(
            |line| line.contains("TaskErrorCode") && line.contains(&format!("{count}/{count}"))
        ),
        "{}",
        report.lines.join("\n")
    );
}

#[test]
fn a_planted_divergence_fails_the_gate() {
    let scratch = Scratch::new("divergence");
    // Valid for serde (it does not check sums), refused by the validator,
    // and not listed: a listed fixture's copy under another name, so it
    // follows the contract wherever the fixture is mended to.
    let listed =
        std::fs::read_to_string(scratch.0.join("invalid/downloaded_past_size.json")).unwrap();
    let mut planted: serde_json::Value = serde_json::from_str(&listed).unwrap();
    planted["description"] = json!("planted");
    scratch.write("invalid/planted.json", &planted);
    check_fails(
        &scratch.run(),
        "invalid/planted.json: the generated TaskSummary type accepts this value",
    );
}

#[test]
fn an_invalid_fixture_refused_by_another_rule_fails_the_gate() {
    let scratch = Scratch::new("wrong-rule");
    scratch.write(
        "invalid/wrong_rule.json",
        &json!({"description": "names the wrong rule", "rule": "detail.sum", "pointer": "/endByte", "type": "Segment",
                "value": {"index": 0, "startByte": 9, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    check_fails(&scratch.run(), "invalid/wrong_rule.json: expected to be refused by detail.sum exactly, but got [segment.range_order at /endByte: ");
}

/// An `x-rule` the checker does not know fails the gate at its place, saying
/// where the rule is added; one that is data (under `const`) or a
/// property's name does not.
#[test]
fn a_rule_no_checker_knows_is_named_where_the_schema_names_it() {
    let mut set =
        contract::SchemaSet::load(&repo().join("contracts/schema")).expect("schemas load");
    let segment = set
        .docs
        .iter_mut()
        .find(|doc| doc.rel == "types/Segment.json")
        .unwrap();
    segment.value["allOf"] = json!([
        {"x-rule": "segment.planted", "description": "planted", "if": {"const": {"x-rule": "data.only"}}, "then": true},
    ]);
    segment.value["$defs"] = json!({"x-rule": {"type": "string"}});
    // A property named as a keyword that holds values is still a schema.
    segment.value["properties"]["const"] =
        json!({"allOf": [{"x-rule": "segment.in_a_property", "if": true, "then": true}]});
    let report = gate(
        &repo().join("conformance"),
        &Checker::new(set).expect("checker builds"),
    )
    .expect("the gate runs");
    let unknown: Vec<&String> = report
        .failures
        .iter()
        .filter(|failure| failure.contains("is no rule vdm-conform knows"))
        .collect();
    let mut places: Vec<&str> = unknown
        .iter()
        .filter_map(|failure| failure.split_once(": ").map(|(place, _)| place))
        .collect();
    places.sort_unstable();
    assert_eq!(
        places,
        [
            "types/Segment.json#/allOf/0/x-rule",
            "types/Segment.json#/properties/const/allOf/0/x-rule"
        ]
    );
    assert!(
        unknown.iter().any(|failure| failure.as_str() == "types/Segment.json#/allOf/0/x-rule: \"segment.planted\" is no rule vdm-conform knows, so a failure there is reported as `schema`: add it to `Rule` in crates/conformance/src/rules.rs (its id and what it asks) and to docs/conformance.md"),
        "{unknown:#?}"
    );
}

/// A valid trace that breaks a rule fails the gate at its line, saying
/// what is wrong there.
#[test]
fn a_valid_trace_that_breaks_a_rule_is_told_why() {
    let scratch = Scratch::new("valid-trace-breaks");
    let path = scratch.0.join("traces/valid/session.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    let mut record: serde_json::Value = serde_json::from_str(first).unwrap();
    record["msg"]["v"] = json!(7);
    let broken = text.replacen(first, &record.to_string(), 1);
    std::fs::write(&path, broken).unwrap();
    check_fails(
        &scratch.run(),
        "session.jsonl: a valid trace breaks envelope.version at line 1 /msg/v: protocol version 7",
    );
}

/// A state the transition table names nowhere can be in no trace: the gate
/// names it, so a new `TaskState` value comes with the moves to and from it.
#[test]
fn a_state_the_transition_table_never_names_fails() {
    let scratch = Scratch::new("unnamed-state");
    let path = scratch.0.join("traces/transitions.json");
    let mut table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let rows = table.as_object_mut().unwrap();
    let gone = rows.keys().next_back().unwrap().clone();
    rows.remove(&gone);
    for moves in rows.values_mut() {
        moves
            .as_array_mut()
            .unwrap()
            .retain(|state| state != gone.as_str());
    }
    scratch.write("traces/transitions.json", &table);
    check_fails(
        &scratch.run(),
        &format!("transitions.json: the TaskState \"{gone}\" is in no row, as a state or a move"),
    );
}

/// A valid trace making a move the table lacks is told the row to add it
/// to: the table's file and the row's pointer.
#[test]
fn a_move_the_transition_table_lacks_names_the_row() {
    let scratch = Scratch::new("missing-move");
    let path = scratch.0.join("traces/transitions.json");
    let mut table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // session.jsonl moves a task from queued to probing.
    let row = table["queued"].as_array_mut().unwrap();
    assert!(row.contains(&json!("probing")));
    row.retain(|state| state != "probing");
    scratch.write("traces/transitions.json", &table);
    check_fails(
        &scratch.run(),
        &format!(
            "moved queued → probing, which is not in the transition table ({}#/queued)",
            path.display()
        ),
    );
}

/// A valid frame fixture holds what the writer writes, byte for byte: one
/// mended by hand with its members moved or spaced is named, with the body
/// to write instead.
#[test]
fn a_valid_frame_written_otherwise_is_told_what_to_write() {
    let scratch = Scratch::new("frame-bytes");
    let dir = scratch.0.join("frames");
    let mut valid: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .filter(|path| {
            let sidecar: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(path.with_extension("expect.json")).unwrap(),
            )
            .unwrap();
            let outcomes = sidecar["outcomes"].as_array().unwrap();
            outcomes.len() == 2 && outcomes[0].as_str().unwrap().starts_with("envelope:")
        })
        .collect();
    valid.sort();
    let path = valid.first().expect("a frame fixture of one envelope");
    let bytes = std::fs::read(path).unwrap();
    let body: serde_json::Value = serde_json::from_slice(&bytes[4..]).unwrap();
    let spaced = serde_json::to_vec_pretty(&body).unwrap();
    let frame = [&(spaced.len() as u32).to_be_bytes()[..], &spaced].concat();
    std::fs::write(path, frame).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    check_fails(
        &scratch.run(),
        &format!(
            "{name}: frame 1 is not what FrameWriter writes (no spaces, members in the generated types' order); write its body as {}",
            String::from_utf8_lossy(&bytes[4..])
        ),
    );
}

/// An invalid trace holds one fault: one that breaks its rule a second
/// time (the call's reply sent by the client, beside the call sent by the
/// server) fails, so a checker that finds only the second cannot pass it.
#[test]
fn an_invalid_trace_that_breaks_its_rule_twice_fails() {
    let scratch = Scratch::new("trace-twice");
    let path = scratch.0.join("traces/invalid/trace.direction.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let twice = text.replacen(
        r#"{"from":"server","msg":{"v":1,"kind":"reply""#,
        r#"{"from":"client","msg":{"v":1,"kind":"reply""#,
        1,
    );
    assert_ne!(twice, text);
    std::fs::write(&path, twice).unwrap();
    let report = scratch.run();
    check_fails(
        &report,
        "trace.direction.jsonl: expected to break trace.direction once, but it breaks trace.direction at line 1 /msg/kind: ",
    );
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// A fixture's value is checked as text, as every reader meets it: an
/// integer past 2^53 − 1 where any value is taken (an error's `data`) is a
/// second fault, which the value alone would hide.
#[test]
fn a_fault_of_the_text_in_a_fixture_is_a_second_fault() {
    let scratch = Scratch::new("text-fault");
    let path = scratch.0.join("invalid/error_without_id.json");
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(fixture["value"]["kind"], "error");
    fixture["value"]["body"]["data"] = json!(1_u64 << 60);
    scratch.write("invalid/error_without_id.json", &fixture);
    let report = scratch.run();
    check_fails(
        &report,
        "invalid/error_without_id.json: expected to be refused by schema exactly, but got [json at (root): the integer at byte ",
    );
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// A frame fixture shows one fault: a body refused for two (the version
/// missing, and a member no envelope has) reads as the sidecar says, and
/// still fails, naming both.
#[test]
fn a_frame_with_a_second_fault_fails_the_gate() {
    let scratch = Scratch::new("frame-second-fault");
    let path = scratch.0.join("frames/no_version.bin");
    let bytes = std::fs::read(&path).unwrap();
    let length = usize::try_from(u32::from_be_bytes(bytes[..4].try_into().unwrap())).unwrap();
    let mut body: serde_json::Value = serde_json::from_slice(&bytes[4..4 + length]).unwrap();
    assert!(body.get("v").is_none());
    body["extra"] = json!(1);
    let body = body.to_string().into_bytes();
    let mut planted = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    planted.extend_from_slice(&body);
    planted.extend_from_slice(&bytes[4 + length..]);
    std::fs::write(&path, planted).unwrap();
    let report = scratch.run();
    check_fails(
        &report,
        "no_version.bin: frame 1 holds more than one fault, so a reader could refuse it for one it was not meant to show: [",
    );
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// A trace fixture with no record proves nothing: a valid one is refused
/// for it, and an invalid one is told it breaks nothing.
#[test]
fn a_trace_fixture_with_no_record_fails() {
    let scratch = Scratch::new("empty-traces");
    std::fs::write(scratch.0.join("traces/valid/blank.jsonl"), "\n \n").unwrap();
    let mut invalid: Vec<PathBuf> = std::fs::read_dir(scratch.0.join("traces/invalid"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    invalid.sort();
    let emptied = invalid.first().expect("an invalid trace");
    std::fs::write(emptied, "").unwrap();
    let name = emptied.file_name().unwrap().to_string_lossy().into_owned();
    let report = scratch.run();
    check_fails(
        &report,
        "blank.jsonl: a valid trace holds no record, so it shows nothing conforms",
    );
    check_fails(&report, &format!("{name}: expected to break "));
    assert!(
        report
            .failures
            .iter()
            .any(|failure| failure.contains(&name)
                && failure.ends_with("once, but it breaks nothing")),
        "{:#?}",
        report.failures
    );
}

/// A listed fixture that now breaks a rule it does not name as well (a
/// member made required that it lacks) fails once, saying what it broke and
/// why; its divergence entry, which is about its own rule, is not called
/// stale.
#[test]
fn a_listed_fixture_refused_by_another_rule_too_is_told_once() {
    let scratch = Scratch::new("listed-other-rule");
    let path = scratch.0.join("invalid/downloaded_past_size.json");
    let mut fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // A member the type requires, which the fixture holds.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("contracts/schema/types/TaskSummary.json")).unwrap(),
    )
    .unwrap();
    let member = schema["required"][0].as_str().unwrap();
    fixture["value"]
        .as_object_mut()
        .unwrap()
        .remove(member)
        .unwrap();
    scratch.write("invalid/downloaded_past_size.json", &fixture);
    let report = scratch.run();
    let about: Vec<&String> = report
        .failures
        .iter()
        .filter(|failure| failure.contains("downloaded_past_size"))
        .collect();
    assert_eq!(about.len(), 1, "{about:#?}");
    assert!(
        about[0].contains("expected to be refused by summary.downloaded_bound exactly")
            && about[0].contains("schema at (root): ")
            && about[0].contains(member),
        "{about:#?}"
    );
}

#[test]
fn an_invalid_fixture_that_passes_fails_the_gate() {
    let scratch = Scratch::new("passes");
    scratch.write(
        "invalid/not_invalid.json",
        &json!({"description": "actually fine", "rule": "schema", "pointer": "", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    check_fails(
        &scratch.run(),
        "invalid/not_invalid.json: expected to be refused by schema exactly, but got []",
    );
}

#[test]
fn a_valid_fixture_that_breaks_a_rule_fails_the_gate() {
    let scratch = Scratch::new("valid-breaks");
    scratch.write(
        "valid/broken.json",
        &json!({"description": "not valid", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 9, "downloadedBytes": 3, "state": "complete"}}),
    );
    check_fails(
        &scratch.run(),
        "valid/broken.json: a valid fixture breaks segment.complete_full at /downloadedBytes",
    );
}

#[test]
fn an_enum_value_no_fixture_uses_fails_the_gate() {
    let scratch = Scratch::new("coverage");
    std::fs::remove_file(scratch.0.join("valid/checksum_md5.json")).expect("remove");
    check_fails(
        &scratch.run(),
        "ChecksumAlgorithm: no valid fixture uses md5",
    );
}

#[test]
fn a_method_without_a_reply_fixture_fails_the_gate() {
    let scratch = Scratch::new("directions");
    std::fs::remove_file(scratch.0.join("valid/download_remove_reply.json")).expect("remove");
    check_fails(
        &scratch.run(),
        "no valid fixture for download.remove (reply)",
    );
}

#[test]
fn a_stale_divergence_entry_fails_the_gate() {
    let scratch = Scratch::new("stale");
    let path = scratch.0.join("known-divergences");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("invalid/version_2.json  the types refuse it, so this entry is stale\n");
    std::fs::write(&path, text).expect("write");
    check_fails(&scratch.run(), "invalid/version_2.json: listed in conformance/known-divergences, but the generated types refuse it now");
}

#[test]
fn a_divergence_without_a_reason_is_refused_and_the_others_are_used() {
    let scratch = Scratch::new("no-reason");
    let path = scratch.0.join("known-divergences");
    let listed = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, format!("invalid/gap.json\n{listed}")).expect("write");
    let report = scratch.run();
    check_fails(
        &report,
        "known-divergences:1: invalid/gap.json is listed without a reason",
    );
    // The entries with reasons still hold: nothing else fails.
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// A transitions table that cannot be read fails the gate, saying so; the
/// message fixtures are still checked.
/// A byte that is not UTF-8 in the divergence list is one failure naming
/// its place; the list's entries still hold, so nothing else fails.
#[test]
fn a_bad_byte_in_the_divergence_list_is_one_failure() {
    let scratch = Scratch::new("latin1-divergences");
    let path = scratch.0.join("known-divergences");
    let mut bytes = b"# caf\xe9\n".to_vec();
    bytes.extend(std::fs::read(&path).expect("read"));
    std::fs::write(&path, bytes).expect("write");
    let report = scratch.run();
    check_fails(
        &report,
        "known-divergences:1:6: not UTF-8 text (byte offset 5)",
    );
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

#[test]
fn a_transitions_table_that_cannot_be_read_fails_the_gate() {
    let scratch = Scratch::new("no-table");
    std::fs::write(scratch.0.join("traces/transitions.json"), "{\"states\": ").expect("write");
    scratch.write(
        "invalid/not_invalid.json",
        &json!({"description": "actually fine", "rule": "schema", "pointer": "", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    let report = scratch.run();
    check_fails(&report, "traces/transitions.json: ");
    check_fails(
        &report,
        "invalid/not_invalid.json: expected to be refused by schema exactly, but got []",
    );
}

/// A byte of the table that is not UTF-8 is named by line and column, as in
/// every other file of the folder.
#[test]
fn a_transitions_table_that_is_not_utf8_is_named_where() {
    let scratch = Scratch::new("latin1-table");
    std::fs::write(
        scratch.0.join("traces/transitions.json"),
        b"{\n  \"caf\xe9\": []\n}\n",
    )
    .expect("write");
    let report = scratch.run();
    check_fails(
        &report,
        "traces/transitions.json:2:7: not UTF-8 text (byte offset 8)",
    );
}

#[test]
fn a_frame_fixture_whose_sidecar_disagrees_fails_the_gate() {
    let scratch = Scratch::new("frames");
    scratch.write(
        "frames/call.expect.json",
        &json!({"description": "wrong", "outcomes": ["envelope:reply", "closed"]}),
    );
    let report = scratch.run();
    check_fails(
        &report,
        "call.bin: read as [\"envelope:call\", \"closed\"], its sidecar ",
    );
    check_fails(
        &report,
        "frames/call.expect.json says [\"envelope:reply\", \"closed\"]",
    );
}

#[test]
fn every_rule_id_is_documented() {
    let doc =
        std::fs::read_to_string(repo().join("docs/conformance.md")).expect("docs/conformance.md");
    for rule in conformance::Rule::ALL {
        // The table row says what `vdm-conform rules` says.
        let row = format!("| `{}` | {} |", rule.id(), rule.asks());
        assert!(
            doc.contains(&row),
            "docs/conformance.md does not document {rule} as `{row}`"
        );
    }
}

/// A field no valid fixture carries fails the gate, named with the schema
/// that declares it: a field added without a fixture has never been on the
/// wire in any test.
#[test]
fn a_field_no_valid_fixture_carries_fails_the_gate() {
    let mut set =
        contract::SchemaSet::load(&repo().join("contracts/schema")).expect("schemas load");
    // A name the contract does not have yet, whatever later releases add.
    let mut name = String::new();
    for doc in &mut set.docs {
        if doc.name == "TaskSummary" {
            name = (0..)
                .map(|n| format!("planted{n}"))
                .find(|name| doc.value["properties"].get(name).is_none())
                .expect("a free name");
            doc.value["properties"][&name] = json!({
                "type": "integer", "minimum": 0, "maximum": 9,
                "description": "A planted field."
            });
        }
    }
    let checker = Checker::new(set).expect("checker builds");
    let report = gate(&repo().join("conformance"), &checker).expect("the gate runs");
    check_fails(
        &report,
        &format!("types/TaskSummary.json#/properties: no valid fixture has the field \"{name}\""),
    );
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// A fixture that cannot be read is a failure naming the file (and, for a
/// byte that is not UTF-8, its line and column; for a FIFO, that it is not
/// a regular file); every other fixture is
/// still checked, so one bad file does not hide what else is wrong.
#[test]
fn a_fixture_that_cannot_be_read_fails_alone_and_the_rest_are_checked() {
    let scratch = Scratch::new("unreadable");
    std::fs::write(
        scratch.0.join("valid/latin1.json"),
        b"{\"description\": \"caf\xe9\", \"type\": \"Segment\", \"value\": {}}",
    )
    .unwrap();
    std::fs::write(scratch.0.join("invalid/cut.json"), b"{\"description\": ").unwrap();
    scratch.write("valid/an_array.json", &json!([1, 2]));
    scratch.write(
        "valid/numbered.json",
        &json!({"description": 7, "type": "Segment", "value": {}}),
    );
    // Two rules: which one the fixture names is not for serde to pick.
    std::fs::write(
        scratch.0.join("invalid/two_rules.json"),
        br#"{"description": "x", "rule": "schema", "rule": "detail.sum", "type": "Segment", "value": {}}"#,
    )
    .unwrap();
    scratch.write(
        "invalid/not_invalid.json",
        &json!({"description": "actually fine", "rule": "schema", "pointer": "", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    // A trace line that is not UTF-8 is what an invalid trace may be about.
    std::fs::write(
        scratch.0.join("traces/invalid/json--latin1.jsonl"),
        b"{\"from\":\"client\",\"msg\":{\"v\":1,\"kind\":\"call\",\"id\":1,\"body\":{\"method\":\"download.pause\",\"params\":{\"taskId\":\"caf\xe9\"}}}}\n",
    )
    .unwrap();
    std::fs::write(
        scratch.0.join("frames/orphan.bin"),
        [0, 0, 0, 2, b'{', b'}'],
    )
    .unwrap();
    // A FIFO would block the read for ever.
    let fifo = scratch.0.join("valid/fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Past the bound a file is read to, it is refused, not read whole
    // (sparse: it costs no disk).
    std::fs::File::create(scratch.0.join("valid/huge.json"))
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    let report = scratch.run();
    check_fails(&report, "valid/fifo.json: not a regular file");
    check_fails(&report, "valid/huge.json: larger than 16 MiB");
    assert!(
        !report.failures.iter().any(|f| f.contains("latin1.jsonl")),
        "{}",
        report.failures.join("\n")
    );
    check_fails(&report, "frames/orphan.expect.json: ");
    check_fails(
        &report,
        "valid/latin1.json:1:21: not UTF-8 text (byte offset 20)",
    );
    check_fails(&report, "invalid/cut.json: not JSON: EOF while parsing");
    check_fails(
        &report,
        "valid/an_array.json: a fixture is a JSON object with \"description\", \"type\" and \"value\"; this is an array",
    );
    check_fails(
        &report,
        "valid/numbered.json: \"description\" is a number, not a string",
    );
    check_fails(
        &report,
        "invalid/two_rules.json: not JSON: the member at /rule is named twice",
    );
    check_fails(
        &report,
        "invalid/not_invalid.json: expected to be refused by schema exactly, but got []",
    );
}

/// A member the gate does not read is refused, naming it: a misspelt
/// `pointer` or `outcomes` would leave what it says unchecked, and a valid
/// fixture's `rule` means nothing. An invalid fixture names its place, and
/// what `rule`, `alsoBreaks` and `outcomes` hold is of their kind.
#[test]
fn a_member_the_gate_does_not_read_fails_the_gate_naming_it() {
    let scratch = Scratch::new("members");
    let segment =
        json!({"index": 0, "startByte": 9, "endByte": 1, "downloadedBytes": 0, "state": "pending"});
    scratch.write(
        "invalid/misspelt.json",
        &json!({"description": "x", "rule": "segment.range_order", "poniter": "/endByte",
                "type": "Segment", "value": segment}),
    );
    scratch.write(
        "invalid/no_place.json",
        &json!({"description": "x", "rule": "segment.range_order", "type": "Segment", "value": segment}),
    );
    scratch.write(
        "invalid/rule_number.json",
        &json!({"description": "x", "rule": 5, "pointer": "/endByte", "type": "Segment", "value": segment}),
    );
    scratch.write(
        "invalid/also_text.json",
        &json!({"description": "x", "rule": "segment.range_order", "pointer": "/endByte",
                "alsoBreaks": "schema", "type": "Segment", "value": segment}),
    );
    scratch.write(
        "valid/with_rule.json",
        &json!({"description": "x", "rule": "schema", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    std::fs::write(scratch.0.join("frames/one.bin"), [0, 0, 0, 2, b'{', b'}']).unwrap();
    scratch.write(
        "frames/one.expect.json",
        &json!({"description": "x", "outcome": ["envelope"]}),
    );
    std::fs::write(scratch.0.join("frames/two.bin"), [0, 0, 0, 2, b'{', b'}']).unwrap();
    scratch.write(
        "frames/two.expect.json",
        &json!({"description": "x", "outcomes": ["envelope", 1]}),
    );
    std::fs::write(scratch.0.join("frames/three.bin"), [0, 0, 0, 2, b'{', b'}']).unwrap();
    scratch.write(
        "frames/three.expect.json",
        &json!({"outcomes": ["json", "closed"]}),
    );
    let report = scratch.run();
    for said in [
        "invalid/misspelt.json: an invalid fixture has no member \"poniter\": its members are description, type, value, rule, pointer, alsoBreaks",
        "invalid/no_place.json: missing \"pointer\"",
        "invalid/rule_number.json: \"rule\" is a number, not a string",
        "invalid/also_text.json: \"alsoBreaks\" is a list of rule ids (strings)",
        "valid/with_rule.json: a valid fixture has no member \"rule\": its members are description, type, value",
        "frames/one.expect.json: a sidecar has no member \"outcome\": its members are description, outcomes",
        "frames/two.expect.json: a sidecar lists what each read gives in \"outcomes\", a list of strings",
        "frames/three.expect.json: a sidecar says what its stream shows in \"description\", a string",
    ] {
        check_fails(&report, said);
    }
}

/// The checker's walk recurses through references: a chain of types each
/// referring to the next, thousands long, overflowed the stack. Past the
/// nesting the walk follows, building the checker is an error naming the
/// file where it stopped.
#[test]
fn a_chain_of_types_too_deep_to_walk_is_an_error_not_a_crash() {
    let dir = repo().join("contracts/schema");
    let mut texts = Vec::new();
    for folder in ["config", "envelope", "events", "methods", "types"] {
        for entry in std::fs::read_dir(dir.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let rel = format!("{folder}/{}", path.file_name().unwrap().to_str().unwrap());
            texts.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
    let link = |i: usize, links: usize| {
        let body = if i == links {
            json!({ "type": "integer" })
        } else {
            json!({
                "type": "object",
                "properties": { "next": { "$ref": format!("Link{}.json", i + 1) } },
                "additionalProperties": false
            })
        };
        let mut doc = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": format!("https://schemas.vdm.invalid/types/Link{i}.json"),
            "title": format!("Link{i}"),
        });
        doc.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        (format!("types/Link{i}.json"), doc.to_string())
    };
    let build = |links: usize| {
        let mut all = texts.clone();
        all.extend((0..=links).map(|i| link(i, links)));
        let set = contract::SchemaSet::from_texts(
            &dir,
            all.iter().map(|(rel, text)| (rel.as_str(), text.as_str())),
        )
        .expect("schemas load");
        Checker::new(set)
    };
    assert!(build(20).is_ok());
    let error = build(3000).err().expect("too deep to walk").to_string();
    assert!(
        error.contains("types/Link")
            && error.contains("levels deep here, counting through references"),
        "{error}"
    );
}

/// Every message names its file, so a fixture, trace or frame file whose
/// name holds a line break is refused, its name escaped: it could
/// otherwise forge a line of the gate's output.
#[test]
fn a_file_name_that_would_break_a_line_fails_the_gate_escaped() {
    let scratch = Scratch::new("names");
    let valid = std::fs::read(scratch.0.join("valid/download_pause_call.json")).expect("fixture");
    for (rel, bytes) in [
        ("valid/x\nerror: forged.json", &valid[..]),
        ("traces/invalid/trace.unanswered--x\ny.jsonl", b"{}\n"),
        ("frames/a\u{2028}b.bin", b""),
    ] {
        std::fs::write(scratch.0.join(rel), bytes).expect("write");
        let report = scratch.run();
        std::fs::remove_file(scratch.0.join(rel)).expect("remove");
        let shown = rel.replace('\n', "\\u000a").replace('\u{2028}', "\\u2028");
        check_fails(
            &report,
            &format!("{shown}: a file name with a control or line-breaking character, which no message could show as it is; rename it"),
        );
        let forged = report
            .failures
            .iter()
            .chain(&report.lines)
            .find(|line| line.contains('\n') || line.contains('\u{2028}'));
        assert_eq!(forged, None, "{rel:?}");
    }
}

/// A fixture naming a type the contract does not have fails alone, at its
/// `type`, with the name it may have meant; every other fixture is still
/// checked, and a divergence listed for it is not called stale.
#[test]
fn a_fixture_naming_no_type_fails_alone_and_the_rest_are_checked() {
    let scratch = Scratch::new("no-type");
    let path = scratch.0.join("invalid/http_status_missing.json");
    let mut listed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    listed["type"] = json!("Enelope");
    scratch.write("invalid/http_status_missing.json", &listed);
    scratch.write(
        "valid/no_such.json",
        &json!({"description": "x", "type": "Segmnt", "value": {}}),
    );
    scratch.write(
        "invalid/not_invalid.json",
        &json!({"description": "actually fine", "rule": "schema", "pointer": "", "type": "Segment",
                "value": {"index": 0, "startByte": 0, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    let report = scratch.run();
    check_fails(
        &report,
        "invalid/http_status_missing.json#/type: no type called \"Enelope\"; did you mean Envelope? known types: ",
    );
    check_fails(
        &report,
        "valid/no_such.json#/type: no type called \"Segmnt\"; did you mean Segment? ",
    );
    check_fails(
        &report,
        "invalid/not_invalid.json: expected to be refused by schema exactly, but got []",
    );
    assert_eq!(report.failures.len(), 3, "{}", report.failures.join("\n"));
}

/// An invalid fixture holds one fault: a second one outside its `pointer`
/// (of the same rule, so the rule check alone passes it) fails the gate,
/// naming what fired there.
#[test]
fn an_invalid_fixture_with_a_second_fault_elsewhere_fails_the_gate() {
    let scratch = Scratch::new("second-fault");
    let path = scratch.0.join("invalid/reply_with_wrong_result.json");
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(fixture["rule"], "schema");
    assert_eq!(fixture["pointer"], "/body/result");
    fixture["value"].as_object_mut().unwrap().remove("id");
    scratch.write("invalid/reply_with_wrong_result.json", &fixture);
    check_fails(
        &scratch.run(),
        "invalid/reply_with_wrong_result.json: schema also fired at (root), outside /body/result, where the fixture says its fault is: ",
    );
}

/// Where the fixture's rule fires at its `pointer` itself, a finding under
/// it is a second fault: a field of the wrong type beside the missing one
/// the fixture is about would let a reader pass it by refusing the field.
#[test]
fn an_invalid_fixture_with_a_second_fault_under_its_place_fails_the_gate() {
    let scratch = Scratch::new("second-fault-under");
    let path = scratch.0.join("invalid/provide_auth_without_password.json");
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(fixture["rule"], "schema");
    assert_eq!(fixture["pointer"], "/body/params");
    fixture["value"]["body"]["params"]["taskId"] = serde_json::json!(["t_01"]);
    scratch.write("invalid/provide_auth_without_password.json", &fixture);
    let report = scratch.run();
    check_fails(
        &report,
        "invalid/provide_auth_without_password.json: schema also fired at /body/params/taskId, under /body/params, where schema fired and the fixture says its fault is: ",
    );
    // One failure for the one fault: the keywords it adds are not asked.
    assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
}

/// The rule and the place alone take any fault at an object place: the
/// keywords a `schema` fixture names, one per finding, tell the fault it is
/// about from a second one there (another member missing, an unknown one
/// beside it) and from another fault in its stead (the object replaced).
#[test]
fn an_invalid_fixture_refused_at_its_place_by_other_keywords_fails_the_gate() {
    let original: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("conformance/invalid/provide_auth_without_password.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(original["keywords"], json!(["required"]));
    type Fault = fn(&mut serde_json::Value);
    let faults: [(&str, Fault, &str); 3] = [
        (
            "second-missing",
            |params| {
                params.as_object_mut().unwrap().remove("username");
            },
            "schema fired by [required, required], but the fixture names [required]",
        ),
        (
            "unknown-beside",
            |params| params["realm"] = json!("x"),
            "schema fired by [additionalProperties, required], but the fixture names [required]",
        ),
        (
            "replaced",
            |params| *params = json!("t_01"),
            "schema fired by [type], but the fixture names [required]",
        ),
    ];
    for (name, fault, said) in faults {
        let scratch = Scratch::new(&format!("keywords-{name}"));
        let mut fixture = original.clone();
        fault(&mut fixture["value"]["body"]["params"]);
        scratch.write("invalid/provide_auth_without_password.json", &fixture);
        let report = scratch.run();
        check_fails(
            &report,
            &format!("invalid/provide_auth_without_password.json: {said}"),
        );
        assert_eq!(report.failures.len(), 1, "{}", report.failures.join("\n"));
    }
}

/// A `schema` fixture without `keywords` fails, told the keywords that
/// fired; a fixture of another rule may name them too, and is held to them.
#[test]
fn a_schema_fixture_names_its_keywords_and_any_fixture_naming_them_is_held_to_them() {
    let scratch = Scratch::new("keywords-missing");
    let path = scratch.0.join("invalid/call_with_wrong_params.json");
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    fixture.as_object_mut().unwrap().remove("keywords");
    scratch.write("invalid/call_with_wrong_params.json", &fixture);
    scratch.write(
        "invalid/sum_by_keyword.json",
        &json!({"description": "a semantic rule has no keyword", "rule": "segment.range_order",
                "pointer": "/endByte", "keywords": ["minimum"], "type": "Segment",
                "value": {"index": 0, "startByte": 9, "endByte": 1, "downloadedBytes": 0, "state": "pending"}}),
    );
    scratch.write(
        "invalid/keywords_not_a_list.json",
        &json!({"description": "a keyword alone", "rule": "schema", "pointer": "",
                "keywords": "required", "type": "Segment", "value": {}}),
    );
    let report = scratch.run();
    check_fails(
        &report,
        "invalid/call_with_wrong_params.json: a schema fixture names the keywords that refuse it, one per finding (here \"keywords\": [\"additionalProperties\", \"required\"])",
    );
    check_fails(
        &report,
        "invalid/sum_by_keyword.json: segment.range_order fired by [(no keyword)], but the fixture names [minimum]",
    );
    check_fails(
        &report,
        "\"keywords\" is a list of JSON Schema keywords (strings)",
    );
    // The planted semantic fixture is not listed as a divergence either.
    check_fails(
        &report,
        "invalid/sum_by_keyword.json: the generated Segment type accepts this value",
    );
    assert_eq!(report.failures.len(), 4, "{}", report.failures.join("\n"));
}

/// The gate's judgement of invalid fixtures, put to generated input: each
/// single-fault mutant `generate --mutants` writes (of envelopes, task
/// details and task errors), made a fixture of the rule, place and
/// keywords `check` finds in it, passes; the same mutant
/// given one more edit that adds a finding fails. (A `json` mutant is a
/// fault of its text, which a fixture's value written back does not keep.)
#[test]
fn the_gate_takes_generated_single_faults_and_refuses_double_ones() {
    type Said = (String, String, Option<String>);
    let said = |found: &[conformance::Finding]| -> Vec<Said> {
        let mut said: Vec<Said> = found
            .iter()
            .map(|f| {
                (
                    f.rule.id().to_string(),
                    f.pointer.clone(),
                    f.keyword.clone(),
                )
            })
            .collect();
        said.sort();
        said
    };
    let checker = checker();
    let scratch = Scratch::new("generated-mutants");
    let (mut singles, mut doubles) = (Vec::new(), Vec::new());
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for (target, count, seed) in [
        ("Envelope", 160, 0x6a7e),
        ("TaskDetail", 60, 0x7d),
        ("TaskError", 40, 0x7e),
    ] {
        let mut text = Vec::new();
        conformance::generate::mutants(&checker, target, count, seed, &mut text).unwrap();
        for (index, line) in String::from_utf8(text).unwrap().lines().enumerate() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let rule = record["rule"].as_str().unwrap();
            if rule == "json" {
                continue;
            }
            let once = &record["msg"];
            let found = said(
                &checker
                    .check_text(target, once.to_string().as_bytes())
                    .unwrap(),
            );
            let mut fixture = json!({"description": "a generated mutant", "rule": rule,
            "pointer": record["at"], "type": target, "value": once});
            if rule == "schema" {
                let keywords: Vec<&str> =
                    found.iter().filter_map(|(_, _, k)| k.as_deref()).collect();
                fixture["keywords"] = json!(keywords);
            }
            let name = format!("single_{target}_{index}");
            scratch.write(&format!("invalid/{name}.json"), &fixture);
            singles.push(name);
            // One more edit, as generate makes them, or one of a few odd values
            // put in its place (an integer past 2^53 − 1 among them), chosen
            // by a xorshift.
            let edits = sample::one_step_edits(once, &Default::default(), true);
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let pick = usize::try_from(state % 1_000_003).unwrap();
            let Some(edit) = edits.get(pick % edits.len().max(1)) else {
                continue;
            };
            let odd = [
                json!(null),
                json!(""),
                json!([]),
                json!({}),
                json!(1.5),
                json!(1_u64 << 60),
            ];
            let edit = match (&edit.with, pick % 2) {
                (Some(_), 0) => sample::Edit {
                    pointer: edit.pointer.clone(),
                    with: odd.get(pick / 2 % odd.len()).cloned(),
                },
                _ => edit.clone(),
            };
            let twice = edit.applied(once);
            let again = said(
                &checker
                    .check_text(target, twice.to_string().as_bytes())
                    .unwrap(),
            );
            let mut left = found.clone();
            let added = again
                .iter()
                .any(|s| match left.iter().position(|l| l == s) {
                    Some(at) => {
                        left.remove(at);
                        false
                    }
                    None => true,
                });
            if added {
                fixture["value"] = twice;
                let name = format!("double_{target}_{index}");
                scratch.write(&format!("invalid/{name}.json"), &fixture);
                doubles.push(name);
            }
        }
    }
    let report = scratch.run();
    // Whether the generated types accept a mutant is the divergence list's
    // business, not this test's.
    let told = |name: &str| {
        report
            .failures
            .iter()
            .filter(|f| f.starts_with(&format!("invalid/{name}.json:")))
            .filter(|f| !f.contains("type accepts this value"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(
        singles.len() >= 200 && doubles.len() >= 100,
        "{} singles, {} doubles",
        singles.len(),
        doubles.len()
    );
    for name in &singles {
        assert!(
            told(name).is_empty(),
            "{name} is one fault: {:#?}",
            told(name)
        );
    }
    for name in &doubles {
        assert!(!told(name).is_empty(), "{name} holds two faults and passed");
    }
}
