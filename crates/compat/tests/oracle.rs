//! The other side of soundness: wherever the checker says a direction is
//! compatible, values drawn from the writer's schema must pass the reader's.
//! This is the search `cargo xtask compat --search N` runs (the `sample`
//! crate draws, the `jsonschema` crate judges): any value the writer accepts
//! and the reader refuses after a "compatible" is a checker defect, and the
//! test fails naming it; so is a "compatible" between two schemas of which
//! the validator compiles only one (they differ, and the other is read by
//! each validator its own way).
//!
//! The generated pairs run a bounded count; `COMPAT_PAIRS=N` runs N instead
//! and `COMPAT_PAIRS_SEED=S` starts from another seed, for a soak:
//! `COMPAT_PAIRS=100000 COMPAT_PAIRS_SEED=1 cargo test --release -p compat
//! --test oracle generated` (each pair under strict and tolerant readers).
//! `COMPAT_TRACE=1` names each pair on stderr before it is compared.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use compat::{compare_documents, compare_sets, Comparison, Formats, Options, Readers};
use contract::SchemaSet;
use sample::{schemas, Rng};
use serde_json::Value;
use watch::watched;

mod watch;

/// Draws per direction that the prover says holds.
const DRAWS: usize = 300;

/// One-step mutations of a drawn value put to the validators, at most.
const MUTATIONS: usize = 256;

fn set(schema: &Value) -> SchemaSet {
    SchemaSet::from_texts(
        Path::new("cases"),
        [("types/Case.json", schema.to_string().as_str())],
    )
    .expect("one schema loads")
}

fn strict_with_search() -> Options {
    Options {
        readers: Readers::Strict,
        search: DRAWS,
        ..Default::default()
    }
}

/// The defects of one comparison, in words.
fn defects(label: &str, comparison: &Comparison) -> Vec<String> {
    comparison
        .defects
        .iter()
        .map(|d| format!("{label}: {:?} called compatible, but {} passes the writer and fails the reader ({})", d.direction, d.value, d.why))
        .collect()
}

fn holding(comparison: &Comparison) -> usize {
    usize::from(comparison.writer.holds()) + usize::from(comparison.reader.holds())
}

#[test]
fn no_compatible_verdict_on_the_apicurio_cases_is_refuted_by_a_value() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/apicurio/compatibility-test-data.json");
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cases")).expect("JSON");
    let mut found = Vec::new();
    for (index, case) in data["tests"].as_array().expect("tests").iter().enumerate() {
        let label = format!("{} (case {index})", case["id"].as_str().unwrap_or("?"));
        let comparison = compare_documents(
            &set(&case["original"]),
            &set(&case["updated"]),
            strict_with_search(),
        )
        .expect("the schemas register");
        found.extend(defects(&label, &comparison));
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
}

