//! Process groups, ended whole. `vdm-exec` runs each tool and `vdm-conform
//! drive` its peer as the leader of a group of its own, so that what they
//! start ends with them; a signal to this process (a daemon stopping it,
//! Ctrl-C at a terminal) reaches none of those groups, so
//! [`end_on_stop_signals`] ends them first. What leaves its group for a
//! session of its own is out of reach of all that; on Linux, [`orphans`]
//! brings it back to be ended.
//!
//! Unix only: process groups and these signals are Unix's, and elsewhere
//! the crate is empty.
#![cfg(unix)]

use std::time::{Duration, Instant};

/// Sends `signal` to every process of `group`; a group that is gone is
/// nothing to do.
pub fn signal(group: u32, signal: libc::c_int) {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return;
    };
    // SAFETY: kill(2) with a negative pid signals that process group; it
    // takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-group, signal);
    }
}

/// Whether any process of `group` still exists (signal 0 sends nothing).
pub fn alive(group: u32) -> bool {
    let Ok(group) = libc::pid_t::try_from(group) else {
        return false;
    };
    // SAFETY: as above; signal 0 only asks whether the group exists.
    unsafe { libc::kill(-group, 0) == 0 }
}

/// Ends every group of `groups`: SIGTERM, up to `grace` for them to go,
/// then SIGKILL to those left.
pub fn end(groups: &[u32], grace: Duration) {
    for &group in groups {
        signal(group, libc::SIGTERM);
    }
    let until = Instant::now() + grace;
    while Instant::now() < until && groups.iter().any(|&group| alive(group)) {
        std::thread::sleep(Duration::from_millis(5));
    }
    for &group in groups {
        if alive(group) {
            signal(group, libc::SIGKILL);
        }
    }
}

/// Takes SIGTERM, SIGINT, SIGHUP and SIGQUIT (`Ctrl-\`) over: on the first, `stop` ends what
/// must not outlive this process and says what it did (the line is written
/// to stderr), then the process ends as that signal ends one. A handler,
/// not a blocked mask: a child inherits a mask, while exec resets a
/// handler. Returns once the signals are taken over, before anything is
/// started that they must end; if the thread cannot start, nothing is
/// taken over and the signals keep their default action. Once a signal
/// is taken, [`wait_if_stopping`] holds the rest of the process back.
pub fn end_on_stop_signals(stop: impl FnOnce(libc::c_int) -> String + Send + 'static) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    use std::io::Write as _;
    let (taken, taken_over) = std::sync::mpsc::channel();
    let started = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let Ok(mut signals) =
                signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP, SIGQUIT])
            else {
                let _ = taken.send(());
                return;
            };
            let _ = taken.send(());
            if let Some(signal) = signals.forever().next() {
                STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
                let said = stop(signal);
                let _ = writeln!(std::io::stderr().lock(), "{said}");
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    if started.is_ok() {
        let _ = taken_over.recv();
    }
}

/// Set by the signal thread of [`end_on_stop_signals`] before it ends anything.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Once a stop signal is taken, waits for its thread to end the process as
/// the signal would have; otherwise returns at once. A binary calls it
/// before it ends: what the signal ended (a tool, a peer) would otherwise
/// let the main thread finish first, with an exit status of its own and a
/// report of what the signal cut short.
pub fn wait_if_stopping() {
    if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// Descendants that left their process group, adopted and ended (Linux).
///
/// A peer can start a process in a session of its own (`setsid`, a daemon's
/// double fork), out of the reach of [`end`]. Made a child subreaper, this
/// process is given every such orphan among its descendants when the
/// orphan's parent dies, and [`orphans::end`] ends them. Only a binary
/// that starts nothing else may ask for it: every orphan of every
/// descendant becomes its child, and is ended with the rest.
#[cfg(target_os = "linux")]
pub mod orphans {
    use std::io::Read as _;
    use std::time::{Duration, Instant};

    /// Makes this process the child subreaper of its descendants; `false`
    /// if the kernel refused (orphans then go to init, as before).
    pub fn adopt() -> bool {
        // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes plain integers
        // and changes only this process's attribute.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }

    /// Ends every child this process still has, with the group each leads
    /// (SIGTERM, up to `grace`, SIGKILL), and reaps them; a child's own
    /// children, orphaned by that, come next, for a few rounds. Call it
    /// once every child this process waits for has been waited for.
    /// Returns how many it ended: children that had already ended (a
    /// peer's group ended before, its members given to this process) are
    /// reaped and not counted.
    pub fn end(grace: Duration) -> usize {
        let mut ended = 0;
        // Each round ends a generation; one a daemon's double fork needs,
        // and a few more for a tree of them.
        for _ in 0..4 {
            let (children, ended_before): (Vec<Child>, Vec<Child>) =
                children().into_iter().partition(|child| child.running);
            let mut ended_before: Vec<libc::pid_t> =
                ended_before.iter().map(|child| child.pid).collect();
            reap(&mut ended_before);
            let mut left: Vec<libc::pid_t> = children.iter().map(|child| child.pid).collect();
            if left.is_empty() {
                break;
            }
            ended += left.len();
            for &child in &left {
                stop(child, libc::SIGTERM);
            }
            let until = Instant::now() + grace;
            while Instant::now() < until && !reap(&mut left) {
                std::thread::sleep(Duration::from_millis(5));
            }
            // Only those not reaped: a reaped pid may be another process's now.
            for &child in &left {
                stop(child, libc::SIGKILL);
            }
            let until = Instant::now() + grace;
            while Instant::now() < until && !reap(&mut left) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        ended
    }

    /// Signals `child` and, when it leads a group other than this
    /// process's, that group.
    fn stop(child: libc::pid_t, signal: libc::c_int) {
        // SAFETY: getpgid(2), getpgrp(2) and kill(2) take plain integers
        // and touch no memory of ours.
        unsafe {
            let group = libc::getpgid(child);
            if group == child && group != libc::getpgrp() {
                libc::kill(-group, signal);
            }
            libc::kill(child, signal);
        }
    }

    /// Reaps whichever of `children` have ended and keeps the rest;
    /// whether none is left.
    fn reap(children: &mut Vec<libc::pid_t>) -> bool {
        children.retain(|&child| {
            let mut status = 0;
            // SAFETY: waitpid(2) writes the status into the integer given.
            let reaped = unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) };
            // 0: still running; the pid or an error (no longer a child): done.
            reaped == 0
        });
        children.is_empty()
    }

    /// A child of this process.
    struct Child {
        pid: libc::pid_t,
        /// Not yet ended (a zombie is ended, and waits to be reaped).
        running: bool,
    }

    /// This process's children, from the state and parent pid in each
    /// `/proc/PID/stat`.
    fn children() -> Vec<Child> {
        // SAFETY: getpid(2) cannot fail.
        let me = unsafe { libc::getpid() };
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<libc::pid_t>().ok())
            else {
                continue;
            };
            let Ok(file) = std::fs::File::open(entry.path().join("stat")) else {
                continue;
            };
            // A stat line is a few hundred bytes; the name in it at most 64.
            let mut stat = String::new();
            if file.take(4096).read_to_string(&mut stat).is_err() {
                continue;
            }
            // "PID (NAME) STATE PPID …": the name may hold spaces and `)`.
            let mut fields = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest.split_whitespace())
                .into_iter()
                .flatten();
            let (Some(state), Some(parent)) = (fields.next(), fields.next()) else {
                continue;
            };
            if parent.parse::<libc::pid_t>().ok() == Some(me) {
                found.push(Child {
                    pid,
                    running: !matches!(state, "Z" | "X"),
                });
            }
        }
        found
    }
}
