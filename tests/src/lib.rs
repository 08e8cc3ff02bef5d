//! Support for the tests that span crates and releases: every release's
//! frozen Rust bindings compiled side by side ([`RELEASES`]), what a set of
//! bindings does with a fixture ([`Outcome`]), and the check that what the
//! bindings do agrees with what the compatibility checker says
//! ([`disagreements`]).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use compat::{Comparison, Family, Rule, Verdict};
use conformance::fixtures::Fixture;
use contract::SchemaSet;
use proto::wire::EnvelopeParts;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub mod differential;
pub mod readers;

/// How the working tree's C++ bindings and the programs on them are
/// compiled in the tests: C++17 with the warnings of
/// `bindings/cpp/strict-warnings.txt`, each an error, so the generated
/// header never breaks a build with strict flags. (Frozen releases' headers
/// keep the flags they were released with: `-Wall -Wextra -Werror`.)
pub fn cxx_flags() -> Vec<&'static str> {
    let warnings = include_str!("../../bindings/cpp/strict-warnings.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    std::iter::once("-std=c++17")
        .chain(warnings)
        .chain(std::iter::once("-Werror"))
        .collect()
}

/// Runs `command` with `input` on stdin; its stdout, or a panic with both
/// streams (tsc, for one, prints its errors on stdout).
pub fn run(mut command: Command, input: &[u8]) -> String {
    let what = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| {
            panic!("{what}: cannot start ({err}); `cargo xtask test` installs it")
        });
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    // The start of stdout: a reader's output can be long.
    assert!(
        output.status.success(),
        "{what} failed: {}\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout)
            .chars()
            .take(4000)
            .collect::<String>(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The frozen bindings name the hand-written wire code `crate::wire`.
pub use proto::wire;

include!(concat!(env!("OUT_DIR"), "/releases.rs"));

/// One set of generated Rust bindings: a release's frozen ones, or the
/// working tree's (`proto`).
pub struct Bindings {
    /// The release's version, or `working tree`.
    pub version: &'static str,
    /// The release folder (schemas in `schema/`, fixtures in `valid/`).
    pub dir: &'static str,
    /// Reads a fixture as the named type; `None` when these bindings have no
    /// such type.
    pub read: fn(&str, &Value) -> Option<Outcome>,
}

/// The working tree's bindings: the `proto` crate itself.
pub const WORKING_TREE: Bindings = Bindings {
    version: "working tree",
    dir: concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
    read: |type_name, value| read_with::<proto::Envelope>(proto::reserialize, type_name, value),
};

impl Bindings {
    /// The folder of the schemas these bindings were generated from.
    pub fn schemas(&self) -> PathBuf {
        if self.version == WORKING_TREE.version {
            Path::new(self.dir).join("contracts/schema")
        } else {
            Path::new(self.dir).join("schema")
        }
    }

    /// The folder holding the C++ bindings' `vdm/contract.hpp`.
    pub fn cpp_include(&self) -> PathBuf {
        if self.version == WORKING_TREE.version {
            Path::new(self.dir).join("bindings/cpp/include")
        } else {
            Path::new(self.dir).join("cpp/include")
        }
    }

    /// The TypeScript bindings' module.
    pub fn ts_module(&self) -> PathBuf {
        if self.version == WORKING_TREE.version {
            Path::new(self.dir).join("bindings/ts/index.js")
        } else {
            Path::new(self.dir).join("ts/index.js")
        }
    }

    /// The folder holding `valid/`.
    pub fn fixtures_root(&self) -> PathBuf {
        if self.version == WORKING_TREE.version {
            Path::new(self.dir).join("conformance")
        } else {
            Path::new(self.dir).to_path_buf()
        }
    }
}

/// What a set of bindings did with one message.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Decoded into the bindings' own types.
    Read,
    /// Decoded to the unknown-name variant: a method or event these bindings
    /// do not know, which a reader skips.
    Skipped(String),
    /// Refused, with the decoder's words.
    Refused(String),
}

/// Reads `value` as `type_name` with one set of bindings. An `Envelope` goes
/// through the two-stage decoder so an unknown name shows as
/// [`Outcome::Skipped`]; any other type through the bindings' `reserialize`.
pub fn read_with<E: EnvelopeParts + DeserializeOwned>(
    reserialize: fn(&str, &Value) -> Option<Result<Value, serde_json::Error>>,
    type_name: &str,
    value: &Value,
) -> Option<Outcome> {
    if type_name == "Envelope" {
        return Some(match serde_json::from_value::<E>(value.clone()) {
            Ok(envelope) => match envelope.unknown() {
                Some(unknown) => Outcome::Skipped(unknown.name().to_string()),
                None => Outcome::Read,
            },
            Err(err) => Outcome::Refused(err.to_string()),
        });
    }
    reserialize(type_name, value).map(|result| match result {
        Ok(_) => Outcome::Read,
        Err(err) => Outcome::Refused(err.to_string()),
    })
}

/// One side of a comparison: a label, its schemas, its valid fixtures and
/// its bindings.
pub struct Side<'a> {
    /// The version, as reports name it.
    pub label: String,
    /// Its schemas.
    pub schemas: SchemaSet,
    /// Its valid fixtures.
    pub fixtures: Vec<Fixture>,
    /// Its generated bindings.
    pub bindings: &'a Bindings,
}