/// The JSON Schema Test Suite (`tests/data/json-schema-test-suite`, drafts
/// 4 to 2020-12): schemas and values written by others, for validators.
/// Each schema of a file is compared with the next one of the file (every
/// two of the file with `COMPAT_SUITE_ALL_PAIRS=1`) and with one-step
/// edits of itself (`COMPAT_SUITE_EDITS` per schema, 2 when unsaid; each
/// edit followed by more, `COMPAT_SUITE_STEPS` in all, 1 when unsaid; and
/// `COMPAT_SUITE_ACROSS` schemas of any file of the draft join each file's,
/// of any draft with `COMPAT_SUITE_ACROSS_DRAFTS=1`;
/// `COMPAT_SUITE_DIR` reads another copy of the suite, `optional/` too), under
/// strict readers for every other file and tolerant ones for the rest,
/// `format` asserted. A schema that refers to the suite's remote documents
/// is read with them beside it in the set (`remote_files`;
/// `COMPAT_SUITE_REMOTES` names their folder when it is not beside the
/// drafts or `COMPAT_SUITE_DIR`), and is also compared with one of those it
/// names edited. A "compatible" direction is refuted
/// by a value of the file's tests (or one of a few more) that the writer
/// takes and the reader refuses, by a value the checker's search draws (and,
/// with remote documents, one drawn here), or
/// by the validator compiling one side only; and each pair is compared a
/// second time, to the same verdicts.
#[test]
fn no_compatible_verdict_on_the_json_schema_test_suite_is_refuted_by_a_value() {
    let edits_per_schema = setting("COMPAT_SUITE_EDITS", 2);
    let all_pairs = setting("COMPAT_SUITE_ALL_PAIRS", 0) == 1;
    let steps = setting("COMPAT_SUITE_STEPS", 1);
    let across = setting("COMPAT_SUITE_ACROSS", 0);
    let across_drafts = setting("COMPAT_SUITE_ACROSS_DRAFTS", 0) == 1;
    let mut rng = Rng::new(setting("COMPAT_SUITE_SEED", 0x5017e));
    let root = match std::env::var_os("COMPAT_SUITE_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/json-schema-test-suite"),
    };
    let drafts = [
        ("draft4", "http://json-schema.org/draft-04/schema#"),
        ("draft6", "http://json-schema.org/draft-06/schema#"),
        ("draft7", "http://json-schema.org/draft-07/schema#"),
        (
            "draft2019-09",
            "https://json-schema.org/draft/2019-09/schema",
        ),
        (
            "draft2020-12",
            "https://json-schema.org/draft/2020-12/schema",
        ),
    ];
    let more = serde_json::json!([null, 0, 1, -1, 1.5, "", "a", [], {}, [1], {"a": 1}, true]);
    // The suite's remote files: beside the drafts in this copy, beside
    // `tests/` in the published one.
    let remotes_dir = match std::env::var_os("COMPAT_SUITE_REMOTES") {
        Some(dir) => Some(std::path::PathBuf::from(dir)),
        None => [root.join("remotes"), root.join("../remotes")]
            .into_iter()
            .find(|dir| dir.is_dir()),
    };
    // The files a schema's references to the suite's remote server lead
    // to, for the draft of the folder being read (see `remote_files`).
    let mut remotes: Vec<(String, Value)> = Vec::new();
    let load = |schema: &Value, remotes: &[(String, Value)]| as_set(&beside(schema, remotes));
    let compile = |schema: &Value| {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
    };
    let (mut found, mut files, mut compared, mut compatible) = (Vec::new(), 0, 0, 0);
    let mut with_remotes = 0;
    // Each schema of a file, with the values of its tests.
    let read = |path: &Path, uri: &str| -> Vec<(Value, Vec<Value>)> {
        let groups: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(path).expect("a file")).expect("JSON");
        groups
            .iter()
            .filter_map(|group| {
                // The suite leaves `$schema` out in the older drafts.
                let schema = match &group["schema"] {
                    Value::Object(map) => {
                        let mut map = map.clone();
                        map.entry("$schema").or_insert_with(|| Value::from(uri));
                        Value::Object(map)
                    }
                    other => serde_json::json!({"$schema": uri, "allOf": [other]}),
                };
                let schema = match (schema.to_string().contains(SUITE_SERVER), &remotes_dir) {
                    (false, _) => schema,
                    (true, Some(_)) => on_remote_base(schema),
                    (true, None) => return None,
                };
                let values = group["tests"].as_array().into_iter().flatten();
                Some((schema, values.map(|t| t["data"].clone()).collect()))
            })
            .collect()
    };
    // Each draft's files: a copy of the suite as published holds
    // `optional/` (and `optional/format/`) below each draft's folder.
    let files_of = |folder: &str| {
        let mut paths = Vec::new();
        let mut folders = vec![root.join(folder)];
        while let Some(dir) = folders.pop() {
            for entry in std::fs::read_dir(&dir).expect("the suite's folder") {
                let path = entry.expect("an entry").path();
                match path.is_dir() {
                    true => folders.push(path),
                    false => paths.push(path),
                }
            }
        }
        paths.sort();
        paths
    };
    // Every schema of a draft (of every draft with
    // `COMPAT_SUITE_ACROSS_DRAFTS=1`), for `across`.
    let drawn_from = |only: &str| -> Vec<(Value, Vec<Value>)> {
        match across {
            0 => Vec::new(),
            _ => drafts
                .iter()
                .filter(|(folder, _)| across_drafts || *folder == only)
                .flat_map(|(folder, uri)| {
                    files_of(folder)
                        .into_iter()
                        .flat_map(|path| read(&path, uri))
                        .collect::<Vec<_>>()
                })
                .collect(),
        }
    };
    for (folder, uri) in drafts {
        if let Some(dir) = &remotes_dir {
            assert_eq!(REMOTE_BASE, format!("{}types/", contract::ID_BASE));
            remotes = remote_files(dir, folder, uri);
            let names: Vec<&str> = remotes.iter().map(|(rel, _)| rel.as_str()).collect();
            eprintln!("{folder}: remote files {}", names.join(" "));
        }
        let paths = files_of(folder);
        let of_the_draft = drawn_from(folder);
        for path in paths {
            files += 1;
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            let read = read(&path, uri);
            let mut values: Vec<Value> = more.as_array().cloned().unwrap_or_default();
            values.extend(read.iter().flat_map(|(_, values)| values.iter().cloned()));
            let mut schemas: Vec<Value> = read.into_iter().map(|(schema, _)| schema).collect();
            // Schemas drawn from every file of the draft (or of every
            // draft) join the file's, with the values of their tests, and
            // are compared as the file's are with each other.
            for _ in 0..across {
                if let Some((schema, tests)) = rng.pick(&of_the_draft) {
                    values.extend(tests.iter().cloned());
                    schemas.push(schema.clone());
                }
            }
            let mut pairs = Vec::new();
            for (at, schema) in schemas.iter().enumerate() {
                let others = match all_pairs {
                    true => schemas.iter().skip(at + 1).collect::<Vec<_>>(),
                    false => schemas.get(at + 1).into_iter().collect(),
                };
                pairs.extend(
                    others
                        .into_iter()
                        .map(|other| (schema.clone(), other.clone(), None)),
                );
                let edits_of = |schema: &Value| {
                    let mut edits = sample::one_step_edits(schema, &Default::default(), true);
                    edits.extend(schemas::keyword_additions(schema));
                    edits.extend(schemas::keyword_replacements(schema));
                    edits.extend(schemas::keyword_swaps(schema));
                    edits.extend(schemas::rewrappings(schema));
                    edits
                };
                let edited_from = |schema: &Value, rng: &mut Rng| {
                    let mut edited = rng.pick(&edits_of(schema))?.applied(schema);
                    for _ in 1..steps {
                        match rng.pick(&edits_of(&edited)) {
                            Some(edit) => edited = edit.applied(&edited),
                            None => break,
                        }
                    }
                    Some(edited)
                };
                for _ in 0..edits_per_schema {
                    if let Some(edited) = edited_from(schema, &mut rng) {
                        pairs.push((schema.clone(), edited, None));
                    }
                }
                // And the schema as it is, with one of the remote files it
                // names edited.
                let text = schema.to_string();
                let named: Vec<usize> = (0..remotes.len())
                    .filter(|&at| {
                        let name = remotes[at].0.trim_start_matches("types/");
                        text.contains(&format!("{REMOTE_BASE}{name}"))
                    })
                    .collect();
                for _ in 0..edits_per_schema {
                    let Some(&at) = rng.pick(&named) else { break };
                    if let Some(edited) = edited_from(&remotes[at].1, &mut rng) {
                        pairs.push((schema.clone(), schema.clone(), Some((at, edited))));
                    }
                }
            }
            // Strict readers for every other file, tolerant ones (objects
            // opened) for the rest.
            let readers = match files % 2 {
                0 => Readers::Strict,
                _ => Readers::Tolerant,
            };
            let options = Options {
                readers,
                ..strict_with_search()
            };
            for (old, new, remote_edit) in pairs {
                // Both sides hold the remote files when either refers to them.
                let remote = [&old, &new]
                    .iter()
                    .any(|s| s.to_string().contains(REMOTE_BASE));
                let old_remote: &[(String, Value)] = match remote {
                    true => &remotes,
                    false => &[],
                };
                let edited_remote = remote_edit.map(|(at, edited)| {
                    let mut files = remotes.clone();
                    files[at].1 = edited;
                    files
                });
                let new_remote = edited_remote.as_deref().unwrap_or(old_remote);
                let (Ok(old_set), Ok(new_set)) = (load(&old, old_remote), load(&new, new_remote))
                else {
                    continue; // a meta-schema refuses the edit
                };
                let label = || match &edited_remote {
                    Some(files) => {
                        let (rel, before, after) = remotes
                            .iter()
                            .zip(files)
                            .find(|(a, b)| a.1 != b.1)
                            .map(|(a, b)| (a.0.as_str(), &a.1, &b.1))
                            .unwrap_or_default();
                        format!(
                            "{name} ({readers:?} readers): {old}, with {rel} {before} → {after}"
                        )
                    }
                    None => format!("{name} ({readers:?} readers): {old} → {new}"),
                };
                let Ok(comparison) = watched(label, &mut found, || {
                    compare_documents(&old_set, &new_set, options)
                }) else {
                    continue;
                };
                compared += 1;
                with_remotes += usize::from(remote);
                compatible += holding(&comparison);
                found.extend(defects(&label(), &comparison));
                // Nothing of a verdict may hang on the run (the order a
                // hash map meets things in differs from one to the next).
                if let Ok(again) = compare_documents(&old_set, &new_set, options) {
                    if [again.writer, again.reader] != [comparison.writer, comparison.reader] {
                        found.push(format!("{}: judged two ways in two runs", label()));
                    }
                }
                for (holds, (writer, writer_remote), (reader, reader_remote), direction) in [
                    (
                        comparison.writer.holds(),
                        (&new, new_remote),
                        (&old, old_remote),
                        "W",
                    ),
                    (
                        comparison.reader.holds(),
                        (&old, old_remote),
                        (&new, new_remote),
                        "R",
                    ),
                ] {
                    if !holds {
                        continue;
                    }
                    let refuted = match remote {
                        false => {
                            let mut reader = reader.clone();
                            if readers == Readers::Tolerant {
                                opened(&mut reader);
                            }
                            match both_compiled(compile(writer), compile(&reader)) {
                                Ok((writes, reads)) => values
                                    .iter()
                                    .find(|value| writes.is_valid(value) && !reads.is_valid(value))
                                    .map(|value| Refuted::By(value.clone())),
                                Err(refuted) => refuted,
                            }
                        }
                        // The test's values, then values drawn from the writer.
                        true => {
                            let (writer, reader) =
                                (beside(writer, writer_remote), beside(reader, reader_remote));
                            let uri = format!("{}types/Case.json", contract::ID_BASE);
                            let reading = (Formats::Assertion, readers == Readers::Tolerant);
                            match compiled_in([&writer, &reader], &uri, reading) {
                                Ok((writing, writes, reads)) => values
                                    .iter()
                                    .find(|value| writes.is_valid(value) && !reads.is_valid(value))
                                    .cloned()
                                    .or_else(|| {
                                        let seed = rng.below(1 << 30) as u64;
                                        first_refused(&writing, &uri, [&writes, &reads], seed)
                                    })
                                    .map(Refuted::By),
                                Err(refuted) => refuted,
                            }
                        }
                    };
                    if let Some(refuted) = refuted {
                        found.push(format!(
                            "{}: {direction} called compatible, but {refuted}",
                            label()
                        ));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        files > 150 && compared > 2_000 && compatible > compared / 2,
        "{files} files, {compared} compared, {compatible} directions held: the oracle had little to check"
    );
    eprintln!("{files} files of the suite: {compared} comparisons ({with_remotes} with remote files), {compatible} compatible directions checked, none refuted");
}

/// The server the suite's `refRemote` schemas name; its files are the
/// suite's `remotes/` folder.
const SUITE_SERVER: &str = "http://localhost:1234/";

/// Where the suite's remote files sit in a set: `types/`, under the
/// contract's base (a set's files are one level deep).
const REMOTE_BASE: &str = "https://schemas.vdm.invalid/types/";

/// `schema` with every URI on the suite's server, and in its draft folders,
/// moved to [`REMOTE_BASE`].
fn on_remote_base(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::String(text) if text.contains(SUITE_SERVER) => {
                let mut moved = text.clone();
                for folder in [
                    "draft6/",
                    "draft7/",
                    "draft2019-09/",
                    "draft2020-12/",
                    "draft-next/",
                    "",
                ] {
                    moved = moved.replace(&format!("{SUITE_SERVER}{folder}"), REMOTE_BASE);
                }
                *text = moved;
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(map) => map.values_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// `schema` as `types/Case.json`, with `files` beside it.
fn beside(schema: &Value, files: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut all = vec![("types/Case.json".to_string(), schema.clone())];
    all.extend(files.iter().cloned());
    all
}

/// The suite's remote files a schema of `folder` (a draft) may refer to,
/// each as `types/NAME.json` with its URIs moved by [`on_remote_base`]: the
/// files of the folder's own remote folder, and those at the top of
/// `remotes/` that it has none of, given the draft's `$schema` (`uri`)
/// when they name none. Files in deeper folders cannot sit in a set, and a
/// file whose `$id` is not its place is left out.
fn remote_files(dir: &Path, folder: &str, uri: &str) -> Vec<(String, Value)> {
    let mut files: Vec<(String, Value)> = Vec::new();
    for from in [dir.join(folder), dir.to_path_buf()] {
        let Ok(entries) = std::fs::read_dir(&from) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .filter_map(|entry| Some(entry.ok()?.path()))
            .collect();
        paths.sort();
        for path in paths.into_iter().filter(|path| path.is_file()) {
            let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
                continue;
            };
            let rel = format!("types/{name}");
            if files.iter().any(|(other, _)| *other == rel) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a remote file");
            let mut schema = on_remote_base(serde_json::from_str(&text).expect("JSON"));
            let place = format!("{}{rel}", contract::ID_BASE);
            if let Value::Object(map) = &mut schema {
                let id = map.get("$id").or_else(|| map.get("id"));
                if id.is_some_and(|id| id.as_str() != Some(place.as_str())) {
                    continue;
                }
                map.entry("$schema").or_insert_with(|| Value::from(uri));
            }
            files.push((rel, schema));
        }
    }
    // Those the checker refuses left out, one at a time, each named by the
    // error: a file written for one draft and read in another (`$anchor` in
    // draft 4, `data: true` where draft 4 wants a schema object).
    loop {
        let set = as_set(&beside(&serde_json::json!({}), &files));
        let refused = match set.map(|set| compare_documents(&set, &set, Options::default())) {
            Ok(Ok(_)) => return files,
            Ok(Err(error)) => error.to_string(),
            Err(error) => error.to_string(),
        };
        let before = files.len();
        files.retain(|(rel, _)| !refused.starts_with(rel.as_str()));
        assert!(files.len() < before, "the suite's remote files: {refused}");
    }
}

/// `name`'s value from the environment, when it is a number.
fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

#[test]
fn no_compatible_verdict_on_generated_schema_pairs_is_refuted_by_a_value() {
    let pairs = usize::try_from(setting("COMPAT_PAIRS", 200)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0x5eed_cafe);
    // The bounded run keeps to strict readers; a longer one asks both.
    let modes: &[Readers] = if pairs > 200 {
        &[Readers::Strict, Readers::Tolerant]
    } else {
        &[Readers::Strict]
    };
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    let mut compatible = 0;
    let mut not_schemas = 0;
    for index in 0..pairs {
        let old = schemas::document(&mut rng);
        let new = schemas::changed(&old, &mut rng);
        let (old_set, new_set) = (set(&old), set(&new));
        for &readers in modes {
            let options = Options {
                readers,
                ..strict_with_search()
            };
            let label =
                || format!("pair {index} of seed {seed}, {readers:?} readers: {old} → {new}");
            match watched(label, &mut found, || {
                compare_documents(&old_set, &new_set, options)
            }) {
                Ok(comparison) => {
                    compatible += holding(&comparison);
                    found.extend(defects(
                        &format!("pair {index} of seed {seed}, {readers:?} readers: {old} → {new}"),
                        &comparison,
                    ));
                }
                // The generator may refer to a `$defs` entry a document lacks.
                Err(compat::Error::NotASchema { .. } | compat::Error::Unresolved { .. }) => {
                    not_schemas += 1
                }
                Err(err) => found.push(format!("pair {index} of seed {seed}: {err}")),
            }
        }
    }
    let compared = pairs * modes.len();
    judged(&found, compared, not_schemas < compared / 10, compatible);
    eprintln!("{pairs} pairs of seed {seed}: {compared} comparisons, {compatible} compatible directions searched, none refuted");
}

/// A change inside a resource a document embeds is judged on a copy of
/// the document, beside the original: the copy's identifier named the
/// original's resource too, and the validator panicked looking for the
/// anchor `own` in the copy's (found by the one-step edits, seed 153).
/// Nothing panics, caught or not, and the direction that holds is found
/// to hold.
#[test]
fn a_change_inside_an_embedded_resource_is_judged_without_a_panic() {
    let old = serde_json::json!({"prefixItems": [{"$id": "r.json", "$ref": "#own",
        "patternProperties": {"c": {"$anchor": "own"}}}]});
    let new = serde_json::json!({"prefixItems": [{}]});
    let mut found = Vec::new();
    let comparison = watched(
        || "the embedded resource".into(),
        &mut found,
        || compare_documents(&set(&old), &set(&new), strict_with_search()),
    )
    .expect("compared");
    assert!(found.is_empty(), "{found:?}");
    assert!(comparison.reader.holds() && comparison.defects.is_empty());
}

/// The end of a run of `compared` comparisons of generated pairs: no break
/// missed, few enough that met no schema (`schemas_met`), and enough
/// compatible directions that the oracle had something to check.
fn judged(found: &[String], compared: usize, schemas_met: bool, compatible: usize) {
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        schemas_met,
        "too many of {compared} generated pairs met no schema"
    );
    assert!(
        compatible > compared * 3 / 10,
        "only {compatible} compatible directions in {compared} comparisons: the oracle had little to check"
    );
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

/// Every method, event and type between the releases and the working tree,
/// as the contract's tolerant readers read them. Within one major version
/// both directions hold (what a minor or patch release promises); a step to
/// a new major may break, and what it still calls compatible is checked.
#[test]
fn no_compatible_verdict_between_the_contracts_releases_is_refuted_by_a_value() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let working = SchemaSet::load(&root.join("contracts/schema")).expect("working tree loads");
    let working_version = std::fs::read_to_string(root.join("contracts/VERSION"))
        .expect("contracts/VERSION")
        .trim()
        .to_string();
    // Every release in order, then the working tree: each step is compared.
    let dir = root.join("contracts/released");
    let mut versions: Vec<(Vec<u64>, String)> = std::fs::read_dir(&dir)
        .expect("contracts/released")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| {
            let parts: Option<Vec<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
            Some((parts.filter(|p| p.len() == 3)?, name))
        })
        .collect();
    versions.sort();
    let mut steps: Vec<(String, String, SchemaSet)> = versions
        .into_iter()
        .map(|(_, version)| (version.clone(), version.clone(), release(&version)))
        .collect();
    steps.push((
        format!("working tree ({working_version})"),
        working_version,
        working,
    ));
    assert!(
        steps.len() >= 3,
        "two releases and the working tree at least"
    );
    let major = |version: &str| version.split('.').next().unwrap_or_default().to_string();
    let mut found = Vec::new();
    let mut held = 0;
    for pair in steps.windows(2) {
        let [(from, from_version, old), (to, to_version, new)] = pair else {
            continue;
        };
        let label = format!("{from} → {to}");
        let options = Options {
            search: DRAWS,
            ..Default::default()
        };
        let comparison = compare_sets(old, new, options).expect("the schemas register");
        if major(from_version) == major(to_version) {
            assert_eq!(holding(&comparison), 2, "{label}: {comparison:#?}");
        }
        held += holding(&comparison);
        found.extend(defects(&label, &comparison));
    }
    assert!(
        held > 0,
        "no direction held: the oracle had nothing to check"
    );
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
}

/// A `$dynamicRef` whose anchor one schema alone declares is followed as a
/// `$ref` by the equality proof. The values searched check the validator
/// agrees where it could read otherwise: another document the value enters
/// first declares a plain `$anchor` of the same name, changed between the
/// versions, which a dynamic scope that took any anchor would reach.
#[test]
fn a_dynamic_reference_only_one_anchor_can_mean_is_followed_as_the_validator_does() {
    let tree = r##"{"$dynamicAnchor": "node", "type": "object", "properties": {"c": {"$dynamicRef": "#node"}}}"##;
    let entry = |t: &str| {
        format!(
            r##"{{"$ref": "Tree.json", "$defs": {{"n": {{"$anchor": "node", "type": "{t}"}}}}}}"##
        )
    };
    let version = |t: &str| {
        let entry = entry(t);
        SchemaSet::from_texts(
            Path::new("cases"),
            [
                ("types/Tree.json", tree),
                ("types/Entry.json", entry.as_str()),
            ],
        )
        .expect("two schemas load")
    };
    // The validator itself: entered through the entry, a child is read
    // as a tree, not as the plain anchor's string.
    let registry = jsonschema::Registry::new()
        .extend([
            (
                "https://probe.invalid/Tree.json".to_string(),
                serde_json::from_str::<Value>(tree).unwrap(),
            ),
            (
                "https://probe.invalid/Entry.json".to_string(),
                serde_json::from_str::<Value>(&entry("string")).unwrap(),
            ),
        ])
        .unwrap()
        .prepare()
        .unwrap();
    let validator = jsonschema::options()
        .with_registry(&registry)
        .build(&serde_json::json!({"$ref": "https://probe.invalid/Entry.json"}))
        .unwrap();
    assert!(validator.is_valid(&serde_json::json!({"c": {"c": {}}})));
    assert!(!validator.is_valid(&serde_json::json!({"c": "text"})));
    let comparison = compare_documents(
        &version("string"),
        &version("integer"),
        strict_with_search(),
    )
    .expect("the schemas register");
    assert_eq!(holding(&comparison), 2, "{comparison:#?}");
    let found = defects("an anchor of the same name elsewhere", &comparison);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Every pair of whole divisors, some past 2^53, where the validator
/// divides doubles (the divisor and the value each rounded): a reader's
/// `multipleOf` beside the writer's keywords and inside an `allOf` (so that
/// congruence and the canonical form are each asked). None is called
/// compatible where a value refutes it, and two divisors the validator
/// divides exactly, one dividing the other, are called compatible.
#[test]
fn no_compatible_verdict_between_divisors_is_refuted_by_a_value() {
    const EXACT: u64 = 1 << 53;
    const DIVISORS: [u64; 8] = [2, 3, 6, 1 << 52, EXACT, EXACT + 2, 1 << 54, 3 * (EXACT + 1)];
    let mut found = Vec::new();
    for old in DIVISORS {
        for new in DIVISORS {
            let writer = serde_json::json!({"type": "integer", "multipleOf": old});
            for reader in [
                serde_json::json!({"type": "integer", "multipleOf": new}),
                serde_json::json!({"type": "integer", "allOf": [{"multipleOf": new}]}),
            ] {
                let comparison =
                    compare_documents(&set(&writer), &set(&reader), strict_with_search())
                        .expect("the schemas register");
                found.extend(defects(&format!("{writer} → {reader}"), &comparison));
                if old <= EXACT && new <= EXACT && old % new == 0 {
                    assert!(comparison.reader.holds(), "{writer} → {reader}");
                }
            }
        }
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
}

/// Generated documents, each in any draft, against one-step edits of
/// their JSON: edits no schema generator writes. `sample::one_step_edits`
/// removes a member, nulls it, gives it a neighbouring or wrong value or
/// shortens a string (one entry of a `dependencies` map dropped, a list
/// emptied, a bound given a string); [`schemas::keyword_swaps`] gives a
/// keyword a neighbour's name (`minimum` as `exclusiveMinimum`, `allOf` as
/// `anyOf`); [`schemas::keyword_additions`] adds a keyword an object
/// lacks (`minLength`, `contentEncoding`, `then` without `if`, an
/// annotation), [`schemas::keyword_replacements`] gives one it has such a
/// value (a `type` list, a count as a float); [`schemas::transplants`] copies one schema over another
/// (its references may then resolve elsewhere); [`schemas::rewrappings`]
/// writes a schema another way (inside `allOf`, a double `not`, its
/// keywords split between it and a part). Now and then the member
/// `x` is named as a keyword (`$ref`,
/// `enum`, …) on both sides, two edits of one document meet, the edited
/// side is edited twice or also written another way around the edit, its
/// numbers are
/// written the other way (`2` as `2.0`), or the
/// unedited side is the document written in another draft, which the
/// checker then reads rewritten in 2020-12. Each pair both ways round,
/// under strict readers for every other document and tolerant ones for the
/// rest, `format` an annotation for every third; an edit the meta-schema
/// refuses is not compared. Each pair is compared a second time, to the
/// same verdicts.
/// `COMPAT_EDITED_DOCS=N` runs N documents (each with
/// `COMPAT_EDITS_PER_DOC` edits, 8 when unsaid).
#[test]
fn no_compatible_verdict_on_one_step_edits_of_generated_documents_is_refuted_by_a_value() {
    let docs = usize::try_from(setting("COMPAT_EDITED_DOCS", 30)).unwrap();
    let per_doc = usize::try_from(setting("COMPAT_EDITS_PER_DOC", 8)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0xed17_5eed);
    let mut rng = Rng::new(seed);
    let (mut found, mut compared, mut compatible, mut refused) = (Vec::new(), 0, 0, 0);
    for index in 0..docs {
        let draft = *rng.pick(&schemas::Draft::ALL).unwrap();
        let generated = schemas::document(&mut rng);
        let keyword = rng.pick(&KEYWORD_NAMES).copied().filter(|_| rng.chance(20));
        let written = |draft: schemas::Draft| {
            let mut document = schemas::in_draft(&generated, draft);
            if let Some(keyword) = keyword {
                renamed(&mut document, "x", keyword);
            }
            document
        };
        let old = written(draft);
        let mut edits = sample::one_step_edits(&old, &Default::default(), true);
        edits.extend(schemas::keyword_swaps(&old));
        // Far more of these than of the rest: drawn from on their own, as
        // are schemas copied over others.
        let additions = schemas::keyword_additions(&old);
        let transplants = schemas::transplants(&old, &mut rng, 24);
        let rewrappings = schemas::rewrappings(&old);
        let replacements = schemas::keyword_replacements(&old);
        // Strict readers for every other document, tolerant ones (objects
        // opened) for the rest.
        let readers = if index % 2 == 0 {
            Readers::Strict
        } else {
            Readers::Tolerant
        };
        // And `format` an annotation for every third.
        let formats = if index % 3 == 2 {
            Formats::Annotation
        } else {
            Formats::Assertion
        };
        for _ in 0..per_doc {
            let pool = match rng.below(12) {
                0 | 1 => &additions,
                2 => &replacements,
                3 | 4 => &transplants,
                5 | 6 => &rewrappings,
                _ => &edits,
            };
            let Some(edit) = rng.pick(pool) else {
                continue;
            };
            let new = edit.applied(&old);
            // Now and then a second edit elsewhere on the same side: one
            // change that widens here and narrows there.
            let new = match rng
                .pick(&edits)
                .filter(|other| other.pointer != edit.pointer && rng.chance(10))
            {
                Some(other) => other.applied(&new),
                None => new,
            };
            // Now and then the edited side written another way too, at
            // the edited schema or around it: the checker must see
            // through the wrapping to judge the edit.
            let new = match rng.chance(20) {
                true => schemas::rewrapped_around(&new, &edit.pointer, &mut rng).unwrap_or(new),
                false => new,
            };
            // Now and then every number of the edited side written the
            // other way as well (`2` as `2.0`, a bound as a float).
            let new = match rng.chance(15) {
                true => sample::numbers_respelled(&new),
                false => new,
            };
            let load = |schema: &Value| {
                SchemaSet::from_texts(
                    Path::new("cases"),
                    [("types/Case.json", schema.to_string().as_str())],
                )
            };
            let (Ok(old_set), Ok(new_set)) = (load(&old), load(&new)) else {
                refused += 2;
                continue;
            };
            // Now and then both sides edited, each its own way (where the
            // meta-schema takes the second edit): two documents neither of
            // which a generator writes.
            let second = rng
                .pick(&edits)
                .filter(|_| rng.chance(30))
                .map(|other| other.applied(&old))
                .and_then(|other| Some((load(&other).ok()?, other)));
            // Or the unedited side in another draft: the two are read
            // rewritten in 2020-12.
            let moved = rng
                .pick(&schemas::Draft::ALL)
                .filter(|other| **other != draft && second.is_none() && rng.chance(25))
                .map(|other| written(*other))
                .and_then(|other| Some((load(&other).ok()?, other)));
            let (old_set, old) = second.or(moved).unwrap_or((old_set, old.clone()));
            for ((before, after), (first, second)) in [
                ((&old, &new), (&old_set, &new_set)),
                ((&new, &old), (&new_set, &old_set)),
            ] {
                let options = Options {
                    readers,
                    formats,
                    ..strict_with_search()
                };
                let label = || format!("document {index} of seed {seed}: {before} → {after}");
                match watched(label, &mut found, || {
                    compare_documents(first, second, options)
                }) {
                    Ok(comparison) => {
                        compared += 1;
                        compatible += holding(&comparison);
                        let label = format!("document {index} of seed {seed}: {before} → {after}");
                        found.extend(defects(&label, &comparison));
                        // The same verdicts a second time: nothing may hang
                        // on the order a hash map meets things in.
                        if let Ok(again) = compare_documents(first, second, options) {
                            if [again.writer, again.reader]
                                != [comparison.writer, comparison.reader]
                            {
                                found.push(format!("{label}: judged two ways in two runs"));
                            }
                        }
                        // The checker's search draws where it judged; this
                        // draws from the whole writer, as its own draft's
                        // validator reads it.
                        let draws = rng.below(1 << 30) as u64;
                        let open = readers == Readers::Tolerant;
                        for (holds, writer, reader, direction) in [
                            (comparison.writer.holds(), after, before, "W"),
                            (comparison.reader.holds(), before, after, "R"),
                        ] {
                            if !holds {
                                continue;
                            }
                            // The validator has panicked compiling documents
                            // the checker keeps from its proofs; one it
                            // judged is named, not a crash of the test.
                            match std::panic::catch_unwind(|| refuted(writer, reader, (formats, open), draws)) {
                                Ok(None) => {}
                                Ok(Some(refuted)) => found.push(format!("{label}: {direction} called compatible, but {refuted} (each in its own draft)")),
                                Err(_) => found.push(format!("{label}: {direction} called compatible, but the validator panics compiling the two as written")),
                            }
                        }
                    }
                    Err(_) => refused += 1,
                }
            }
        }
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        // About 40% of edits make a document its meta-schema refuses.
        compared * 2 > refused && compatible > compared / 2,
        "{compared} compared, {compatible} directions held, {refused} refused: the oracle had little to check"
    );
    eprintln!("{docs} documents of seed {seed}: {compared} comparisons, {compatible} compatible directions searched, {refused} edits refused, none refuted");
}

/// Member names a checker that reads a map of names as schemas would
/// stumble on.
const KEYWORD_NAMES: [&str; 9] = [
    "$ref",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "enum",
    "properties",
    "$defs",
];

/// `value` with every member named `from`, and every string that is
/// exactly `from` (a `required` entry, a dependency), named `to`.
fn renamed(value: &mut Value, from: &str, to: &str) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(member) = map.remove(from) {
                    map.insert(to.to_string(), member);
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::String(text) if text == from => *text = to.to_string(),
            _ => {}
        }
    }
}

/// Generated pairs with each side written for any draft ([`schemas::in_draft`]):
/// a prover that reads a keyword in a draft without it, or misses what an
/// older draft does with one (a `$ref`'s siblings ignored, `items` as a
/// list beside `additionalItems`, `dependencies`, exclusive bounds as
/// flags), is refuted by the validator that knows the draft. Two drafts on
/// the two sides are a document moved from one draft to another; every
/// other pair is in one draft on both sides. Every other two pairs are for
/// tolerant readers (the reader's objects opened in its own draft).
/// `COMPAT_DRAFT_PAIRS=N` runs N.
#[test]
fn no_compatible_verdict_on_generated_pairs_in_any_draft_is_refuted_by_a_value() {
    let pairs = usize::try_from(setting("COMPAT_DRAFT_PAIRS", 100)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0x0d2a_f75e);
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    let mut compatible = 0;
    let mut not_schemas = 0;
    for index in 0..pairs {
        let old = schemas::document(&mut rng);
        let new = schemas::changed(&old, &mut rng);
        let mut draft = || rng.pick(&schemas::Draft::ALL).copied().unwrap();
        let drafts = [draft(), draft()];
        // Every other pair in one draft, so that nothing is rewritten and
        // each draft's own rules (draft 4's integers) meet its validator.
        let drafts = if index % 2 == 0 {
            [drafts[0]; 2]
        } else {
            drafts
        };
        // Every eighth pair (drafts apart) with its new side spelt as the
        // old one is and only relabelled: a file's `$schema` changed by
        // hand, so what one draft spells otherwise (draft 6's numeric
        // `exclusiveMinimum`) stands in the other's file.
        let (old, new) = (
            schemas::in_draft(&old, drafts[0]),
            if index % 8 == 7 {
                schemas::relabelled(&schemas::in_draft(&new, drafts[0]), drafts[1])
            } else {
                schemas::in_draft(&new, drafts[1])
            },
        );
        // Tolerant readers for every other two pairs, drafts alike or not.
        let readers = if index % 4 >= 2 {
            Readers::Tolerant
        } else {
            Readers::Strict
        };
        let options = Options {
            readers,
            ..strict_with_search()
        };
        let label = || format!("pair {index} of seed {seed}, {readers:?} readers: {old} → {new}");
        match watched(label, &mut found, || {
            compare_documents(&set(&old), &set(&new), options)
        }) {
            Ok(comparison) => {
                compatible += holding(&comparison);
                let label =
                    format!("pair {index} of seed {seed}, {readers:?} readers: {old} → {new}");
                found.extend(defects(&label, &comparison));
                // The checker's own search validates against the documents
                // it rewrote in 2020-12; this asks each side's validator of
                // its own draft.
                let seed = rng.below(1 << 30) as u64;
                for (holds, writer, reader, direction) in [
                    (
                        comparison.writer.holds(),
                        &new,
                        &old,
                        "new writer → old reader",
                    ),
                    (
                        comparison.reader.holds(),
                        &old,
                        &new,
                        "old writer → new reader",
                    ),
                ] {
                    let open = readers == Readers::Tolerant;
                    if let (true, Some(refuted)) = (
                        holds,
                        refuted(writer, reader, (Formats::Assertion, open), seed),
                    ) {
                        found.push(format!("{label}: {direction} called compatible, but {refuted} (each in its own draft)"));
                    }
                }
            }
            Err(compat::Error::NotASchema { .. } | compat::Error::Unresolved { .. }) => {
                not_schemas += 1
            }
            Err(err) => found.push(format!("pair {index} of seed {seed}: {err}")),
        }
    }
    judged(&found, pairs, not_schemas < pairs / 4, compatible);
    eprintln!("{pairs} pairs of seed {seed} in any draft: {compatible} compatible directions searched, none refuted; {not_schemas} met no schema");
}

/// The generated pairs again, one to three changes apart, in any draft
/// (one on each side, as `any_draft` has them; now and then a moved
/// definition's file in a draft of its own, which the validator reads it
/// in when a reference leads there), each document split into
/// files the same way on both sides: some of its definitions moved to
/// files of their own (`$defs/a` to `types/DefA.json`), every reference and
/// dynamic reference to them (by pointer or anchor) and back to the root
/// (`Case.json#/…`) respelled across files, the folder written one of the
/// ways a resolver reads alike (`./`, `../types/`, `/types/`, the whole
/// URI). Cycles, anchors, dynamic scopes and pointers then cross files, as
/// the checker resolves them for a set; where it says a direction holds,
/// values drawn from the writer's files pass the reader's, as the
/// validator reads them with every file registered; for strict or tolerant
/// readers, `format` asserted or not. `COMPAT_SPLIT_PAIRS=N` runs N.
#[test]
fn no_compatible_verdict_on_generated_pairs_split_into_files_is_refuted_by_a_value() {
    let pairs = usize::try_from(setting("COMPAT_SPLIT_PAIRS", 100)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0x5b11_7f11);
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    let (mut compatible, mut not_schemas, mut across) = (0, 0, 0);
    let (mut sets_compatible, mut mixed_pairs) = (0, 0);
    for index in 0..pairs {
        let old = schemas::document(&mut rng);
        // One change, or two or three at once: changes judged each alone
        // may break together.
        let steps = 1 + rng.below(3);
        let new = (0..steps).fold(old.clone(), |new, _| schemas::changed(&new, &mut rng));
        let moved: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .filter(|_| !rng.chance(30))
            .collect();
        // In any draft, as `any_draft` writes them, one on each side; and
        // now and then a moved definition's file in a draft of its own,
        // which a reference into it reads it in.
        let mut draft = || rng.pick(&schemas::Draft::ALL).copied().unwrap();
        let drafts = [draft(), draft()];
        let mixed = rng.chance(30);
        // Often the same drafts on both sides, file by file: then no
        // document is rewritten in 2020-12, and each is read in its own.
        let alike = mixed && rng.chance(50);
        let drafts = if alike { [drafts[0]; 2] } else { drafts };
        let mut own_drafts = |side: usize| -> Vec<schemas::Draft> {
            moved
                .iter()
                .map(|_| {
                    if mixed && rng.chance(50) {
                        rng.pick(&schemas::Draft::ALL).copied().unwrap()
                    } else {
                        drafts[side]
                    }
                })
                .collect()
        };
        let file_drafts = if alike {
            let own = own_drafts(0);
            [own.clone(), own]
        } else {
            [own_drafts(0), own_drafts(1)]
        };
        mixed_pairs += usize::from(
            file_drafts[0].iter().any(|d| *d != drafts[0])
                || file_drafts[1].iter().any(|d| *d != drafts[1]),
        );
        let folder = rng.pick(&FOLDERS).copied().unwrap_or_default();
        let (old, new) = (
            split_in_drafts(&old, &moved, folder, drafts[0], &file_drafts[0]),
            split_in_drafts(&new, &moved, folder, drafts[1], &file_drafts[1]),
        );
        across += usize::from(old.len() > 1);
        // Every fifth pair with `format` read as an annotation, as
        // `--formats annotation` has it.
        let formats = if index % 5 == 4 {
            Formats::Annotation
        } else {
            Formats::Assertion
        };
        // Every other pair for tolerant readers, `cargo xtask compat`'s
        // default: the reader's objects opened, as compat reads them.
        let readers = if index % 2 == 1 {
            Readers::Tolerant
        } else {
            Readers::Strict
        };
        let options = Options {
            formats,
            readers,
            ..strict_with_search()
        };
        let label = format!("pair {index} of seed {seed} ({readers:?} readers, {formats:?} formats): {old:?} → {new:?}");
        let files = [old.as_slice(), new.as_slice()];
        let reading = (formats, readers == Readers::Tolerant);
        let (old_set, new_set) = (as_set(&old).unwrap(), as_set(&new).unwrap());
        match watched(
            || label.clone(),
            &mut found,
            || compare_documents(&old_set, &new_set, options),
        ) {
            Ok(comparison) => {
                compatible += holding(&comparison);
                found.extend(defects(&label, &comparison));
                let seed = rng.below(1 << 30) as u64;
                let refused = refutations(&comparison, files, &["types/Case.json"], reading, seed);
                found.extend(refused.into_iter().map(|why| format!("{label}: {why}")));
            }
            Err(compat::Error::NotASchema { .. } | compat::Error::Unresolved { .. }) => {
                not_schemas += 1
            }
            Err(err) => found.push(format!("{label}: {err}")),
        }
        // And as a contract's types, each file compared with its namesake
        // (`compare_sets`, what `cargo xtask compat` runs): a direction
        // that holds holds for every file both sides have.
        let (old, new) = (with_ids(&old), with_ids(&new));
        let files = [old.as_slice(), new.as_slice()];
        let (old_set, new_set) = (as_set(&old).unwrap(), as_set(&new).unwrap());
        let as_sets = || format!("{label} (as sets)");
        let comparison = match watched(as_sets, &mut found, || {
            compare_sets(&old_set, &new_set, options)
        }) {
            Ok(comparison) => comparison,
            Err(compat::Error::NotASchema { .. } | compat::Error::Unresolved { .. }) => continue,
            // A set refuses a resource embedded in a file (the generator
            // writes some).
            Err(compat::Error::NotItsOwnId { pointer, .. })
                if !["", "/$id"].contains(&pointer.as_str()) =>
            {
                continue
            }
            Err(err) => {
                found.push(format!("{label} (as sets): {err}"));
                continue;
            }
        };
        sets_compatible += holding(&comparison);
        found.extend(defects(&format!("{label} (as sets)"), &comparison));
        let seed = rng.below(1 << 30) as u64;
        let refused = refutations(&comparison, files, &in_both(files), reading, seed);
        found.extend(
            refused
                .into_iter()
                .map(|why| format!("{label} (as sets): {why}")),
        );
    }
    judged(&found, pairs, not_schemas < pairs / 4, compatible);
    assert!(
        across > pairs / 2,
        "only {across} of {pairs} documents were split"
    );
    assert!(
        sets_compatible > pairs / 4,
        "only {sets_compatible} directions held as sets"
    );
    assert!(
        mixed_pairs > pairs / 20,
        "only {mixed_pairs} of {pairs} pairs had a file in a draft of its own"
    );
    eprintln!("{pairs} pairs of seed {seed} split into files ({mixed_pairs} with a file in a draft of its own): {compatible} compatible directions searched, {sets_compatible} as sets, none refuted; {not_schemas} met no schema");
}

/// `files` (`rel`, schema) loaded as a set, the root first.
fn as_set(files: &[(String, Value)]) -> Result<SchemaSet, contract::Error> {
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|(rel, schema)| (rel.clone(), schema.to_string()))
        .collect();
    let set = SchemaSet::from_texts(
        Path::new("cases"),
        texts
            .iter()
            .map(|(rel, text)| (rel.as_str(), text.as_str())),
    )?;
    // `compare_documents` compares the set's first document.
    assert_eq!(set.docs[0].rel, "types/Case.json");
    Ok(set)
}

/// `files`, each given the `$id` of its place, as a contract's types are
/// (`compare_sets` asks for it): the files both compared and refuted as
/// sets, for an `$id` the file had may name another file's place.
fn with_ids(files: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut files = files.to_vec();
    for (rel, schema) in &mut files {
        if !schema.is_object() {
            *schema = serde_json::json!({"allOf": [schema.take()]});
        }
        if let Value::Object(map) = schema {
            map.insert(
                "$id".into(),
                Value::String(format!("{}{rel}", contract::ID_BASE)),
            );
        }
    }
    files
}

/// The files both sides have.
fn in_both([old, new]: [&[(String, Value)]; 2]) -> Vec<&str> {
    old.iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| new.iter().any(|(other, _)| other == rel))
        .collect()
}

