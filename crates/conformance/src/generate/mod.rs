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
//! towards them (`repair`); the repair only raises the yield, `check`
//! still decides every value written.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::Value;

use crate::{Checker, Error, Rule};

mod conversation;
mod repair;

pub(crate) use conversation::Messages;
pub use conversation::{conversation_mutants, conversations, Conversed};
use repair::{repair, Condition};

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
    /// The checker failed.
    #[error(transparent)]
    Checker(#[from] Error),
    /// The sampler could not draw a value.
    #[error("drawing a {target}: {message}")]
    Draw {
        /// The type drawn.
        target: String,
        /// Why not.
        message: String,
    },
    #[error(
        "no valid {target} in {MAX_FAILED_IN_A_ROW} draws in a row after {written} written; \
         the draws broke mostly {rule}"
    )]
    /// Too many draws in a row broke a rule: the schema asks for what the
    /// sampler does not reach.
    Stuck {
        /// The type drawn.
        target: String,
        /// How many were written before.
        written: usize,
        /// The rule the draws broke most.
        rule: String,
    },
    /// The output could not be written.
    #[error("writing the values: {0}")]
    Write(#[from] std::io::Error),
}

/// How many values one sampler draws in a row: a piece of the output, drawn
/// on whichever core is free, from its own seed.
const PIECE: usize = 256;

