//! The xtask binary's own output: what a CI step that saves a report sees.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::{Command, Stdio};

/// A report lost to a full disk (here `/dev/full`) is exit 2 with the
/// reason: `cargo xtask compat --format sarif > compat.sarif` must not
/// leave a cut log behind a success. A reader that closes early (`| head`)
/// ends the output quietly with the status of the verdict.
#[test]
fn a_report_that_cannot_be_written_is_an_error() {
    for args in [&["help"][..], &["compat", "--format", "sarif"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("error: writing to stdout: No space left on device"),
            "{args:?}: {said}"
        );

        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(!said.contains("panicked"), "{args:?}: {said}");
    }
}