/// Where `comparison` (of `old` and `new`) says a direction holds, values
/// drawn at each file of `roots` from the writer's files that fail the
/// reader's, each described.
fn refutations(
    comparison: &Comparison,
    [old, new]: [&[(String, Value)]; 2],
    roots: &[&str],
    reading: (Formats, bool),
    seed: u64,
) -> Vec<String> {
    let mut found = Vec::new();
    for (holds, [writer, reader], direction) in [
        (
            comparison.writer.holds(),
            [new, old],
            "new writer → old reader",
        ),
        (
            comparison.reader.holds(),
            [old, new],
            "old writer → new reader",
        ),
    ] {
        for root in roots.iter().filter(|_| holds) {
            // The validator has panicked compiling files the checker
            // judged: named as a break missed, not a crash of the run.
            let refuted =
                std::panic::catch_unwind(|| refuted_in([writer, reader], root, reading, seed));
            match refuted {
                Ok(None) => {}
                Ok(Some(refuted)) => found.push(format!(
                    "{direction} called compatible, but at {root} {refuted}"
                )),
                Err(_) => found.push(format!(
                    "{direction} called compatible, but at {root} the validator panics compiling the two as written"
                )),
            }
        }
    }
    found
}

/// An edit of `to` that puts a copy of one of `from`'s schemas over one of
/// its own, drawn at random.
fn transplanted(from: &Value, to: &Value, rng: &mut Rng) -> Option<sample::Edit> {
    let (sources, targets) = (schemas::places(from), schemas::places(to));
    let (source, target) = (rng.pick(&sources)?, rng.pick(&targets)?);
    Some(sample::Edit {
        pointer: target.clone(),
        with: Some(from.pointer(source)?.clone()),
    })
}

