//! The compatibility checker: for each change between two versions of the
//! contract, does a new writer still satisfy an old reader (W), and an old
//! writer a new reader (R)? From that, which version bump the change set needs.
//!
//! Verdicts come from containment (`prove.rs`): W holds where every value the
//! new schema accepts passes the old one, R where every old value passes the
//! new one. The prover draws "holds" only from the keywords its vocabulary
//! models (`vocab.rs`); every value-level question goes to the validator, the
//! `jsonschema` crate, on the schemas as their documents say (`space.rs`).
//! Readers are tolerant of unknown fields (`docs/wire.md`, "Evolution")
//! unless strict readers are asked for. Each change is judged alone: the old
//! schema with just that change applied is compared with the old schema, so
//! one change's verdict does not hide another's. Where a direction breaks,
//! the report carries a value one side accepts and the other refuses.

pub mod api;
mod diff;
mod numbers;
mod prove;
pub mod report;
pub mod rule;
mod space;
mod upgrade;
mod vocab;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use contract::{DocKind, SchemaSet};
use serde::Serialize;
use serde_json::Value;

use prove::{Break, BreakKind};
pub use rule::{Family, How, Rule};
pub use space::{open_objects, panic_is_caught, Version};
use space::{Place, Role, Space};

/// Which way values travel in a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// New writer → old reader (W).
    Writer,
    /// Old writer → new reader (R).
    Reader,
}

impl Direction {
    /// How a break this way begins its reason (`Change::why`).
    pub(crate) fn fails(self) -> &'static str {
        match self {
            Direction::Writer => "a new writer's value fails an old reader",
            Direction::Reader => "an old writer's value fails a new reader",
        }
    }

    /// The version whose schema accepts a counterexample this way
    /// (`Example::accepted_by`).
    pub(crate) fn accepted_by(self) -> &'static str {
        match self {
            Direction::Writer => "new",
            Direction::Reader => "old",
        }
    }

    fn other(self) -> Direction {
        match self {
            Direction::Writer => Direction::Reader,
            Direction::Reader => Direction::Writer,
        }
    }
}

/// How a reason that is the same both ways begins.
pub(crate) const BOTH_WAYS: &str = "a value fails either way: ";

/// A change's reason without the part about `settled`, a direction now
/// holding; `None` when nothing is left. A change that breaks both ways
/// gives each way's reason, W's first, or one after [`BOTH_WAYS`]
/// (`diff::Differ::explain`); a reason for both at once that says no way
/// ("cannot decide: …") stays.
fn reason_without(why: String, settled: Direction) -> Option<String> {
    if let Some(reason) = why.strip_prefix(BOTH_WAYS) {
        return Some(format!("{}: {reason}", settled.other().fails()));
    }
    let second = format!("; {}", Direction::Reader.fails());
    match settled {
        Direction::Writer if why.starts_with(Direction::Writer.fails()) => why
            .find(&second)
            .and_then(|at| why.get(at + 2..))
            .map(str::to_string),
        Direction::Reader if why.starts_with(Direction::Reader.fails()) => None,
        Direction::Reader => Some(why.find(&second).map_or(why.clone(), |at| {
            why.get(..at).unwrap_or_default().to_string()
        })),
        Direction::Writer => Some(why),
    }
}

/// What the checker refuses to work with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A version that is not `major.minor.patch`.
    #[error("{0:?} is not a semver version (major.minor.patch)")]
    NotAVersion(String),
    /// The working version is behind the latest release.
    #[error("VERSION {version} is older than the latest release {release}")]
    OlderThanRelease {
        /// The working tree's version.
        version: String,
        /// The latest release's.
        release: String,
    },
    /// The validator's registry refused the documents.
    #[error("the schemas cannot be registered for the validator: {0}")]
    Registry(String),
    /// A document of a contract whose `$id` is missing or is not the file's
    /// own place (rule `lint.id`): every validator built from the set
    /// registers a document under its `$id`, this checker under its place,
    /// so a reference could reach another document in each, and no verdict
    /// would hold for both.
    #[error("{file} ({version} version): {why} (at {}, rule lint.id): references resolve by `$id`, so no verdict can be given", place_shown(.pointer))]
    NotItsOwnId {
        /// The version it belongs to.
        version: Version,
        /// The document.
        file: String,
        /// Where: `/$id` (draft 4: `/id`), or the root when there is none.
        pointer: String,
        /// What the `$id` is and should be.
        why: String,
    },
    /// A document its draft's meta-schema refuses: no verdict means anything
    /// about it (validators read such schemas each their own way).
    #[error("{file} ({version} version): not a schema of its draft: {why} (at {})", place_shown(.pointer))]
    NotASchema {
        /// The version it belongs to.
        version: Version,
        /// The document.
        file: String,
        /// Where its meta-schema refuses it.
        pointer: String,
        /// The meta-schema's account.
        why: String,
    },
    /// A `$ref` that names a place its document does not have (rule
    /// `lint.ref`), where the validator refuses to compile the document (its
    /// root or a `$defs` or `definitions` entry) for it: no verdict means
    /// anything about it.
    #[error("{file} ({version} version): {why} (at {}, rule lint.ref): the validator cannot compile the schema, so no verdict can be given", place_shown(.pointer))]
    Unresolved {
        /// The version it belongs to.
        version: Version,
        /// The document holding the reference.
        file: String,
        /// The `$ref` itself.
        pointer: String,
        /// The reference and the resolver's account.
        why: String,
    },
}

impl Error {
    /// The document a refusal of one document names, with its version and
    /// the JSON pointer inside it; `None` for a refusal of the whole set.
    pub fn place(&self) -> Option<(Version, &str, &str)> {
        match self {
            Error::NotItsOwnId {
                version,
                file,
                pointer,
                ..
            }
            | Error::NotASchema {
                version,
                file,
                pointer,
                ..
            }
            | Error::Unresolved {
                version,
                file,
                pointer,
                ..
            } => Some((*version, file, pointer)),
            Error::NotAVersion(_) | Error::OlderThanRelease { .. } | Error::Registry(_) => None,
        }
    }

    /// The refusal with the document it names spelled by `rename` (given
    /// the version and the name the set knows it by).
    pub fn renamed(mut self, rename: impl FnOnce(Version, &str) -> String) -> Self {
        if let Error::NotItsOwnId { version, file, .. }
        | Error::NotASchema { version, file, .. }
        | Error::Unresolved { version, file, .. } = &mut self
        {
            *file = rename(*version, file);
        }
        self
    }
}

/// A JSON pointer as an error shows it: the root, empty, by name.
fn place_shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the root"
    } else {
        pointer
    }
}

/// One direction's verdict for one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every value the writer writes, the reader reads (or code still builds).
    Compatible,
    /// Some does not, or the checker could not decide (the safe answer).
    Breaking,
}

impl Verdict {
    /// Whether this is [`Verdict::Compatible`].
    pub fn holds(self) -> bool {
        self == Verdict::Compatible
    }
}

/// The version bump a change set needs, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    /// Nothing changed.
    None,
    /// Wording only: no validator judges anything differently.
    Patch,
    /// Additions old peers survive.
    Minor,
    /// Anything else.
    Major,
}

impl Bump {
    /// The bump in a sentence: "no bump", "a minor bump".
    pub fn phrase(self) -> &'static str {
        match self {
            Bump::None => "no bump",
            Bump::Patch => "a patch bump",
            Bump::Minor => "a minor bump",
            Bump::Major => "a major bump",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        })
    }
}

/// One change, located in both versions, with a verdict per direction.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The method, event or type the change belongs to.
    pub group: String,
    /// What kind of change it is.
    pub rule: Rule,
    /// `file#pointer` in the old schema set (absent for an addition).
    pub old_pointer: Option<String>,
    /// `file#pointer` in the new schema set (absent for a removal).
    pub new_pointer: Option<String>,
    /// New writer → old reader.
    pub writer: Verdict,
    /// Old writer → new reader.
    pub reader: Verdict,
    /// Code built on the generated bindings: a removed or renamed field,
    /// enum value, method or event no longer compiles, whatever the wire does.
    pub api: Verdict,
    /// What changed, in words.
    pub detail: String,
    /// Why a direction breaks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// A value one side accepts and the other refuses, where a direction breaks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
    /// The keyword the checker could not reason about, when a direction is
    /// breaking because it could not decide (the safe answer), not because
    /// it found a break.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
    /// Whether the change touches what validators accept (patch otherwise).
    #[serde(skip)]
    pub shape: bool,
}

impl Change {
    /// A change of the wire nothing can be decided on: breaking both ways
    /// (the safe answer), with the keyword and the place that stop it.
    fn undecided(
        group: &str,
        [old_pointer, new_pointer]: [Option<String>; 2],
        detail: String,
        keyword: &str,
        why: String,
    ) -> Change {
        Change {
            group: group.to_string(),
            rule: Rule::ShapeChanged,
            old_pointer,
            new_pointer,
            writer: Verdict::Breaking,
            reader: Verdict::Breaking,
            api: Verdict::Compatible,
            detail,
            why: Some(format!("cannot decide: {keyword} at {why}")),
            example: None,
            undecided: Some(keyword.to_string()),
            shape: true,
        }
    }
}

