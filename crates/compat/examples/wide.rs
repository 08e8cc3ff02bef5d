//! How `compare_sets` grows with the contract: the working contract with N
//! methods added (each with its own parameter type, and a result that holds
//! a `TaskDetail` as `download.get`'s does), compared against itself with one
//! bound narrowed in one of the new types. Each size is timed in the same
//! run as the contract alone, rounds alternated; the ratio is the figure.
//!
//! `cargo run --release -p compat --example wide -- [N …]` (default 50 200).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ROUNDS: usize = 5;

fn files(root: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for folder in ["types", "methods", "events", "envelope", "config"] {
        let dir = root.join(folder);
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for path in names {
            let text = std::fs::read_to_string(&path).unwrap();
            let rel = format!("{folder}/{}", path.file_name().unwrap().to_str().unwrap());
            out.push((rel, serde_json::from_str(&text).unwrap()));
        }
    }
    out
}

/// The contract with `n` methods added; `narrowed` lowers one bound in the
/// first added type (the one change the comparison must find).
fn widened(base: &[(String, Value)], n: usize, narrowed: bool) -> Vec<(String, String)> {
    let mut files: Vec<(String, Value)> = base.to_vec();
    let get = |files: &[(String, Value)], rel: &str| {
        files.iter().find(|(r, _)| r == rel).unwrap().1.clone()
    };
    let method = get(&files, "methods/download.get.json");
    for i in 0..n {
        let mut properties = serde_json::Map::new();
        for j in 0..10 {
            let maximum = if narrowed && i == 0 && j == 3 {
                5
            } else {
                1000 + j
            };
            properties.insert(
                format!("f{j}"),
                json!({"type": "integer", "minimum": 0, "maximum": maximum, "description": "A count."}),
            );
        }
        properties.insert(
            "state".into(),
            json!({"$ref": "TaskState.json", "description": "A state."}),
        );
        files.push((
            format!("types/Wide{i}.json"),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": format!("https://schemas.vdm.invalid/types/Wide{i}.json"),
                "title": format!("Wide{i}"),
                "description": "A type of one added method.",
                "x-since": "1.0.0",
                "type": "object",
                "properties": properties,
                "required": ["f0"],
                "additionalProperties": false
            }),
        ));
        let mut doc = method.clone();
        doc["$id"] = json!(format!(
            "https://schemas.vdm.invalid/methods/wide.m{i}.json"
        ));
        doc["title"] = json!(format!("wide.m{i}"));
        doc["$defs"]["params"] = json!({
            "title": format!("WideM{i}Params"),
            "description": "The parameters.",
            "$ref": format!("../types/Wide{i}.json")
        });
        doc["$defs"]["result"]["title"] = json!(format!("WideM{i}Result"));
        files.push((format!("methods/wide.m{i}.json"), doc));
    }
    for body in ["envelope/CallBody.json", "envelope/ReplyBody.json"] {
        let (_, doc) = files.iter_mut().find(|(r, _)| r == body).unwrap();
        let template = serde_json::to_string(&doc["oneOf"][0]).unwrap();
        let branches = doc["oneOf"].as_array_mut().unwrap();
        for i in 0..n {
            let branch = template.replace("session.hello", &format!("wide.m{i}"));
            branches.push(serde_json::from_str(&branch).unwrap());
        }
    }
    files
        .into_iter()
        .map(|(rel, doc)| (rel, serde_json::to_string(&doc).unwrap()))
        .collect()
}

fn set(texts: &[(String, String)]) -> contract::SchemaSet {
    contract::SchemaSet::from_texts(
        Path::new("wide"),
        texts.iter().map(|(r, t)| (r.as_str(), t.as_str())),
    )
    .unwrap()
}

/// One comparison, checked to have found the one change and nothing else.
fn timed(old: &contract::SchemaSet, new: &contract::SchemaSet, breaks: bool) -> Duration {
    let started = Instant::now();
    let c = compat::compare_sets(
        old,
        new,
        compat::Options {
            search: 64,
            ..Default::default()
        },
    )
    .unwrap();
    let took = started.elapsed();
    assert!(c.writer.holds(), "W must hold");
    assert_eq!(
        !c.reader.holds(),
        breaks,
        "R must break exactly when a bound was narrowed"
    );
    took
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a count of methods"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![50, 200]
    } else {
        sizes
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/schema");
    let base = files(&root);
    let alone = (
        set(&widened(&base, 1, false)),
        set(&widened(&base, 1, true)),
    );
    for n in sizes {
        let wide = (
            set(&widened(&base, n, false)),
            set(&widened(&base, n, true)),
        );
        let (mut small, mut large) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            small.push(timed(&alone.0, &alone.1, true));
            large.push(timed(&wide.0, &wide.1, true));
        }
        let (s, l) = (median(small.clone()), median(large.clone()));
        let ratios: Vec<f64> = small
            .iter()
            .zip(&large)
            .map(|(s, l)| l.as_secs_f64() / s.as_secs_f64())
            .collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "{n} methods added: {l:.2?} against {s:.2?} with 1 added (median of {ROUNDS}); ratio {:.1} ({lo:.1}–{hi:.1}), {:.1} ms a method",
            l.as_secs_f64() / s.as_secs_f64(),
            (l.as_secs_f64() - s.as_secs_f64()) * 1000.0 / (n.saturating_sub(1).max(1)) as f64,
        );
    }
}