/// The one-step edits of `one_step_edits` again (keywords renamed and
/// added too, a schema written another way or copied over another from
/// any file; now and then an edit written another way around as well), on
/// generated documents split into files as [`split_in_drafts`] writes them
/// (some definitions in files of their own, now and then in a draft of
/// their own): one file edited, the rest alike, so that an edit meets
/// references, anchors and cycles across files. Compared as documents (the root) and as a
/// contract's types (every file with its namesake), both ways round, strict
/// and tolerant readers alternating, `format` an annotation for every
/// third. `COMPAT_EDITED_SPLIT_DOCS=N` runs N
/// documents, each with `COMPAT_EDITS_PER_DOC` edits (8 when unsaid).
#[test]
fn no_compatible_verdict_on_one_step_edits_of_split_documents_is_refuted_by_a_value() {
    let docs = usize::try_from(setting("COMPAT_EDITED_SPLIT_DOCS", 16)).unwrap();
    let per_doc = usize::try_from(setting("COMPAT_EDITS_PER_DOC", 8)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0x5b11_ed17);
    let mut rng = Rng::new(seed);
    let (mut found, mut compared, mut compatible, mut refused) = (Vec::new(), 0, 0, 0);
    for index in 0..docs {
        let document = schemas::document(&mut rng);
        let moved: Vec<&str> = ["a", "b", "c"]
            .into_iter()
            .filter(|_| !rng.chance(30))
            .collect();
        let draft = rng.pick(&schemas::Draft::ALL).copied().unwrap();
        let own: Vec<schemas::Draft> = moved
            .iter()
            .map(|_| match rng.chance(20) {
                true => rng.pick(&schemas::Draft::ALL).copied().unwrap(),
                false => draft,
            })
            .collect();
        let folder = rng.pick(&FOLDERS).copied().unwrap_or_default();
        let old = split_in_drafts(&document, &moved, folder, draft, &own);
        let edits: Vec<[Vec<sample::Edit>; 3]> = old
            .iter()
            .map(|(_, schema)| {
                let mut edits = sample::one_step_edits(schema, &Default::default(), true);
                edits.extend(schemas::keyword_swaps(schema));
                let mut additions = schemas::keyword_additions(schema);
                additions.extend(schemas::keyword_replacements(schema));
                [edits, additions, schemas::rewrappings(schema)]
            })
            .collect();
        let readers = if index % 2 == 0 {
            Readers::Strict
        } else {
            Readers::Tolerant
        };
        // `format` an annotation for every third.
        let formats = if index % 3 == 2 {
            Formats::Annotation
        } else {
            Formats::Assertion
        };
        let options = Options {
            readers,
            formats,
            ..strict_with_search()
        };
        let reading = (formats, readers == Readers::Tolerant);
        for _ in 0..per_doc {
            let file = rng.below(old.len());
            let Some([edits, additions, rewrappings]) = edits.get(file) else {
                continue;
            };
            // Or a schema copied over one of this file's, from this file or
            // another: references written for one file then read in another.
            let across = match rng.chance(20) {
                true => transplanted(&old[rng.below(old.len())].1, &old[file].1, &mut rng),
                false => None,
            };
            let pool = match rng.below(10) {
                0..=2 => additions,
                3 | 4 => rewrappings,
                _ => edits,
            };
            let Some(edit) = across.as_ref().or_else(|| rng.pick(pool)) else {
                continue;
            };
            let mut new = old.clone();
            new[file].1 = edit.applied(&old[file].1);
            // Now and then written another way around the edit too.
            if rng.chance(20) {
                if let Some(wrapped) =
                    schemas::rewrapped_around(&new[file].1, &edit.pointer, &mut rng)
                {
                    new[file].1 = wrapped;
                }
            }
            if as_set(&new).is_err() {
                refused += 2;
                continue;
            }
            for (before, after) in [(&old, &new), (&new, &old)] {
                let files = [before.as_slice(), after.as_slice()];
                let label = format!("document {index} of seed {seed} ({readers:?} readers), {} edited: {before:?} → {after:?}", old[file].0);
                let (first, second) = (as_set(before).unwrap(), as_set(after).unwrap());
                match watched(
                    || label.clone(),
                    &mut found,
                    || compare_documents(&first, &second, options),
                ) {
                    Ok(comparison) => {
                        compared += 1;
                        compatible += holding(&comparison);
                        found.extend(defects(&label, &comparison));
                        let seed = rng.below(1 << 30) as u64;
                        let refuted =
                            refutations(&comparison, files, &["types/Case.json"], reading, seed);
                        found.extend(refuted.into_iter().map(|why| format!("{label}: {why}")));
                    }
                    Err(_) => refused += 1,
                }
                let (before, after) = (with_ids(before), with_ids(after));
                let files = [before.as_slice(), after.as_slice()];
                let (Ok(first), Ok(second)) = (as_set(&before), as_set(&after)) else {
                    continue;
                };
                let as_sets = || format!("{label} (as sets)");
                if let Ok(comparison) = watched(as_sets, &mut found, || {
                    compare_sets(&first, &second, options)
                }) {
                    found.extend(defects(&format!("{label} (as sets)"), &comparison));
                    let seed = rng.below(1 << 30) as u64;
                    let refuted = refutations(&comparison, files, &in_both(files), reading, seed);
                    found.extend(
                        refuted
                            .into_iter()
                            .map(|why| format!("{label} (as sets): {why}")),
                    );
                }
            }
        }
    }
    assert!(found.is_empty(), "missed breaks:\n{}", found.join("\n"));
    assert!(
        // About 40% of edits make a document its meta-schema refuses.
        compared * 2 > refused && compatible > compared / 2,
        "{compared} compared, {compatible} directions held, {refused} refused: the oracle had little to check"
    );
    eprintln!("{docs} split documents of seed {seed}: {compared} comparisons, {compatible} compatible directions searched, {refused} edits refused, none refuted");
}

