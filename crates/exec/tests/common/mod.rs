//! Shared by the executor's tests: a tool set around the helper program.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

pub const HELPER: &str = env!("CARGO_BIN_EXE_vdm-exec-helper");

/// A tool set from `(name, helper args, extra fields)`; every command runs the helper.
pub fn tools(entries: &[(&str, &[&str], serde_json::Value)]) -> exec::Loaded {
    let tools: Vec<serde_json::Value> = entries
        .iter()
        .map(|(name, args, extra)| {
            let mut command = vec![HELPER.to_string()];
            command.extend(args.iter().map(|a| a.to_string()));
            let mut tool = serde_json::json!({"name": name, "command": command});
            if let (Some(tool), Some(extra)) = (tool.as_object_mut(), extra.as_object()) {
                tool.extend(extra.clone());
            }
            tool
        })
        .collect();
    let text = serde_json::json!({ "tools": tools }).to_string();
    exec::config::parse(Path::new("tools.json"), &text)
        .unwrap_or_else(|err| panic!("test tool set: {err}"))
}

pub fn call(
    tools: &exec::Loaded,
    tool: &str,
    input: serde_json::Value,
    cwd: Option<&str>,
) -> proto::ToolCapture {
    let mut params = proto::ToolInvokeParams::new(input, tool.into());
    params.cwd = cwd.map(str::to_string);
    exec::execute(tools, &params)
}

/// Whether a process is still running (a zombie waiting for its parent counts as gone).
pub fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Waits briefly for a pid file a helper writes.
pub fn read_pid(path: &Path) -> u32 {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no pid in {}", path.display());
}

pub fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("vdm-exec-test-{}-{name}", std::process::id()))
}

/// The live processes of a process group (found by scanning /proc).
pub fn group_members(group: u32) -> Vec<u32> {
    // Fields after the command: state, ppid, pgrp.
    live_where(2, group)
}

/// The live children of a process (found by scanning /proc).
pub fn children(parent: u32) -> Vec<u32> {
    live_where(1, parent)
}

/// The live processes whose `/proc/PID/stat` field `field` (counted from
/// the state, after the command) is `value`.
fn live_where(field: usize, value: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let rest: Vec<&str> = stat
                    .rsplit(')')
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .collect();
                rest.first()
                    .is_some_and(|state| *state != "Z" && *state != "X")
                    && rest.get(field) == Some(&value.to_string().as_str())
            })
        })
        .collect()
}

/// The pid a helper run as `pid MODE ...` printed first.
pub fn printed_pid(stdout: &str) -> u32 {
    stdout
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("pid "))
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid line in {stdout:?}"))
}

/// Keeps a process the test stops with SIGQUIT from writing a core file
/// (its default action) into the working tree.
pub fn without_core_dump(command: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit(2) is async-signal-safe and touches only the
    // child's own limits, as pre_exec asks.
    unsafe {
        command.pre_exec(|| {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::setrlimit(libc::RLIMIT_CORE, &none) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        })
    }
}
