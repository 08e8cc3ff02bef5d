//! The contract's schema set as data: loading it from a folder (or from text
//! compiled into a binary), resolving its `$ref`s without a network, and the
//! lint that holds every schema to the conventions of `schema/`.
//!
//! Everything that reads the schemas — codegen, the conformance checker, the
//! compatibility checker — starts here, so there is one notion of "the schema
//! set" and one place where a malformed schema becomes a named error.

pub mod envelope;
mod json;
mod lint;
mod load;
mod pointer;
mod resolve;
mod since;
pub mod stdout;

pub use json::{dismantle, read as read_json, TooDeep, MAX_JSON_DEPTH};
pub use lint::{
    bidi_controls, lint, pattern_automaton, pattern_reads_alike, Automaton, LintRule, Violation,
    INHERITED_NAMES, KEYWORDS, MAX_PATTERN_STATES,
};
pub use load::{
    read_bounded, read_file, utf8, DeepDocuments, DocKind, SchemaDoc, SchemaSet, MAX_FILE,
};
pub use pointer::{escape as escape_pointer_token, unescape as unescape_pointer_token, Pointer};
pub use resolve::{
    expansion, files_reached, resolve_ref, Reached, Resolved, Unbounded, MAX_EXPANDED,
};
pub use since::{since, Released};

use std::path::PathBuf;

/// Text from a schema file or a validator (a name, a pointer, a message
/// quoting a value) with its control characters, U+2028, U+2029 and the
/// bidirectional formatting characters escaped as a backslash, `u` and four
/// hex digits, so what a tool prints from it (a review comment too) is one
/// line that says only what it says, in the order it is read.
/// (`proto::wire::printable` escapes the same, alike, for the wire's side;
/// neither crate depends on the other.)
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_control() || matches!(ch, '\u{2028}' | '\u{2029}') || lint::is_bidi_control(ch) {
            // Every such character is below U+10000: four digits hold it.
            out.push_str(&format!("\\u{:04x}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    out
}

/// `text` between double quotes as a message quotes a name from a schema:
/// `"` and `\` escaped with a backslash, the rest as [`plain`] writes it,
/// so the quoted text is a JSON string and ends where it seems to.
pub fn quoted(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{}\"", plain(&escaped))
}

/// `text` as the data of a GitHub workflow command (`::error ...::DATA`),
/// which ends at a line break and reads `%` specially: [`plain`], then `%`
/// escaped as the commands ask.
pub fn github_data(text: &str) -> String {
    plain(text).replace('%', "%25")
}

/// `text` as a property of a GitHub workflow command (`file=`, `title=`),
/// which also ends at `,` and `:`.
pub fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The name of `known` nearest to `name`, at most two edits away (a
/// letter added, dropped, changed or two swapped), for a "did you mean".
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|known| (strsim::damerau_levenshtein(name, known), known))
        .filter(|(distance, _)| *distance <= 2)
        .min()
        .map(|(_, known)| known)
}

/// The largest integer every JSON reader keeps exactly (2^53 − 1): no integer
/// bound in the contract may exceed it, so a JavaScript peer never rounds.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// The base every contract `$id` lives under. `.invalid` is reserved (RFC 2606),
/// so nothing can ever be fetched from it, even by a validator that tries.
pub const ID_BASE: &str = "https://schemas.vdm.invalid/";

/// The draft every contract schema is written in.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The strings of a JSON array (`required`, `enum`, `x-transports`, ...);
/// anything that is not a string, or not an array, contributes nothing.
pub fn string_list(value: Option<&serde_json::Value>) -> Vec<&str> {
    // Absent, or not a list: no strings.
    value
        .and_then(serde_json::Value::as_array)
        .map(|items| items.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default()
}

/// Why a schema set could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // The cause is said in the message and not chained as a source as
    // well, which printed it twice in an error's chain.
    /// A file could not be read.
    #[error("{path}: cannot read: {why}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        why: std::io::Error,
    },
    /// A file is larger than [`MAX_FILE`]: a wrong path (a device such as
    /// `/dev/zero`, a log, a capture) rather than a schema or a table.
    #[error("{path}: larger than {} MiB, more than any file read whole here holds: is it the right file?", MAX_FILE >> 20)]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// A file's text is not UTF-8, so not JSON (RFC 8259, section 8.1).
    #[error("{path}:{line}:{column}: not UTF-8 text (byte offset {offset}){}", match .marked { Some(encoding) => format!(": it starts with a {encoding} byte-order mark; save the file as UTF-8"), None => String::new() })]
    NotUtf8 {
        /// `UTF-16` or `UTF-32` when it starts with that encoding's
        /// byte-order mark (a file saved as UTF-16: PowerShell 5's `>`,
        /// Notepad's "Unicode").
        marked: Option<&'static str>,
        /// The file.
        path: PathBuf,
        /// The line of the first byte that is not UTF-8, from 1.
        line: usize,
        /// Its column on that line, from 1, in characters.
        column: usize,
        /// Its offset in the file, from 0.
        offset: usize,
    },
    /// A file is not JSON.
    #[error("{path}: not JSON: {why}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and why.
        why: serde_json::Error,
    },
    /// A file is not where the set's layout puts its kind.
    #[error("{path}: {message}")]
    Layout {
        /// The file.
        path: PathBuf,
        /// What is out of place.
        message: String,
    },
    /// A file nests deeper than a schema may.
    #[error(
        "{path}: nests {depth} levels deep at {pointer}, past the {MAX_JSON_DEPTH} a schema may"
    )]
    TooDeep {
        /// The file.
        path: PathBuf,
        /// How deep it goes.
        depth: usize,
        /// Where it first goes past the limit.
        pointer: String,
    },
    /// The validator's registry refused the set.
    #[error("cannot build the schema registry: {0}")]
    Registry(String),
}

#[cfg(test)]
mod tests {
    /// A quoted name is a JSON string that reads back as the name, on one
    /// line: whatever characters it holds, it ends where it seems to.
    #[test]
    fn a_quoted_name_reads_back_as_json() {
        let beyond = ['\u{10000}', '\u{1f600}', '\u{10ffff}'];
        for c in (0..=0xffffu32).filter_map(char::from_u32).chain(beyond) {
            let name = format!("a{c}\"\\{c}b");
            let quoted = super::quoted(&name);
            assert_eq!(
                serde_json::from_str::<String>(&quoted).ok().as_deref(),
                Some(name.as_str()),
                "U+{:04X}: {quoted}",
                u32::from(c)
            );
            assert_eq!(quoted.lines().count(), 1, "U+{:04X}", u32::from(c));
        }
    }
}