/// `document` (as generated, in 2020-12) split as [`split`] does, the
/// root written for `draft` and each moved definition's file for its own
/// draft in `own` (in `moved`'s order); a reference from a moved file back
/// into the root's definitions names them by the root's key.
fn split_in_drafts(
    document: &Value,
    moved: &[&str],
    folder: &str,
    draft: schemas::Draft,
    own: &[schemas::Draft],
) -> Vec<(String, Value)> {
    let mut files = split(&schemas::in_draft(document, draft), moved, folder);
    let root_key = match files
        .first()
        .map(|(_, root)| root.get("definitions").is_some())
    {
        Some(true) => "definitions",
        _ => "$defs",
    };
    for (name, file_draft) in moved.iter().zip(own) {
        let rel = format!("types/{}", def_file(name));
        let Some(slot) = files.iter_mut().find(|(at, _)| *at == rel) else {
            continue;
        };
        if *file_draft != draft {
            let theirs = split(&schemas::in_draft(document, *file_draft), moved, folder);
            if let Some((_, schema)) = theirs.into_iter().find(|(at, _)| *at == rel) {
                slot.1 = schema;
            }
        }
        each_reference(&mut slot.1, |reference| {
            for spelled in ["Case.json#/definitions/", "Case.json#/$defs/"] {
                if reference.contains(spelled) {
                    *reference = reference.replace(spelled, &format!("Case.json#/{root_key}/"));
                }
            }
        });
    }
    files
}

