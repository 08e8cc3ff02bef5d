//! Running one invocation: the argv spawned directly, the input on stdin,
//! both output streams captured within bounds, all under one deadline.
//!
//! # What the deadline bounds
//!
//! The child leads its own process group. At the deadline the group gets
//! SIGTERM, then SIGKILL after [`GRACE`]. The deadline bounds the *capture*,
//! not only the child: a helper the tool left in the background can hold the
//! output pipes open after the tool exits, so once the child is gone the
//! pipes get a bounded wait, and whatever is left of the group is then
//! signalled the same way. A call is always answered by its deadline (plus
//! the grace).
//!
//! # Caveats
//!
//! This is not a sandbox. The tool runs as the executor's user, with the
//! directory and environment the tool set allows. A descendant that leaves
//! the process group (`setsid`, `setpgid`) is outside the signal and survives;
//! CPU, memory and file-system use are not limited.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use proto::{ToolCapture, ToolInvokeParams};
use serde_json::Value;

use crate::config::{Loaded, Tool};

/// How much of one stream a capture keeps, derived from the frame it must fit:
/// two streams, and JSON may spend six bytes on one (a control byte becomes
/// `\u00XX`), so a full capture stays well inside one frame.
pub const CAPTURE_LIMIT: usize = proto::MAX_FRAME / 16;

/// The prefix of every line the executor itself writes into a capture.
pub const PREFIX: &str = "vdm-exec:";

/// The exit code of a call refused before anything ran: an unknown tool, a
/// command that cannot be started, a refused working directory, or input that
/// fails the tool's `inputSchema` (the shell's "command not found").
pub const NOT_RUN: i32 = 127;

/// The exit code of a tool that overran its deadline (the `timeout` convention).
pub const TIMED_OUT: i32 = 124;

/// The exit code of a tool ended by a signal the executor did not send. The
/// shell says `128 + N`; which signal it was is not carried.
pub const SIGNALLED: i32 = 128;

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_millis(500);

/// How long the pipes may stay open after the tool itself exited, for output
/// still in flight, before what is left of its group is stopped.
pub const PIPE_LINGER: Duration = Duration::from_millis(200);

/// Environment variables every tool receives (when the executor has them).
pub const DEFAULT_ENV: &[&str] = &["PATH", "LANG", "LC_ALL", "HOME", "TZ"];

/// A refusal in the three facts: nothing ran, and one line says why and how to fix it.
pub fn refused(reason: &str) -> ToolCapture {
    ToolCapture {
        exit_code: NOT_RUN,
        stdout: String::new(),
        stderr: format!("{PREFIX} {reason}\n"),
    }
}

/// Runs one invocation against the tool set. Every outcome is a capture.
pub fn execute(tools: &Loaded, invocation: &ToolInvokeParams) -> ToolCapture {
    let Some(tool) = tools.tool(&invocation.tool) else {
        let known: Vec<&str> = tools.set.tools.iter().map(|t| t.name.as_str()).collect();
        return refused(&format!(
            "this machine has no tool called {:?}; it has: {}",
            invocation.tool,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ));
    };
    let cwd = match working_directory(tool, invocation.cwd.as_deref()) {
        Ok(cwd) => cwd,
        Err(reason) => return refused(&reason),
    };
    if let Some(validator) = tools.input_validator(&tool.name) {
        if let Some(error) = validator.iter_errors(&invocation.input).next() {
            let at = error.instance_path().as_str();
            return refused(&format!(
                "the input does not match the inputSchema of {:?} at {}: {error}",
                tool.name,
                if at.is_empty() { "(root)" } else { at }
            ));
        }
    }
    let deadline = Instant::now() + tool.deadline();
    run_child(tool, cwd.as_deref(), &invocation.input, deadline)
}

/// The directory a call runs in: the call's own only if the tool consents and
/// it is an absolute path to an existing directory; otherwise the tool's.
fn working_directory(tool: &Tool, asked: Option<&str>) -> Result<Option<PathBuf>, String> {
    let Some(asked) = asked else {
        return Ok(tool.cwd.clone());
    };
    if !tool.subject_cwd {
        return Err(format!(
            "the call names a working directory, and the tool set does not allow it for {:?}: add \"subjectCwd\": true to that tool's entry, or call without cwd",
            tool.name
        ));
    }
    let path = Path::new(asked);
    if !path.is_absolute() {
        return Err(format!(
            "the working directory {asked:?} is relative, and would resolve against wherever the executor was started: send an absolute path"
        ));
    }
    if !path.is_dir() {
        return Err(format!("the working directory {asked:?} is not an existing directory on this machine: create it, or send one that exists"));
    }
    Ok(Some(path.to_path_buf()))
}

/// One stream's capture: the bytes kept, and how many were dropped past the limit.
#[derive(Debug, Default)]
struct Bounded {
    kept: Vec<u8>,
    dropped: u64,
}

impl Bounded {
    /// Text, once: invalid UTF-8 is replaced, and a dropped tail is said in-band.
    fn into_text(self, stream: &str) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "{PREFIX} {} more bytes of {stream} were dropped: a capture keeps {CAPTURE_LIMIT} bytes per stream\n",
                self.dropped
            ));
        }
        text
    }
}

