//! A tool that prints a gibibyte costs the executor a bounded capture, not a
//! gibibyte. Alone in its test binary, so the peak it reads is its own.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{call, tools};
use exec::run::CAPTURE_LIMIT;
use serde_json::json;

/// The process's peak resident set, in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

#[test]
fn a_gibibyte_of_output_keeps_memory_bounded() {
    let set = tools(&[(
        "chatter",
        &["chatter", "1073741824"],
        json!({"deadlineSecs": 120}),
    )]);
    let before = peak_kib();
    let capture = call(&set, "chatter", json!({}), None);
    let grew = peak_kib().saturating_sub(before);
    assert_eq!(capture.exit_code, 0, "{}", capture.stderr);
    assert!(capture.stdout.len() < CAPTURE_LIMIT + 200);
    assert!(capture.stdout.contains(&format!(
        "vdm-exec: {} more bytes of stdout were dropped",
        (1u64 << 30) - CAPTURE_LIMIT as u64
    )));
    assert!(grew < 32 * 1024, "the peak resident set grew by {grew} KiB");
}
