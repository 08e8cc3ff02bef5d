//! Compatibility, executed: every release's frozen bindings read every later
//! release's valid fixtures and messages drawn from its schemas (new writer →
//! old reader), and every later release's bindings read every earlier
//! release's (old writer → new reader).
//! What the bindings do must agree with what `cargo xtask compat` says for
//! that pair.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use compat::{Options, Verdict};
use contract_tests::{disagreements, Bindings, Outcome, Side, RELEASES, WORKING_TREE};
use serde_json::{json, Value};

/// Every set of bindings, oldest first, the working tree last.
fn all_bindings() -> Vec<&'static Bindings> {
    RELEASES.iter().chain([&WORKING_TREE]).collect()
}

fn side(bindings: &'static Bindings) -> Side<'static> {
    Side::of(bindings).unwrap_or_else(|err| panic!("{}: {err}", bindings.version))
}

fn compare(old: &Side<'_>, new: &Side<'_>) -> compat::Comparison {
    compat::compare_sets(&old.schemas, &new.schemas, Options::default())
        .expect("the schemas register")
}

#[test]
fn every_pair_of_releases_reads_as_compat_says() {
    let bindings = all_bindings();
    assert!(
        bindings.len() >= 3,
        "two releases and the working tree at least"
    );
    let sides: Vec<Side> = bindings.iter().map(|b| side(b)).collect();
    let mut found = Vec::new();
    let mut pairs = 0;
    for (i, old) in sides.iter().enumerate() {
        for new in sides.iter().skip(i + 1) {
            found.extend(disagreements(old, new, &compare(old, new)));
            pairs += 1;
        }
    }
    assert!(
        found.is_empty(),
        "the bindings and compat disagree:\n{}",
        found.join("\n")
    );
    assert_eq!(pairs, sides.len() * (sides.len() - 1) / 2);
}

/// As above, on messages drawn from the writer's own schemas (the generator
/// `vdm-conform generate` uses, valid under every rule of the writer's
/// contract) rather than its fixtures alone: wherever compat says a
/// direction holds, the reader's bindings read or skip every one of them.
/// Messages drawn per side by [`drawn`].
const COUNT: usize = 3000;

/// `COUNT` envelopes drawn from each side's schemas with the generator
/// `vdm-conform generate` uses (valid under every rule of that side's
/// contract), seeded by the side's place in the list.
fn drawn(sides: &[Side<'_>]) -> Vec<Vec<Value>> {
    sides
        .iter()
        .enumerate()
        .map(|(index, side)| {
            let checker = conformance::Checker::new(side.schemas.clone())
                .unwrap_or_else(|err| panic!("{}: {err}", side.label));
            let mut text = Vec::new();
            let done = conformance::generate::generate(
                &checker,
                "Envelope",
                COUNT,
                0xe8ec + index as u64,
                &mut text,
            )
            .unwrap_or_else(|err| panic!("{}: {err}", side.label));
            assert_eq!(done.written, COUNT, "{}", side.label);
            String::from_utf8(text)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn every_pair_of_releases_reads_generated_messages_as_compat_says() {
    let sides: Vec<Side> = all_bindings().iter().map(|b| side(b)).collect();
    let drawn = drawn(&sides);
    let (mut found, mut thin) = (Vec::new(), Vec::new());
    for holds in holding_directions(&sides) {
        let (writer, reader) = (&sides[holds.writer], &sides[holds.reader]);
        let mut read = 0;
        for value in &drawn[holds.writer] {
            match (reader.bindings.read)("Envelope", value) {
                Some(Outcome::Refused(why)) => found.push(format!(
                    "{}: the bindings of {} refuse a message drawn from {} ({why}): {value}",
                    holds.name, reader.label, writer.label
                )),
                Some(Outcome::Read) => read += 1,
                Some(Outcome::Skipped(_)) | None => {}
            }
        }
        // Most messages are of methods and events both sides know: the
        // bindings decoded them, not only skipped them.
        if read <= COUNT / 2 {
            thin.push(format!("{}: {read} of {COUNT} read", holds.name));
        }
    }
    assert_read_all(&found, &thin);
}

/// A direction compat says holds between two sides.
struct Holds {
    /// As reports name it: `W 1.0.0 → 1.1.0`.
    name: String,
    /// The writing side's place in the list.
    writer: usize,
    /// The reading side's.
    reader: usize,
}

/// Every direction compat says holds between two of `sides`.
fn holding_directions(sides: &[Side<'_>]) -> Vec<Holds> {
    let mut holding = Vec::new();
    for (i, old) in sides.iter().enumerate() {
        for (j, new) in sides.iter().enumerate().skip(i + 1) {
            let comparison = compare(old, new);
            for (direction, writer, reader, verdict) in [
                ("W", j, i, comparison.writer),
                ("R", i, j, comparison.reader),
            ] {
                if verdict == Verdict::Compatible {
                    holding.push(Holds {
                        name: format!("{direction} {} → {}", old.label, new.label),
                        writer,
                        reader,
                    });
                }
            }
        }
    }
    // Some direction between the releases holds (additions are compatible
    // one way at least), so a test over them reads something.
    assert!(
        !holding.is_empty(),
        "no direction held between any two releases"
    );
    holding
}

/// No refusal was found, and no reader read too little.
fn assert_read_all(found: &[String], thin: &[String]) {
    assert!(
        found.is_empty(),
        "{} refusals, the first: {}",
        found.len(),
        found[..found.len().min(3)].join("\n")
    );
    assert!(thin.is_empty(), "{thin:?}");
}

/// The first release's bindings skip every method and event of the working
/// tree's fixtures that came later, as a newer peer's, and read the rest;
/// where compat says new writer → old reader holds between them, none is
/// refused (where it breaks, `every_pair_of_releases_reads_as_compat_says`
/// holds the refusals to compat's reasons: a major release must not turn
/// this red).
#[test]
fn the_first_release_skips_what_came_later_and_reads_the_rest() {
    let first = RELEASES.first().expect("a release");
    let (old, newest) = (side(first), side(&WORKING_TREE));
    let names = |side: &Side<'_>| -> Vec<String> {
        [contract::DocKind::Method, contract::DocKind::Event]
            .into_iter()
            .flat_map(|kind| side.schemas.of_kind(kind).map(|doc| doc.name.clone()))
            .collect()
    };
    let known = names(&old);
    let later: Vec<String> = names(&newest)
        .into_iter()
        .filter(|name| !known.contains(name))
        .collect();
    let writer = compare(&old, &newest).writer;
    let (mut skipped, mut read) = (0usize, 0usize);
    for fixture in &newest.fixtures {
        let Some(outcome) = (first.read)(&fixture.type_name, &fixture.value) else {
            continue;
        };
        let named = ["/body/method", "/body/name"]
            .iter()
            .find_map(|at| fixture.value.pointer(at).and_then(Value::as_str))
            .filter(|_| fixture.type_name == "Envelope");
        match named.filter(|name| later.iter().any(|l| l == name)) {
            Some(name) => {
                assert_eq!(
                    outcome,
                    Outcome::Skipped(name.to_string()),
                    "{}",
                    fixture.path
                );
                skipped += 1;
            }
            None => match outcome {
                Outcome::Read => read += 1,
                Outcome::Skipped(name) => {
                    panic!(
                        "{}: {name} skipped, which {} knows",
                        fixture.path, first.version
                    )
                }
                Outcome::Refused(why) => assert_eq!(
                    writer,
                    Verdict::Breaking,
                    "{}: refused ({why}), where compat says {} → working tree holds for W",
                    fixture.path,
                    first.version
                ),
            },
        }
    }
    // Each later method's call and reply, each later event, has a fixture
    // (the coverage rules), so each is skipped at least once.
    assert!(skipped >= later.len(), "{skipped} skipped of {later:?}");
    assert!(
        read > 50,
        "{read} of the working tree's fixtures read by {}",
        first.version
    );
}

#[test]
fn every_reader_skips_names_no_release_knows_and_refuses_bad_known_ones() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/newer-peer");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/newer-peer")
        .map(|entry| entry.expect("entry").path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 4, "{paths:?}");
    for path in paths {
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        let (type_name, value) = (fixture["type"].as_str().expect("type"), &fixture["value"]);
        for bindings in all_bindings() {
            let got = (bindings.read)(type_name, value).expect("every release has Envelope");
            let word = match &got {
                Outcome::Read => "read",
                Outcome::Skipped(_) => "skipped",
                Outcome::Refused(_) => "refused",
            };
            assert_eq!(
                Some(word),
                fixture["expect"].as_str(),
                "{} with the bindings of {}: {got:?}",
                path.display(),
                bindings.version
            );
        }
    }
}

/// The newest release, from the release list: a release bumps it, and no
/// test names it.
fn newest_release() -> &'static str {
    RELEASES.last().map_or("", |bindings| bindings.version)
}

/// The newest release's side, and the working tree's with one change planted
/// into its schemas only (the bindings stay as they are).
fn planted(plant: impl FnOnce(&mut contract::SchemaSet)) -> Vec<String> {
    let old = side(RELEASES.last().expect("a release"));
    let mut new = side(&WORKING_TREE);
    plant(&mut new.schemas);
    let comparison = compare(&old, &new);
    assert_eq!(
        comparison.reader,
        Verdict::Breaking,
        "the planted change breaks old writers"
    );
    disagreements(&old, &new, &comparison)
}

#[test]
fn a_new_required_field_the_bindings_do_not_have_is_a_disagreement() {
    let found = planted(|set| {
        let doc = set
            .docs
            .iter_mut()
            .find(|doc| doc.name == "TaskSummary")
            .expect("TaskSummary");
        // A name the contract does not have yet, whatever later releases add.
        let name = (0..)
            .map(|n| format!("planted{n}"))
            .find(|name| doc.value["properties"].get(name).is_none())
            .expect("a free name");
        doc.value["properties"][&name] = json!({"type": "integer", "minimum": 0, "maximum": 9, "description": "A planted field."});
        doc.value["required"]
            .as_array_mut()
            .expect("required")
            .push(json!(name));
    });
    let latest = newest_release();
    assert!(
        found
            .iter()
            .any(|line| line.starts_with("R (old writer → new reader)")
                && line.contains("property.added")
                && line.contains(&format!(
                    "the bindings of working tree read every fixture of {latest}"
                ))),
        "{found:?}"
    );
}

#[test]
fn a_removed_event_the_bindings_still_read_is_a_disagreement() {
    let found = planted(|set| {
        // The first event of the contract, whichever it is.
        let mut events: Vec<String> = set
            .docs
            .iter()
            .filter(|doc| doc.rel.starts_with("events/"))
            .map(|doc| doc.name.clone())
            .collect();
        events.sort();
        let event = events.first().expect("an event").clone();
        set.docs.retain(|doc| doc.name != event);
        let body = set
            .docs
            .iter_mut()
            .find(|doc| doc.name == "EventBody")
            .expect("EventBody");
        body.value["oneOf"]
            .as_array_mut()
            .expect("oneOf")
            .retain(|branch| branch.pointer("/properties/name/const") != Some(&json!(event)));
    });
    let latest = newest_release();
    assert!(
        found.iter().any(|line| line.contains("event.removed")
            && line.contains(&format!("{latest} → working tree"))),
        "{found:?}"
    );
}

/// Reads lines as `Envelope` with one release's C++ header, compiled with
/// the flags each release was made with (see `contract_tests::cxx_flags`),
/// and prints for each `same` (read and written back unchanged), `changed`
/// (read, written back otherwise: members these bindings lack are dropped)
/// or `error: …` (refused).
const CPP_READER: &str = r#"
    #include <iostream>
    #include <string>
    #include "vdm/contract.hpp"
    int main() {
      std::string line;
      while (std::getline(std::cin, line)) {
        try {
          auto value = vdm::contract::parse_json(line);
          auto again = vdm::contract::reserialize("Envelope", value);
          if (!again) return 2;
          std::cout << (*again == value ? "same" : "changed") << "\n";
        } catch (const std::exception& error) {
          std::cout << "error: " << error.what() << "\n";
        }
      }
    }"#;

/// The same with a release's TypeScript module (its path the first
/// argument). Values are compared member by member: the module's readers
/// may give objects another prototype than `reserialize` does.
const NODE_READER: &str = r#"
    const { reserialize, readJson } = await import(process.argv[1]);
    const same = (a, b) => {
      if (a === b) return true;
      if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
      if (Array.isArray(a) !== Array.isArray(b)) return false;
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length
        && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
    };
    let text = "";
    for await (const chunk of process.stdin) text += chunk;
    for (const line of text.split("\n").filter(Boolean)) {
      try {
        const value = readJson(line);
        console.log(same(reserialize("Envelope", value), value) ? "same" : "changed");
      } catch (error) {
        console.log(`error: ${error.message}`);
      }
    }"#;

/// As the Rust bindings above, the C++ and TypeScript bindings of each
/// release (frozen with it; the working tree's own for the working tree):
/// wherever compat says a direction holds, the reader's bindings in both
/// languages refuse none of the messages drawn from the writer's schemas.
/// Their emitters are not the Rust one, so a "compatible" is put to each
/// language a lane may read with.
#[test]
fn every_releases_cpp_and_ts_bindings_read_generated_messages_as_compat_says() {
    let bindings = all_bindings();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp-generated-readers");
    std::fs::create_dir_all(&out).unwrap();
    let source = out.join("reader.cpp");
    std::fs::write(&source, CPP_READER).unwrap();
    // Every header compiles at once, while the messages are drawn.
    let builds: Vec<(PathBuf, std::process::Child)> = bindings
        .iter()
        .enumerate()
        .map(|(index, bindings)| {
            let program = out.join(format!("reader-{index}"));
            let flags = if bindings.version == WORKING_TREE.version {
                contract_tests::cxx_flags()
            } else {
                vec!["-std=c++17", "-Wall", "-Wextra", "-Werror"]
            };
            let child = Command::new("g++")
                .args(flags)
                .arg("-I")
                .arg(bindings.cpp_include())
                .arg(&source)
                .arg("-o")
                .arg(&program)
                .stderr(Stdio::piped())
                .spawn()
                .expect("g++ starts: `cargo xtask test` installs it");
            (program, child)
        })
        .collect();
    let sides: Vec<Side> = bindings.iter().map(|b| side(b)).collect();
    let drawn = drawn(&sides);
    let programs: Vec<PathBuf> = builds
        .into_iter()
        .zip(&sides)
        .map(|((program, child), side)| {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "{}: {}",
                side.label,
                String::from_utf8_lossy(&output.stderr)
            );
            program
        })
        .collect();
    let (mut found, mut thin) = (Vec::new(), Vec::new());
    for holds in holding_directions(&sides) {
        let (writer, reader) = (&sides[holds.writer], &sides[holds.reader]);
        let mut node = Command::new("node");
        node.args(["--input-type=module", "-e", NODE_READER])
            .arg(reader.bindings.ts_module());
        for (lang, command) in [
            ("C++", Command::new(&programs[holds.reader])),
            ("TypeScript", node),
        ] {
            let values = &drawn[holds.writer];
            let input: String = values.iter().map(|value| format!("{value}\n")).collect();
            let output = contract_tests::run(command, input.as_bytes());
            let lines: Vec<&str> = output.lines().collect();
            assert_eq!(lines.len(), values.len(), "{} in {lang}", holds.name);
            let mut same = 0;
            for (line, value) in lines.iter().zip(values) {
                if line.starts_with("error:") {
                    found.push(format!(
                        "{}: the {lang} bindings of {} refuse a message drawn from {} ({line}): {value}",
                        holds.name, reader.label, writer.label
                    ));
                } else if *line == "same" {
                    same += 1;
                }
            }
            // Most messages come back as they were sent: the program read
            // them, not only ran.
            if same <= COUNT / 2 {
                thin.push(format!(
                    "{} in {lang}: {same} of {COUNT} unchanged",
                    holds.name
                ));
            }
        }
    }
    assert_read_all(&found, &thin);
}
