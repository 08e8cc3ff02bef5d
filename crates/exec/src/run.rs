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
//! signalled the same way. What still holds the pipes after that is outside
//! the group; the capture then keeps what arrived and the one I/O thread of
//! the call stops, so a long-running `serve` collects no stranded threads. A
//! call is always answered by its deadline (plus the grace).
//!
//! # Caveats
//!
//! This is not a sandbox. The tool runs as the executor's user, with the
//! directory and environment the tool set allows. A descendant that leaves
//! the process group (`setsid`, `setpgid`) is outside the signal and survives
//! (and output it writes after the capture ended is lost);
//! CPU, memory and file-system use are not limited.
//!
//! # When the executor itself stops
//!
//! A signal to the executor reaches none of its tools, which lead groups of
//! their own; [`stop_all`] ends every running call's group the same way as
//! a deadline does, and any started after it at once, so that an executor
//! told to stop, or whose peer is gone, leaves no tool behind.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Mutex, PoisonError};
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
/// shell says `128 + N`; here the signal is named on stderr instead, in one of
/// the executor's own lines.
pub const SIGNALLED: i32 = 128;

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_millis(500);

/// How long the pipes may stay open after the tool itself exited, for output
/// still in flight, before what is left of its group is stopped.
pub const PIPE_LINGER: Duration = Duration::from_millis(200);

/// Environment variables every tool receives (when the executor has them).
pub const DEFAULT_ENV: &[&str] = &["PATH", "LANG", "LC_ALL", "HOME", "TZ"];

/// A refusal in the three facts: nothing ran, and one line says why and how
/// to fix it. The reason may quote the call (a tool name, the input where it
/// misses the `inputSchema`), so it is held to one line of bounded length:
/// the reply must fit a frame whatever the call carried.
pub fn refused(reason: &str) -> ToolCapture {
    let reason = proto::wire::printable(reason);
    let reason = proto::wire::shortened(&reason, proto::wire::SENTENCE_CHARS);
    ToolCapture::new(NOT_RUN, format!("{PREFIX} {reason}\n"), String::new())
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
            // Masked: the place and the rule, never the value, which may be a
            // credential the caller passes its tool (an inputSchema has no
            // `x-secret` to say so), and the refusal is shown and logged.
            return refused(&format!(
                "the input does not match the inputSchema of {:?} at {}: {}",
                tool.name,
                if at.is_empty() { "(root)" } else { at },
                error.masked()
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
            own_line(
                &mut text,
                format!(
                    "{} more bytes of {stream} were dropped: a capture keeps {CAPTURE_LIMIT} bytes per stream",
                    self.dropped
                ),
            );
        }
        text
    }
}

impl Bounded {
    /// Keeps what fits under `CAPTURE_LIMIT` and counts the rest.
    fn take(&mut self, read: &[u8]) {
        let room = CAPTURE_LIMIT.saturating_sub(self.kept.len());
        let (keep, drop) = read.split_at(read.len().min(room));
        self.kept.extend_from_slice(keep);
        self.dropped += drop.len() as u64;
    }
}

/// The three pipes of one child, moved on one thread: the input is written
/// to stdin (then closed) while stdout and stderr are drained into bounded
/// captures, so the child never blocks on a full pipe and a tool that writes
/// before it reads cannot deadlock against us. It ends when all three are
/// done, or as soon as `stop` is closed: a descendant outside the process
/// group can hold the pipes open for as long as it lives, and then the
/// capture keeps what was read so far rather than a thread that waits on it.
struct Pumps {
    stdin: Option<ChildStdin>,
    input: Vec<u8>,
    written: usize,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    out: Bounded,
    err: Bounded,
}

impl Pumps {
    fn run(mut self, stop: OwnedFd) -> (Bounded, Bounded) {
        for fd in [
            self.stdin.as_ref().map(AsRawFd::as_raw_fd),
            self.stdout.as_ref().map(AsRawFd::as_raw_fd),
            self.stderr.as_ref().map(AsRawFd::as_raw_fd),
        ]
        .into_iter()
        .flatten()
        {
            set_nonblocking(fd);
        }
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            if self.stdin.is_some() && self.written >= self.input.len() {
                self.stdin = None; // all written: the tool sees the end of its input
            }
            let watched = [
                (self.stdin.as_ref().map(AsRawFd::as_raw_fd), libc::POLLOUT),
                (self.stdout.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                (self.stderr.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
                (Some(stop.as_raw_fd()), libc::POLLIN),
            ];
            if watched.iter().take(3).all(|(fd, _)| fd.is_none()) {
                break;
            }
            let mut fds: Vec<libc::pollfd> = watched
                .iter()
                .map(|(fd, events)| libc::pollfd {
                    fd: fd.unwrap_or(-1), // poll(2) skips negative descriptors
                    events: *events,
                    revents: 0,
                })
                .collect();
            // SAFETY: `fds` is a live, writable array of `fds.len()` pollfds.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
            let revents = |index: usize| fds.get(index).map_or(0, |fd| fd.revents);
            if revents(3) != 0 {
                break; // stopped: keep what was read
            }
            if revents(0) != 0 {
                self.feed();
            }
            if revents(1) != 0 {
                drain(&mut self.stdout, &mut self.out, &mut chunk);
            }
            if revents(2) != 0 {
                drain(&mut self.stderr, &mut self.err, &mut chunk);
            }
        }
        (self.out, self.err)
    }

    /// Writes what the pipe takes now. A tool that exits or closes its input
    /// without reading it all is not an error: the rest is not sent.
    fn feed(&mut self) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        loop {
            let Some(rest) = self
                .input
                .get(self.written..)
                .filter(|rest| !rest.is_empty())
            else {
                return;
            };
            match stdin.write(rest) {
                Ok(0) => break,
                Ok(n) => self.written += n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => break,
            }
        }
        self.stdin = None;
    }
}