/// Calls `respell` with every `$ref` and `$dynamicRef` in `value`, schema
/// or not (an enum's data spelled like a schema too: alike on both sides).
fn each_reference(value: &mut Value, mut respell: impl FnMut(&mut String)) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    match (key.as_str(), child) {
                        ("$ref" | "$dynamicRef", Value::String(reference)) => respell(reference),
                        (_, child) => stack.push(child),
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// `document` as files (`rel`, schema): the root at `types/Case.json`, each
/// definition named in `moved` at `types/DefA.json` (for `a`, so that the
/// root, compared, comes first), references respelled to reach the same
/// schemas across files, the folder written as `folder` (one of
/// [`FOLDERS`]).
fn split(document: &Value, moved: &[&str], folder: &str) -> Vec<(String, Value)> {
    let mut root = document.clone();
    let mut files = Vec::new();
    let key = ["$defs", "definitions"]
        .into_iter()
        .find(|key| root.get(key).is_some())
        .unwrap_or("$defs");
    if let Some(defs) = root.get_mut(key).and_then(Value::as_object_mut) {
        for name in moved {
            if let Some(def) = defs.remove(*name) {
                files.push((format!("types/{}", def_file(name)), def));
            }
        }
    }
    files.insert(0, ("types/Case.json".to_string(), root));
    let schema = document.get("$schema").cloned();
    for (at, (_, value)) in files.iter_mut().enumerate() {
        if let (Some(schema), Value::Object(map)) = (&schema, &mut *value) {
            map.insert("$schema".into(), schema.clone());
        }
        each_reference(value, |reference| {
            *reference = respelled(reference, at == 0, moved, folder);
        });
    }
    files
}

/// A generated document's objects opened, in the draft its `$schema`
/// names (2020-12 unsaid), as a tolerant reader reads it.
fn opened(schema: &mut Value) {
    let draft = schemas::Draft::ALL
        .into_iter()
        .find(|d| schema.get("$schema") == Some(&Value::from(d.uri())))
        .unwrap_or(schemas::Draft::D2020);
    compat::open_objects(schema, validator_draft(draft));
}

/// The validator's name for a generated document's draft.
fn validator_draft(draft: schemas::Draft) -> jsonschema::Draft {
    match draft {
        schemas::Draft::D4 => jsonschema::Draft::Draft4,
        schemas::Draft::D6 => jsonschema::Draft::Draft6,
        schemas::Draft::D7 => jsonschema::Draft::Draft7,
        schemas::Draft::D2019 => jsonschema::Draft::Draft201909,
        schemas::Draft::D2020 => jsonschema::Draft::Draft202012,
    }
}

/// The file [`split`] moves the definition `name` to.
fn def_file(name: &str) -> String {
    format!("Def{}.json", name.to_uppercase())
}

/// How a reference of [`split`] may write the folder of the file it names,
/// each resolving to `types/` from there: from the file's own folder, from
/// the set's root, or whole.
const FOLDERS: [&str; 5] = [
    "",
    "./",
    "../types/",
    "/types/",
    "https://schemas.vdm.invalid/types/",
];

/// A reference of a generated document as a file of [`split`] spells it:
/// into a moved definition, by pointer (`#/$defs/a/x` → `DefA.json#/x`,
/// `#/definitions/a/x` too) or by
/// its anchor (`#a`, `#a-plain` → `DefA.json#a`); to the root from a moved
/// definition (`#/x` → `Case.json#/x`), each file's folder written as
/// `folder`. Any other stays as written.
fn respelled(reference: &str, in_root: bool, moved: &[&str], folder: &str) -> String {
    let file = |name: &str| format!("{folder}{}", def_file(name));
    let defined = ["#/$defs/", "#/definitions/"]
        .into_iter()
        .find_map(|prefix| reference.strip_prefix(prefix));
    if let Some(below) = defined {
        let (name, rest) = below
            .split_once('/')
            .map_or((below, ""), |(name, rest)| (name, rest));
        if moved.contains(&name) {
            let fragment = if rest.is_empty() {
                String::new()
            } else {
                format!("#/{rest}")
            };
            return format!("{}{fragment}", file(name));
        }
    } else if let Some(anchor) = reference
        .strip_prefix('#')
        .filter(|a| !a.is_empty() && !a.starts_with('/'))
    {
        let name = anchor.trim_end_matches("-plain");
        if moved.contains(&name) {
            return format!("{}{reference}", file(name));
        }
        return reference.to_string();
    }
    if !in_root && reference.starts_with('#') {
        return format!("{folder}Case.json{reference}");
    }
    reference.to_string()
}

/// What shows that a direction said to hold does not.
enum Refuted {
    /// A value the writer accepts and the reader refuses.
    By(Value),
    /// The validator compiles one side and not the other: the two differ,
    /// and a schema the validator refuses each validator reads its own way,
    /// so nothing holds for it.
    Uncompiled(&'static str),
}

impl std::fmt::Display for Refuted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refuted::By(value) => write!(f, "{value} passes the writer and fails the reader"),
            Refuted::Uncompiled(side) => write!(f, "the validator cannot compile the {side}"),
        }
    }
}