/// Reads a pipe to its end, keeping at most `CAPTURE_LIMIT` bytes and
/// counting the rest, so the child never blocks on a full pipe.
fn pump(mut pipe: impl Read) -> Bounded {
    let mut out = Bounded::default();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut chunk) {
            Ok(0) => return out,
            Ok(n) => {
                let room = CAPTURE_LIMIT.saturating_sub(out.kept.len());
                let read = chunk.get(..n).unwrap_or_default();
                let (keep, drop) = read.split_at(n.min(room));
                out.kept.extend_from_slice(keep);
                out.dropped += drop.len() as u64;
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return out,
        }
    }
}

fn run_child(tool: &Tool, cwd: Option<&Path>, input: &Value, deadline: Instant) -> ToolCapture {
    let Some((program, args)) = tool.command.split_first() else {
        return refused(&format!("the tool {:?} has an empty command", tool.name));
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in DEFAULT_ENV
        .iter()
        .copied()
        .chain(tool.env.iter().map(String::as_str))
    {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    // The child leads a new process group, so the deadline reaches what it starts.
    command.process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return refused(&format!("cannot start {program:?} for the tool {:?}: {err}; check the command in the tool set", tool.name));
        }
    };
    let group = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        signal_group(group, libc::SIGKILL);
        let _ = child.wait();
        return refused("the tool's pipes could not be set up");
    };
    // All three pipes move at once: a tool that writes a lot before it reads
    // its input must not deadlock against us.
    let body = serde_json::to_vec(input).unwrap_or_default();
    let feeder = thread::spawn(move || {
        let mut stdin = stdin;
        // A tool that exits without reading its input closes the pipe: not an error.
        let _ = stdin.write_all(&body);
    });
    let (out_tx, out_rx) = mpsc::channel();
    let (err_tx, err_rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = out_tx.send(pump(stdout));
    });
    thread::spawn(move || {
        let _ = err_tx.send(pump(stderr));
    });

    // A waiter thread blocks in wait(2), so a quick tool is answered as soon
    // as it exits; the deadline is a timeout on its message. The waiter
    // cannot outlive the call: at the deadline the group is killed.
    let (exit_tx, exit_rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = exit_tx.send(child.wait().ok());
    });
    let (mut status, timed_out) =
        match exit_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(status) => (status, false),
            Err(_) => (None, true),
        };
    if timed_out {
        status = stop_group(group, &exit_rx);
    }
    // The child is gone; its output may still be held open by a helper.
    let linger = if timed_out {
        Instant::now() + GRACE
    } else {
        (Instant::now() + PIPE_LINGER).min(deadline.max(Instant::now()))
    };
    let mut stdout = out_rx
        .recv_timeout(linger.saturating_duration_since(Instant::now()))
        .ok();
    let mut stderr = err_rx
        .recv_timeout(linger.saturating_duration_since(Instant::now()))
        .ok();
    // Whatever is left of the group goes now, which also closes the pipes it held.
    if group_alive(group) {
        stop_group(group, &exit_rx);
    }
    if stdout.is_none() {
        stdout = out_rx.recv_timeout(GRACE).ok();
    }
    if stderr.is_none() {
        stderr = err_rx.recv_timeout(GRACE).ok();
    }
    let _ = feeder.join();

    let exit_code = match (timed_out, status) {
        (true, _) => TIMED_OUT,
        (false, Some(status)) => status.code().unwrap_or(SIGNALLED),
        (false, None) => SIGNALLED,
    };
    let mut stderr = stderr.unwrap_or_default().into_text("stderr");
    if timed_out {
        stderr.push_str(&format!(
            "{PREFIX} the tool {:?} overran its {} s deadline and was stopped\n",
            tool.name,
            tool.deadline().as_secs()
        ));
    }
    ToolCapture {
        exit_code,
        stdout: stdout.unwrap_or_default().into_text("stdout"),
        stderr,
    }
}

/// TERM to the group, a grace, then KILL. Returns the child's status if it
/// arrives meanwhile (`None` once it was already taken, or never came).
fn stop_group(group: u32, exited: &mpsc::Receiver<Option<ExitStatus>>) -> Option<ExitStatus> {
    signal_group(group, libc::SIGTERM);
    let until = Instant::now() + GRACE;
    let mut status = None;
    while Instant::now() < until {
        if status.is_none() {
            status = exited.try_recv().ok().flatten();
        }
        if !group_alive(group) {
            return status;
        }
        thread::sleep(Duration::from_millis(5));
    }
    signal_group(group, libc::SIGKILL);
    status.or_else(|| exited.recv_timeout(GRACE).ok().flatten())
}

fn signal_group(group: u32, signal: libc::c_int) {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals that process group; it takes
    // plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-group, signal);
    }
}

/// Whether any process of the group still exists (signal 0 checks without sending).
fn group_alive(group: u32) -> bool {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return false;
    };
    // SAFETY: as above; signal 0 only asks whether the group exists.
    unsafe { libc::kill(-group, 0) == 0 }
}
