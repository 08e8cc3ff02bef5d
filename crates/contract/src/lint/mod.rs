//! The rules every contract schema follows, checked. Each rule has a stable id
//! (`lint.*`) so a refusal can be looked up in `docs/conformance.md`.
//!
//! The walk tells *shape* subschemas (those that say what a value looks like:
//! roots, `$defs`, properties, items, union branches) from *assertion*
//! subschemas (inside `if`/`then`/`else`/`not`): the conventions about closed
//! objects, bounds and descriptions are about shapes, while references, wire
//! names and extension keywords are checked everywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

use crate::{resolve_ref, DocKind, Pointer, SchemaDoc, SchemaSet, MAX_SAFE_INTEGER};

mod automaton;
mod pattern;
mod rules;
mod set;
mod text;
mod walk;

pub use automaton::{pattern_automaton, Automaton, MAX_PATTERN_STATES};
pub use pattern::pattern_reads_alike;
pub use rules::{LintRule, Violation, INHERITED_NAMES, KEYWORDS, KNOWN_EXTENSIONS};
use set::{
    envelope_coverage, expansion_bound, places_every_file_system_keeps, secret_transport,
    transport_vocabulary,
};
pub use text::bidi_controls;
pub(crate) use text::is_bidi_control;
use walk::{Linter, MetaValidators};

/// Lints a whole set. The result is sorted and empty when the set is clean.
pub fn lint(set: &SchemaSet) -> Vec<Violation> {
    let mut out = Vec::new();
    let meta = MetaValidators::new();
    for doc in &set.docs {
        let mut linter = Linter {
            set,
            doc,
            file: set.display_path(doc),
            out: &mut out,
        };
        linter.root(&meta);
    }
    envelope_coverage(set, &mut out);
    places_every_file_system_keeps(set, &mut out);
    secret_transport(set, &mut out);
    transport_vocabulary(set, &mut out);
    expansion_bound(set, &mut out);
    out.sort();
    out.dedup();
    out
}