/// The two validators, or what refutes a "holds" when one side compiles
/// and the other does not. `None` when neither compiles, or when a
/// reference of either leads out of what this test registers or to no
/// place (the checker reads the documents as a set, where it may lead
/// somewhere; where it leads nowhere the checker stops where a comparison
/// reaches it). An identifier or reference that is no URI, or that no base
/// resolves, is refused like any other schema the validator refuses.
fn both_compiled(
    writes: Result<jsonschema::Validator, jsonschema::ValidationError<'_>>,
    reads: Result<jsonschema::Validator, jsonschema::ValidationError<'_>>,
) -> Result<(jsonschema::Validator, jsonschema::Validator), Option<Refuted>> {
    use jsonschema::ReferencingError as Leads;
    let unresolved = |side: &Result<_, jsonschema::ValidationError<'_>>| {
        side.as_ref().is_err_and(|error| {
            matches!(
                error.kind(),
                jsonschema::error::ValidationErrorKind::Referencing(
                    Leads::Unretrievable { .. }
                        | Leads::PointerToNowhere { .. }
                        | Leads::NoSuchAnchor { .. }
                        | Leads::InvalidArrayIndex { .. }
                        | Leads::InvalidPercentEncoding { .. }
                )
            )
        })
    };
    if unresolved(&writes) || unresolved(&reads) {
        return Err(None);
    }
    match (writes, reads) {
        (Ok(writes), Ok(reads)) => Ok((writes, reads)),
        (Ok(_), Err(_)) => Err(Some(Refuted::Uncompiled("reader"))),
        (Err(_), Ok(_)) => Err(Some(Refuted::Uncompiled("writer"))),
        (Err(_), Err(_)) => Err(None),
    }
}

/// A value drawn from `writer` (or a one-step mutation of one) that
/// `writer` accepts and `reader` refuses, each read by the validator of its
/// own draft, `format` read as `formats` says; with `open`, the reader's
/// objects opened for a tolerant reader.
fn refuted(
    writer: &Value,
    reader: &Value,
    (formats, open): (Formats, bool),
    seed: u64,
) -> Option<Refuted> {
    let compile = |schema: &Value| {
        jsonschema::options()
            .should_validate_formats(formats == Formats::Assertion)
            .build(schema)
    };
    let mut reader = reader.clone();
    if open {
        opened(&mut reader);
    }
    let (writes, reads) = match both_compiled(compile(writer), compile(&reader)) {
        Ok(both) => both,
        Err(refuted) => return refuted,
    };
    let uri = "https://sample.invalid/writer.json";
    let registry = jsonschema::Registry::new()
        .add(uri, writer.clone())
        .and_then(|builder| builder.prepare())
        .ok()?;
    first_refused(&registry, uri, [&writes, &reads], seed).map(Refuted::By)
}

/// [`refuted`] for two sets of files (`rel`, schema), every file at its
/// place under the contract's base, values drawn at the file `root`,
/// `format` read as `formats` says; with `open`, the reader's objects
/// opened (each file read in its own draft) for a tolerant reader.
fn refuted_in(
    files: [&[(String, Value)]; 2],
    root: &str,
    reading: (Formats, bool),
    seed: u64,
) -> Option<Refuted> {
    let uri = format!("{}{root}", contract::ID_BASE);
    match compiled_in(files, &uri, reading) {
        Ok((writing, writes, reads)) => {
            first_refused(&writing, &uri, [&writes, &reads], seed).map(Refuted::By)
        }
        Err(refuted) => refuted,
    }
}

