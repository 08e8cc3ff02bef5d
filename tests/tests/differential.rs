//! The four readers (Rust, C++, TypeScript, `vdm-conform`) on the same
//! generated inputs must agree as `readers::disagreement` says. A bounded
//! run here; `cargo run --release -p contract-tests --example differential
//! -- --seconds N` runs for as long as asked.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use contract_tests::differential;
use contract_tests::readers::Server;

/// What each binding (Rust, C++, TypeScript) reads of each of `inputs`,
/// by the binding's name.
fn read_by_each(
    inputs: &[Vec<u8>],
    cpp: &mut Server,
    ts: &mut Server,
) -> [(&'static str, Vec<contract_tests::readers::Read>); 3] {
    let rust = inputs
        .iter()
        .map(|input| contract_tests::readers::rust(input))
        .collect();
    [
        ("Rust", rust),
        ("C++", cpp.read_all(inputs)),
        ("TypeScript", ts.read_all(inputs)),
    ]
}

#[test]
fn the_four_readers_agree_on_generated_inputs() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let inputs = differential::inputs(0xd1ff, 4_000);
    assert_eq!(inputs.len(), 4_000);
    let found = differential::disagreements(&inputs, &mut cpp, &mut ts, &checker);
    assert!(
        found.is_empty(),
        "{} of {} inputs:\n{}",
        found.len(),
        inputs.len(),
        found
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// serde's other forms of a struct and an enum value, in every place of
/// every valid envelope fixture: the four readers agree, and Rust takes
/// exactly what C++ and TypeScript take (it took both forms, as serde_json
/// does, which the harness alone allows a tolerant reader).
#[test]
fn the_readers_agree_on_serdes_other_forms() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let fixtures = conformance::fixtures::load_fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance"),
        "valid",
    )
    .unwrap();
    let inputs: Vec<Vec<u8>> = fixtures
        .iter()
        .filter(|f| f.type_name == "Envelope")
        .flat_map(|f| differential::serde_forms(&f.value))
        .map(|v| v.to_string().into_bytes())
        .collect();
    assert!(inputs.len() > 300, "{} inputs", inputs.len());
    let found = differential::disagreements(&inputs, &mut cpp, &mut ts, &checker);
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The harness lets Rust take more than C++ and TypeScript (its types
    // are tolerant of what only the validator checks); these forms it must
    // not take.
    let (from_cpp, mut refused) = (cpp.read_all(&inputs), 0);
    for (input, cpp) in inputs.iter().zip(&from_cpp) {
        let rust = contract_tests::readers::rust(input);
        assert_eq!(
            rust.accepted(),
            cpp.accepted(),
            "Rust {rust:?}, C++ {cpp:?}: {}",
            String::from_utf8_lossy(input)
        );
        refused += usize::from(!rust.accepted());
    }
    assert!(
        refused > inputs.len() / 2,
        "{refused} of {} refused",
        inputs.len()
    );
    for text in [
        r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.get","params":["t_01"]}}"#,
        r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.add","params":{"spec":{"url":"https://example.org/a","checksum":{"algorithm":{"md5":null},"value":"00000000000000000000000000000000"}}}}}"#,
    ] {
        assert!(
            proto::wire::decode::<proto::Envelope>(text.as_bytes()).is_err(),
            "{text}"
        );
    }
}

/// What the long runs found: a present empty collection and a present
/// `null` in a free-form field are written back as they came, by every
/// reader (an absent field and an empty one are not the same message).
#[test]
fn present_empties_are_written_back_as_they_came() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let inputs: Vec<Vec<u8>> = [
        r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.list","params":{"states":[]}}}"#,
        r#"{"v":1,"kind":"error","id":1,"body":{"code":-32602,"message":"bad","data":null}}"#,
        r#"{"v":1,"kind":"call","id":2,"body":{"method":"download.add","params":{"spec":{"url":"https://example.org/a","headers":{}}}}}"#,
    ]
    .iter()
    .map(|text| text.as_bytes().to_vec())
    .collect();
    for input in &inputs {
        let came: serde_json::Value = serde_json::from_slice(input).expect("the case is JSON");
        assert_eq!(
            contract_tests::readers::rust(input),
            contract_tests::readers::Read::Ok(came),
            "the Rust reader writes back what came"
        );
    }
    let found = differential::disagreements(&inputs, &mut cpp, &mut ts, &checker);
    assert!(found.is_empty(), "{found:#?}");
}

