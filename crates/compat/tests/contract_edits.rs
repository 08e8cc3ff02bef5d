//! The checker over the whole contract, on edits nobody wrote a case for:
//! one generated change (`sample::schemas::changed`) to one file of the
//! real contract — a type, a method, an event, an envelope file or the
//! tool-set file — or
//! (every third) one to each of two files, and
//! wherever `compare_sets` says a direction holds, values drawn from the
//! writer's side pass the reader's (for tolerant readers with the reader's
//! objects opened, as compat reads them). Drawn from the whole envelope and from the
//! edited file's own parts. A value that fails is a "compatible" that ships
//! a break. Every fourth edit is judged for strict readers (nothing opened),
//! every fifth with `format` read as an annotation. Every seventh edit
//! changes the files instead (`file_edit`): one removed, renamed with every
//! reference, copied and changed under a new name that a reference then
//! reaches, a reference moved to another file or spelled another way (one
//! validators resolve to the same file, or one no resolver reads), a branch
//! of a union dropped, or two files' schemas swapped. Every seventh, one
//! after those, is a one-step edit of a file's JSON (`sample::one_step_edits`:
//! a member removed, nulled, or given a neighbouring or wrong value; or
//! `sample::schemas::keyword_swaps`: a keyword renamed as a neighbour;
//! `sample::schemas::keyword_additions`: a keyword added, or
//! `keyword_replacements`: given another value;
//! `sample::schemas::transplants`: one schema copied over another; or
//! `sample::schemas::rewrappings`: one written another way; now and then
//! an edit and `rewrapped_around` it together; or `dialect_edits`: its
//! `$schema` naming another draft, an `id`, `$id` or anchor written at one
//! of its schemas). A
//! reader whose schemas cannot even be
//! built reads nothing, so a direction said to hold towards it is broken
//! too.
//!
//! And each edit is compared the other way round: a writer and a reader are
//! the same pair whichever version is called old, so a direction either
//! comparison says holds is put to drawn values, and where the two judge
//! the pair two ways, eight times as many are drawn.
//!
//! A second test does the same at each place of the contract in turn, its
//! schema made `true` and then `false` (`COMPAT_PLACES_EVERY=1` for every
//! place; the bounded run takes every twelfth).
//!
//! `COMPAT_EDITS=N` runs N edits instead of the bounded count, and
//! `COMPAT_EDITS_SEED=S` starts from another seed (`COMPAT_FILE_EDITS=1`
//! makes every edit one of the files, `COMPAT_JSON_EDITS=1` every one a
//! one-step edit of a file's JSON):
//! `COMPAT_EDITS=2000 cargo test --release -p compat --test contract_edits`.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use compat::{compare_sets, open_objects, Formats, Options, Readers};
use contract::{DocKind, SchemaSet};
use jsonschema::{Draft, Registry};
use sample::{Rng, Sampler};
use serde_json::{json, Value};
use watch::watched;

mod watch;

/// Edits in a `cargo test` run.
const EDITS: u64 = 24;
/// Values drawn per place and direction that holds (eight times as many
/// where the two comparisons disagree).
const DRAWS: usize = 24;

fn base() -> SchemaSet {
    SchemaSet::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema"))
        .expect("schemas load")
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// The set's documents under their `$id`s, objects opened for a tolerant
/// reader when `open` (not the tool-set file: the executor reads it
/// strictly); `None` when the resolver refuses them.
fn registry(set: &SchemaSet, open: bool) -> Option<Registry<'static>> {
    let pairs = set.docs.iter().filter_map(|doc| {
        let id = doc.value.get("$id")?.as_str()?.to_string();
        let mut value = doc.value.clone();
        if open && doc.kind != DocKind::Config {
            open_objects(&mut value, Draft::Draft202012);
        }
        Some((id, value))
    });
    Registry::new().extend(pairs).ok()?.prepare().ok()
}

