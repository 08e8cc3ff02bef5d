//! Running one invocation, every rule with real processes.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::time::{Duration, Instant};

use common::{call, group_members, printed_pid, read_pid, running, temp_path, tools};
use exec::run::{CAPTURE_LIMIT, NOT_RUN, SIGNALLED, TIMED_OUT};
use serde_json::json;

/// A helper the call left behind is gone within two seconds of the answer.
fn assert_gone(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(pid), "the helper {pid} outlived the call");
}

#[test]
fn the_input_goes_to_stdin_and_stdout_comes_back() {
    let set = tools(&[("echo", &["echo"], json!({}))]);
    let capture = call(&set, "echo", json!({"path": ".", "all": true}), None);
    assert_eq!(capture.exit_code, 0);
    assert_eq!(capture.stdout, r#"{"all":true,"path":"."}"#);
    assert_eq!(capture.stderr, "");
}

#[test]
fn the_argv_is_spawned_as_configured_and_the_input_never_reaches_it() {
    let marker = temp_path("pwned");
    let set = tools(&[("args", &["args", "--flag", "two words", "$HOME"], json!({}))]);
    let capture = call(
        &set,
        "args",
        json!({"x": format!("; touch {}", marker.display()), "y": "$(id)"}),
        None,
    );
    assert_eq!(
        capture.stdout, "--flag\ntwo words\n$HOME\n",
        "no shell expands or splits anything"
    );
    assert!(!marker.exists());
}

#[test]
fn exit_codes_and_stderr_are_the_tools_own() {
    let set = tools(&[("exit", &["exit", "3"], json!({}))]);
    let capture = call(&set, "exit", json!("hi"), None);
    assert_eq!(capture.exit_code, 3);
    assert_eq!(capture.stdout, "input: \"hi\"\n");
    assert_eq!(capture.stderr, "exiting with 3\n");
}

#[test]
fn a_tool_that_writes_ten_megabytes_before_reading_does_not_deadlock() {
    let set = tools(&[(
        "first",
        &["chatter-first", "10485760"],
        json!({"deadlineSecs": 30}),
    )]);
    let started = Instant::now();
    let capture = call(&set, "first", json!({"k": "v"}), None);
    assert_eq!(capture.exit_code, 0, "{}", capture.stderr);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(capture.stdout.starts_with("yyyy"));
    assert!(
        capture.stdout.contains(&format!(
            "vdm-exec: {} more bytes of stdout were dropped",
            10_485_760 + 9 - CAPTURE_LIMIT
        )),
        "{}",
        &capture.stdout[CAPTURE_LIMIT..]
    );
}

#[test]
fn an_unknown_tool_is_refused_with_127_and_one_line() {
    let set = tools(&[("echo", &["echo"], json!({}))]);
    let capture = call(&set, "ecoh", json!(null), None);
    assert_eq!(capture.exit_code, NOT_RUN);
    assert_eq!(capture.stdout, "");
    assert_eq!(
        capture.stderr,
        "vdm-exec: this machine has no tool called \"ecoh\"; it has: echo\n"
    );
}

#[test]
fn a_command_that_cannot_start_is_refused_with_127() {
    let text = json!({"tools": [{"name": "ghost", "command": ["/nonexistent/bin/ghost", "-v"]}]})
        .to_string();
    let set = exec::config::parse(std::path::Path::new("tools.json"), &text).expect("loads");
    let capture = call(&set, "ghost", json!({}), None);
    assert_eq!(capture.exit_code, NOT_RUN);
    assert!(
        capture.stderr.starts_with(
            "vdm-exec: cannot start \"/nonexistent/bin/ghost\" for the tool \"ghost\""
        ),
        "{}",
        capture.stderr
    );
    assert_eq!(capture.stderr.lines().count(), 1);
}

#[test]
fn a_working_directory_needs_consent_an_absolute_path_and_a_directory() {
    let dir = std::env::temp_dir();
    let dir = dir.to_str().expect("utf-8 temp dir");
    let set = tools(&[
        ("pwd", &["pwd"], json!({})),
        ("pwd-here", &["pwd"], json!({"subjectCwd": true})),
    ]);
    let refused = call(&set, "pwd", json!({}), Some(dir));
    assert_eq!(refused.exit_code, NOT_RUN);
    assert!(
        refused.stderr.contains("add \"subjectCwd\": true"),
        "{}",
        refused.stderr
    );
    let relative = call(&set, "pwd-here", json!({}), Some("work/here"));
    assert_eq!(relative.exit_code, NOT_RUN);
    assert!(
        relative.stderr.contains("is relative")
            && relative.stderr.contains("send an absolute path"),
        "{}",
        relative.stderr
    );
    let missing = call(&set, "pwd-here", json!({}), Some("/nonexistent/work"));
    assert_eq!(missing.exit_code, NOT_RUN);
    assert!(
        missing.stderr.contains("is not an existing directory"),
        "{}",
        missing.stderr
    );
    let ran = call(&set, "pwd-here", json!({}), Some(dir));
    assert_eq!(ran.exit_code, 0);
    assert_eq!(
        std::fs::canonicalize(ran.stdout.trim()).ok(),
        std::fs::canonicalize(dir).ok()
    );
}

#[test]
fn the_tools_own_directory_is_used_without_a_call_directory() {
    let set = tools(&[("pwd", &["pwd"], json!({"cwd": "/"}))]);
    assert_eq!(call(&set, "pwd", json!({}), None).stdout, "/\n");
}

#[test]
fn input_that_fails_the_input_schema_is_refused_before_anything_runs() {
    let schema =
        json!({"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}});
    let set = tools(&[("echo", &["echo"], json!({"inputSchema": schema}))]);
    let capture = call(&set, "echo", json!({"path": 7}), None);
    assert_eq!(capture.exit_code, NOT_RUN);
    assert!(
        capture.stderr.starts_with(
            "vdm-exec: the input does not match the inputSchema of \"echo\" at /path:"
        ),
        "{}",
        capture.stderr
    );
    assert_eq!(call(&set, "echo", json!({"path": "."}), None).exit_code, 0);
}

/// A refusal names the place and the rule, never the value: a tool's input
/// may carry a credential, and the refusal is shown and logged.
#[test]
fn a_refused_input_is_not_quoted() {
    let schema = json!({
        "type": "object",
        "properties": {
            "token": {"type": "string", "maxLength": 4},
            "port": {"type": "integer"},
            "mode": {"enum": ["a", "b"]}
        }
    });
    let set = tools(&[("echo", &["echo"], json!({"inputSchema": schema}))]);
    for input in [
        json!({"token": "hunter2SECRET"}),
        json!({"port": "hunter2SECRET"}),
        json!({"mode": "hunter2SECRET"}),
        json!({"port": {"password": "hunter2SECRET"}}),
        json!("hunter2SECRET"),
    ] {
        let capture = call(&set, "echo", input.clone(), None);
        assert_eq!(capture.exit_code, NOT_RUN, "{input}");
        assert!(
            capture.stderr.contains("does not match the inputSchema")
                && !capture.stderr.contains("hunter2"),
            "{input}: {}",
            capture.stderr
        );
    }
}

#[test]
fn a_tool_that_overruns_its_deadline_gets_124_on_time() {
    let set = tools(&[("sleep", &["pid", "sleep", "30"], json!({"deadlineSecs": 1}))]);
    let started = Instant::now();
    let capture = call(&set, "sleep", json!({}), None);
    let took = started.elapsed();
    assert_eq!(capture.exit_code, TIMED_OUT);
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    let pid = printed_pid(&capture.stdout);
    assert_gone(pid);
    // The tool led its own group: nothing of it is left.
    assert_eq!(group_members(pid), Vec::<u32>::new());
    assert!(
        capture
            .stderr
            .contains("vdm-exec: the tool \"sleep\" overran its 1 s deadline and was stopped"),
        "{}",
        capture.stderr
    );
}

#[test]
fn a_tool_that_ignores_term_is_killed_after_the_grace() {
    let set = tools(&[(
        "stubborn",
        &["pid", "ignore-term", "30"],
        json!({"deadlineSecs": 1}),
    )]);
    let started = Instant::now();
    let capture = call(&set, "stubborn", json!({}), None);
    assert_eq!(capture.exit_code, TIMED_OUT);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "answered after {:?}",
        started.elapsed()
    );
    let pid = printed_pid(&capture.stdout);
    assert_gone(pid);
    assert_eq!(group_members(pid), Vec::<u32>::new());
}

#[test]
fn a_helper_holding_stdout_open_does_not_hold_back_the_answer_and_is_gone_afterwards() {
    let pidfile = temp_path("holder.pid");
    let path = pidfile.to_str().expect("utf-8");
    let set = tools(&[(
        "bg",
        &["background", "30", path],
        json!({"deadlineSecs": 20}),
    )]);
    let started = Instant::now();
    let capture = call(&set, "bg", json!({}), None);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered after {:?}",
        started.elapsed()
    );
    assert_eq!(
        capture.exit_code, 0,
        "the tool itself exited 0: {}",
        capture.stderr
    );
    let pid = read_pid(&pidfile);
    assert!(capture.stdout.starts_with(&format!("started {pid}")));
    assert_gone(pid);
    let _ = std::fs::remove_file(pidfile);
}

#[test]
fn a_quiet_helper_left_in_the_group_is_gone_afterwards() {
    let pidfile = temp_path("quiet.pid");
    let path = pidfile.to_str().expect("utf-8");
    let set = tools(&[("bg", &["background-quiet", "30", path], json!({}))]);
    let capture = call(&set, "bg", json!({}), None);
    assert_eq!(capture.exit_code, 0);
    let pid = read_pid(&pidfile);
    assert_gone(pid);
    let _ = std::fs::remove_file(pidfile);
}

#[test]
fn a_tool_killed_by_a_signal_it_was_not_sent_gets_128_and_the_signal_named() {
    let set = tools(&[("abort", &["abort"], json!({}))]);
    let capture = call(&set, "abort", json!({}), None);
    assert_eq!(capture.exit_code, SIGNALLED);
    // The tool's text ended mid-line: the executor's own line still starts one.
    assert_eq!(
        capture.stderr,
        "aborting\nvdm-exec: the tool \"abort\" was ended by signal 6 (SIGABRT)\n"
    );
}

#[test]
fn each_stream_is_bounded_and_says_how_much_was_dropped() {
    let set = tools(&[
        ("out", &["chatter", "200000"], json!({})),
        ("err", &["chatter", "100000", "stderr"], json!({})),
    ]);
    let out = call(&set, "out", json!({}), None);
    assert_eq!(out.exit_code, 0);
    let (kept, note) = out.stdout.split_at(CAPTURE_LIMIT);
    assert!(kept.bytes().all(|b| b == b'x'));
    assert_eq!(note, format!("\nvdm-exec: {} more bytes of stdout were dropped: a capture keeps {CAPTURE_LIMIT} bytes per stream\n", 200_000 - CAPTURE_LIMIT));
    let err = call(&set, "err", json!({}), None);
    assert!(err.stderr.ends_with(&format!("vdm-exec: {} more bytes of stderr were dropped: a capture keeps {CAPTURE_LIMIT} bytes per stream\n", 100_000 - CAPTURE_LIMIT)));
    assert_eq!(err.stdout, "");
}

#[test]
fn the_child_gets_a_scrubbed_environment() {
    std::env::set_var("VDM_EXEC_TEST_SECRET", "hunter2");
    std::env::set_var("VDM_EXEC_TEST_PASSED", "yes");
    let set = tools(&[
        ("env", &["env"], json!({})),
        (
            "env-pass",
            &["env"],
            json!({"env": ["VDM_EXEC_TEST_PASSED"]}),
        ),
    ]);
    let plain = call(&set, "env", json!({}), None);
    assert!(!plain.stdout.contains("VDM_EXEC_TEST"), "{}", plain.stdout);
    assert!(plain.stdout.lines().any(|line| line.starts_with("PATH=")));
    let names: Vec<&str> = plain
        .stdout
        .lines()
        .filter_map(|line| line.split('=').next())
        .collect();
    assert!(
        names
            .iter()
            .all(|name| exec::run::DEFAULT_ENV.contains(name)),
        "{names:?}"
    );
    let passed = call(&set, "env-pass", json!({}), None);
    assert!(passed.stdout.contains("VDM_EXEC_TEST_PASSED=yes"));
    assert!(!passed.stdout.contains("hunter2"));
}

#[test]
fn invalid_utf8_is_replaced_once_at_the_capture() {
    let set = tools(&[("bad", &["badutf8"], json!({}))]);
    assert_eq!(
        call(&set, "bad", json!({}), None).stdout,
        "ok \u{fffd}\u{fffd} end\n"
    );
}

/// The exit codes the contract promises (`ToolCapture.exitCode`'s
/// description, which every lane's bindings carry) are the ones the
/// executor gives: the two are written apart, so they are held together here.
#[test]
fn the_exit_codes_are_the_ones_the_contract_describes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../contracts/schema/types/ToolCapture.json"
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let said = file
        .pointer("/properties/exitCode/description")
        .and_then(serde_json::Value::as_str)
        .unwrap();
    for promise in [
        format!("{TIMED_OUT} when it overran its deadline"),
        format!("{NOT_RUN} when it could not be run"),
        format!("{SIGNALLED} when a signal the executor did not send ended it"),
    ] {
        assert!(
            said.contains(&promise),
            "ToolCapture.exitCode's description does not say {promise:?}: {said}"
        );
    }
}
