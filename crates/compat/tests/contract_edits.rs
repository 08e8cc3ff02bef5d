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
//! every fifth with `format` read as an annotation.
//!
//! `COMPAT_EDITS=N` runs N edits instead of the bounded count, and
//! `COMPAT_EDITS_SEED=S` starts from another seed:
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

/// Edits in a `cargo test` run.
const EDITS: u64 = 24;
/// Values drawn per place and direction that holds.
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
/// sampler's draws are not all valid: the writer's validator says which are).
fn refused(
    [writer, reader]: [&Registry<'_>; 2],
    place: &str,
    (seed, formats): (u64, Formats),
    accepted: &mut usize,
) -> Option<Value> {
    let validator = |registry: &Registry<'_>| {
        jsonschema::options()
            .with_registry(registry)
            .should_validate_formats(formats == Formats::Assertion)
            .build(&json!({ "$ref": place }))
            .ok()
    };
    let (writes, reads) = (validator(writer)?, validator(reader)?);
    let mut sampler = Sampler::new(writer, seed);
    (0..DRAWS)
        .filter_map(|_| sampler.draw(place).ok())
        .filter(|value| writes.is_valid(value))
        .inspect(|_| *accepted += 1)
        .find(|value| !reads.is_valid(value))
}

#[test]
fn a_direction_said_to_hold_holds_for_drawn_values() {
    let old = base();
    let files: Vec<usize> = (0..old.docs.len()).collect();
    let (edits, first) = (
        setting("COMPAT_EDITS", EDITS),
        setting("COMPAT_EDITS_SEED", 0),
    );
    let (mut compared, mut held, mut accepted) = (0, 0, 0);
    let mut broken = Vec::new();
    for seed in first..first + edits {
        let mut rng = Rng::new(seed);
        // One edit, or (every third seed) two, in files drawn apart.
        let mut new = old.clone();
        let mut edited = Vec::new();
        for _ in 0..if seed % 3 == 2 { 2 } else { 1 } {
            let index = *rng.pick(&files).expect("files");
            let doc = &mut new.docs[index];
            doc.value = sample::schemas::changed(&doc.value, &mut rng);
            edited.push(index);
        }
        let edited: Vec<_> = edited.into_iter().map(|i| new.docs[i].clone()).collect();
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
        let Ok(comparison) = compare_sets(
            &old,
            &new,
            Options {
                readers,
                formats,
                search: 0,
            },
        ) else {
            continue; // a document its meta-schema refuses: not compared
        };
        compared += 1;
        for (holds, writer, reader, direction) in [
            (comparison.writer.holds(), &new, &old, "W"),
            (comparison.reader.holds(), &old, &new, "R"),
        ] {
            if !holds {
                continue;
            }
            held += 1;
            let open = readers == Readers::Tolerant;
            let (Some(writes), Some(reads)) = (registry(writer, false), registry(reader, open))
            else {
                continue;
            };
            let files: Vec<_> = edited.iter().map(|doc| doc.rel.as_str()).collect();
            let places: std::collections::BTreeSet<String> =
                edited.iter().flat_map(places).collect();
            for place in places {
                let pair = [&writes, &reads];
                if let Some(value) = refused(pair, &place, (seed, formats), &mut accepted) {
                    broken.push(format!(
                        "seed {seed}: {files:?} edited, {direction} said to hold, but {place} draws {value} which the reader refuses"
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    // The run judged something: edits compared, directions held, values
    // the writers accept put to the readers.
    let said = format!(
        "{compared} compared, {held} held, {accepted} values put to a reader, of {edits} edits"
    );
    eprintln!("{said}");
    assert!(
        compared * 2 > edits && held > 0 && accepted > held,
        "{said}"
    );
}