/// A counterexample: `value`, at `path` in a message, passes `acceptedBy` and fails the other side.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Example {
    /// Where in the message the value stands (a JSON pointer).
    pub path: String,
    /// The value.
    pub value: Value,
    /// `new` (for a W break) or `old` (for an R break).
    pub accepted_by: String,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// New writer → old reader, over every change.
    pub writer: Verdict,
    /// Old writer → new reader, over every change.
    pub reader: Verdict,
    /// Code built on the generated bindings (see [`Change::api`]).
    pub api: Verdict,
    /// The bump the changes need.
    pub bump: Bump,
    /// How `format` was read.
    pub formats: Formats,
    /// How readers were taken to read unknown fields.
    pub readers: Readers,
    /// Every change, by group.
    pub changes: Vec<Change>,
    /// Verdicts the search refuted: the prover said a direction holds, and a
    /// value drawn from the writer fails the reader. Each is a defect of this
    /// checker, reported so it can be fixed; the direction counts as breaking.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defects: Vec<Defect>,
    /// For each changed type, the method and event parts that use it (in
    /// the new set, or the old one for a type that went): which lanes read
    /// what changed.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub reaches: BTreeMap<String, Vec<Reach>>,
}

/// A method's or event's part that uses a changed type, and who writes and
/// reads it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub struct Reach {
    /// The method or event.
    pub name: String,
    /// `params` or `result`.
    pub part: String,
    /// Who writes the part: `client` (a call's params) or `daemon` (a
    /// result, an event).
    pub writer: String,
    /// Who reads it: the other side.
    pub reader: String,
}

/// The parts of every method and event of `set` that reach `rel` (a type's
/// file) through references.
fn reaching(set: &SchemaSet, rel: &str) -> Vec<Reach> {
    let mut out = Vec::new();
    for doc in set
        .of_kind(DocKind::Method)
        .chain(set.of_kind(DocKind::Event))
    {
        for part in ["params", "result"] {
            let Some(schema) = doc.value.get("$defs").and_then(|defs| defs.get(part)) else {
                continue;
            };
            if !contract::files_reached(set, doc, schema).contains(rel) {
                continue;
            }
            let (writer, reader) = match (doc.kind, part) {
                (DocKind::Method, "params") => ("client", "daemon"),
                _ => ("daemon", "client"),
            };
            out.push(Reach {
                name: doc.name.clone(),
                part: part.into(),
                writer: writer.into(),
                reader: reader.into(),
            });
        }
    }
    out
}

/// A "holds" the search refuted with a value.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Defect {
    /// The method, event or type.
    pub group: String,
    /// The direction the prover said holds.
    pub direction: Direction,
    /// A value the writer accepts and the reader refuses.
    pub value: Value,
    /// Where in the value, and why, the reader refuses it.
    pub why: String,
}

/// A "holds" the search refuted: the break to report, the value, and why
/// the reader refuses it.
struct Refutation {
    broken: Box<Break>,
    value: Value,
    why: String,
}

impl Refutation {
    /// `value`, which the writer accepts and the reader refuses (places of
    /// `space`), as a checker defect; `how` says how the versions were read.
    fn of(
        space: &Space<'_>,
        writer: &Place<'_>,
        reader: &Place<'_>,
        value: Value,
        how: &str,
    ) -> Self {
        let why = space.refusal(reader, &value).map_or_else(
            || "the reader refuses it".to_string(),
            |(at, why)| format!("at {}: {why}", contract::quoted(&at)),
        );
        let reason = format!(
            "checker defect: the prover said this holds, but {} passes the writer and fails the reader{how} ({why})",
            report::short(&value)
        );
        let broken = Break::between(
            space,
            writer,
            reader,
            reason,
            Some(value.clone()),
            BreakKind::Refused,
        );
        Refutation { broken, value, why }
    }
}

/// The whole-schema verdicts of one part (a method's params or result, an
/// event, a type), which decide the overall verdict.
struct Whole {
    group: String,
    /// The part's file and pointer.
    rel: String,
    pointer: String,
    writer: Result<(), Box<Break>>,
    reader: Result<(), Box<Break>>,
}

/// One part compared whole, at the same place in both versions.
struct Part<'a> {
    group: &'a str,
    rel: &'a str,
    pointer: &'a str,
}

impl Whole {
    /// Both directions for one part, and the search's check of each "holds".
    fn of(
        prover: &prove::Prover<'_>,
        originals: Option<&Space<'_>>,
        part: &Part<'_>,
        search: usize,
        defects: &mut Vec<Defect>,
    ) -> Self {
        let space = prover.space();
        let place = |version, role| {
            space
                .find(version, role, part.rel)
                .and_then(|doc| space.place(doc, part.pointer))
        };
        // A direction nothing proves: undecided, never "holds".
        let undecided = |why: String| -> Result<(), Box<Break>> {
            Err(Box::new(Break {
                path: String::new(),
                writer_file: file_shown(part.rel).to_string(),
                writer_pointer: part.pointer.to_string(),
                reader_file: file_shown(part.rel).to_string(),
                reader_pointer: part.pointer.to_string(),
                reason: format!("cannot decide: {why}"),
                witness: None,
                kind: BreakKind::Undecided {
                    keyword: "$ref".into(),
                },
            }))
        };
        let mut directions = Vec::new();
        for (direction, writes, reads) in [
            (
                Direction::Writer,
                (Version::New, Role::Written),
                (Version::Old, Role::Read),
            ),
            (
                Direction::Reader,
                (Version::Old, Role::Written),
                (Version::New, Role::Read),
            ),
        ] {
            let (Some(writer), Some(reader)) = (place(writes.0, writes.1), place(reads.0, reads.1))
            else {
                directions.push(undecided(format!(
                    "{}#{} is not in both versions",
                    file_shown(part.rel),
                    part.pointer
                )));
                continue;
            };
            let mut result = prover.contains(&writer, &reader);
            if result.is_ok() && search > 0 {
                // The prover and the search read documents rewritten in
                // 2020-12 where the versions' drafts differ; the documents as
                // written, each read by its own draft's validator, are asked
                // too, so a rewrite that changed a meaning is caught here.
                let refuted = prover
                    .search(&writer, &reader, search)
                    .map(|value| Refutation::of(space, &writer, &reader, value, ""))
                    .or_else(|| {
                        let originals = originals?;
                        let place = |(version, role)| {
                            originals
                                .find(version, role, part.rel)
                                .and_then(|doc| originals.place(doc, part.pointer))
                        };
                        let (writer, reader) = (place(writes)?, place(reads)?);
                        let value = prove::search(originals, &writer, &reader, search)?;
                        Some(Refutation::of(
                            originals,
                            &writer,
                            &reader,
                            value,
                            ", each version read as written by its own draft's validator",
                        ))
                    });
                if let Some(Refutation { broken, value, why }) = refuted {
                    result = Err(broken);
                    defects.push(Defect {
                        group: part.group.to_string(),
                        direction,
                        value,
                        why,
                    });
                }
            }
            directions.push(result);
        }
        let mut directions = directions.into_iter();
        let mut next = || {
            directions
                .next()
                .unwrap_or_else(|| undecided("no verdict was reached".into()))
        };
        Whole {
            group: part.group.to_string(),
            rel: part.rel.to_string(),
            pointer: part.pointer.to_string(),
            writer: next(),
            reader: next(),
        }
    }

    /// Whether a change is inside this part: at or below its place when the
    /// change is in the part's own file (a method's `result` is not inside
    /// its `params`), and anywhere in another file (a type the part reaches,
    /// which its whole-schema check reads through the references). Either
    /// side's place will do: the part's walk follows each side's references
    /// on its own, so a change it found may stand under the part on one
    /// side only (the old `params` moved behind a `$ref` to `$defs/moved`).
    /// What is not found by a walk (a key of the file's root) stands in the
    /// file outside every part on both sides.
    fn covers(&self, change: &Change) -> bool {
        let inside = |place: &String| match place.split_once('#') {
            Some((file, pointer)) if file == self.rel => {
                pointer == self.pointer
                    || pointer
                        .strip_prefix(self.pointer.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            }
            _ => true,
        };
        [&change.old_pointer, &change.new_pointer]
            .into_iter()
            .flatten()
            .any(inside)
    }
}

impl Comparison {
    /// Changes are judged one at a time; changes at one place can offset each
    /// other (a field removed while the object opens). The whole-schema checks
    /// decide: a direction that holds as a whole holds for every change in it,
    /// and a direction that breaks as a whole always has a change that says so.
    fn reconcile(mut changes: Vec<Change>, wholes: &[Whole], defects: Vec<Defect>) -> Self {
        for direction in [Direction::Writer, Direction::Reader] {
            settle(&mut changes, wholes, direction);
        }
        let mut comparison = Self::from_changes(changes);
        comparison.defects = defects;
        comparison
    }

    /// Records how the schemas were read.
    fn read_with(mut self, options: Options) -> Self {
        self.formats = options.formats;
        self.readers = options.readers;
        self
    }

    fn from_changes(mut changes: Vec<Change>) -> Self {
        for change in &mut changes {
            // A value the change quotes (an enum value, a name, the
            // validator's words on a value) is as long as the schema made
            // it; a report line, and a pull-request comment, are not.
            bound(&mut change.detail, DETAIL_CHARS);
            if let Some(why) = &mut change.why {
                bound(why, WHY_CHARS);
            }
            change.api = if change.rule.breaks_api() {
                Verdict::Breaking
            } else {
                Verdict::Compatible
            };
        }
        let all = |verdict: fn(&Change) -> Verdict| {
            if changes.iter().all(|c| verdict(c).holds()) {
                Verdict::Compatible
            } else {
                Verdict::Breaking
            }
        };
        let (writer, reader, api) = (all(|c| c.writer), all(|c| c.reader), all(|c| c.api));
        let bump = changes
            .iter()
            .map(|c| {
                match (
                    c.writer.holds() && c.reader.holds() && c.api.holds(),
                    c.shape,
                ) {
                    (false, _) => Bump::Major,
                    (true, true) => Bump::Minor,
                    (true, false) => Bump::Patch,
                }
            })
            .max()
            .unwrap_or(Bump::None);
        Comparison {
            writer,
            reader,
            api,
            bump,
            formats: Formats::default(),
            readers: Readers::default(),
            changes,
            defects: Vec::new(),
            reaches: BTreeMap::new(),
        }
    }