/// The writer's registry and the two validators at `uri` of two sets of
/// files, as [`refuted_in`] puts values to them; `Err` as [`both_compiled`].
fn compiled_in(
    [writer, reader]: [&[(String, Value)]; 2],
    uri: &str,
    (formats, open): (Formats, bool),
) -> Result<
    (
        jsonschema::Registry<'static>,
        jsonschema::Validator,
        jsonschema::Validator,
    ),
    Option<Refuted>,
> {
    let registry = |files: &[(String, Value)], open: bool| {
        jsonschema::Registry::new()
            .extend(files.iter().map(|(rel, schema)| {
                let mut schema = schema.clone();
                if open {
                    opened(&mut schema);
                }
                (format!("{}{rel}", contract::ID_BASE), schema)
            }))
            .and_then(|builder| builder.prepare())
            .ok()
    };
    let (Some(writing), Some(reading)) = (registry(writer, false), registry(reader, open)) else {
        return Err(None);
    };
    let compile = |registry: &jsonschema::Registry<'_>| {
        jsonschema::options()
            .should_validate_formats(formats == Formats::Assertion)
            .with_registry(registry)
            .build(&serde_json::json!({ "$ref": uri }))
    };
    let (writes, reads) = both_compiled(compile(&writing), compile(&reading))?;
    Ok((writing, writes, reads))
}

/// The first of [`DRAWS`] / 10 values drawn at `uri` of `registry` (with
/// their one-step mutations, and an arbitrary value each) that `writes`
/// accepts and `reads` refuses.
fn first_refused(
    registry: &jsonschema::Registry<'_>,
    uri: &str,
    [writes, reads]: [&jsonschema::Validator; 2],
    seed: u64,
) -> Option<Value> {
    let mut sampler = sample::Sampler::new(registry, seed);
    for _ in 0..DRAWS / 10 {
        let Ok(value) = sampler.draw(uri) else {
            continue;
        };
        // Each mutation is a whole copy: a large draw's, all made, would
        // cost its size squared; past a few hundred, some drawn at random.
        let mut edits = if value.to_string().len() <= 4096 {
            sample::one_step_edits(&value, &Default::default(), false)
        } else {
            Vec::new()
        };
        for at in 0..edits.len().min(MUTATIONS) {
            let other = at + sampler.rng().below(edits.len() - at);
            edits.swap(at, other);
        }
        edits.truncate(MUTATIONS);
        let mutations = edits.iter().map(|edit| edit.applied(&value));
        // And values the draw does not aim at: the sampler reads a keyword
        // (a `format`) even where the writer's draft ignores it.
        let arbitrary = sample::any_value(sampler.rng(), 2);
        // And each number written the other way (`1` as `1.0`), which
        // draft 4's `type: integer` tells apart and a draw never writes.
        let respelled = sample::numbers_respelled(&value);
        let found = std::iter::once(value.clone())
            .chain(std::iter::once(respelled))
            .chain(mutations)
            .chain(std::iter::once(arbitrary))
            .find(|value| writes.is_valid(value) && !reads.is_valid(value));
        if found.is_some() {
            return found;
        }
    }
    None
}

/// What the prover trusts most: the canonical form (the `jsonschema`
/// crate's), written back as a schema, accepts the values the document
/// accepts and no others, as the validator says, on generated documents
/// in every draft (each second one changed, each third given a one-step
/// edit). Documents holding a keyword the prover never hands the canonical
/// form are left out (`unevaluated*`, the dynamic references, an empty
/// `$ref`, which the canonical form reads as the document and the validator
/// skips, a `multipleOf` past 2^53, which the validator divides as
/// doubles, a `required` name listed twice, which it counts twice), and so
/// are those the checker cannot read at all (a reference
/// cycle back to a schema without reading into the value). Its containment
/// is not tested here (the
/// oracles above do), only that what it made of a document reads as the
/// document does; draft 4's enums pass this (`enum: [1]` is written back
/// as it was) and fail containment, which the prover keeps from it. Values: draws,
/// each respelled (`1` as `1.0`), some of their one-step mutations, and
/// arbitrary values. A new release of the crate meets this first.
/// `COMPAT_CANONICAL_DOCS=N` runs N.
#[test]
fn the_canonical_form_written_back_accepts_what_the_document_accepts() {
    let docs = usize::try_from(setting("COMPAT_CANONICAL_DOCS", 2000)).unwrap();
    let seed = setting("COMPAT_PAIRS_SEED", 0xca_4011);
    let mut rng = Rng::new(seed);
    let (mut compared, mut values) = (0, 0);
    let mut found = Vec::new();
    for index in 0..docs {
        let doc = schemas::document(&mut rng);
        let doc = if index % 2 == 1 {
            schemas::changed(&doc, &mut rng)
        } else {
            doc
        };
        let draft = rng.pick(&schemas::Draft::ALL).copied().unwrap();
        let mut doc = schemas::in_draft(&doc, draft);
        // Every third one edited as the edit oracles edit, where its
        // meta-schema still takes it.
        if index % 3 == 2 {
            let mut edits = sample::one_step_edits(&doc, &Default::default(), true);
            edits.extend(schemas::keyword_swaps(&doc));
            if rng.chance(30) {
                edits = schemas::keyword_additions(&doc);
                edits.extend(schemas::keyword_replacements(&doc));
            } else if rng.chance(30) {
                edits = schemas::rewrappings(&doc);
            }
            match rng.pick(&edits).map(|edit| edit.applied(&doc)) {
                Some(edited) if jsonschema::meta::validate(&edited).is_ok() => doc = edited,
                _ => continue,
            }
        }
        if !read_by_the_canonical_form(&doc) {
            continue;
        }
        let Ok(canonical) = jsonschema::canonical::options()
            .should_validate_formats(true)
            .canonicalize(&doc)
        else {
            continue;
        };
        let written = canonical.to_json_schema();
        let build = |schema: &Value| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .ok()
        };
        let (Some(original), Some(emitted)) = (build(&doc), build(&written)) else {
            continue;
        };
        let uri = "https://sample.invalid/doc.json";
        let Ok(registry) = jsonschema::Registry::new()
            .add(uri, doc.clone())
            .and_then(|builder| builder.prepare())
        else {
            continue;
        };
        compared += 1;
        let mut sampler = sample::Sampler::new(&registry, rng.next_u64());
        let mut tried = Vec::new();
        for _ in 0..10 {
            if let Ok(value) = sampler.draw(uri) {
                tried.push(sample::numbers_respelled(&value));
                if value.to_string().len() <= 4096 {
                    let mut edits = sample::one_step_edits(&value, &Default::default(), false);
                    edits.truncate(24);
                    tried.extend(edits.iter().map(|edit| edit.applied(&value)));
                }
                tried.push(value);
            }
            tried.push(sample::any_value(sampler.rng(), 2));
        }
        values += tried.len();
        if let Some(value) = tried
            .into_iter()
            .find(|value| original.is_valid(value) != emitted.is_valid(value))
        {
            // A document the prover cannot read at all (a reference cycle
            // back to a schema without reading into the value, which
            // validators answer each their own way) is never handed to the
            // canonical form; asked only here, as it costs a comparison.
            if !read_by_the_prover(&doc) {
                continue;
            }
            found.push(format!(
                "document {index} of seed {seed}: {value} is {} by {doc} and {} by its canonical form {written}",
                if original.is_valid(&value) { "accepted" } else { "refused" },
                if emitted.is_valid(&value) { "accepted" } else { "refused" },
            ));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
    assert!(
        compared > docs / 5,
        "only {compared} of {docs} documents were compared"
    );
    eprintln!("{docs} documents of seed {seed}: {compared} compared with their canonical form, {values} values, all read alike");
}

/// Whether the checker reads `doc` at all: compared with itself, it holds
/// both ways.
fn read_by_the_prover(doc: &Value) -> bool {
    let options = Options {
        readers: Readers::Strict,
        search: 0,
        ..Default::default()
    };
    SchemaSet::from_texts(
        Path::new("cases"),
        [("types/Case.json", doc.to_string().as_str())],
    )
    .ok()
    .and_then(|set| compare_documents(&set, &set, options).ok())
    .is_some_and(|same| same.writer.holds() && same.reader.holds())
}

/// Whether the prover may hand `doc` to the canonical form: no keyword it
/// cannot decide.
fn read_by_the_canonical_form(doc: &Value) -> bool {
    let mut stack = vec![doc];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                let undecided = [
                    "unevaluatedProperties",
                    "unevaluatedItems",
                    "$dynamicRef",
                    "$recursiveRef",
                ];
                // A divisor past 2^53, which the validator divides as
                // doubles and the canonical form exactly.
                let rounded = map
                    .get("multipleOf")
                    .and_then(Value::as_f64)
                    .is_some_and(|divisor| divisor.abs() > 2f64.powi(53));
                // A name listed twice (where no meta-schema looked, a
                // `$defs` in draft 6), which the validator counts twice and
                // the canonical form once.
                let twice = ["required", "dependentRequired", "dependencies"]
                    .iter()
                    .filter_map(|key| map.get(*key))
                    .flat_map(|value| match value {
                        Value::Object(lists) => lists.values().collect(),
                        other => vec![other],
                    })
                    .filter_map(Value::as_array)
                    .any(|names| {
                        names
                            .iter()
                            .enumerate()
                            .any(|(at, name)| names[..at].contains(name))
                    });
                if undecided.iter().any(|key| map.contains_key(*key))
                    || map.get("$ref") == Some(&Value::from(""))
                    || rounded
                    || twice
                {
                    return false;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    true
}
