//! Violations as people and machines read them: `human`, `json` (one object
//! per line), `github` (workflow annotations), errors and warnings alike.

use std::fmt::Write as _;

use std::borrow::Cow;

use proto::wire::{printable, shortened, SENTENCE_CHARS};
use serde::Serialize;

/// One violation, located in a file.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Violation {
    /// The input file (`-` for standard input).
    pub file: String,
    /// The message's position in the file (array index or JSON Lines entry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// 1-based line, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Byte offset of the frame in a capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// What is wrong, and where in the message (its rule written as its id,
    /// `segment.range_order`).
    #[serde(flatten)]
    pub finding: crate::Finding,
}

/// How much a violation weighs: an error fails the check, a warning (a call
/// left open in a capture not known to be closed) is reported and passes.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Fails the check.
    Error,
    /// Reported; passes.
    Warning,
}

/// How violations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `file:line /pointer: [rule] message`, for people.
    Human,
    /// One JSON object per line.
    Json,
    /// GitHub workflow annotations (`::error file=…`).
    Github,
}

/// Renders violations in `format`, one per line, as errors.
pub fn render(violations: &[Violation], format: Format) -> String {
    render_at(violations, format, Level::Error)
}

/// Renders violations in `format`, one per line, at `level`: every format
/// says the level (`warning:` in human form, `"level"` in JSON, `::warning`
/// on GitHub), so warnings go to the same stream as errors.
pub fn render_at(violations: &[Violation], format: Format, level: Level) -> String {
    #[derive(Serialize)]
    struct Leveled<'a> {
        #[serde(flatten)]
        violation: &'a Violation,
        level: Level,
    }
    let mut out = String::new();
    for v in violations {
        // A message may quote a value of the input whole (a frame's worth),
        // and a report is read in a log: at most SENTENCE_CHARS of it, both
        // ends kept. The pointer stays exact in JSON, for tools.
        let message = shortened(&v.finding.message, SENTENCE_CHARS);
        match format {
            Format::Human => {
                // Names, pointers and messages can quote the input: each is
                // printed with its control characters escaped.
                let mut place = printable(&v.file).into_owned();
                if let Some(line) = v.line {
                    let _ = write!(place, ":{line}");
                }
                if let Some(offset) = v.offset {
                    let _ = write!(place, " @ byte {offset}");
                } else if let Some(index) = v.index {
                    let _ = write!(place, " [message {index}]");
                }
                let pointer = if v.finding.pointer.is_empty() {
                    "(root)".into()
                } else {
                    Cow::Owned(
                        shortened(&printable(&v.finding.pointer), SENTENCE_CHARS).into_owned(),
                    )
                };
                let warning = match level {
                    Level::Error => "",
                    Level::Warning => "warning: ",
                };
                // Strings, numbers and string-keyed maps: writing cannot fail.
                let _ = writeln!(
                    out,
                    "{place} {pointer}: [{}] {warning}{}",
                    v.finding.rule,
                    printable(&message)
                );
            }
            Format::Json => {
                let cut;
                let violation = match message {
                    Cow::Borrowed(_) => v,
                    Cow::Owned(message) => {
                        let mut shown = v.clone();
                        shown.finding.message = message;
                        cut = shown;
                        &cut
                    }
                };
                let leveled = Leveled { violation, level };
                let _ = writeln!(
                    out,
                    "{}",
                    // Strings, numbers and ids: serialising cannot fail.
                    serde_json::to_string(&leveled).unwrap_or_default()
                );
            }
            Format::Github => {
                let line = v.line.map_or(String::new(), |line| format!(",line={line}"));
                let title = format!(
                    "{} at {}",
                    v.finding.rule,
                    // As the human report says it: "/" is the member named "".
                    if v.finding.pointer.is_empty() {
                        Cow::Borrowed("(root)")
                    } else {
                        shortened(&v.finding.pointer, SENTENCE_CHARS)
                    }
                );
                let command = match level {
                    Level::Error => "error",
                    Level::Warning => "warning",
                };
                let _ = writeln!(
                    out,
                    "::{command} file={}{line},title={}::{}",
                    contract::github_property(&v.file),
                    contract::github_property(&title),
                    contract::github_data(&message)
                );
            }
        }
    }
    out
}