/// Writes `count` values of `target` (a type name, or `Envelope`), one JSON
/// text per line, each one `check` passes; drawn from `seed`. The values come
/// in pieces of `PIECE`, each from a sampler seeded by `seed` and the
/// piece's place, drawn on every core and written in order: the same seed
/// gives the same bytes on any machine.
///
/// ```
/// use conformance::{generate::generate, Checker};
///
/// let checker = Checker::embedded()?;
/// let mut out = Vec::new();
/// let done = generate(&checker, "TaskSummary", 5, 42, &mut out)?;
/// assert_eq!(done.written, 5);
/// for line in String::from_utf8(out)?.lines() {
///     assert!(checker.check_text("TaskSummary", line.as_bytes())?.is_empty());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate(
    checker: &Checker,
    target: &str,
    count: usize,
    seed: u64,
    out: &mut dyn Write,
) -> Result<Generated, GenerateError> {
    checker.location(target)?;
    let pieces = count.div_ceil(PIECE);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(pieces.max(1));
    let mut done = Generated::default();
    // A batch of pieces at a time, so memory does not grow with `count`.
    let batch = threads * 8;
    // One sampler a thread, kept from batch to batch and started anew for
    // each piece: what it has read of the schemas is read once.
    let mut samplers: Vec<Option<Valid<'_>>> = (0..threads).map(|_| None).collect();
    for first in (0..pieces).step_by(batch.max(1)) {
        let last = (first + batch).min(pieces);
        let next = std::sync::atomic::AtomicUsize::new(first);
        type Piece = (usize, Result<(Vec<String>, Generated), GenerateError>);
        let drawn: Vec<Vec<Piece>> = std::thread::scope(|scope| {
            let next = &next;
            let handles: Vec<_> = samplers
                .iter_mut()
                .map(|valid| {
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        loop {
                            let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if index >= last {
                                return mine;
                            }
                            let wanted = PIECE.min(count - index * PIECE);
                            let drawn =
                                Valid::restarted(valid, checker, target, piece_seed(seed, index))
                                    .and_then(|valid| piece(valid, wanted));
                            mine.push((index, drawn));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                // A thread that failed gives no pieces, and the count below
                // says so.
                .map(|handle| handle.join().unwrap_or_default())
                .collect()
        });
        let mut ordered: Vec<Piece> = drawn.into_iter().flatten().collect();
        if ordered.len() != last - first {
            return Err(GenerateError::Draw {
                target: target.to_string(),
                message: "a drawing thread failed".into(),
            });
        }
        ordered.sort_by_key(|(index, _)| *index);
        for (_, result) in ordered {
            let (lines, stats) = result?;
            for line in &lines {
                writeln!(out, "{line}")?;
            }
            done.written += stats.written;
            done.dropped += stats.dropped;
            for (rule, n) in stats.broken {
                *done.broken.entry(rule).or_default() += n;
            }
        }
    }
    Ok(done)
}

/// `wanted` valid values from a sampler started anew.
fn piece(valid: &mut Valid<'_>, wanted: usize) -> Result<(Vec<String>, Generated), GenerateError> {
    let mut lines = Vec::with_capacity(wanted);
    while lines.len() < wanted {
        lines.push(valid.next()?.1);
    }
    Ok((lines, std::mem::take(&mut valid.done)))
}

/// The seed of piece `index`: SplitMix64's finaliser over the two, so
/// neighbouring pieces draw unrelated values.
fn piece_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one run of [`mutants`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mutated {
    /// Mutants written, by the rule each breaks.
    pub by_rule: BTreeMap<Rule, usize>,
    /// Valid values mutated.
    pub bases: usize,
}

/// How many one-step mutations of each valid value are tried.
const TRIED_PER_BASE: usize = 48;

/// Writes `count` single-fault mutants of `target`, one
/// `{"rule": ID, "at": POINTER, "msg": VALUE}` per line (and `"keyword"`,
/// the JSON Schema keyword of that first finding, where it has one):
/// `check` finds in `msg` the rule `rule` names and no other, first at
/// `at`. Each is a
/// one-step mutation
/// ([`sample::one_step_mutations_wide`], made by [`sample::Edit`]) of a valid value; the rules take turns,
/// the one written least first, among those the mutations have reached.
pub fn mutants(
    checker: &Checker,
    target: &str,
    count: usize,
    seed: u64,
    out: &mut dyn Write,
) -> Result<Mutated, GenerateError> {
    let mut valid = Valid::new(checker, target, seed)?;
    in_turns(
        count,
        target,
        &mut |offer| {
            let (base, _) = valid.next()?;
            // Listed as edits, and only those tried made: a value has
            // hundreds of one-step mutations, each a whole copy.
            let mut edits = sample::one_step_edits(&base, &Default::default(), true);
            for _ in 0..TRIED_PER_BASE.min(edits.len()) {
                let pick = valid.sampler.rng().below(edits.len());
                let candidate = edits.swap_remove(pick).applied(&base);
                let text = Value::to_string(&candidate);
                let found = checker.check_text(target, text.as_bytes())?;
                if let (Some(rule), Some(first)) = (only_rule(&found), found.first()) {
                    offer(
                        rule,
                        (candidate, first.pointer.clone(), first.keyword.clone()),
                    );
                }
            }
            Ok(())
        },
        &mut |rule, (msg, at, keyword), _| {
            let mut record = serde_json::Map::new();
            record.insert("rule".into(), rule.id().into());
            record.insert("at".into(), at.into());
            if let Some(keyword) = keyword {
                record.insert("keyword".into(), keyword.into());
            }
            record.insert("msg".into(), msg);
            let record = Value::Object(record);
            writeln!(out, "{record}")?;
            Ok(())
        },
    )
}

/// The one rule all of `findings` name, if they name one.
pub(crate) fn only_rule(findings: &[crate::Finding]) -> Option<Rule> {
    let rule = findings.first()?.rule;
    findings
        .iter()
        .all(|finding| finding.rule == rule)
        .then_some(rule)
}

/// Where [`in_turns`]' caller puts a mutant and the one rule it breaks.
pub(crate) type Offer<'a, T> = &'a mut dyn FnMut(Rule, T);

/// Writes `count` mutants with the rules taking turns, the one written least
/// first among those reached. `more` mutates one more valid value and
/// offers each mutant with the one rule it breaks; `write` writes one (with
/// its place in the output). Gives up when that many valid values in a row
/// bring no rule back.
pub(crate) fn in_turns<T>(
    count: usize,
    target: &str,
    more: &mut dyn FnMut(Offer<'_, T>) -> Result<(), GenerateError>,
    write: &mut dyn FnMut(Rule, T, usize) -> Result<(), GenerateError>,
) -> Result<Mutated, GenerateError> {
    let mut done = Mutated::default();
    let mut queued: BTreeMap<Rule, std::collections::VecDeque<T>> = BTreeMap::new();
    let mut written = 0;
    let mut fruitless = 0;
    while written < count {
        let ready = queued.values().filter(|queue| !queue.is_empty()).count();
        // Keep a mix queued: a new base whenever fewer rules wait than have been seen.
        if ready < queued.len() || ready == 0 {
            let mut found_new = false;
            more(&mut |rule, mutant| {
                let queue = queued.entry(rule).or_default();
                if queue.len() < TRIED_PER_BASE {
                    found_new |= queue.is_empty();
                    queue.push_back(mutant);
                }
            })?;
            done.bases += 1;
            fruitless = if found_new { 0 } else { fruitless + 1 };
            if fruitless < MAX_FAILED_IN_A_ROW / 100 || ready == 0 {
                if fruitless >= MAX_FAILED_IN_A_ROW / 10 {
                    return Err(GenerateError::Stuck {
                        target: target.to_string(),
                        written,
                        rule: "nothing: no one-step change broke exactly one rule".into(),
                    });
                }
                continue;
            }
        }
        let least = queued
            .iter_mut()
            .filter(|(_, queue)| !queue.is_empty())
            .min_by_key(|(rule, _)| done.by_rule.get(*rule).copied().unwrap_or(0));
        let Some((rule, queue)) = least else {
            continue;
        };
        let Some(mutant) = queue.pop_front() else {
            continue;
        };
        write(*rule, mutant, written)?;
        *done.by_rule.entry(*rule).or_default() += 1;
        written += 1;
    }
    Ok(done)
}

/// Whether the text serde_json writes for `value` holds the JSON text policy
/// and reads back as `value`, known without reading it: a `Value`'s objects
/// have unique names and its strings are UTF-8, written with escapes; what
/// is left to the policy is nesting and numbers. Integers within
/// ±(2^53 − 1) are written as their digits and read back as such; a float
/// is not known to come back exactly, so a value holding one is read back.
fn reads_back_as_is(value: &Value) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Number(number) => {
                let safe = number
                    .as_u64()
                    .map(|n| n <= proto::text::MAX_SAFE_INTEGER)
                    .or_else(|| {
                        number
                            .as_i64()
                            .map(|n| n.unsigned_abs() <= proto::text::MAX_SAFE_INTEGER)
                    })
                    .unwrap_or(false);
                if !safe {
                    return false;
                }
            }
            Value::Array(items) if depth < proto::text::MAX_DEPTH => {
                stack.extend(items.iter().map(|item| (item, depth + 1)));
            }
            Value::Object(members) if depth < proto::text::MAX_DEPTH => {
                stack.extend(members.values().map(|member| (member, depth + 1)));
            }
            Value::Array(_) | Value::Object(_) => return false,
            Value::Null | Value::Bool(_) | Value::String(_) => {}
        }
    }
    true
}

/// Counts one dropped draw's rules; `Stuck`, naming the rule broken most,
/// when `stuck`.
pub(crate) fn count_dropped(
    broken: &mut BTreeMap<Rule, usize>,
    written: usize,
    rules: impl Iterator<Item = Rule>,
    stuck: bool,
    target: &str,
) -> Result<(), GenerateError> {
    for rule in rules {
        *broken.entry(rule).or_default() += 1;
    }
    if !stuck {
        return Ok(());
    }
    let rule = broken
        .iter()
        .max_by_key(|(_, count)| **count)
        .map_or_else(|| "nothing".to_string(), |(rule, _)| rule.id().to_string());
    Err(GenerateError::Stuck {
        target: target.to_string(),
        written,
        rule,
    })
}

/// Valid values of one target, one after another.
struct Valid<'c> {
    checker: &'c Checker,
    target: String,
    location: &'c str,
    conditions: Vec<Condition>,
    sampler: sample::Sampler<'c>,
    done: Generated,
    failed_in_a_row: usize,
}

impl<'c> Valid<'c> {
    fn new(checker: &'c Checker, target: &str, seed: u64) -> Result<Self, GenerateError> {
        Ok(Valid {
            checker,
            target: target.to_string(),
            location: checker.location(target)?,
            conditions: Condition::all(checker.schema_set()),
            sampler: sample::Sampler::new(checker.registry(), seed),
            done: Generated::default(),
            failed_in_a_row: 0,
        })
    }

    /// `slot`'s values started anew from `seed`, as `Valid::new` would
    /// start them, keeping what its sampler has read of the schemas.
    fn restarted<'s>(
        slot: &'s mut Option<Valid<'c>>,
        checker: &'c Checker,
        target: &str,
        seed: u64,
    ) -> Result<&'s mut Valid<'c>, GenerateError> {
        let valid = match slot.take() {
            Some(mut valid) => {
                valid.sampler.reseed(seed);
                valid.done = Generated::default();
                valid.failed_in_a_row = 0;
                valid
            }
            None => Valid::new(checker, target, seed)?,
        };
        Ok(slot.insert(valid))
    }

    /// The next valid value, and its text.
    fn next(&mut self) -> Result<(Value, String), GenerateError> {
        loop {
            let mut value =
                self.sampler
                    .draw(self.location)
                    .map_err(|err| GenerateError::Draw {
                        target: self.target.clone(),
                        message: err.to_string(),
                    })?;
            repair(&mut value, &self.conditions);
            // Then as text, so the JSON text policy judges it as `check`
            // would (most draws break a rule of the value, and are dropped
            // sooner).
            let mut findings = self.checker.check(&self.target, &value)?;
            // serde_json's own writer: `Display` writes the same text
            // through `fmt`, which measured about 1.4 times as slow.
            let text = serde_json::to_string(&value).map_err(|err| GenerateError::Draw {
                target: self.target.clone(),
                message: err.to_string(),
            })?;
            if findings.is_empty() && !reads_back_as_is(&value) {
                // The text reads back as the value checked (a float may not:
                // serde_json reads some a unit off) or is checked itself.
                match crate::parse(text.as_bytes(), proto::text::Layout::Envelope) {
                    Ok(read) if read == value => {}
                    Ok(_) => findings = self.checker.check_text(&self.target, text.as_bytes())?,
                    Err(finding) => findings.push(finding),
                }
            }
            if findings.is_empty() {
                self.done.written += 1;
                self.failed_in_a_row = 0;
                return Ok((value, text));
            }
            self.done.dropped += 1;
            self.failed_in_a_row += 1;
            count_dropped(
                &mut self.done.broken,
                self.done.written,
                findings.iter().map(|finding| finding.rule),
                self.failed_in_a_row >= MAX_FAILED_IN_A_ROW,
                &self.target,
            )?;
        }
    }
}