    fn sorted(mut self) -> Self {
        self.changes.sort_by(|a, b| {
            (
                a.group.as_str(),
                a.rule.to_string(),
                &a.old_pointer,
                &a.new_pointer,
            )
                .cmp(&(
                    b.group.as_str(),
                    b.rule.to_string(),
                    &b.old_pointer,
                    &b.new_pointer,
                ))
        });
        self
    }
}

/// The most characters of a change's `detail` a report shows.
pub(crate) const DETAIL_CHARS: usize = 300;

/// The most characters of a change's `why` a report shows.
const WHY_CHARS: usize = 1_000;

/// `text` cut to its start and end, with how much was left out between them,
/// when it is longer than `max` characters.
pub(crate) fn bound(text: &mut String, max: usize) {
    let count = text.chars().count();
    if count <= max {
        return;
    }
    let (head, tail) = (max * 2 / 3, max / 4);
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    *text = format!(
        "{start} … ({} characters left out) … {end}",
        count - head - tail
    );
}

/// What a whole-schema break says when the diff found no change in its group.
const NO_CHANGE_FOUND: &str = "the schemas compared whole; no change was found part by part";

/// One direction's change verdicts brought in line with the whole-schema
/// verdicts: a direction that holds as a whole holds for every change in
/// it; one that breaks as a whole gets a change saying so if none does.
fn settle(changes: &mut Vec<Change>, wholes: &[Whole], direction: Direction) {
    fn verdict_of(c: &mut Change, direction: Direction) -> &mut Verdict {
        match direction {
            Direction::Writer => &mut c.writer,
            Direction::Reader => &mut c.reader,
        }
    }
    let broken = wholes.iter().find_map(|w| {
        let result = match direction {
            Direction::Writer => &w.writer,
            Direction::Reader => &w.reader,
        };
        result
            .as_ref()
            .err()
            .map(|err| (w.group.clone(), err.clone()))
    });
    let Some((group, err)) = broken else {
        // Methods and events appearing or going are judged by the
        // contract's rules, not by a shape both sides have.
        // Only a change a whole covers: one no whole judged keeps its own
        // verdict (the safe answer).
        let covered = |c: &Change| wholes.iter().any(|w| w.group == c.group && w.covers(c));
        // How many changes each whole covers: a change with no other beside
        // it broke only as its kind of change may, not by itself here.
        let mut beside: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for change in changes.iter().filter(|c| covered(c)) {
            *beside.entry(change.group.clone()).or_default() += 1;
        }
        // Nor can a change of what a value means: the same values pass.
        for change in changes.iter_mut().filter(|c| {
            !c.rule.is_method_or_event() && c.rule != Rule::MeaningChanged && covered(c)
        }) {
            let alone = beside.get(&change.group).copied().unwrap_or(0) <= 1;
            if !verdict_of(change, direction).holds() {
                *verdict_of(change, direction) = Verdict::Compatible;
                if verdict_of(change, direction.other()).holds() {
                    change.why = None;
                    change.example = None;
                    change.undecided = None;
                } else {
                    // The other way still breaks: keep what explains it.
                    change.why = change
                        .why
                        .take()
                        .and_then(|why| reason_without(why, direction));
                    if change
                        .example
                        .as_ref()
                        .is_some_and(|e| e.accepted_by == direction.accepted_by())
                    {
                        change.example = None;
                    }
                }
                // Which way, where the other still breaks.
                let way = match (verdict_of(change, direction.other()).holds(), direction) {
                    (true, _) => "",
                    (false, Direction::Writer) => "W ",
                    (false, Direction::Reader) => "R ",
                };
                let note = |way: &str| {
                    if alone {
                        format!(" ({way}breaks as a change of its kind may; the schemas compared whole hold here)")
                    } else {
                        format!(" ({way}breaks alone, holds together with the other changes here)")
                    }
                };
                // Settled the other way round already: one note says both.
                for other in ["W ", "R "] {
                    if let Some(kept) = change.detail.strip_suffix(&note(other)) {
                        change.detail.truncate(kept.len());
                    }
                }
                change.detail.push_str(&note(way));
            }
        }
        return;
    };
    if !changes.iter_mut().all(|c| verdict_of(c, direction).holds()) {
        alone_where_undecided(changes, wholes, direction);
        return;
    }
    let (a, b) = (
        format!("{}#{}", err.writer_file, err.writer_pointer),
        format!("{}#{}", err.reader_file, err.reader_pointer),
    );
    let (old_pointer, new_pointer, writer, reader) = match direction {
        Direction::Writer => (b, a, Verdict::Breaking, Verdict::Compatible),
        Direction::Reader => (a, b, Verdict::Compatible, Verdict::Breaking),
    };
    let (accepted_by, says) = (direction.accepted_by(), direction.fails());
    // Two documents written alike may still be undecided as wholes (a
    // reference that only leads to itself): then no change is "here" (the
    // other direction's settling may have said so already).
    let detail = if changes
        .iter()
        .any(|c| c.group == group && c.detail != NO_CHANGE_FOUND)
    {
        "the changes here together"
    } else {
        NO_CHANGE_FOUND
    };
    changes.push(Change {
        group,
        rule: Rule::ShapeChanged,
        old_pointer: Some(old_pointer),
        new_pointer: Some(new_pointer),
        writer,
        reader,
        api: Verdict::Compatible,
        detail: detail.into(),
        why: Some(format!("{says}: {}", err.reason)),
        example: err.witness.clone().map(|value| Example {
            path: err.path.clone(),
            value,
            accepted_by: accepted_by.into(),
        }),
        undecided: err.undecided().map(str::to_string),
        shape: true,
    });
}

/// A change that breaks `direction` alone, with no value that separates the
/// two sides as they stand, in a part whose schemas compared whole cannot be
/// decided that way, is said to break alone: its reason was found for the
/// change applied by itself, and together with the other changes beside it
/// the new side may refuse the value it names (a `maxLength` dropped where
/// a `pattern` now bounds the length). The verdict stays breaking, the safe
/// answer.
fn alone_where_undecided(changes: &mut [Change], wholes: &[Whole], direction: Direction) {
    let whole_of = |change: &Change| {
        wholes
            .iter()
            .position(|w| w.group == change.group && w.covers(change))
    };
    // How many changes each whole covers: a change alone in its part was
    // judged on the two sides as they stand.
    let mut beside: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for change in changes.iter() {
        if let Some(at) = whole_of(change) {
            *beside.entry(at).or_default() += 1;
        }
    }
    for change in changes.iter_mut() {
        let breaks = match direction {
            Direction::Writer => !change.writer.holds(),
            Direction::Reader => !change.reader.holds(),
        };
        // An example separates the two sides as they stand: that break is
        // no change's alone.
        let shown = change
            .example
            .as_ref()
            .is_some_and(|e| e.accepted_by == direction.accepted_by());
        if !breaks || shown || change.rule.is_method_or_event() || change.rule == Rule::ShapeChanged
        {
            continue;
        }
        let Some(at) = whole_of(change) else { continue };
        if beside.get(&at).copied().unwrap_or(0) <= 1 {
            continue;
        }
        let undecided = wholes.get(at).and_then(|w| {
            let result = match direction {
                Direction::Writer => &w.writer,
                Direction::Reader => &w.reader,
            };
            result.as_ref().err().and_then(|err| err.undecided())
        });
        let Some(keyword) = undecided else { continue };
        // Only a break found for the change, not one it could not decide
        // either.
        let Some(why) = change.why.as_mut() else {
            continue;
        };
        let found = why.find(direction.fails()).is_some_and(|from| {
            why.get(from + direction.fails().len()..)
                .is_some_and(|rest| !rest.trim_start_matches(": ").starts_with("cannot decide"))
        });
        if !found {
            continue;
        }
        *why = why.replacen(
            direction.fails(),
            &format!("with this change alone, {}", direction.fails()),
            1,
        );
        let way = match direction {
            Direction::Writer => "W",
            Direction::Reader => "R",
        };
        change.detail.push_str(&format!(
            " ({way} breaks alone; with the other changes here it cannot be decided: {keyword})"
        ));
    }
}

/// Options of a comparison.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// How readers read fields they do not know.
    pub readers: Readers,
    /// How `format` is read.
    pub formats: Formats,
    /// How many values to draw from each writer whose direction the prover
    /// says holds, as a check of that verdict (0: no search).
    pub search: usize,
}

/// How a reader reads an object field it does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Readers {
    /// It ignores the field (`docs/wire.md`: generated readers are tolerant).
    #[default]
    Tolerant,
    /// It refuses the field where its schema closes the object.
    Strict,
}

/// How `format` is read: this project's validators assert it, so a changed
/// format is a change (the default); 2020-12's own default reads it as an
/// annotation that constrains nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Formats {
    /// `format` constrains values, as validators that assert it read it.
    #[default]
    Assertion,
    /// `format` constrains nothing.
    Annotation,
}