/// Reads what a pipe holds now into its capture; at its end (or an error)
/// the pipe is closed.
fn drain<P: Read>(pipe: &mut Option<P>, into: &mut Bounded, chunk: &mut [u8]) {
    let Some(reader) = pipe.as_mut() else {
        return;
    };
    loop {
        match reader.read(chunk) {
            Ok(0) => break,
            // `read` returns at most the chunk's length: the default is never taken.
            Ok(n) => into.take(chunk.get(..n).unwrap_or_default()),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(_) => break,
        }
    }
    *pipe = None;
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl(2) on a descriptor this process owns, with integer flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// A pipe whose write end, once dropped, wakes the pumps' poll: the read end
/// goes to the pumps, the write end stays with the caller.
fn stop_pipe() -> Option<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2(2) writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    let [read, write] = fds;
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Some(unsafe { (OwnedFd::from_raw_fd(read), OwnedFd::from_raw_fd(write)) })
}

fn run_child(tool: &Tool, cwd: Option<&Path>, input: &Value, deadline: Instant) -> ToolCapture {
    let Some((program, args)) = tool.command.split_first() else {
        return refused(&format!("the tool {:?} has an empty command", tool.name));
    };
    let (mut child, _running) = match Running::spawn(&mut command(tool, program, args, cwd)) {
        Some(Ok(started)) => started,
        Some(Err(err)) => {
            return refused(&format!("cannot start {program:?} for the tool {:?}: {err}; check the command in the tool set", tool.name));
        }
        None => return refused("the executor is stopping"),
    };
    let group = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        procgroup::signal(group, libc::SIGKILL);
        let _ = child.wait();
        return refused("the tool's pipes could not be set up");
    };
    let Some((stop_rx, stop_tx)) = stop_pipe() else {
        procgroup::signal(group, libc::SIGKILL);
        let _ = child.wait();
        return refused("the executor could not create a pipe; it may be out of file descriptors");
    };
    let pumps = Pumps {
        stdin: Some(stdin),
        // A `Value` has string keys only: writing it cannot fail.
        input: serde_json::to_vec(input).unwrap_or_default(),
        written: 0,
        stdout: Some(stdout),
        stderr: Some(stderr),
        out: Bounded::default(),
        err: Bounded::default(),
    };
    let (io_tx, io_rx) = mpsc::channel();
    let io = thread::spawn(move || {
        let _ = io_tx.send(pumps.run(stop_rx));
    });

    // A waiter thread blocks in wait(2), so a quick tool is answered as soon
    // as it exits; the deadline is a timeout on its message. The waiter
    // cannot outlive the call: at the deadline the group is killed.
    let (exit_tx, exit_rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = exit_tx.send(child.wait().ok());
    });
    let (status, timed_out) =
        match exit_rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(status) => (status, false),
            Err(_) => (stop_group(group, &exit_rx), true),
        };
    let captured = collect(group, &exit_rx, &io_rx, stop_tx, timed_out, deadline);
    let _ = io.join();
    capture(tool, status, timed_out, captured)
}

/// The tool's command: its arguments, no shell, only the environment it is
/// allowed, in a process group of its own.
fn command(tool: &Tool, program: &str, args: &[String], cwd: Option<&Path>) -> Command {
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
    command
}