/// `vdm-conform generate`'s output as input: every generated valid message
/// is read by all three bindings, and they agree with each other and with
/// the checker on every single-fault mutant.
#[test]
fn the_readers_read_every_generated_message_and_agree_on_every_mutant() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let mut text = Vec::new();
    conformance::generate::generate(&checker, "Envelope", 600, 0x9e4, &mut text).unwrap();
    let valid: Vec<Vec<u8>> = String::from_utf8(text)
        .unwrap()
        .lines()
        .map(|line| line.as_bytes().to_vec())
        .collect();
    assert_eq!(valid.len(), 600);
    for (reader, reads) in read_by_each(&valid, &mut cpp, &mut ts) {
        for (read, body) in reads.iter().zip(&valid) {
            assert!(
                matches!(read, contract_tests::readers::Read::Ok(_)),
                "{reader} does not read a generated message: {read:?}\n{}",
                String::from_utf8_lossy(body)
            );
        }
    }
    let found = differential::disagreements(&valid, &mut cpp, &mut ts, &checker);
    assert!(found.is_empty(), "{found:#?}");

    let mut text = Vec::new();
    conformance::generate::mutants(&checker, "Envelope", 600, 0x9e4, &mut text).unwrap();
    let mutants: Vec<Vec<u8>> = String::from_utf8(text)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["msg"].to_string().into_bytes()
        })
        .collect();
    let found = differential::disagreements(&mutants, &mut cpp, &mut ts, &checker);
    assert!(
        found.is_empty(),
        "{} of {}: {:#?}",
        found.len(),
        mutants.len(),
        &found[..found.len().min(5)]
    );
    // A mutant breaks one rule in one place: the bindings that refuse it
    // name that place alike.
    // How many all three refuse depends on the contract's rules (those
    // Rust leaves to the validator are refused by C++ and TypeScript
    // alone): 122 of the 600 today, 91 with one more such rule on
    // TaskError. A few dozen still compare the places.
    let pointed = differential::pointed_alike(&mutants, &mut cpp, &mut ts).unwrap();
    assert!(pointed >= 50, "{pointed} mutants refused by all three");
}

/// The Rust decoder reads a body's content from the tokens its policy scan
/// recorded; read from the text by serde_json instead, every generated input
/// gives the same envelope, or the same refusal (the same problem, and the
/// same message and pointer).
#[test]
fn the_rust_decoder_reads_tokens_as_serde_json_reads_text() {
    use proto::wire::{decode, decode_from_text, DecodeError};
    fn said(err: &DecodeError) -> String {
        format!("{:?} {:?} {}", err.kind, err.id, proto::wire::sentence(err))
    }
    let inputs = differential::inputs(0x7a9e, 20_000);
    let (mut read, mut refused) = (0, 0);
    for input in &inputs {
        let tokens = decode::<proto::Envelope>(input);
        let text = decode_from_text::<proto::Envelope>(input);
        let shown = || String::from_utf8_lossy(input).into_owned();
        match (tokens, text) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{}", shown());
                read += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(said(&a), said(&b), "{}", shown());
                refused += 1;
            }
            (a, b) => panic!(
                "tokens {:?}, text {:?}: {}",
                a.map(|_| ()),
                b.map(|_| ()),
                shown()
            ),
        }
    }
    // Both sides of the comparison were exercised.
    assert!(
        read > 2_000 && refused > 2_000,
        "{read} read, {refused} refused"
    );
}