/// The envelope's body files (`envelope/CallBody.json`, …): each method and
/// event is compared on its own, and adding one is judged by the contract's
/// rules.
fn body_files() -> [String; 3] {
    contract::envelope::BODIES.map(|body| format!("envelope/{}.json", body.name))
}

/// Where the envelope with its bodies left open is registered (beside the
/// documents, for the comparison only).
const HEADERS: &str = "envelope/Envelope.headers.json";

/// The file a report names for a document of the comparison: the envelope
/// for the envelope with its bodies left open, which the same pointers
/// lead into, so that no report names a file nobody wrote.
pub(crate) fn file_shown(rel: &str) -> &str {
    if rel == HEADERS {
        "envelope/Envelope.json"
    } else {
        rel
    }
}

/// Both sets with the envelope once more, where a branch's `body` refers to
/// a body file (`CallBody.json`, …) that the branch of the same `kind`
/// refers to in the other version too, that `body` accepting anything: what
/// the envelope says beside its bodies, compared whole (those bodies are
/// compared per method and event). A `body` of any other shape, or changed,
/// or in an envelope whose branches do not each require a `kind` of their
/// own (read in 2020-12), is compared as it is.
fn with_headers(old: &SchemaSet, new: &SchemaSet) -> (SchemaSet, SchemaSet) {
    let envelope = |set: &SchemaSet| set.get(DocKind::Envelope, "Envelope").cloned();
    let (Some(old_envelope), Some(new_envelope)) = (envelope(old), envelope(new)) else {
        return (old.clone(), new.clone());
    };
    // The body file a branch refers to, when that is all its `body` says.
    let body_file = |branch: &Value| -> Option<String> {
        let body = branch.pointer("/properties/body")?.as_object()?;
        let only_ref = body
            .keys()
            .all(|k| matches!(k.as_str(), "$ref" | "description" | "$comment"));
        let target = body.get("$ref")?.as_str()?;
        (only_ref
            && body_files()
                .iter()
                .any(|file| file.ends_with(&format!("/{target}"))))
        .then(|| target.to_string())
    };
    let branches = |doc: &contract::SchemaDoc| {
        doc.value
            .get("oneOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    // A branch's kind: a string `const` it requires.
    let kind = |branch: &Value| -> Option<String> {
        let required = branch.get("required")?.as_array()?;
        required.iter().any(|name| name == "kind").then_some(())?;
        let kind = branch.pointer("/properties/kind/const")?.as_str()?;
        Some(kind.to_string())
    };
    // Each branch's kind and body file, when every branch requires a kind of
    // its own: then which branch a message matches does not depend on its
    // body, and a body can be left open for the check of the rest. Matched
    // by kind, not by place, so reordered branches keep their bodies open.
    // Read so in 2020-12 only: draft 4 has no `const`, drafts up to 7
    // ignore what stands beside a `$ref` (and a `body` left open as `true`
    // is no schema in draft 4).
    let keyed = |doc: &contract::SchemaDoc| -> Vec<(String, Option<String>)> {
        if !read_in_2020_12(doc) {
            return Vec::new();
        }
        let list = branches(doc);
        let keys: Option<Vec<(String, Option<String>)>> = list
            .iter()
            .map(|branch| Some((kind(branch)?, body_file(branch))))
            .collect();
        let keys = keys.unwrap_or_default();
        let distinct: BTreeSet<&String> = keys.iter().map(|(kind, _)| kind).collect();
        if distinct.len() == keys.len() {
            keys
        } else {
            Vec::new()
        }
    };
    let (old_keyed, new_keyed) = (keyed(&old_envelope), keyed(&new_envelope));
    let open = |branch: &Value| {
        let Some(key) = kind(branch).map(|kind| (kind, body_file(branch))) else {
            return false;
        };
        key.1.is_some() && old_keyed.contains(&key) && new_keyed.contains(&key)
    };
    let headed = |set: &SchemaSet, envelope: &contract::SchemaDoc| {
        let mut set = set.clone();
        let mut headers = envelope.clone();
        if let Some(id) = headers.value.get_mut("$id") {
            if let Some(text) = id.as_str() {
                *id = Value::String(text.replace("Envelope.json", "Envelope.headers.json"));
            }
        }
        if let Some(list) = headers.value.get_mut("oneOf").and_then(Value::as_array_mut) {
            for branch in list.iter_mut() {
                if open(branch) {
                    if let Some(body) = branch.pointer_mut("/properties/body") {
                        *body = Value::Bool(true);
                    }
                }
            }
        }
        headers.rel = HEADERS.to_string();
        headers.name = "Envelope.headers".to_string();
        set.docs.push(headers);
        set
    };
    (headed(old, &old_envelope), headed(new, &new_envelope))
}

/// A body file (`CallBody`, …) of another shape than the one compat
/// compares per method (`contract::envelope`): cannot decide, both ways.
fn body_departures(old: &SchemaSet, new: &SchemaSet) -> Vec<Change> {
    let mut out = Vec::new();
    for body in &contract::envelope::BODIES {
        for (side, set) in [("old", old), ("new", new)] {
            let (place, why) = match set.get(DocKind::Envelope, body.name) {
                Some(doc) => match body
                    .departures(doc)
                    .into_iter()
                    .chain(other_dialect(doc))
                    .chain(body.uncovered(doc, set))
                    .next()
                {
                    Some((pointer, why)) => (format!("{}#{pointer}", doc.rel), why),
                    None => continue,
                },
                None if set.of_kind(body.names).next().is_some() => (
                    format!("envelope/{}.json#", body.name),
                    format!("missing, while there are {}", body.names.folder()),
                ),
                None => continue,
            };
            let (old_pointer, new_pointer) = if side == "old" {
                (Some(place.clone()), None)
            } else {
                (None, Some(place.clone()))
            };
            out.push(Change::undecided(
                body.name,
                [old_pointer, new_pointer],
                format!(
                    "the {side} {} is not the one shape compat compares method by method, listing every {} once",
                    body.name,
                    body.names.folder()
                ),
                "envelope body",
                format!("{place} ({why})"),
            ));
        }
    }
    out
}

/// Whether a file of the envelope is read in 2020-12, the draft in which
/// its branches are told apart by the `const` of their names: the envelope
/// has its bodies left open, and a body is compared method by method, only
/// then.
fn read_in_2020_12(doc: &contract::SchemaDoc) -> bool {
    space::draft_of(&doc.value) == jsonschema::Draft::Draft202012
}

/// Where a body file is read in a draft other than 2020-12, the one its
/// shape is read in: draft 4 has no `const`, so there no branch is told
/// apart by its name, and a message that meets two branches fails.
fn other_dialect(doc: &contract::SchemaDoc) -> Option<(contract::Pointer, String)> {
    (!read_in_2020_12(doc)).then(|| {
        (
            contract::Pointer::root().push("$schema"),
            format!(
                "a body is read in draft 2020-12, not as {}",
                doc.value
                    .get("$schema")
                    .map_or_else(String::new, Value::to_string)
            ),
        )
    })
}

/// Compares two whole schema sets: every method's params and result, every
/// event, and the types they reach.
pub fn compare_sets(
    old: &SchemaSet,
    new: &SchemaSet,
    options: Options,
) -> Result<Comparison, Error> {
    compare(old, new, options, None)
}

/// Compares two whole contracts as [`compare_sets`] does, and the surface of
/// the bindings generated from each ([`api`]): a type renamed, an enum
/// value's name or a field's type changed breaks the API even where the wire
/// holds.
pub fn compare_contracts(
    old: &SchemaSet,
    new: &SchemaSet,
    options: Options,
    bindings: [&api::Modelled; 2],
) -> Result<Comparison, Error> {
    compare(old, new, options, Some(bindings))
}

fn compare(
    old: &SchemaSet,
    new: &SchemaSet,
    options: Options,
    bindings: Option<[&api::Modelled; 2]>,
) -> Result<Comparison, Error> {
    for doc in &old.docs {
        own_id(Version::Old, doc)?;
    }
    for doc in &new.docs {
        own_id(Version::New, doc)?;
    }
    let (old_headed, new_headed) = with_headers(old, new);
    let space = Space::new(&old_headed, &new_headed, options)?;
    let originals = Space::originals(&old_headed, &new_headed, options);
    let prover = prove::Prover::new(&space);
    let mut run = Run {
        prover: &prover,
        originals: originals.as_ref(),
        differ: diff::Differ::new(&prover),
        options,
        changes: Vec::new(),
        wholes: Vec::new(),
        defects: Vec::new(),
    };
    run.differ.skip = body_files().into();
    for (kind, noun) in [(DocKind::Method, "method"), (DocKind::Event, "event")] {
        for old_doc in old.of_kind(kind) {
            match new.get(kind, &old_doc.name) {
                Some(new_doc) => {
                    for shape in ["params", "result"] {
                        run.part(old_doc, new_doc, &format!("/$defs/{shape}"));
                    }
                    run.changes.extend(root_changes(old_doc, new_doc));
                }
                None => run.changes.push(removed(new, old_doc, kind, noun)),
            }
        }
        for new_doc in new.of_kind(kind) {
            let known = old.docs.iter().any(|d| {
                d.name == new_doc.name && matches!(d.kind, DocKind::Method | DocKind::Event)
            });
            if !known {
                run.changes.push(added(new_doc, kind, noun));
            }
        }
    }
    // The bodies only list the parts, compared method by method above;
    // what else stands in them (descriptions) is compared here: the file's
    // own, and each branch's against the branch of the same name.
    for body in contract::envelope::BODIES {
        let rel = format!("envelope/{}.json", body.name);
        let written = |version: Version| {
            space
                .find(version, Role::Written, &rel)
                .and_then(|doc| space.place(doc, ""))
        };
        let (Some(o), Some(n)) = (written(Version::Old), written(Version::New)) else {
            continue;
        };
        run.differ.inert_here(&o, &n, body.name, &mut run.changes);
        let tag = format!("/properties/{}/const", body.tag);
        fn branches<'s>(place: &space::Place<'s>) -> Vec<space::Place<'s>> {
            let count = place
                .value
                .get("oneOf")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            (0..count)
                .filter_map(|i| place.at_path(&["oneOf", &i.to_string()]))
                .collect()
        }
        let new_branches = branches(&n);
        for old_branch in branches(&o) {
            let Some(name) = old_branch.value.pointer(&tag) else {
                continue;
            };
            if let Some(new_branch) = new_branches
                .iter()
                .find(|b| b.value.pointer(&tag) == Some(name))
            {
                run.differ
                    .inert_in_step(&old_branch, new_branch, body.name, &mut run.changes);
            }
        }
    }
    // Types no method reaches (RpcError is reached through the envelope),
    // and the executor's tool-set file (written by people, read by it).
    for old_doc in old
        .of_kind(DocKind::Type)
        .chain(old.of_kind(DocKind::Envelope))
        .chain(old.of_kind(DocKind::Config))
    {
        match new.get(old_doc.kind, &old_doc.name) {
            Some(new_doc) => run.part(old_doc, new_doc, ""),
            // A type no part refers to any more is gone from the wire (the
            // API says what went); a file the executor reads is not.
            None if old_doc.kind == DocKind::Config => {
                run.changes
                    .push(config_in_one_version(old_doc, Version::Old));
            }
            None => {}
        }
    }
    for new_doc in new.of_kind(DocKind::Config) {
        if old.get(DocKind::Config, &new_doc.name).is_none() {
            run.changes
                .push(config_in_one_version(new_doc, Version::New));
        }
    }
    // The envelope outside its bodies, whole: `v`, `kind` and `id` can
    // break together what no change breaks alone.
    match (
        old.get(DocKind::Envelope, "Envelope"),
        new.get(DocKind::Envelope, "Envelope"),
    ) {
        (Some(_), Some(_)) => {
            let part = Part {
                group: "Envelope",
                rel: HEADERS,
                pointer: "",
            };
            run.wholes.push(Whole::of(
                &prover,
                run.originals,
                &part,
                options.search,
                &mut run.defects,
            ));
        }
        (None, None) => {}
        // What every message is read as, in one version only.
        (old_envelope, _) => {
            let side = if old_envelope.is_some() { "new" } else { "old" };
            let place = "envelope/Envelope.json#".to_string();
            run.changes.push(Change::undecided(
                "Envelope",
                [
                    old_envelope.map(|_| place.clone()),
                    old_envelope.is_none().then(|| place.clone()),
                ],
                format!("the {side} version has no envelope"),
                "$ref",
                format!("{place} (the {side} version has no envelope/Envelope.json)"),
            ));
        }
    }
    run.changes.extend(body_departures(old, new));
    let Run {
        changes,
        wholes,
        defects,
        ..
    } = run;
    let mut comparison = Comparison::reconcile(changes, &wholes, defects);
    if let Some([old_api, new_api]) = bindings {
        let surface = api::changes(old_api, new_api);
        if !surface.is_empty() {
            let Comparison {
                mut changes,
                defects,
                ..
            } = comparison;
            changes.extend(surface);
            comparison = Comparison::from_changes(changes);
            comparison.defects = defects;
        }
    }
    let mut comparison = comparison.read_with(options).sorted();
    // Once a group: a change set may hold thousands of changes to one type
    // (values added to an enum), and each walk reads the whole set.
    let groups: std::collections::BTreeSet<&str> = comparison
        .changes
        .iter()
        .map(|change| change.group.as_str())
        .collect();
    comparison.reaches = groups
        .into_iter()
        .filter_map(|group| {
            let (set, doc) = [new, old].into_iter().find_map(|set| {
                [DocKind::Type, DocKind::Config]
                    .into_iter()
                    .find_map(|kind| Some((set, set.get(kind, group)?)))
            })?;
            let reaches = match doc.kind {
                // Written by whoever runs the executor, read by it alone
                // (and strictly: see `space`).
                DocKind::Config => vec![Reach {
                    name: doc.rel.clone(),
                    part: "file".into(),
                    writer: "operator".into(),
                    reader: "vdm-exec".into(),
                }],
                _ => reaching(set, &doc.rel),
            };
            Some((group.to_string(), reaches))
        })
        .collect();
    Ok(comparison)
}

