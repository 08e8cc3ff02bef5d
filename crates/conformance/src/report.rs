//! Violations as people and machines read them: `human`, `json` (one object
//! per line), `github` (workflow annotations).

use std::fmt::Write as _;

use serde::Serialize;

/// One violation, located in a file.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Violation {
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
    pub pointer: String,
    pub rule: String,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    Github,
}

/// Renders violations in `format`, one per line.
pub fn render(violations: &[Violation], format: Format) -> String {
    let mut out = String::new();
    for v in violations {
        match format {
            Format::Human => {
                let mut place = v.file.clone();
                if let Some(line) = v.line {
                    let _ = write!(place, ":{line}");
                }
                if let Some(offset) = v.offset {
                    let _ = write!(place, " @ byte {offset}");
                } else if let Some(index) = v.index {
                    let _ = write!(place, " [message {index}]");
                }
                let pointer = if v.pointer.is_empty() {
                    "(root)"
                } else {
                    &v.pointer
                };
                let _ = writeln!(out, "{place} {pointer}: [{}] {}", v.rule, v.message);
            }
            Format::Json => {
                let _ = writeln!(out, "{}", serde_json::to_string(v).unwrap_or_default());
            }
            Format::Github => {
                let line = v.line.map_or(String::new(), |line| format!(",line={line}"));
                let title = format!(
                    "{} at {}",
                    v.rule,
                    if v.pointer.is_empty() {
                        "/"
                    } else {
                        &v.pointer
                    }
                );
                let _ = writeln!(
                    out,
                    "::error file={}{line},title={}::{}",
                    escape_property(&v.file),
                    escape_property(&title),
                    escape_data(&v.message)
                );
            }
        }
    }
    out
}

/// GitHub workflow commands escape `%`, CR and LF in data, and `:`/`,` too in properties.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