/// What each binding may accept beyond the schemas is what
/// docs/bindings.md says, and no more: the judge of it refuses a Rust
/// acceptance of `null` where only absence is allowed and a C++ one of a
/// bound, and lets pass a bound Rust leaves to the validator and a
/// tolerant reader's unknown member and method.
#[test]
fn a_binding_may_accept_only_what_its_design_leaves_to_the_validator() {
    use contract_tests::readers::Read;
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let judge = |rust: &Read, cpp: &Read, text: &str| {
        let conform = contract_tests::readers::conform(&checker, text.as_bytes());
        differential::beyond_the_bindings(rust, cpp, &conform, text.as_bytes())
    };
    let (ok, refused) = (
        Read::Ok(serde_json::Value::Null),
        Read::Contract(String::new()),
    );
    // Valid fixtures with one thing changed, so that each stays about that
    // one thing whatever else the contract has come to require.
    let fixtures = conformance::fixtures::load_fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance"),
        "valid",
    )
    .unwrap();
    let changed = |name: &str, pointer: &str, to: serde_json::Value| {
        let mut value = fixtures
            .iter()
            .find(|f| f.path == format!("valid/{name}.json"))
            .unwrap_or_else(|| panic!("valid/{name}.json"))
            .value
            .clone();
        *value
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{name}: {pointer}")) = to;
        value.to_string()
    };
    // A JSON file of the repository.
    let read = |rel: &str| -> serde_json::Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    // `null` where only absence is allowed: the invalid fixture for it.
    let null_code = read("conformance/invalid/optional_field_null.json")["value"].to_string();
    let spec = read("contracts/schema/types/DownloadSpec.json");
    let maximum = spec["properties"]["segments"]["maximum"].as_u64().unwrap();
    let segments_past = changed(
        "download_add_call",
        "/body/params/spec/segments",
        serde_json::json!(maximum + 1),
    );
    let unknown_member = r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.get","params":{"taskId":"t_01","zz":1}}}"#;
    let unknown_method =
        r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.zz","params":{"segments":33}}}"#;
    let bad_format = changed(
        "event_task_added",
        "/body/params/task/createdAt",
        serde_json::json!("yesterday"),
    );
    assert!(judge(&ok, &refused, &null_code).is_some());
    assert!(judge(&ok, &refused, &segments_past).is_none());
    assert!(judge(&ok, &ok, &segments_past).is_some());
    for allowed in [unknown_member, unknown_method, &bad_format] {
        let conform = contract_tests::readers::conform(&checker, allowed.as_bytes());
        assert!(
            conform.contains(&conformance::Rule::Schema),
            "{allowed}: {conform:?}"
        );
        assert_eq!(judge(&ok, &ok, allowed), None, "{allowed}");
    }
}

/// A release's frozen bindings read a known name's content from its text
/// (they were generated before the decoder lent them the scan's tokens), and
/// their misfits name the same exact place as the working tree's.
#[test]
fn a_releases_bindings_name_a_misfits_exact_place() {
    use proto::wire::{decode, Problem};
    let text = br#"{"v":1,"kind":"call","id":1,"body":{"method":"download.add","params":{"spec":{"url":"https://e/a","segments":"x"}}}}"#;
    let pointers = [
        decode::<contract_tests::v1_0_0::tables::Envelope>(text).map(|_| ()),
        decode::<contract_tests::v1_1_0::tables::Envelope>(text).map(|_| ()),
        decode::<proto::Envelope>(text).map(|_| ()),
    ]
    .map(|read| match read {
        Err(err) if matches!(err.problem, Problem::BadContent { .. }) => err.pointer,
        other => panic!("{other:?}"),
    });
    assert_eq!(
        pointers,
        ["/body/params/spec/segments"; 3].map(String::from)
    );
}

/// One fault, one place: on every one-step mutation of every valid envelope
/// fixture that the three bindings refuse as not fitting the contract, they
/// name the same JSON pointer (Rust's `DecodeError::pointer`, C++'s and
/// TypeScript's `pointer()`), the envelope's own members too.
#[test]
fn the_bindings_point_at_the_same_place_for_one_fault() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let fixtures = conformance::fixtures::load_fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance"),
        "valid",
    )
    .unwrap();
    let skip = differential::format_fields();
    let inputs: Vec<Vec<u8>> = fixtures
        .iter()
        .filter(|f| f.type_name == "Envelope")
        .flat_map(|f| sample::one_step_mutations(&f.value, &skip))
        .map(|v| v.to_string().into_bytes())
        .collect();
    let compared = differential::pointed_alike(&inputs, &mut cpp, &mut ts).unwrap();
    assert!(compared > 1_000, "{compared} compared");
}