/// A file the executor reads that one version describes and the other does
/// not (`config.removed`, `config.added`). The version without it says
/// nothing of what its operators write or its executor reads, so neither
/// direction can be decided: files written with no schema may be refused
/// by an executor reading the new one strictly, and an executor with none
/// may read a file any way. Both ways, so the verdict is the same whichever
/// version is compared from.
fn config_in_one_version(doc: &contract::SchemaDoc, described_in: Version) -> Change {
    let (rule, pointers, said) = match described_in {
        Version::Old => (
            Rule::ConfigRemoved,
            [Some(format!("{}#", doc.rel)), None],
            "removed",
        ),
        Version::New => (
            Rule::ConfigAdded,
            [None, Some(format!("{}#", doc.rel))],
            "added",
        ),
    };
    let other = match described_in {
        Version::Old => Version::New,
        Version::New => Version::Old,
    };
    Change {
        rule,
        ..Change::undecided(
            &doc.name,
            pointers,
            format!("{} {said}", doc.rel),
            "the tool-set file's schema",
            format!(
                "{}: the {other} version has no schema for this file, so what its operators write and its executor reads is not in the contract",
                doc.rel
            ),
        )
    }
}

/// [`Error::NotItsOwnId`] unless `doc` has its place as its `$id` (and as
/// its `id` in draft 4, where it has one), and no schema inside it has one
/// (which would be a resource of its own, that a reference to a file's
/// place could reach).
fn own_id(version: Version, doc: &contract::SchemaDoc) -> Result<(), Error> {
    if doc.too_deep.is_some() {
        // Kept unread, so there is no `$id` to read off it: what it holds
        // cannot be decided where it is reached, and the report says why.
        return Ok(());
    }
    let expected = doc.expected_id();
    let refuse = |pointer: String, why: String| {
        Err(Error::NotItsOwnId {
            version,
            file: doc.rel.clone(),
            pointer,
            why,
        })
    };
    match doc.id() {
        Some(id) if id == expected => {}
        Some(id) => {
            return refuse(
                "/$id".into(),
                format!(
                    "`$id` is {}, not the file's place {}",
                    contract::quoted(id),
                    contract::quoted(&expected)
                ),
            )
        }
        None => {
            return refuse(
                String::new(),
                format!(
                    "no `$id`, where the file's place makes it {}",
                    contract::quoted(&expected)
                ),
            )
        }
    }
    // Draft 4 names a resource by `id` (and ignores `$id`): its validator
    // registers the file at the place its `id` names.
    let draft = space::draft_of(&doc.value);
    let identifiers: &[&str] = match draft {
        jsonschema::Draft::Draft4 => &["$id", "id"],
        _ => &["$id"],
    };
    if let Some(id) = doc
        .value
        .get("id")
        .filter(|_| draft == jsonschema::Draft::Draft4)
    {
        if id.as_str() != Some(expected.as_str()) {
            return refuse(
                "/id".into(),
                format!(
                    "`id` is {}, not the file's place {}, and draft 4 names a file by its `id`",
                    report::short(id),
                    contract::quoted(&expected)
                ),
            );
        }
    }
    // A document nested too deep to walk has an obstacle of its own.
    let positions = vocab::positions(&doc.value, "", draft).unwrap_or_default();
    let inner = positions.iter().find_map(|p| {
        let key = identifiers
            .iter()
            .find(|key| p.value.get(**key).is_some())?;
        (!p.pointer.is_empty()).then(|| (p.pointer.clone(), *key))
    });
    match inner {
        Some((pointer, key)) => refuse(
            format!("{pointer}/{key}"),
            format!("an `{key}` inside the file makes a resource of its own"),
        ),
        None => Ok(()),
    }
}

/// One comparison as it is gathered.
struct Run<'p, 's> {
    prover: &'p prove::Prover<'s>,
    /// The documents as written, where the prover reads rewrites of them.
    originals: Option<&'p Space<'static>>,
    differ: diff::Differ<'p, 's>,
    options: Options,
    changes: Vec<Change>,
    wholes: Vec<Whole>,
    defects: Vec<Defect>,
}