/// The places values are drawn from: the whole envelope, and the edited
/// file's own parts.
fn places(edited: &contract::SchemaDoc) -> Vec<String> {
    let id = edited
        .value
        .get("$id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut out = vec!["https://schemas.vdm.invalid/envelope/Envelope.json".to_string()];
    match edited.kind {
        DocKind::Method => {
            out.push(format!("{id}#/$defs/params"));
            out.push(format!("{id}#/$defs/result"));
        }
        DocKind::Event => out.push(format!("{id}#/$defs/params")),
        _ => out.push(id.to_string()),
    }
    out
}

/// A value drawn at `place` that `writer` accepts and `reader` refuses (the
/// sampler's draws are not all valid: the writer's validator says which are),
/// or why the reader reads nothing the writer writes there.
fn refused(
    [writer, reader]: [&Registry<'_>; 2],
    place: &str,
    (seed, formats, draws): (u64, Formats, usize),
    accepted: &mut usize,
) -> Option<String> {
    let validator = |registry: &Registry<'_>| {
        jsonschema::options()
            .with_registry(registry)
            .should_validate_formats(formats == Formats::Assertion)
            .build(&json!({ "$ref": place }))
    };
    let writes = validator(writer).ok()?;
    let reads = match validator(reader) {
        Ok(reads) => reads,
        // A place only the writer has is not read at all; the envelope is.
        Err(err) if place.ends_with("/Envelope.json") => {
            return Some(format!("a reader that cannot be built ({err})"))
        }
        Err(_) => return None,
    };
    let mut sampler = Sampler::new(writer, seed);
    (0..draws)
        .filter_map(|_| sampler.draw(place).ok())
        .filter(|value| writes.is_valid(value))
        .inspect(|_| *accepted += 1)
        .find(|value| !reads.is_valid(value))
        .map(|value| format!("{value}, which the reader refuses"))
}

/// The file name a `$ref` reaches, and the text around it
/// (`../types/` + `TaskId.json` + `#/x`).
fn ref_parts(reference: &str) -> Option<(&str, &str, &str)> {
    let (path, fragment) = reference
        .find('#')
        .map_or((reference, ""), |at| reference.split_at(at));
    let name_at = path.rfind('/').map_or(0, |at| at + 1);
    let name = path.get(name_at..)?;
    (!name.is_empty()).then(|| (path.get(..name_at).unwrap_or(""), name, fragment))
}

/// Every `$ref` below `value` that reaches another file, as mutable strings.
fn file_refs(value: &mut Value) -> Vec<&mut String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    let reaches_a_file = key == "$ref"
                        && child.as_str().is_some_and(|text| ref_parts(text).is_some());
                    if !reaches_a_file {
                        stack.push(child);
                    } else if let Value::String(text) = child {
                        out.push(text);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    out
}

/// Points every reference to the file named `from` at the file named `to`.
fn retarget_all(set: &mut SchemaSet, from: &str, to: &str) {
    for doc in &mut set.docs {
        for reference in file_refs(&mut doc.value) {
            if let Some((dir, name, fragment)) = ref_parts(reference) {
                if name == from {
                    *reference = format!("{dir}{to}{fragment}");
                }
            }
        }
    }
}

/// The place of `doc` given a new file name (same folder): path, name, `$id`.
fn rename(doc: &mut contract::SchemaDoc, file: &str) {
    let folder = doc.rel.rsplit_once('/').map_or("", |(folder, _)| folder);
    doc.rel = format!("{folder}/{file}");
    doc.name = file.trim_end_matches(".json").to_string();
    let id = doc.expected_id();
    if let Some(map) = doc.value.as_object_mut() {
        map.insert("$id".into(), json!(id));
    }
}

/// Edits of what a validator reads a file as: its `$schema` naming
/// another draft (where `const` or `$id` may mean nothing), or (`named`) an
/// identifier or anchor written at one of its schemas, naming another
/// file's place (`places`), a place relative to it, one outside the set, or
/// a fragment, under the name each draft gives it and the others do not.
fn dialect_edits(document: &Value, places: &[String], named: bool) -> Vec<sample::Edit> {
    if !named {
        return sample::schemas::Draft::ALL
            .iter()
            .map(|draft| sample::Edit {
                pointer: "/$schema".into(),
                with: Some(json!(draft.uri())),
            })
            .collect();
    }
    let names: Vec<&str> = places
        .iter()
        .map(String::as_str)
        .chain([
            "../types/Other.json",
            "https://elsewhere.invalid/a.json",
            "#top",
            "top",
        ])
        .collect();
    let mut edits = Vec::new();
    for place in sample::schemas::places(document) {
        for key in ["id", "$id", "$anchor", "$dynamicAnchor"] {
            for name in &names {
                edits.push(sample::Edit {
                    pointer: format!("{place}/{key}"),
                    with: Some(json!(name)),
                });
            }
        }
    }
    edits
}

/// A change to the contract's files rather than inside one, as a lane might
/// make it; the paths of the files it touched (on either side).
fn file_edit(set: &mut SchemaSet, rng: &mut Rng) -> Vec<String> {
    let count = set.docs.len();
    let index = rng.below(count);
    let rel = set.docs[index].rel.clone();
    let file = rel.rsplit('/').next().unwrap_or_default().to_string();
    let types: Vec<usize> = (0..count)
        .filter(|&i| set.docs[i].kind == DocKind::Type)
        .collect();
    match rng.below(7) {
        0 => {
            set.docs.remove(index);
            vec![rel]
        }
        1 => {
            let to = format!("Renamed{file}");
            rename(&mut set.docs[index], &to);
            retarget_all(set, &file, &to);
            vec![rel, set.docs[index].rel.clone()]
        }
        2 => {
            // A narrower (or other) copy that one reference to the file reaches.
            let mut copy = set.docs[index].clone();
            let to = format!("Copy{file}");
            rename(&mut copy, &to);
            copy.value = sample::schemas::changed(&copy.value, rng);
            let copied = copy.rel.clone();
            set.docs.push(copy);
            let mut refs: Vec<&mut String> = set
                .docs
                .iter_mut()
                .flat_map(|doc| file_refs(&mut doc.value))
                .filter(|r| ref_parts(r).is_some_and(|(_, name, _)| name == file))
                .collect();
            let at = rng.below(refs.len().max(1));
            if let Some(reference) = refs.get_mut(at) {
                **reference = reference.replace(&file, &to);
            }
            vec![rel, copied]
        }
        3 => {
            // One reference of the file moved to another file of the same folder.
            let others: Vec<String> = set
                .docs
                .iter()
                .map(|doc| doc.rel.clone())
                .filter(|other| other != &rel)
                .collect();
            let doc = &mut set.docs[index];
            let mut refs = file_refs(&mut doc.value);
            let at = rng.below(refs.len().max(1));
            let mut touched = vec![rel.clone()];
            if let Some(reference) = refs.get_mut(at) {
                let Some((dir, name, fragment)) = ref_parts(reference) else {
                    return touched;
                };
                let folder = others
                    .iter()
                    .find(|other| other.ends_with(&format!("/{name}")))
                    .and_then(|other| other.rsplit_once('/'))
                    .map(|(folder, _)| folder.to_string());
                let peers: Vec<&String> = others
                    .iter()
                    .filter(|o| folder.as_deref() == o.rsplit_once('/').map(|(f, _)| f))
                    .collect();
                if let Some(peer) = rng.pick(&peers) {
                    let to = peer.rsplit('/').next().unwrap_or_default();
                    **reference = format!("{dir}{to}{fragment}");
                    touched.push((*peer).clone());
                }
            }
            touched
        }
        4 => {
            // A branch of some union dropped.
            let doc = &mut set.docs[index];
            let mut unions = Vec::new();
            let mut stack = vec![&mut doc.value];
            while let Some(value) = stack.pop() {
                match value {
                    Value::Object(map) => {
                        for (key, child) in map.iter_mut() {
                            let union = (key == "oneOf" || key == "anyOf")
                                && child.as_array().is_some_and(|items| items.len() > 1);
                            if !union {
                                stack.push(child);
                            } else if let Value::Array(items) = child {
                                unions.push(items);
                            }
                        }
                    }
                    Value::Array(items) => stack.extend(items.iter_mut()),
                    _ => {}
                }
            }
            let at = rng.below(unions.len().max(1));
            if let Some(items) = unions.get_mut(at) {
                let gone = rng.below(items.len());
                items.remove(gone);
            }
            vec![rel]
        }
        5 => {
            // One reference spelled another way: as validators resolve it
            // to the same file, or so that no resolver can read it.
            let doc = &mut set.docs[index];
            let rel = doc.rel.clone();
            let mut refs = file_refs(&mut doc.value);
            let at = rng.below(refs.len().max(1));
            if let Some(reference) = refs.get_mut(at) {
                let (dir, name, fragment) = ref_parts(reference).unwrap_or_default();
                let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
                // The target's path inside the set, from the reference.
                let target = if dir.starts_with("../") {
                    format!("{}{name}", dir.trim_start_matches("../"))
                } else {
                    format!("{folder}/{dir}{name}")
                };
                let respelled = match rng.below(6) {
                    0 => format!("{}{target}{fragment}", contract::ID_BASE),
                    1 => format!("//schemas.vdm.invalid/{target}{fragment}"),
                    2 => format!("/{target}{fragment}"),
                    3 => format!("./{dir}{name}{fragment}"),
                    4 => format!("{dir}{name}%zz{fragment}"),
                    _ => format!("{dir}{name}#{}", fragment.trim_start_matches('#')),
                };
                **reference = respelled;
            }
            vec![rel]
        }
        _ => {
            // Two types' schemas swapped, each keeping its place.
            let (Some(&a), Some(&b)) = (rng.pick(&types), rng.pick(&types)) else {
                return vec![];
            };
            let (id_a, id_b) = (
                set.docs[a].value["$id"].clone(),
                set.docs[b].value["$id"].clone(),
            );
            let value_a = set.docs[a].value.clone();
            set.docs[a].value = set.docs[b].value.clone();
            set.docs[b].value = value_a;
            set.docs[a].value["$id"] = id_a;
            set.docs[b].value["$id"] = id_b;
            vec![set.docs[a].rel.clone(), set.docs[b].rel.clone()]
        }
    }
}

/// For W and R of `comparison` (old → new): whether the same writer-reader
/// pair holds there, and whether it holds when the versions are compared new
/// → old (W one way is R the other).
fn both_ways(
    comparison: &compat::Comparison,
    [old, new]: [&SchemaSet; 2],
    options: Options,
) -> [(bool, Option<bool>); 2] {
    let swapped = compare_sets(new, old, options).ok();
    [
        (
            comparison.writer.holds(),
            swapped.as_ref().map(|s| s.reader.holds()),
        ),
        (
            comparison.reader.holds(),
            swapped.as_ref().map(|s| s.writer.holds()),
        ),
    ]
}

#[test]
fn a_direction_said_to_hold_holds_for_drawn_values() {
    let old = base();
    let files: Vec<usize> = (0..old.docs.len()).collect();
    let (edits, first) = (
        setting("COMPAT_EDITS", EDITS),
        setting("COMPAT_EDITS_SEED", 0),
    );
    let only_files = setting("COMPAT_FILE_EDITS", 0) == 1;
    let only_json = setting("COMPAT_JSON_EDITS", 0) == 1;
    let (mut compared, mut held, mut accepted, mut disputes) = (0, 0, 0, 0);
    let mut broken = Vec::new();
    for seed in first..first + edits {
        let mut rng = Rng::new(seed);
        // One edit, or (every third seed) two, in files drawn apart; every
        // seventh, an edit of the files themselves.
        let mut new = old.clone();
        let mut touched = Vec::new();
        if seed % 7 == 6 || only_files {
            touched = file_edit(&mut new, &mut rng);
        } else if seed % 7 == 5 || only_json {
            // A one-step edit of a file's JSON (a member removed, nulled, or
            // given a neighbouring or wrong value, or a keyword renamed as a
            // neighbour, `minimum` as `exclusiveMinimum`): edits the schema
            // generator does not write, such as one name dropped from a list.
            let index = *rng.pick(&files).expect("files");
            let new_places: Vec<String> = new.docs.iter().map(|d| d.expected_id()).collect();
            let doc = &mut new.docs[index];
            let mut edits = sample::one_step_edits(&doc.value, &Default::default(), true);
            edits.extend(sample::schemas::keyword_swaps(&doc.value));
            // Or a keyword added where an object lacks it, drawn from on
            // its own (there are far more of these).
            // Or one of its schemas copied over another, or written another
            // way (inside `allOf`, its keywords split into a part), or the
            // file read in another draft or given an identifier.
            match rng.below(12) {
                0 | 1 => edits = sample::schemas::keyword_additions(&doc.value),
                2 => edits = sample::schemas::keyword_replacements(&doc.value),
                3 | 4 => edits = sample::schemas::transplants(&doc.value, &mut rng, 1),
                5 | 6 => edits = sample::schemas::rewrappings(&doc.value),
                7 => {
                    // Now and then in another draft first, where `id` is
                    // the identifier.
                    if let Some(draft) = rng.pick(&dialect_edits(&doc.value, &[], false)) {
                        if rng.chance(50) {
                            doc.value = draft.applied(&doc.value);
                        }
                    }
                    edits = dialect_edits(&doc.value, &new_places, rng.chance(50));
                }
                _ => {}
            }
            if let Some(edit) = rng.pick(&edits) {
                doc.value = edit.applied(&doc.value);
                // Now and then written another way around the edit too.
                if rng.chance(20) {
                    if let Some(wrapped) =
                        sample::schemas::rewrapped_around(&doc.value, &edit.pointer, &mut rng)
                    {
                        doc.value = wrapped;
                    }
                }
            }
            touched.push(doc.rel.clone());
        } else {
            for _ in 0..if seed % 3 == 2 { 2 } else { 1 } {
                let index = *rng.pick(&files).expect("files");
                let doc = &mut new.docs[index];
                doc.value = sample::schemas::changed(&doc.value, &mut rng);
                touched.push(doc.rel.clone());
            }
        }
        // Each file touched as the side that has it holds it (the new one first).
        let edited: Vec<_> = touched
            .iter()
            .filter_map(|rel| {
                new.docs
                    .iter()
                    .chain(&old.docs)
                    .find(|doc| &doc.rel == rel)
                    .cloned()
            })
            .collect();
        // Tolerant readers (the contract's) for most edits, strict ones for
        // every fourth; `format` asserted (the default) but for every fifth.
        let readers = if seed % 4 == 3 {
            Readers::Strict
        } else {
            Readers::Tolerant
        };
        let formats = if seed % 5 == 4 {
            Formats::Annotation
        } else {
            Formats::Assertion
        };
        let options = Options {
            readers,
            formats,
            search: 0,
        };
        let label = || format!("seed {seed}: {touched:?} edited");
        let Ok(comparison) = watched(label, &mut broken, || compare_sets(&old, &new, options))
        else {
            continue; // a document its meta-schema refuses: not compared
        };
        compared += 1;
        let [w, r] = watched(label, &mut broken, || {
            both_ways(&comparison, [&old, &new], options)
        });
        for ((ours, theirs), writer, reader, direction) in
            [(w, &new, &old, "W"), (r, &old, &new, "R")]
        {
            // Said to hold either way round; judged two ways, searched harder.
            if !ours && theirs != Some(true) {
                continue;
            }
            let disputed = theirs.is_some_and(|theirs| theirs != ours);
            disputes += usize::from(disputed);
            if disputed {
                eprintln!("seed {seed}: {direction} judged two ways, {ours} as asked");
            }
            let draws = if disputed { DRAWS * 8 } else { DRAWS };
            held += 1;
            let open = readers == Readers::Tolerant;
            let files: Vec<_> = edited.iter().map(|doc| doc.rel.as_str()).collect();
            let (writes, reads) = match (registry(writer, false), registry(reader, open)) {
                (Some(writes), Some(reads)) => (writes, reads),
                (Some(_), None) => {
                    broken.push(format!(
                        "seed {seed}: {files:?} edited, {direction} said to hold, but the reader's schemas cannot be registered"
                    ));
                    continue;
                }
                (None, _) => continue,
            };
            let places: std::collections::BTreeSet<String> =
                edited.iter().flat_map(places).collect();
            for place in places {
                let pair = [&writes, &reads];
                if let Some(what) = refused(pair, &place, (seed, formats, draws), &mut accepted) {
                    broken.push(format!(
                        "seed {seed}: {files:?} edited, {direction} said to hold, but {place} draws {what}"
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    // The run judged something: edits compared, directions held, values
    // the writers accept put to the readers.
    let said = format!(
        "{compared} compared, {held} held, {accepted} values put to a reader, of {edits} edits; {disputes} pair(s) judged two ways"
    );
    eprintln!("{said}");
    assert!(
        compared * 2 > edits && held > 0 && accepted > held,
        "{said}"
    );
}

/// At places spread over the whole contract (every file, every depth), the
/// schema there made `true` (anything passes) or `false` (nothing does):
/// wherever either comparison says a direction holds, values drawn from
/// that writer pass that reader. Systematic where the random edits above
/// are not: each place of the contract, not a draw of them.
/// `COMPAT_PLACES_EVERY=1` tries every place (the bounded run takes every
/// twelfth).
#[test]
fn anything_or_nothing_passing_anywhere_holds_where_said_to() {
    let old = base();
    let every = setting("COMPAT_PLACES_EVERY", 12).max(1);
    let spots: Vec<(usize, String)> = old
        .docs
        .iter()
        .enumerate()
        .flat_map(|(index, doc)| {
            sample::schemas::places(&doc.value)
                .into_iter()
                .map(move |pointer| (index, pointer))
        })
        .collect();
    let (mut held, mut accepted, mut broken) = (0, 0, Vec::new());
    for (step, (index, pointer)) in spots.iter().step_by(every as usize).enumerate() {
        for made in [json!(true), json!(false)] {
            let mut new = old.clone();
            let doc = &mut new.docs[*index];
            match doc.value.pointer_mut(pointer) {
                Some(spot) => *spot = made.clone(),
                None => continue,
            }
            let edited = doc.clone();
            let options = Options {
                search: 0,
                ..Options::default()
            };
            // A file with no `$id` left gets no verdict at all.
            let Ok(comparison) = compare_sets(&old, &new, options) else {
                continue;
            };
            let [w, r] = both_ways(&comparison, [&old, &new], options);
            for ((ours, theirs), writer, reader, direction) in
                [(w, &new, &old, "W"), (r, &old, &new, "R")]
            {
                if !ours && theirs != Some(true) {
                    continue;
                }
                held += 1;
                let (Some(writes), Some(reads)) = (registry(writer, false), registry(reader, true))
                else {
                    broken.push(format!(
                        "{}#{pointer} made {made}: {direction} said to hold, but a side's schemas cannot be registered",
                        edited.rel
                    ));
                    continue;
                };
                for place in places(&edited) {
                    let seed = step as u64;
                    let pair = [&writes, &reads];
                    if let Some(what) = refused(
                        pair,
                        &place,
                        (seed, Formats::Assertion, DRAWS),
                        &mut accepted,
                    ) {
                        broken.push(format!(
                            "{}#{pointer} made {made}: {direction} said to hold, but {place} draws {what}",
                            edited.rel
                        ));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    let said = format!(
        "{} places, {held} directions held, {accepted} values put to a reader",
        spots.len().div_ceil(every as usize)
    );
    eprintln!("{said}");
    assert!(held > 0 && accepted > held, "{said}");
}