/// A member no version names, added to each object of every generated
/// message and valid fixture in turn: wherever the schemas as the bindings
/// hold them take it (everywhere but inside a map of typed values), every
/// binding reads the message and writes back what it wrote back without
/// the member (it is ignored, not kept), or the message as it came where
/// the member is the content's own (a free-form value); `vdm-conform`
/// reports it as a schema fault where the contract closes the object.
#[test]
fn every_reader_ignores_a_member_it_does_not_know_wherever_it_stands() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let mut text = Vec::new();
    conformance::generate::generate(&checker, "Envelope", 300, 0xadd, &mut text).unwrap();
    let mut bases: Vec<serde_json::Value> = String::from_utf8(text)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let fixtures = conformance::fixtures::load_fixtures(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance"),
        "valid",
    )
    .unwrap();
    bases.extend(
        fixtures
            .into_iter()
            .filter(|f| f.type_name == "Envelope")
            .map(|f| f.value),
    );
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    let mut expected: Vec<contract_tests::readers::Read> = Vec::new();
    let (mut ignored, mut kept, mut typed) = (0usize, 0usize, 0usize);
    for base in &bases {
        let body = base.to_string().into_bytes();
        let read = contract_tests::readers::rust(&body);
        assert!(read.accepted(), "{read:?}: {base}");
        for added in differential::members_added(base) {
            let input = added.to_string().into_bytes();
            if !differential::tolerated(&input) {
                typed += 1;
                continue;
            }
            let strict = contract_tests::readers::conform(&checker, &input);
            if strict.is_empty() {
                kept += 1;
                expected.push(contract_tests::readers::Read::Ok(added));
            } else {
                assert_eq!(strict, vec![conformance::Rule::Schema], "{added}");
                ignored += 1;
                expected.push(read.clone());
            }
            inputs.push(input);
        }
    }
    // Most places are closed objects; a few are free-form; maps of typed
    // values (headers) refuse a member that is not of their type.
    assert!(
        ignored > 800 && kept > 5 && typed > 0,
        "{ignored} {kept} {typed}"
    );
    for (reader, reads) in read_by_each(&inputs, &mut cpp, &mut ts) {
        assert_eq!(reads.len(), inputs.len(), "{reader}");
        for ((read, want), input) in reads.iter().zip(&expected).zip(&inputs) {
            assert_eq!(read, want, "{reader}: {}", String::from_utf8_lossy(input));
        }
    }
}

/// Every valid message with its method or event renamed to one no version
/// names: every binding reads it as a newer peer's, whatever its content,
/// and writes it back as it came (what a server answers `method_not_found`
/// to, or a client skips).
#[test]
fn every_reader_takes_any_content_under_a_name_it_does_not_know() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readers");
    let (mut cpp, mut ts) = (Server::cpp(&out), Server::ts());
    let mut text = Vec::new();
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    conformance::generate::generate(&checker, "Envelope", 300, 0x1a7e, &mut text).unwrap();
    let mut renamed: Vec<serde_json::Value> = Vec::new();
    for line in String::from_utf8(text).unwrap().lines() {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        let tag = if value["kind"] == "event" {
            "name"
        } else {
            "method"
        };
        let Some(slot) = value.pointer_mut(&format!("/body/{tag}")) else {
            continue; // an error names no method
        };
        *slot = serde_json::json!(format!("{tag}.fromLater"));
        renamed.push(value);
    }
    assert!(renamed.len() > 200, "{} renamed", renamed.len());
    let inputs: Vec<Vec<u8>> = renamed.iter().map(|v| v.to_string().into_bytes()).collect();
    for (reader, reads) in read_by_each(&inputs, &mut cpp, &mut ts) {
        for (read, value) in reads.iter().zip(&renamed) {
            assert_eq!(
                read,
                &contract_tests::readers::Read::Ok(value.clone()),
                "{reader}: {value}"
            );
        }
    }
}