impl Run<'_, '_> {
    /// The changes at one place of two documents, and (for a method's
    /// shape, an event or a type) the verdicts on it as a whole.
    fn part(
        &mut self,
        old_doc: &contract::SchemaDoc,
        new_doc: &contract::SchemaDoc,
        pointer: &str,
    ) {
        let space = self.prover.space();
        let written = |version: Version, rel: &str| {
            space
                .find(version, Role::Written, rel)
                .and_then(|doc| space.place(doc, pointer))
        };
        let (o, n) = match (
            written(Version::Old, &old_doc.rel),
            written(Version::New, &new_doc.rel),
        ) {
            (Some(o), Some(n)) => (o, n),
            (None, None) => return,
            // A method's `result` gone from its file, say: what the body
            // refers to is nowhere, and no validator of that version reads
            // the part.
            (old_place, _) => {
                // A document the resolver refused stands in as `true`: its
                // obstacle says why, where "nothing there" would not.
                let refused = [(Version::Old, old_doc), (Version::New, new_doc)]
                    .into_iter()
                    .find_map(|(version, doc)| {
                        let id = space.find(version, Role::Written, &doc.rel)?;
                        Some((&doc.rel, space.doc(id)?.obstacle.as_ref()?))
                    });
                if let Some((rel, obstacle)) = refused {
                    self.changes.push(Change::undecided(
                        &old_doc.name,
                        [
                            Some(format!("{}#{pointer}", old_doc.rel)),
                            Some(format!("{}#{pointer}", new_doc.rel)),
                        ],
                        format!("{rel} cannot be read"),
                        &obstacle.keyword,
                        format!("{rel}#{} ({})", obstacle.pointer, obstacle.why),
                    ));
                    return;
                }
                let (side, doc) = if old_place.is_some() {
                    ("new", new_doc)
                } else {
                    ("old", old_doc)
                };
                let place = format!("{}#{pointer}", doc.rel);
                self.changes.push(Change::undecided(
                    &old_doc.name,
                    [
                        Some(format!("{}#{pointer}", old_doc.rel)),
                        Some(format!("{}#{pointer}", new_doc.rel)),
                    ],
                    format!("{place} is in one version only"),
                    "$ref",
                    format!("{place} (the {side} version has nothing there)"),
                ));
                return;
            }
        };
        self.differ
            .diff(&o, &n, &old_doc.name, "", &mut self.changes);
        // The envelope and its bodies are judged in parts: each method's and
        // event's own, and the envelope with its bodies left open.
        if old_doc.rel != "envelope/Envelope.json" && !body_files().contains(&old_doc.rel) {
            let part = Part {
                group: &old_doc.name,
                rel: &old_doc.rel,
                pointer,
            };
            self.wholes.push(Whole::of(
                self.prover,
                self.originals,
                &part,
                self.options.search,
                &mut self.defects,
            ));
        }
    }
}

fn added(new_doc: &contract::SchemaDoc, kind: DocKind, noun: &str) -> Change {
    Change {
        group: new_doc.name.clone(),
        rule: if kind == DocKind::Method {
            Rule::MethodAdded
        } else {
            Rule::EventAdded
        },
        old_pointer: None,
        new_pointer: Some(format!("{}#", new_doc.rel)),
        writer: Verdict::Compatible,
        reader: Verdict::Compatible,
        api: Verdict::Compatible,
        detail: format!("new {noun} {}", new_doc.name),
        why: None,
        example: None,
        undecided: None,
        shape: true,
    }
}

