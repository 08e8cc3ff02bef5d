//! Standard output as the command-line tools write it (`vdm-conform`,
//! `cargo xtask`): a reader that closes it early (`| head`) is no error, but
//! a report lost to a full disk (`… > report.json`) must not pass for a
//! written one, so the first other failure is kept for the exit status.

use std::io::Write as _;
use std::sync::OnceLock;

static LOST: OnceLock<String> = OnceLock::new();

/// Notes a failed write to stdout unless its reader closed it; the first
/// one noted is what [`lost`] says.
pub fn kept(written: std::io::Result<()>) {
    if let Err(err) = written {
        if err.kind() != std::io::ErrorKind::BrokenPipe {
            let _ = LOST.set(err.to_string());
        }
    }
}

/// Flushes stdout, then says why a write to it failed, if one did (other
/// than its reader closing it): a tool that ends with `Some` exits 2.
pub fn lost() -> Option<&'static str> {
    kept(std::io::stdout().lock().flush());
    LOST.get().map(String::as_str)
}