impl<'a> Side<'a> {
    /// The side of `bindings`: their schemas and fixtures loaded.
    pub fn of(bindings: &'a Bindings) -> Result<Self, String> {
        let schemas = SchemaSet::load(&bindings.schemas()).map_err(|err| err.to_string())?;
        let fixtures = conformance::fixtures::load_fixtures(&bindings.fixtures_root(), "valid")
            .map_err(|err| err.to_string())?;
        Ok(Side {
            label: bindings.version.to_string(),
            schemas,
            fixtures,
            bindings,
        })
    }
}

/// Breaking rules whose break the generated bindings themselves show on the
/// fixtures (the coverage rules make every method, event and enum value
/// appear in some valid fixture). Value assertions — bounds, patterns,
/// lengths, formats — are the validator's, and the bindings do not check them.
/// With tolerant readers (the default these tests compare under) an added
/// property breaks only when it is required, which the bindings see.
fn seen_by_bindings(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::PropertyAdded
            | Rule::MethodRemoved
            | Rule::EventRemoved
            | Rule::MethodBecameEvent
            | Rule::EventBecameMethod
            | Rule::RequiredAdded
            | Rule::RequiredRemoved
            | Rule::EnumValueAdded
            | Rule::EnumValueRemoved
            | Rule::Keyword(Family::Type, _)
    )
}

/// Where the bindings of one side and the compatibility report disagree
/// about the other side's fixtures: each line names the fixture (or the
/// direction), the releases and both verdicts.
///
/// - A direction the report calls compatible: the reader's bindings read or
///   skip (an unknown name) every writer fixture; a refusal disagrees.
/// - A direction the report calls breaking through a change the bindings
///   see: at least one writer fixture is refused or skipped; bindings that
///   read them all disagree.
pub fn disagreements(old: &Side<'_>, new: &Side<'_>, comparison: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    for (direction, writer, reader, verdict) in [
        ("W (new writer → old reader)", new, old, comparison.writer),
        ("R (old writer → new reader)", old, new, comparison.reader),
    ] {
        let mut noticed = false;
        for fixture in &writer.fixtures {
            let Some(outcome) = (reader.bindings.read)(&fixture.type_name, &fixture.value) else {
                continue; // a type the reader's version does not have
            };
            match (&outcome, verdict) {
                (Outcome::Refused(why), Verdict::Compatible) => out.push(format!(
                    "{direction}: the bindings of {} refuse {}'s fixture {} ({why}), but compat says {} → {} is compatible in this direction",
                    reader.label, writer.label, fixture.path, old.label, new.label
                )),
                (Outcome::Refused(_) | Outcome::Skipped(_), _) => noticed = true,
                (Outcome::Read, _) => {}
            }
        }
        if verdict == Verdict::Breaking && !noticed {
            let seen: Vec<String> = comparison
                .changes
                .iter()
                .filter(|change| {
                    let breaks = if direction.starts_with('W') {
                        change.writer
                    } else {
                        change.reader
                    };
                    breaks == Verdict::Breaking && seen_by_bindings(change.rule)
                })
                .map(|change| format!("{} ({})", change.rule, change.detail))
                .collect();
            if !seen.is_empty() {
                out.push(format!(
                    "{direction}: compat says {} → {} breaks here ({}), but the bindings of {} read every fixture of {}",
                    old.label,
                    new.label,
                    seen.join("; "),
                    reader.label,
                    writer.label
                ));
            }
        }
    }
    out
}
