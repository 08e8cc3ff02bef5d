//! Process groups, ended whole. `vdm-exec` runs each tool and `vdm-conform
//! drive` its peer as the leader of a group of its own, so that what they
//! start ends with them; a signal to this process (a daemon stopping it,
//! Ctrl-C at a terminal) reaches none of those groups, so
//! [`end_on_stop_signals`] ends them first.

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
/// taken over and the signals keep their default action.
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
