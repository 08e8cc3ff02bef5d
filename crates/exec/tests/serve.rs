//! `vdm-exec serve` driven as a child process over pipes, and `vdm-exec run`.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{children, running, temp_path, HELPER};
use proto::{Envelope, FrameReader, ReplyBody, RpcErrorCode};
use serde_json::json;

const EXEC: &str = env!("CARGO_BIN_EXE_vdm-exec");

fn tools_file(name: &str) -> std::path::PathBuf {
    let path = temp_path(name);
    let tools = json!({"tools": [
        {"name": "echo", "command": [HELPER, "echo"]},
        {"name": "slow", "command": [HELPER, "sleep", "1"]},
        {"name": "exit", "command": [HELPER, "exit", "3"]},
        {"name": "typed", "command": [HELPER, "echo"],
         "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
    ]});
    std::fs::write(&path, tools.to_string()).expect("write tools");
    path
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = u32::try_from(body.len())
        .expect("small")
        .to_be_bytes()
        .to_vec();
    out.extend_from_slice(body);
    out
}

fn call(id: u64, method: &str, params: serde_json::Value) -> Vec<u8> {
    frame(
        json!({"v": 1, "kind": "call", "id": id, "body": {"method": method, "params": params}})
            .to_string()
            .as_bytes(),
    )
}

/// `vdm-exec serve` started on the tool set at `tools` with `jobs` workers
/// (its default when `None`), its three streams piped (stderr to nowhere
/// unless `stderr`).
fn spawn_serve(tools: &std::path::Path, jobs: Option<&str>, stderr: bool) -> std::process::Child {
    let mut command = Command::new(EXEC);
    command.arg("serve");
    if let Some(jobs) = jobs {
        command.args(["--jobs", jobs]);
    }
    command
        .arg("--tools")
        .arg(tools)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if stderr {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .spawn()
        .expect("vdm-exec starts")
}

/// Runs `serve` on `input`; returns the replies in arrival order, the exit code and stderr.
fn serve(input: &[u8], name: &str) -> (Vec<Envelope>, Option<i32>, String) {
    let tools = tools_file(name);
    let mut child = spawn_serve(&tools, Some("4"), true);
    let mut stdin = child.stdin.take().expect("stdin");
    let pid = child.id();
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    // Written here while the other thread reads the answers: a session
    // larger than the pipes would otherwise wait on itself.
    let written = stdin.write_all(input);
    drop(stdin);
    // A session that never ends is a failure, not a test run that hangs.
    let output = match ended.recv_timeout(Duration::from_secs(300)) {
        Ok(output) => output.expect("vdm-exec finishes"),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("serve did not end within 300 s of its input's end");
        }
    };
    written.expect("write frames");
    let replies: Result<Vec<Envelope>, _> = FrameReader::new(&output.stdout[..]).collect();
    let _ = std::fs::remove_file(tools);
    (
        replies.expect("stdout carries only frames"),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_mixed_stream_gets_every_answer_in_completion_order() {
    let mut input = Vec::new();
    input.extend(call(
        1,
        "tool.invoke",
        json!({"tool": "slow", "input": null}),
    ));
    input.extend(call(
        2,
        "tool.invoke",
        json!({"tool": "echo", "input": {"n": 2}}),
    ));
    input.extend(frame(b"{\"v\":1,\"kind\":"));
    input.extend(call(3, "download.pause", json!({"taskId": "t"})));
    input.extend(frame(br#"{"v":1,"kind":"call","id":4}"#));
    input.extend(frame(br#"{"v":2,"kind":"call","id":5,"body":{}}"#));
    input.extend([0, 0, 0, 0]);
    input.extend(call(6, "tool.invoke", json!({"tool": "nope", "input": {}})));
    input.extend(call(
        7,
        "tool.invoke",
        json!({"tool": "exit", "input": "x"}),
    ));
    let (replies, code, stderr) = serve(&input, "mixed");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("skipping an empty frame"), "{stderr}");

    let mut captures = BTreeMap::new();
    let mut errors = Vec::new();
    for reply in &replies {
        match reply {
            Envelope::Reply {
                id,
                body: ReplyBody::ToolInvoke(capture),
                ..
            } => {
                captures.insert(**id, capture.clone());
            }
            Envelope::Error { id, body, .. } => errors.push((*id, body.code, body.message.clone())),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(captures.keys().copied().collect::<Vec<_>>(), [1, 2, 6, 7]);
    assert_eq!(captures[&2].stdout, r#"{"n":2}"#);
    assert_eq!(captures[&6].exit_code, 127);
    assert_eq!(captures[&7].exit_code, 3);
    // The slow call was sent first and answered last.
    assert!(
        matches!(replies.last(), Some(Envelope::Reply { id, .. }) if **id == 1),
        "{replies:?}"
    );

    let codes: Vec<(Option<u64>, RpcErrorCode)> =
        errors.iter().map(|(id, code, _)| (*id, *code)).collect();
    assert_eq!(
        codes,
        [
            (None, RpcErrorCode::ParseError),
            (Some(3), RpcErrorCode::MethodNotFound),
            (Some(4), RpcErrorCode::InvalidRequest),
            (Some(5), RpcErrorCode::InvalidRequest),
        ]
    );
    assert!(
        errors[1]
            .2
            .contains("does not serve \"download.pause\"; it serves tool.invoke"),
        "{errors:?}"
    );
    assert!(errors[2].2.contains("has a `body`"), "{errors:?}");
    assert!(errors[3].2.contains("protocol version 2"), "{errors:?}");
}

/// What a newer peer may send, answered as a JSON-RPC 2.0 server answers it.
#[test]
fn a_newer_peers_stream_is_answered_with_the_callers_ids() {
    let mut input = Vec::new();
    input.extend(call(11, "download.frobnicate", json!({"taskId": "t_01"})));
    input.extend(call(12, "tool.invoke", json!({"input": {}})));
    input.extend(frame(
        json!({"v": 1, "kind": "event", "body": {"name": "event.from.the.future", "params": {"x": 1}}})
            .to_string()
            .as_bytes(),
    ));
    input.extend(call(
        13,
        "tool.invoke",
        json!({"tool": "echo", "input": "hi", "priority": "high"}),
    ));
    let (replies, code, stderr) = serve(&input, "newer-peer");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(replies.len(), 3, "the event is not answered: {replies:?}");
    let by_id: BTreeMap<Option<u64>, &Envelope> = replies
        .iter()
        .map(|reply| match reply {
            Envelope::Reply { id, .. } => (Some(**id), reply),
            Envelope::Error { id, .. } => (*id, reply),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    let code_of = |id: u64| match by_id.get(&Some(id)) {
        Some(Envelope::Error { body, .. }) => Some(body.code),
        _ => None,
    };
    assert_eq!(
        code_of(11),
        Some(RpcErrorCode::MethodNotFound),
        "{replies:?}"
    );
    assert_eq!(
        code_of(12),
        Some(RpcErrorCode::InvalidParams),
        "{replies:?}"
    );
    assert!(
        matches!(by_id.get(&Some(13)), Some(Envelope::Reply { body: ReplyBody::ToolInvoke(capture), .. }) if capture.stdout == "\"hi\""),
        "{replies:?}"
    );
    assert!(
        stderr.contains(
            "ignoring the event event.from.the.future (a name this contract version does not know)"
        ),
        "{stderr}"
    );
}

/// Calls whose answers would quote a frame's worth of what they carried:
/// each is answered within a frame, and the session goes on.
#[test]
fn an_answer_that_quotes_the_call_still_fits_a_frame() {
    let quotes = "\"".repeat(400_000);
    let mut input = Vec::new();
    input.extend(call(
        1,
        "tool.invoke",
        json!({"tool": "typed", "input": {"x": vec!["\u{1}"; 110_000]}}),
    ));
    input.extend(call(2, "tool.invoke", json!({"tool": quotes, "input": {}})));
    input.extend(call(3, &quotes, json!({})));
    input.extend(call(
        4,
        "tool.invoke",
        json!({"tool": "echo", "input": "hi"}),
    ));
    let (replies, code, stderr) = serve(&input, "quoting");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(replies.len(), 4, "{stderr}");
    for reply in &replies {
        let text = serde_json::to_string(reply).expect("encodes");
        assert!(text.len() < 8192, "{} bytes: {}", text.len(), &text[..200]);
        match reply {
            Envelope::Reply {
                body: ReplyBody::ToolInvoke(capture),
                id,
                ..
            } if **id == 1 => {
                // The input is not quoted at all, only its place.
                assert_eq!(capture.exit_code, 127);
                assert!(
                    capture.stderr.contains("at /x: value is not of type"),
                    "{}",
                    capture.stderr
                );
            }
            Envelope::Reply {
                body: ReplyBody::ToolInvoke(capture),
                id,
                ..
            } if **id == 2 => {
                assert_eq!(capture.exit_code, 127);
                assert!(
                    capture.stderr.contains("characters left out"),
                    "{}",
                    capture.stderr
                );
            }
            Envelope::Reply {
                body: ReplyBody::ToolInvoke(capture),
                id,
                ..
            } if **id == 4 => assert_eq!(capture.stdout, "\"hi\""),
            Envelope::Error { body, id, .. } if *id == Some(3) => {
                assert_eq!(body.code, RpcErrorCode::MethodNotFound);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// A string an answer may quote, made as long as a frame allows of what
/// escaping doubles or more: quotes, backslashes, controls, line
/// separators and bidirectional overrides.
fn hostile(rng: &mut sample::Rng) -> String {
    let piece = ["\"", "\\", "\u{1}", "\u{2028}", "\u{202e}", "é", "x"];
    let unit = piece[rng.below(piece.len())];
    unit.repeat(rng.between(1, 150_000) as usize)
}

/// Replaces one string of `value`, drawn at random, with [`hostile`] text.
fn lengthen_a_string(value: &mut serde_json::Value, rng: &mut sample::Rng) {
    let mut strings = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(at) = stack.pop() {
        match value.pointer(&at) {
            Some(serde_json::Value::String(_)) => strings.push(at),
            Some(serde_json::Value::Array(items)) => {
                stack.extend((0..items.len()).map(|i| format!("{at}/{i}")))
            }
            Some(serde_json::Value::Object(map)) => stack.extend(
                map.keys()
                    .map(|key| format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))),
            ),
            _ => {}
        }
    }
    if strings.is_empty() {
        return;
    }
    let at = strings.swap_remove(rng.below(strings.len()));
    if let Some(slot) = value.pointer_mut(&at) {
        *slot = json!(hostile(rng));
    }
}

/// Calls drawn at random in one session: the valid calls of the fixtures
/// and calls of the tool set, each changed in one place (a one-step
/// mutation, a string made a frame's worth of text an answer escapes, or
/// both). Every call is answered once, with its id, within a frame, and the
/// session ends when the input does. `SERVE_CALLS` and `SERVE_SEED` draw
/// more, or others.
#[test]
fn every_call_drawn_at_random_is_answered_once_within_a_frame() {
    let setting = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    let (count, seed) = (setting("SERVE_CALLS", 120), setting("SERVE_SEED", 1));
    let valid = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/valid");
    let mut bases: Vec<serde_json::Value> = std::fs::read_dir(&valid)
        .expect("conformance/valid")
        .map(|entry| {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("fixture");
            serde_json::from_str::<serde_json::Value>(&text).expect("fixture JSON")
        })
        .filter(|fixture| fixture["type"] == "Envelope" && fixture["value"]["kind"] == "call")
        .map(|fixture| fixture["value"].clone())
        .collect();
    for (tool, input) in [
        ("echo", json!("hi")),
        ("typed", json!({"x": "a"})),
        ("exit", json!(null)),
    ] {
        bases.push(json!({"v": 1, "kind": "call", "id": 0, "body": {"method": "tool.invoke", "params": {"tool": tool, "input": input}}}));
    }
    let mut rng = sample::Rng::new(seed);
    let mut input = Vec::new();
    let mut calls = BTreeMap::new();
    for id in 0..count {
        let base = &bases[rng.below(bases.len())];
        let mut value = match rng.below(3) {
            0 => base.clone(),
            _ => {
                let mutants = sample::one_step_mutations(base, &Default::default());
                mutants[rng.below(mutants.len())].clone()
            }
        };
        if rng.chance(50) {
            lengthen_a_string(&mut value, &mut rng);
        }
        // Every frame's id its own, so no answer can be taken for another's;
        // a frame that is not a call may be answered too (`kind` null is
        // an invalid request, with its id), but at most once.
        let call = match value.as_object_mut() {
            Some(envelope) => {
                if envelope.contains_key("id") || envelope.get("kind") == Some(&json!("call")) {
                    envelope.insert("id".into(), json!(id));
                }
                envelope.get("kind") == Some(&json!("call"))
            }
            None => false,
        };
        let body = value.to_string();
        if call {
            calls.insert(id, body.chars().take(200).collect::<String>());
        }
        if body.len() <= proto::MAX_FRAME {
            input.extend(frame(body.as_bytes()));
        } else {
            calls.remove(&id);
        }
    }
    let (replies, code, stderr) = serve(&input, &format!("drawn-{seed}"));
    assert_eq!(code, Some(0), "{stderr}");
    let mut answered = BTreeMap::new();
    for reply in &replies {
        let id = match reply {
            Envelope::Reply { id, .. } => Some(**id),
            Envelope::Error { id, .. } => *id,
            other => panic!("not an answer: {other:?}"),
        };
        if let Some(id) = id {
            *answered.entry(id).or_insert(0) += 1;
        }
    }
    for (id, call) in &calls {
        assert_eq!(answered.get(id), Some(&1), "call {id} ({call}…): {stderr}");
    }
    assert!(
        answered.values().all(|&times| times == 1),
        "an id answered twice: {answered:?}"
    );
    assert!(
        answered.keys().all(|id| *id < count),
        "an answer to an id nothing had: {answered:?}"
    );
}

#[test]
fn replies_and_errors_sent_to_the_executor_are_ignored_with_a_log_line() {
    let mut input = Vec::new();
    input.extend(frame(
        json!({"v": 1, "kind": "reply", "id": 1, "body": {"method": "download.add", "result": {"taskId": "t"}}})
            .to_string()
            .as_bytes(),
    ));
    input.extend(frame(
        json!({"v": 1, "kind": "error", "id": 2, "body": {"code": -32603, "message": "x"}})
            .to_string()
            .as_bytes(),
    ));
    input.extend(frame(
        json!({"v": 1, "kind": "event", "body": {"name": "event.task.removed", "params": {}}})
            .to_string()
            .as_bytes(),
    ));
    // A newer peer's event, named to forge a log line of its own.
    input.extend(frame(
        json!({"v": 1, "kind": "event", "body": {"name": "event.x\nvdm-exec: forged", "params": {}}})
            .to_string()
            .as_bytes(),
    ));
    let (replies, code, stderr) = serve(&input, "not-calls");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(replies.is_empty(), "{replies:?}");
    assert!(
        stderr.contains("ignoring the event event.x\\u000avdm-exec: forged (a name"),
        "{stderr}"
    );
    assert!(
        !stderr
            .lines()
            .any(|line| line.starts_with("vdm-exec: forged")),
        "{stderr}"
    );
    assert!(
        stderr.contains("ignoring an envelope of kind reply"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ignoring an envelope of kind error"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ignoring an envelope of kind event that cannot be read: at /body/params/taskId: the params of event.task.removed do not fit the contract: missing field `taskId`"),
        "{stderr}"
    );
}

#[test]
fn an_oversize_frame_ends_the_session_after_answering_what_came_before() {
    let mut input = call(1, "tool.invoke", json!({"tool": "echo", "input": 1}));
    input.extend(
        u32::try_from(proto::MAX_FRAME + 1)
            .expect("fits")
            .to_be_bytes(),
    );
    input.extend(call(2, "tool.invoke", json!({"tool": "echo", "input": 2})));
    let (replies, code, stderr) = serve(&input, "oversize");
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("more than the 1048576 a frame may carry"),
        "{stderr}"
    );
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(matches!(&replies[0], Envelope::Reply { id, .. } if **id == 1));
}

/// JSON Lines given to serve, which reads frames, is named as text: the
/// length its first four bytes make is said to spell them.
#[test]
fn text_where_frames_go_is_named_as_text() {
    let input = b"{\"v\":1,\"kind\":\"call\",\"id\":1}\n";
    let (replies, code, stderr) = serve(input, "text");
    assert_eq!(code, Some(2));
    assert!(replies.is_empty(), "{replies:?}");
    assert!(
        stderr.contains(
            "(the length prefix's four bytes spell \"{\\\"v\\\"\": text, not frames? a frame is a \
             4-byte big-endian length, then that many bytes of JSON)"
        ),
        "{stderr}"
    );
}

/// A peer that calls and never reads what it is answered: serve stops
/// reading too once its queues are full, rather than holding every answer.
#[test]
fn a_peer_that_never_reads_is_not_read_without_bound() {
    // Far more than the queues and both pipes hold (a call is about 80
    // bytes; a pipe holds 64 KiB, the queues 32 each).
    const CALLS: u64 = 20_000;
    let tools = tools_file("never-reads.json");
    let mut child = spawn_serve(&tools, None, false);
    let mut stdin = child.stdin.take().expect("stdin");
    let (done, written) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for id in 1..=CALLS {
            if stdin
                .write_all(&call(id, "vdm.unknown", json!({})))
                .is_err()
            {
                return;
            }
        }
        let _ = done.send(());
    });
    // Unbounded, all of it is taken in a few milliseconds.
    let taken = written.recv_timeout(Duration::from_secs(5));
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_file(tools);
    assert!(
        taken.is_err(),
        "serve read {CALLS} calls while nothing was read of its answers"
    );
}

/// A peer that closes its reading end while it still sends calls: the
/// answers cannot be written, and serve ends (code 2, saying why) rather
/// than wait on a full queue of calls no worker takes any more.
#[test]
fn a_peer_that_stops_reading_ends_the_session() {
    let tools = tools_file("stops-reading.json");
    let mut child = spawn_serve(&tools, Some("2"), true);
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    // Tool calls, far more than the queues hold; the input is then kept
    // open (held in the channel) until serve has ended.
    let (keep, kept) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for id in 1..=2_000 {
            let invoke = call(id, "tool.invoke", json!({"tool": "echo", "input": id}));
            if stdin.write_all(&invoke).is_err() {
                return;
            }
        }
        let _ = keep.send(stdin);
    });
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let output = ended
        .recv_timeout(Duration::from_secs(60))
        .expect("serve ends once its answers cannot be written")
        .expect("vdm-exec finishes");
    drop(kept);
    let _ = std::fs::remove_file(tools);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("replies cannot be written"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `--jobs` starts that many threads: a count past what a machine runs at
/// once (a million ended serve in a panic, unable to start threads) is
/// refused before anything starts, as is 0.
#[test]
fn a_job_count_out_of_range_is_refused() {
    let tools = tools_file("jobs.json");
    for jobs in ["0", "1025", "1000000"] {
        let output = Command::new(EXEC)
            .args(["serve", "--jobs", jobs, "--tools"])
            .arg(&tools)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{jobs}: {said}");
        assert!(
            said.contains(&format!("{jobs} is not in 1..=1024")),
            "{jobs}: {said}"
        );
        assert!(!said.contains("panicked"), "{jobs}: {said}");
    }
    let _ = std::fs::remove_file(tools);
}

#[test]
fn a_bad_tool_set_stops_serve_before_it_reads() {
    let path = temp_path("bad-tools.json");
    std::fs::write(&path, r#"{"tools": [{"name": "x", "command": []}]}"#).expect("write");
    let output = Command::new(EXEC)
        .args(["serve", "--tools"])
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("#/tools/0/command"));
    let _ = std::fs::remove_file(path);
}

#[test]
fn run_refuses_an_empty_stdin_instead_of_reading_it_as_null() {
    let tools = tools_file("run-empty");
    let output = Command::new(EXEC)
        .args(["run", "--tools"])
        .arg(&tools)
        .arg("exit")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("stdin holds no input"));
    assert!(output.stdout.is_empty(), "the tool did not run");
    let _ = std::fs::remove_file(tools);
}

/// `run` reads its input as `serve` reads a call's: the wire's JSON text
/// policy holds, and nothing larger than a frame is read. Each refused
/// input is one the tool never sees.
#[test]
fn run_reads_its_input_by_the_wire_policy_and_no_larger_than_a_frame() {
    let tools = tools_file("run-policy");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let large = format!("\"{}\"", "x".repeat(proto::MAX_FRAME));
    let cases: [(&str, &[u8], &str); 5] = [
        ("a repeated member", b"{\"a\": 1, \"a\": 2}", "not JSON"),
        (
            "an integer past 2^53",
            b"{\"n\": 9007199254740993}",
            "not JSON",
        ),
        ("a NUL after the value", b"{\"a\": 1}\x00{}", "not JSON"),
        ("100,000 nested arrays", deep.as_bytes(), "not JSON"),
        (
            "a string larger than a frame",
            large.as_bytes(),
            "larger than a frame",
        ),
    ];
    for (what, input, said) in cases {
        let output = run_exit(&tools, input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
        assert!(stderr.contains(said), "{what}: {stderr}");
        assert!(output.stdout.is_empty(), "{what}: the tool did not run");
    }
    let _ = std::fs::remove_file(tools);
}

/// `vdm-exec run` of the tool `exit` with `input` on stdin, to its end.
fn run_exit(tools: &std::path::Path, input: &[u8]) -> std::process::Output {
    let mut child = Command::new(EXEC)
        .args(["run", "--tools"])
        .arg(tools)
        .arg("exit")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // A refusal may come before all of it is written.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("ends")
}

#[test]
fn run_prints_the_rendered_result_and_exits_with_the_tools_code() {
    let tools = tools_file("run");
    let output = run_exit(&tools, b"{\"a\": 1}");
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Exit code: 3\ninput: {\"a\":1}\n--- stderr ---\nexiting with 3\n"
    );
    let _ = std::fs::remove_file(tools);
}

/// `vdm-conform drive` against `serve`: every call answered with its id,
/// the newer peer's messages answered as docs/wire.md says, events never
/// answered, and every message serve writes holds the message rules.
#[test]
fn serve_holds_every_rule_drive_exercises() {
    let tools = tools_file("drive");
    let mut child = spawn_serve(&tools, Some("2"), false);
    let (to_peer, from_peer) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let checker = conformance::Checker::embedded().unwrap();
    let options = conformance::drive::Options {
        methods: None,
        timeout: Duration::from_secs(60),
        seed: 3,
        role: conformance::drive::Role::Client,
    };
    let driven = conformance::drive::drive(&checker, from_peer, to_peer, &options).unwrap();
    let _ = child.wait();
    let _ = std::fs::remove_file(tools);
    let broken: Vec<_> = driven
        .rules
        .iter()
        .filter(|(_, tally)| !tally.broken.is_empty())
        .collect();
    assert!(broken.is_empty(), "{broken:#?}");
    let exercised: Vec<&str> = driven.rules.keys().map(|rule| rule.id()).collect();
    assert_eq!(
        exercised,
        [
            "schema",
            "drive.answer",
            "drive.method_not_found",
            "drive.invalid_params",
            "drive.parse_error",
            "drive.event_unanswered",
            "drive.still_answers",
            "drive.oversize"
        ]
    );
    // Every method of the contract was called and answered.
    let methods = checker
        .schema_set()
        .of_kind(contract::DocKind::Method)
        .count();
    assert_eq!(
        driven.rules[&conformance::Rule::DriveAnswer].exercised,
        methods
    );
}

/// `vdm-exec check` loads a tool-set file as `serve` does and runs
/// nothing: a file `serve` would refuse fails with the same words (exit 2),
/// one it would run passes and names its tools.
#[test]
fn the_check_command_loads_a_tool_set_as_serve_does() {
    let dir = std::env::temp_dir().join(format!("vdm-exec-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(
        &good,
        r#"{"tools": [{"name": "echo", "command": ["/bin/echo"]}, {"name": "ls", "command": ["ls"]}]}"#,
    )
    .unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"tools": [{"name": "a", "command": ["cat"]}, {"name": "a", "command": ["cat"]}]}"#,
    )
    .unwrap();
    let output = Command::new(EXEC)
        .args(["check", "--tools"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout)
        .contains("2 tool(s), as serve would run them: echo, ls"));
    let output = Command::new(EXEC)
        .args(["check", "--tools"])
        .arg(&bad)
        .output()
        .unwrap();
    let loaded = exec::load(&bad).map(|_| ()).map_err(|err| err.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("/tools/1/name: the name \"a\" is already used"),
        "{said}"
    );
    assert!(loaded.is_err_and(|why| said.contains(&why)), "{said}");
}

/// `vdm-exec schema` prints the tool-set file's schema, the one
/// `exec::config` reads by; a reader that has gone (`vdm-exec schema |
/// head`) ends the output quietly, not with a panic; a full disk (here
/// `/dev/full`) is an error, not a success that leaves a cut file.
#[test]
fn the_schema_command_prints_the_tool_set_schema() {
    let output = Command::new(EXEC).arg("schema").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed, exec::config::schema());

    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(EXEC)
        .arg("schema")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(!said.contains("panicked"), "{said}");

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = Command::new(EXEC)
        .arg("schema")
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("vdm-exec: writing to stdout: No space left on device"),
        "{said}"
    );
}

/// A tool set whose one tool, `nap`, sleeps for 300 s.
fn nap_tools(name: &str) -> std::path::PathBuf {
    let tools = temp_path(name);
    std::fs::write(
        &tools,
        json!({"tools": [{"name": "nap", "command": [HELPER, "sleep", "300"]}]}).to_string(),
    )
    .unwrap();
    tools
}

/// The tool `executor` started: its one child, waited for up to 30 s.
fn started_tool(executor: u32) -> u32 {
    for _ in 0..3000 {
        if let Some(&tool) = children(executor).first() {
            return tool;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no tool started");
}

/// What `child` wrote once it ended; a failure when it has not ended
/// within 60 s, with it and its `tool` killed rather than left running.
fn ended(child: std::process::Child, tool: u32, what: &str) -> std::process::Output {
    let (done, ended) = std::sync::mpsc::channel();
    let pid = child.id();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    ended
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| {
            for pid in [pid, tool] {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
            panic!("{what}: the executor did not end within 60 s");
        })
        .unwrap()
}

/// A daemon stopping its executor (SIGTERM), Ctrl-C at a terminal
/// (SIGINT), a closed terminal (SIGHUP) or `Ctrl-\` (SIGQUIT) reaches no tool, each in a
/// process group of its own: the executor ends the running tools itself,
/// says so, and then ends by that signal. Without it the tool ran on.
#[test]
fn a_signalled_executor_leaves_no_tool_running() {
    use std::os::unix::process::ExitStatusExt;
    let tools = nap_tools("signalled.json");
    for (signal, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
        (libc::SIGQUIT, "QUIT"),
    ] {
        for serve in [true, false] {
            let mut command = Command::new(EXEC);
            common::without_core_dump(&mut command);
            if serve {
                command.arg("serve");
            } else {
                command.args(["run", "nap"]);
            }
            let mut child = command
                .arg("--tools")
                .arg(&tools)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            // `serve` keeps its input open, as a daemon does; `run` reads
            // its input to the end.
            let kept = if serve {
                stdin
                    .write_all(&call(
                        1,
                        "tool.invoke",
                        json!({"tool": "nap", "input": null}),
                    ))
                    .unwrap();
                Some(stdin)
            } else {
                stdin.write_all(b"null").unwrap();
                drop(stdin);
                None
            };
            let tool = started_tool(child.id());
            let _ = Command::new("kill")
                .arg(format!("-{name}"))
                .arg(child.id().to_string())
                .status();
            let output = ended(child, tool, &format!("{name}, serve {serve}"));
            drop(kept);
            let said = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.signal(),
                Some(signal),
                "{name}, serve {serve}: {said}"
            );
            assert!(
                said.contains(&format!(
                    "vdm-exec: stopped by signal {signal}; 1 running tool(s) ended"
                )),
                "{name}, serve {serve}: {said}"
            );
            assert!(
                !running(tool),
                "{name}, serve {serve}: the tool {tool} runs on"
            );
        }
    }
    let _ = std::fs::remove_file(&tools);
}

/// A daemon that crashes closes both ends: no answer can reach it, and a
/// tool would run on to its deadline (up to a day). serve ends the running
/// tools as soon as its stdout has no reader, says so, and ends (code 2).
#[test]
fn a_peer_that_is_gone_leaves_no_tool_running() {
    let tools = nap_tools("peer-gone.json");
    let mut child = spawn_serve(&tools, None, true);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&call(
            1,
            "tool.invoke",
            json!({"tool": "nap", "input": null}),
        ))
        .unwrap();
    let tool = started_tool(child.id());
    drop(child.stdout.take());
    drop(stdin);
    let output = ended(child, tool, "its peer gone");
    let _ = std::fs::remove_file(&tools);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("vdm-exec: the peer closed its end of stdout; 1 running tool(s) ended"),
        "{said}"
    );
    assert!(!running(tool), "the tool {tool} runs on");
}