/// What a method or event file says outside its `params` and `result`, key
/// by key from a closed list; any other key that changed is "cannot decide".
fn root_changes(old_doc: &contract::SchemaDoc, new_doc: &contract::SchemaDoc) -> Vec<Change> {
    let empty = serde_json::Map::new();
    let [old_root, new_root] = [old_doc, new_doc].map(|d| d.value.as_object().unwrap_or(&empty));
    let mut keys: Vec<&String> = old_root.keys().chain(new_root.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut changes = Vec::new();
    let mut annotated = false;
    for key in keys {
        let (old, new) = (old_root.get(key), new_root.get(key));
        if old == new {
            continue;
        }
        let method = old_doc.kind == DocKind::Method && new_doc.kind == DocKind::Method;
        match key.as_str() {
            // Where the shapes are: `params` and `result` are compared as
            // parts, anything else under `$defs` through the references that
            // reach it; those comparisons read `$schema`, and `$id` is the
            // file's place on both sides (`own_id`).
            "$defs" | "$schema" | "$id" => {}
            // A file no lint has passed may spell these otherwise: a
            // value of another shape means nothing the checker knows.
            "x-transports" if method && !(transports(old) && transports(new)) => {
                changes.push(undecided_root_change(
                    old_doc,
                    new_doc,
                    key,
                    "is not a non-empty list of transport names, so which transports \
                     carry the method is not known",
                ));
            }
            "x-spawnsProcess" if method && !(flag(old) && flag(new)) => {
                changes.push(undecided_root_change(
                    old_doc,
                    new_doc,
                    key,
                    "is not a boolean, so whether the method starts processes is not known",
                ));
            }
            "x-transports" if method => changes.extend(transports_changed(old_doc, new_doc)),
            "x-errors" if method => changes.extend(errors_changed(old_doc, new_doc, [old, new])),
            "x-spawnsProcess" if method => {
                let spawns = |v: Option<&Value>| v == Some(&Value::Bool(true));
                if spawns(old) != spawns(new) {
                    changes.push(root_change(
                        old_doc,
                        new_doc,
                        Rule::MethodSpawnsProcessChanged,
                        key,
                        if spawns(new) {
                            "the method now starts processes".into()
                        } else {
                            "the method no longer starts processes".into()
                        },
                        true,
                    ));
                }
            }
            "title" | "description" | "x-since" | "$comment" => annotated = true,
            _ => changes.push(undecided_root_change(
                old_doc,
                new_doc,
                key,
                "is not modelled (a method's or event's file holds its shapes under `$defs`)",
            )),
        }
    }
    if annotated {
        let mut change = root_change(
            old_doc,
            new_doc,
            Rule::AnnotationChanged,
            "",
            "descriptions or other annotations changed".into(),
            false,
        );
        change.old_pointer = Some(format!("{}#", old_doc.rel));
        change.new_pointer = Some(format!("{}#", new_doc.rel));
        changes.push(change);
    }
    changes
}

/// A change at `key` of a method's or event's root the checker cannot
/// judge: breaking both ways, `what` saying why.
fn undecided_root_change(
    old_doc: &contract::SchemaDoc,
    new_doc: &contract::SchemaDoc,
    key: &str,
    what: &str,
) -> Change {
    let mut change = root_change(
        old_doc,
        new_doc,
        Rule::FileRootChanged,
        key,
        format!("`{key}` changed at the file's root"),
        true,
    );
    change.writer = Verdict::Breaking;
    change.reader = Verdict::Breaking;
    change.why = Some(format!(
        "cannot decide: {key} at {}#/{}: what it says there {what}",
        new_doc.rel,
        contract::escape_pointer_token(key)
    ));
    change.undecided = Some(key.to_string());
    change
}

/// Whether a method's `x-transports` is as the contract's meta-schema
/// spells it: a non-empty list of names.
fn transports(value: Option<&Value>) -> bool {
    value
        .and_then(Value::as_array)
        .is_some_and(|names| !names.is_empty() && names.iter().all(Value::is_string))
}

/// Whether a method's `x-spawnsProcess` is absent (it starts none) or a boolean.
fn flag(value: Option<&Value>) -> bool {
    value.is_none_or(Value::is_boolean)
}

/// A change of a method's or event's file at `key` of its root that holds
/// every way.
fn root_change(
    old_doc: &contract::SchemaDoc,
    new_doc: &contract::SchemaDoc,
    rule: Rule,
    key: &str,
    detail: String,
    shape: bool,
) -> Change {
    let at = |doc: &contract::SchemaDoc| {
        Some(format!(
            "{}#/{}",
            doc.rel,
            contract::escape_pointer_token(key)
        ))
    };
    Change {
        group: old_doc.name.clone(),
        rule,
        old_pointer: at(old_doc),
        new_pointer: at(new_doc),
        writer: Verdict::Compatible,
        reader: Verdict::Compatible,
        api: Verdict::Compatible,
        detail,
        why: None,
        example: None,
        undecided: None,
        shape,
    }
}

/// The strings of a list, sorted and each once: the order of `x-transports`
/// and `x-errors` means nothing.
fn string_set(list: Option<&Value>) -> Vec<&str> {
    let mut set: Vec<&str> = list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

fn transports_changed(
    old_doc: &contract::SchemaDoc,
    new_doc: &contract::SchemaDoc,
) -> Option<Change> {
    let [old, new] = [old_doc, new_doc].map(|d| string_set(d.annotation("x-transports")));
    if old == new {
        return None;
    }
    let narrowed = old.iter().any(|t| !new.contains(t));
    let mut change = root_change(
        old_doc,
        new_doc,
        Rule::MethodTransportsChanged,
        "x-transports",
        format!("transports {old:?} → {new:?}"),
        true,
    );
    if narrowed {
        change.reader = Verdict::Breaking;
        change.why = Some("an old client on a removed transport can no longer call it".into());
    }
    Some(change)
}

/// A method's `x-errors` changed. The wire holds either way (a reply's
/// `RpcError` reads any code of the enum); a new code the method may answer
/// with is a minor change, one it no longer answers with a patch.
fn errors_changed(
    old_doc: &contract::SchemaDoc,
    new_doc: &contract::SchemaDoc,
    [old, new]: [Option<&Value>; 2],
) -> Option<Change> {
    let (old, new) = (string_set(old), string_set(new));
    let added: Vec<&str> = new.iter().copied().filter(|e| !old.contains(e)).collect();
    let removed: Vec<&str> = old.iter().copied().filter(|e| !new.contains(e)).collect();
    if added.is_empty() && removed.is_empty() {
        return None;
    }
    let mut detail = Vec::new();
    if !added.is_empty() {
        detail.push(format!("may now answer with {added:?}"));
    }
    if !removed.is_empty() {
        detail.push(format!("no longer answers with {removed:?}"));
    }
    Some(root_change(
        old_doc,
        new_doc,
        Rule::MethodErrorsChanged,
        "x-errors",
        format!("errors: {}", detail.join("; ")),
        !added.is_empty(),
    ))
}

fn removed(new: &SchemaSet, old_doc: &contract::SchemaDoc, kind: DocKind, noun: &str) -> Change {
    let other = if kind == DocKind::Method {
        DocKind::Event
    } else {
        DocKind::Method
    };
    let became = new.get(other, &old_doc.name).is_some();
    Change {
        group: old_doc.name.clone(),
        rule: match (kind == DocKind::Method, became) {
            (true, true) => Rule::MethodBecameEvent,
            (true, false) => Rule::MethodRemoved,
            (false, true) => Rule::EventBecameMethod,
            (false, false) => Rule::EventRemoved,
        },
        old_pointer: Some(format!("{}#", old_doc.rel)),
        new_pointer: None,
        writer: if became {
            Verdict::Breaking
        } else {
            Verdict::Compatible
        },
        reader: Verdict::Breaking,
        api: Verdict::Compatible,
        detail: format!(
            "{noun} {} {}",
            old_doc.name,
            if became { "changed kind" } else { "removed" }
        ),
        why: Some(if kind == DocKind::Method {
            "an old client still calls it, and the new daemon does not answer it".into()
        } else {
            "an old daemon still sends it, and new clients no longer expect it".into()
        }),
        example: None,
        undecided: None,
        shape: true,
    }
}

/// Compares two single schema documents (one type, read and written by both sides).
///
/// ```
/// use compat::{compare_documents, Options, Verdict};
/// use contract::SchemaSet;
///
/// let set = |schema: &str| {
///     SchemaSet::from_texts(std::path::Path::new("example"), [("types/Count.json", schema)])
/// };
/// let old = set(r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer", "maximum": 10}"#)?;
/// let new = set(r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer", "maximum": 5}"#)?;
/// let comparison = compare_documents(&old, &new, Options::default())?;
/// // A new writer sends 0..=5, which an old reader takes; an old writer's 7
/// // is refused by a new reader.
/// assert_eq!(comparison.writer, Verdict::Compatible);
/// assert_eq!(comparison.reader, Verdict::Breaking);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compare_documents(
    old: &SchemaSet,
    new: &SchemaSet,
    options: Options,
) -> Result<Comparison, Error> {
    let mut changes = Vec::new();
    let mut wholes = Vec::new();
    let mut defects = Vec::new();
    let space = Space::new(old, new, options)?;
    let originals = Space::originals(old, new, options);
    let prover = prove::Prover::new(&space);
    if let (Some(old_doc), Some(new_doc)) = (old.docs.first(), new.docs.first()) {
        let written = |version: Version, rel: &str| {
            space
                .find(version, Role::Written, rel)
                .and_then(|doc| space.place(doc, ""))
        };
        if let (Some(o), Some(n)) = (
            written(Version::Old, &old_doc.rel),
            written(Version::New, &new_doc.rel),
        ) {
            diff::Differ::new(&prover).diff(&o, &n, &old_doc.name, "", &mut changes);
        }
        // No generator models two documents alone: what they name is
        // listed from the documents themselves, and a name gone breaks the
        // API wherever the diff's walk did not reach it.
        if !changes.iter().any(|change| change.rule.breaks_api()) {
            changes.extend(api::named_changes(old_doc, new_doc));
        }
        if old_doc.rel == new_doc.rel {
            let part = Part {
                group: &old_doc.name,
                rel: &old_doc.rel,
                pointer: "",
            };
            wholes.push(Whole::of(
                &prover,
                originals.as_ref(),
                &part,
                options.search,
                &mut defects,
            ));
        }
    }
    Ok(Comparison::reconcile(changes, &wholes, defects).read_with(options))
}

/// The bump `VERSION` declares over the latest release: `new` against `old`
/// (both `major.minor.patch`).
pub fn declared_bump(old: &str, new: &str) -> Result<Bump, Error> {
    let parse = |text: &str| -> Result<(u64, u64, u64), Error> {
        let not_semver = || Error::NotAVersion(text.trim().to_string());
        match text.trim().split('.').collect::<Vec<&str>>().as_slice() {
            [a, b, c] => Ok((
                a.parse().map_err(|_| not_semver())?,
                b.parse().map_err(|_| not_semver())?,
                c.parse().map_err(|_| not_semver())?,
            )),
            _ => Err(not_semver()),
        }
    };
    let (o, n) = (parse(old)?, parse(new)?);
    if n < o {
        return Err(Error::OlderThanRelease {
            version: new.trim().to_string(),
            release: old.trim().to_string(),
        });
    }
    Ok(if n.0 > o.0 {
        Bump::Major
    } else if n.1 > o.1 {
        Bump::Minor
    } else if n.2 > o.2 {
        Bump::Patch
    } else {
        Bump::None
    })
}

/// Why a declared bump does not cover a comparison, in words; `None` when it does.
pub fn bump_shortfall(comparison: &Comparison, declared: Bump) -> Option<String> {
    (declared < comparison.bump).then(|| {
        let worst = comparison
            .changes
            .iter()
            .find(|c| match comparison.bump {
                Bump::Major => !(c.writer.holds() && c.reader.holds() && c.api.holds()),
                Bump::Minor => c.shape,
                _ => true,
            })
            .map(|c| {
                format!(
                    " (for example {} in {}: {})",
                    c.rule,
                    c.group,
                    c.why.as_deref().unwrap_or(&c.detail)
                )
            })
            // No change to name: the shortfall is said without an example.
            .unwrap_or_default();
        format!(
            "the changes need {}, but VERSION declares {}{worst}",
            comparison.bump.phrase(),
            declared.phrase()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{reason_without, Direction};

    /// A set of one type, `types/List.json`, holding `schema`.
    fn set(schema: &str) -> contract::SchemaSet {
        contract::SchemaSet::from_texts(std::path::Path::new("t"), [("types/List.json", schema)])
            .expect("loads")
    }

    /// A resource embedded with a `$schema` of its own, which the validator
    /// does not register and reads in its own draft, is "cannot decide",
    /// with the document named as the set names it, never by a view's URI.
    #[test]
    fn the_resolvers_words_never_show_a_views_uri() {
        let old = set(
            r##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"p": {"$id": "x.json", "$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/int", "definitions": {"int": {"type": "integer"}}}}}"##,
        );
        let new = set(
            r##"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"p": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "integer"}}}"##,
        );
        let comparison =
            super::compare_documents(&old, &new, super::Options::default()).expect("compares");
        let said: Vec<&String> = comparison
            .changes
            .iter()
            .filter_map(|c| c.why.as_ref())
            .collect();
        assert!(
            said.iter()
                .any(|why| why.contains("$schema at types/List.json#/properties/p ")),
            "{said:?}"
        );
        assert!(
            !said.iter().any(|why| why.contains(".invalid/")),
            "{said:?}"
        );
    }

    /// Across drafts a report names places as the files spell them, not as
    /// their 2020-12 rewrites do (`items`, not `prefixItems`, in draft 7).
    #[test]
    fn a_place_across_drafts_is_named_as_the_file_spells_it() {
        let old = set(
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}"#,
        );
        let new = set(
            r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}"#,
        );
        let comparison =
            super::compare_documents(&old, &new, super::Options::default()).expect("compares");
        let places: Vec<_> = comparison
            .changes
            .iter()
            .map(|c| (c.old_pointer.as_deref(), c.new_pointer.as_deref()))
            .collect();
        assert!(
            places.contains(&(
                Some("types/List.json#/items/1/type"),
                Some("types/List.json#/prefixItems/1/type")
            )),
            "{places:?}"
        );
    }

    /// Across drafts the prover reads the rewrites; the documents as
    /// written are asked too, so a rewrite that accepts less than its
    /// original (planted here) cannot carry a "compatible" that a value of
    /// the original refutes.
    #[test]
    fn a_rewrite_that_changed_a_meaning_is_refuted_by_the_documents_as_written() {
        // Draft 7's tuple takes anything after its string; the new version's
        // takes only strings there.
        let old = set(
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}]}"#,
        );
        let new = set(
            r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}}"#,
        );
        let options = super::Options {
            search: 64,
            ..Default::default()
        };
        let honest = super::compare_documents(&old, &new, options).expect("compares");
        assert_eq!(honest.reader, super::Verdict::Breaking);
        assert!(honest.defects.is_empty());
        crate::upgrade::tests::CLOSES_TUPLES.set(true);
        let planted = super::compare_documents(&old, &new, options);
        crate::upgrade::tests::CLOSES_TUPLES.set(false);
        let planted = planted.expect("compares");
        let defect = planted
            .defects
            .iter()
            .find(|d| d.direction == Direction::Reader)
            .unwrap_or_else(|| panic!("no defect reported: {:?}", planted.defects));
        assert_ne!(planted.reader, super::Verdict::Compatible);
        // The value the original writer takes and the new reader refuses:
        // a non-string after the first item.
        let items = defect.value.as_array().expect("an array");
        assert!(items.len() > 1 && items.iter().skip(1).any(|item| !item.is_string()));
    }

    /// A document its own draft's resolver refuses (a `$ref` to a file
    /// not in the set, under `if`, which draft 4 ignores) stands as `true`
    /// among the documents as written, and `true` accepts what the document
    /// refuses: no evidence against the verdict the rewrite gives. Drafts 4
    /// and 2020-12 alike take only `[]` of the arrays here, so both
    /// directions hold.
    #[test]
    fn a_document_its_own_resolver_refuses_is_no_evidence_against_a_verdict() {
        let old = set(
            r#"{"$schema": "http://json-schema.org/draft-04/schema#", "allOf": [{"items": [{"if": {"$ref": "https://example.invalid/elsewhere.json"}}]}, {"items": {"not": {}}}]}"#,
        );
        let new = set(r#"{"allOf": [{"items": false}]}"#);
        let options = super::Options {
            search: 300,
            ..Default::default()
        };
        let comparison = super::compare_documents(&old, &new, options).expect("compares");
        assert!(comparison.defects.is_empty(), "{:?}", comparison.defects);
        assert_eq!(comparison.writer, super::Verdict::Compatible);
        assert_eq!(comparison.reader, super::Verdict::Compatible);
    }

    /// Draft 4's `type: integer` refuses `1.0`, which `enum: [1]` takes (one
    /// value to `enum`, two to `type`): a writer's enum of integers is not
    /// inside an integer reader, and a change of an enum of integers is
    /// still judged value by value.
    #[test]
    fn draft_4_tells_1_from_1_0_where_an_enum_does_not() {
        let d4 = |body: &str| {
            set(&format!(
                r#"{{"$schema": "http://json-schema.org/draft-04/schema#", {body}}}"#
            ))
        };
        let compare = |old: &str, new: &str| {
            let options = super::Options {
                search: 0,
                ..Default::default()
            };
            super::compare_documents(&d4(old), &d4(new), options).expect("compares")
        };
        for new in [
            r#""enum": [1, 2]"#,
            r#""enum": [1], "not": {"type": "integer"}"#,
            r#""oneOf": [{"enum": [1], "type": "integer"}, {"enum": [1]}]"#,
            r#""anyOf": [{"type": "integer"}, {"enum": [2]}]"#,
            r#""enum": [[1, 1]]"#,
        ] {
            let old = if new.contains("[[") {
                r#""items": {"type": "integer"}"#
            } else {
                r#""type": "integer""#
            };
            let comparison = compare(old, new);
            assert!(!comparison.writer.holds(), "{new}: {:?}", comparison.writer);
        }
        let comparison = compare(
            r#""enum": [1, 2.0]"#,
            r#""type": "integer", "minimum": 1, "maximum": 2"#,
        );
        assert!(!comparison.reader.holds(), "{:?}", comparison.reader);
        let comparison = compare(r#""enum": [1, 2]"#, r#""enum": [1, 2, 3]"#);
        assert_eq!(comparison.reader, super::Verdict::Compatible);
        assert!(!comparison.writer.holds());
        // Nine such numbers in one value are more than are tried each way.
        let comparison = compare(
            r#""items": {"type": "integer"}"#,
            r#""enum": [[1, 2, 3, 4, 5, 6, 7, 8, 9]]"#,
        );
        assert!(
            comparison
                .changes
                .iter()
                .any(|c| c.undecided.as_deref() == Some("enum")
                    && c.writer == super::Verdict::Breaking),
            "{:#?}",
            comparison.changes
        );
    }

    /// The canonical form (the `jsonschema` crate's) recurses without end on
    /// a reference back to a schema with `unevaluatedProperties` beside it,
    /// under a union: the prover gives it no place that reaches such a
    /// keyword (it cannot decide them), so the comparison ends, undecided,
    /// where handing it over would overflow the stack.
    #[test]
    fn a_place_the_canonical_form_cannot_read_is_never_given_to_it() {
        let recursive = |beside: &str| {
            set(&format!(
                r##"{{"$defs": {{"c": {{"anyOf": [{{}}, {{"properties": {{"a": {{"$ref": "#/$defs/c",
                "unevaluatedProperties": false}}}}}}]}}}}, "$ref": "#/$defs/c"{beside}}}"##
            ))
        };
        let comparison = super::compare_documents(
            &recursive(""),
            &recursive(r#", "maxProperties": 3"#),
            super::Options::default(),
        )
        .expect("compares");
        assert!(comparison
            .changes
            .iter()
            .any(|c| c.undecided.as_deref() == Some("unevaluatedProperties")));
    }

    /// An anchor gone changes what a dynamic reference elsewhere resolves
    /// to: no change row may call it harmless (an annotation, compatible
    /// both ways); the part's whole verdict shows the break.
    #[test]
    fn an_anchor_removed_is_no_annotation() {
        let with_anchor = |anchor: &str| {
            set(&format!(
                r##"{{"type": "object", {anchor} "properties": {{"inner": {{"$ref": "inner.json"}}}},
                "$defs": {{"i": {{"$id": "inner.json", "$dynamicAnchor": "node", "type": ["object", "integer"],
                "properties": {{"x": {{"$dynamicRef": "#node"}}}}}}}}}}"##
            ))
        };
        let (old, new) = (with_anchor(r#""$dynamicAnchor": "node","#), with_anchor(""));
        let comparison =
            super::compare_documents(&old, &new, super::Options::default()).expect("compares");
        assert!(
            comparison
                .changes
                .iter()
                .all(|c| c.rule != super::Rule::AnnotationChanged),
            "{:#?}",
            comparison.changes
        );
        assert!(!comparison.writer.holds(), "{:?}", comparison.writer);
    }

    /// Fails unless the README holds `table` as the checker makes it.
    pub(crate) fn readme_shows(table: &str, what: &str) {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
                .expect("the README");
        assert!(
            readme.contains(table),
            "the README's {what} is not the checker's; put this in its place:\n{table}"
        );
    }

    #[test]
    fn a_reason_loses_only_the_way_that_settled() {
        let (w, r) = (Direction::Writer.fails(), Direction::Reader.fails());
        let both = format!("{w}: 1 is not a string; {r}: \"a\" is not an integer");
        assert_eq!(
            reason_without(both.clone(), Direction::Writer).as_deref(),
            Some(format!("{r}: \"a\" is not an integer").as_str())
        );
        assert_eq!(
            reason_without(both, Direction::Reader).as_deref(),
            Some(format!("{w}: 1 is not a string").as_str())
        );
        assert_eq!(reason_without(format!("{w}: x"), Direction::Writer), None);
        assert_eq!(reason_without(format!("{r}: x"), Direction::Reader), None);
        assert_eq!(
            reason_without(format!("{r}: x"), Direction::Writer).as_deref(),
            Some(format!("{r}: x").as_str())
        );
        let same = format!("{}x", super::BOTH_WAYS);
        assert_eq!(
            reason_without(same.clone(), Direction::Writer).as_deref(),
            Some(format!("{r}: x").as_str())
        );
        assert_eq!(
            reason_without(same, Direction::Reader).as_deref(),
            Some(format!("{w}: x").as_str())
        );
        let both_ways = "cannot decide: $ref at a.json#".to_string();
        for settled in [Direction::Writer, Direction::Reader] {
            assert_eq!(
                reason_without(both_ways.clone(), settled).as_deref(),
                Some(both_ways.as_str())
            );
        }
    }

    /// The validator reads a `multipleOf` past 2^53 as the double nearest
    /// it, and a value it divides as a double: `multipleOf: 2^54` takes
    /// 2^54 + 1 (the same double as 2^54), which `multipleOf: 2` refuses, so
    /// a divisor that divides the written one proves nothing up there.
    #[test]
    fn a_divisor_past_two_to_the_53_is_read_as_a_double() {
        let compare = |old: &str, new: &str| {
            let options = super::Options {
                search: 0,
                ..Default::default()
            };
            super::compare_documents(&set(old), &set(new), options).expect("compares")
        };
        for (old, new) in [
            (18_014_398_509_481_984u64, 2u64),
            (9_007_199_254_740_994, 2),
            (27_021_597_764_222_979, 9_007_199_254_740_993),
        ] {
            let written = format!(r#"{{"type": "integer", "multipleOf": {old}}}"#);
            let read = format!(r#"{{"type": "integer", "allOf": [{{"multipleOf": {new}}}]}}"#);
            let comparison = compare(&written, &read);
            assert!(
                !comparison.reader.holds(),
                "{old} then {new}: {:?}",
                comparison.reader
            );
        }
        // Below 2^53 the validator divides exactly, and so does the proof.
        let comparison = compare(
            r#"{"type": "integer", "multipleOf": 9007199254740990}"#,
            r#"{"type": "integer", "allOf": [{"multipleOf": 3}]}"#,
        );
        assert_eq!(comparison.reader, super::Verdict::Compatible);
    }

    /// A schema that comes back to itself without reading into the value
    /// (`a` through `if`, `not` and `allOf`) never ends for the validator:
    /// reached through a `$dynamicRef` below a member, it is "cannot decide"
    /// before any value is put to the validator, whose stack it would overflow.
    #[test]
    fn a_cycle_behind_a_dynamic_reference_is_never_validated() {
        let old = set(r##"{
            "$defs": {"a": {
                "$dynamicAnchor": "a",
                "if": {"not": {"allOf": [{"$ref": "#/$defs/a"}], "unevaluatedProperties": {}}},
                "else": {"properties": {"x": true}}
            }},
            "else": {"allOf": [{"patternProperties": {"^é": {"$dynamicRef": "#a"}}, "properties": {"y": true}}]}
        }"##);
        let new = set(r#"{"if": {"type": "boolean"}}"#);
        for (old, new) in [(&old, &new), (&new, &old)] {
            let comparison =
                super::compare_documents(old, new, super::Options::default()).expect("compares");
            assert!(!comparison.reader.holds() || !comparison.writer.holds());
        }
    }
}
