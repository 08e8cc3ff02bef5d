//! `vdm-conform generate`: values of a contract type that hold every rule
//! `check` enforces, for lanes to feed their own readers.
//!
//! Values are drawn by the one generator of the workspace (the `sample`
//! crate: bounds and their neighbours, every enum value and union branch,
//! optional fields present and absent) and kept only when
//! [`Checker::check_text`] finds nothing in their text, so the text policy,
//! the schema and the semantic rules decide what is valid here exactly as
//! they do for `check`. Same seed, same values.
//!
//! The semantic rules between numbers (segments that tile the file, sums,
//! bounds) are almost never met by chance, so a draw is first repaired
//! towards them ([`repair`]); the repair only raises the yield, `check`
//! still decides every value written.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Map, Value};

use crate::{Checker, Error, Rule};

/// How many draws in a row may fail before generation gives up: a type whose
/// rules the generator can almost never meet is reported, not looped on.
const MAX_FAILED_IN_A_ROW: usize = 10_000;

/// What one run of [`generate`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// Values written (each valid).
    pub written: usize,
    /// Values drawn and dropped because `check` found something in them.
    pub dropped: usize,
    /// The rules the dropped values broke, with how often.
    pub broken: BTreeMap<Rule, usize>,
}

/// Why generation stopped.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Checker(#[from] Error),
    #[error("drawing a {target}: {message}")]
    Draw { target: String, message: String },
    #[error(
        "no valid {target} in {MAX_FAILED_IN_A_ROW} draws in a row after {written} written; \
         the draws broke mostly {rule}"
    )]
    Stuck {
        target: String,
        written: usize,
        rule: String,
    },
    #[error("writing the values: {0}")]
    Write(#[from] std::io::Error),
}

/// Writes `count` values of `target` (a type name, or `Envelope`), one JSON
/// text per line, each one `check` passes; drawn from `seed`.
pub fn generate(
    checker: &Checker,
    target: &str,
    count: usize,
    seed: u64,
    out: &mut dyn Write,
) -> Result<Generated, GenerateError> {
    let location = checker.location(target)?;
    let mut sampler = sample::Sampler::new(checker.registry(), seed);
    let mut done = Generated::default();
    let mut failed_in_a_row = 0;
    while done.written < count {
        let mut value = sampler.draw(location).map_err(|err| GenerateError::Draw {
            target: target.to_string(),
            message: err.to_string(),
        })?;
        repair(&mut value);
        // Then as text, so the JSON text policy judges it as `check` would
        // (most draws break a rule of the value, and are dropped sooner).
        let mut findings = checker.check(target, &value)?;
        let text = Value::to_string(&value);
        if findings.is_empty() {
            findings = checker.check_text(target, text.as_bytes())?;
        }
        if findings.is_empty() {
            writeln!(out, "{text}")?;
            done.written += 1;
            failed_in_a_row = 0;
            continue;
        }
        done.dropped += 1;
        for finding in &findings {
            *done.broken.entry(finding.rule).or_default() += 1;
        }
        failed_in_a_row += 1;
        if failed_in_a_row >= MAX_FAILED_IN_A_ROW {
            let rule = done
                .broken
                .iter()
                .max_by_key(|(_, count)| **count)
                .map_or_else(|| "nothing".to_string(), |(rule, _)| rule.id().to_string());
            return Err(GenerateError::Stuck {
                target: target.to_string(),
                written: done.written,
                rule,
            });
        }
    }
    Ok(done)
}

/// Moves the byte geometry of every task, summary and segment in `value`
/// towards the semantic rules (`docs/conformance.md`): segments listed by
/// index that tile `[0, sizeBytes - 1]`, downloaded counts within their
/// ranges and summed into the summary, complete means full. A value the
/// sampler built is bounded in depth, so the walk is too.
fn repair(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(repair),
        Value::Object(fields) => {
            fields.values_mut().for_each(repair);
            repair_segment(fields);
            repair_summary(fields);
            repair_detail(fields);
        }
        _ => {}
    }
}

fn uint(fields: &Map<String, Value>, name: &str) -> Option<u64> {
    fields.get(name).and_then(Value::as_u64)
}

fn is_complete(fields: &Map<String, Value>) -> bool {
    fields.get("state").and_then(Value::as_str) == Some("complete")
}

fn repair_segment(segment: &mut Map<String, Value>) {
    let (Some(start), Some(end)) = (uint(segment, "startByte"), uint(segment, "endByte")) else {
        return;
    };
    let (start, end) = (start.min(end), start.max(end));
    segment.insert("startByte".into(), start.into());
    segment.insert("endByte".into(), end.into());
    fill(segment, (end - start).saturating_add(1));
}

/// Keeps `downloadedBytes` within `length`, and equal to it when complete.
fn fill(fields: &mut Map<String, Value>, length: u64) {
    if let Some(done) = uint(fields, "downloadedBytes") {
        let done = if is_complete(fields) {
            length
        } else {
            done.min(length)
        };
        fields.insert("downloadedBytes".into(), done.into());
    }
}

fn repair_summary(summary: &mut Map<String, Value>) {
    if let Some(size) = uint(summary, "sizeBytes") {
        fill(summary, size);
    }
}

fn repair_detail(detail: &mut Map<String, Value>) {
    let Some(Value::Object(summary)) = detail.get("summary") else {
        return;
    };
    let size = uint(summary, "sizeBytes").unwrap_or(0);
    let complete = is_complete(summary);
    let Some(Value::Array(segments)) = detail.get_mut("segmentDetail") else {
        return;
    };
    if size == 0 {
        segments.clear();
        return;
    }
    if segments.is_empty() {
        return;
    }
    let count = u64::try_from(segments.len()).unwrap_or(u64::MAX).min(size);
    segments.truncate(usize::try_from(count).unwrap_or(usize::MAX));
    let (base, longer) = (size / count, size % count);
    let (mut start, mut sum) = (0u64, 0u64);
    for (index, segment) in (0u64..).zip(segments.iter_mut()) {
        let Value::Object(segment) = segment else {
            continue;
        };
        let length = base + u64::from(index < longer);
        segment.insert("index".into(), index.into());
        segment.insert("startByte".into(), start.into());
        segment.insert("endByte".into(), (start + length - 1).into());
        if complete {
            segment.insert("downloadedBytes".into(), length.into());
        }
        fill(segment, length);
        sum += uint(segment, "downloadedBytes").unwrap_or(0);
        start += length;
    }
    if let Some(Value::Object(summary)) = detail.get_mut("summary") {
        summary.insert("segments".into(), count.into());
        summary.insert("downloadedBytes".into(), sum.into());
    }
}