/// What the pumping thread captured once the child is gone (`None` when
/// it failed), with nothing of the group left behind.
fn collect(
    group: u32,
    exit_rx: &mpsc::Receiver<Option<ExitStatus>>,
    io_rx: &mpsc::Receiver<(Bounded, Bounded)>,
    stop_tx: OwnedFd,
    timed_out: bool,
    deadline: Instant,
) -> Option<(Bounded, Bounded)> {
    // The child is gone; its output may still be held open by a helper.
    let linger = if timed_out {
        Instant::now() + GRACE
    } else {
        (Instant::now() + PIPE_LINGER).min(deadline.max(Instant::now()))
    };
    let mut captured = io_rx
        .recv_timeout(linger.saturating_duration_since(Instant::now()))
        .ok();
    // Whatever is left of the group goes now, which also closes the pipes it held.
    if procgroup::alive(group) {
        stop_group(group, exit_rx);
        if captured.is_none() {
            captured = io_rx.recv_timeout(GRACE).ok();
        }
    }
    if captured.is_none() {
        // What still holds the pipes is outside the group: stop pumping and
        // keep what arrived, so no thread is left waiting on it.
        drop(stop_tx);
        captured = io_rx.recv().ok();
    }
    captured
}

/// The capture a model reads: the exit code, the output, and in stderr
/// what the executor did to the tool.
fn capture(
    tool: &Tool,
    status: Option<ExitStatus>,
    timed_out: bool,
    captured: Option<(Bounded, Bounded)>,
) -> ToolCapture {
    // Nothing comes only when the pumping thread failed: said, not hidden.
    let lost = captured.is_none();
    let (stdout, stderr) = captured.unwrap_or_default();
    let exit_code = match (timed_out, status) {
        (true, _) => TIMED_OUT,
        (false, Some(status)) => status.code().unwrap_or(SIGNALLED),
        (false, None) => SIGNALLED,
    };
    let mut stderr = stderr.into_text("stderr");
    if lost {
        own_line(
            &mut stderr,
            format!(
                "the output of the tool {:?} could not be collected",
                tool.name
            ),
        );
    }
    if timed_out {
        own_line(
            &mut stderr,
            format!(
                "the tool {:?} overran its {} s deadline and was stopped",
                tool.name,
                tool.deadline().as_secs()
            ),
        );
    } else if let Some(signal) = status.and_then(|status| status.signal()) {
        // The exit code cannot say which signal it was; a crash (SIGSEGV)
        // and the out-of-memory killer (SIGKILL) call for different fixes.
        own_line(
            &mut stderr,
            format!(
                "the tool {:?} was ended by signal {signal}{}",
                tool.name,
                signal_name(signal)
                    .map(|name| format!(" ({name})"))
                    .unwrap_or_default()
            ),
        );
    }
    ToolCapture::new(exit_code, stderr, stdout.into_text("stdout"))
}

/// Appends one of the executor's own lines, on a line of its own even when
/// the tool's text did not end one.
fn own_line(text: &mut String, line: String) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(PREFIX);
    text.push(' ');
    text.push_str(&line);
    text.push('\n');
}

/// The usual name of a signal that ends a process, where it has one.
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// The process groups of the calls running now, for [`stop_all`]; `None`
/// once it has run, when a group that starts is stopped at once.
static RUNNING: Mutex<Option<BTreeSet<u32>>> = Mutex::new(Some(BTreeSet::new()));

/// A call's group, listed in [`RUNNING`] while the call runs.
struct Running(u32);

impl Running {
    /// Starts `command`, listed as running; `None` when the executor is
    /// stopping, and nothing started. The list stays locked while the
    /// child starts, so [`stop_all`] never misses a group that has started.
    fn spawn(command: &mut Command) -> Option<std::io::Result<(Child, Self)>> {
        let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
        let groups = running.as_mut()?;
        Some(command.spawn().map(|child| {
            groups.insert(child.id());
            let group = Running(child.id());
            (child, group)
        }))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(groups) = running.as_mut() {
            groups.remove(&self.0);
        }
    }
}

/// Ends every running call's process group — SIGTERM, [`GRACE`], then
/// SIGKILL — and any that starts from now on, for an executor that is
/// itself told to stop or whose peer is gone: its tools lead groups of
/// their own, so a signal to the executor reaches none of them. Returns how
/// many groups it ended.
pub fn stop_all() -> usize {
    let groups: Vec<u32> = RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .unwrap_or_default()
        .into_iter()
        .collect();
    procgroup::end(&groups, GRACE);
    groups.len()
}

/// TERM to the group, a grace, then KILL. Returns the child's status if it
/// arrives meanwhile (`None` once it was already taken, or never came).
fn stop_group(group: u32, exited: &mpsc::Receiver<Option<ExitStatus>>) -> Option<ExitStatus> {
    procgroup::signal(group, libc::SIGTERM);
    let until = Instant::now() + GRACE;
    let mut status = None;
    while Instant::now() < until {
        if status.is_none() {
            status = exited.try_recv().ok().flatten();
        }
        if !procgroup::alive(group) {
            return status;
        }
        thread::sleep(Duration::from_millis(5));
    }
    procgroup::signal(group, libc::SIGKILL);
    status.or_else(|| exited.recv_timeout(GRACE).ok().flatten())
}
