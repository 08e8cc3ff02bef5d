//! The comparison as a reviewer reads it: grouped by method or type, one line
//! per change, the verdict each way, the pointers, the counterexample.

use std::fmt::Write as _;

use crate::{Bump, Comparison, Verdict};

fn mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Compatible => "ok",
        Verdict::Breaking => "BREAKS",
    }
}

/// The human report. `declared` is the bump `VERSION` makes, when known.
pub fn human(comparison: &Comparison, declared: Option<Bump>) -> String {
    let mut out = String::new();
    let mut group = None;
    for change in &comparison.changes {
        if group != Some(&change.group) {
            let _ = writeln!(out, "{}", change.group);
            group = Some(&change.group);
        }
        let _ = writeln!(
            out,
            "  {:<32} W {:<6} R {:<6} API {:<6} {}",
            change.rule,
            mark(change.writer),
            mark(change.reader),
            mark(change.api),
            change.detail
        );
        let pointers = [
            change.old_pointer.as_deref().map(|p| format!("old {p}")),
            change.new_pointer.as_deref().map(|p| format!("new {p}")),
        ];
        let _ = writeln!(
            out,
            "      {}",
            pointers
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("  ")
        );
        if let Some(why) = &change.why {
            let _ = writeln!(out, "      why: {why}");
        }
        if let Some(example) = &change.example {
            let at = if example.path.is_empty() {
                "(root)".into()
            } else {
                example.path.clone()
            };
            let _ = writeln!(
                out,
                "      e.g. at {at}: {} (the {} schema accepts it, the other refuses it)",
                crate::example::describe(&example.value),
                example.accepted_by
            );
        }
    }
    if comparison.changes.is_empty() {
        let _ = writeln!(out, "no changes");
    }
    let _ = writeln!(
        out,
        "\nnew writer → old reader (W): {}; old writer → new reader (R): {}; code on the generated bindings (API): {}; the change set needs a {} bump",
        verdict_word(comparison.writer),
        verdict_word(comparison.reader),
        verdict_word(comparison.api),
        comparison.bump
    );
    if let Some(declared) = declared {
        let _ = writeln!(
            out,
            "VERSION declares a {declared} bump{}",
            if declared >= comparison.bump {
                ""
            } else {
                ": too little"
            }
        );
    }
    out
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Compatible => "compatible",
        Verdict::Breaking => "breaking",
    }
}
