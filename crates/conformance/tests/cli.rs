//! `vdm-conform` as a lane's CI runs it: files in, violations and an exit
//! status out (0 conforms, 1 violations, 2 usage or I/O).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vdm-conform starts");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .expect("write stdin");
    drop(input);
    child.wait_with_output().expect("vdm-conform finishes")
}

/// The release the hand-written messages below are written for. A frozen
/// release never changes, so the reports on them hold through any change
/// to the working tree's contract (a bound moved, a member made required).
const PINNED: &str = "1.0.0";

/// `vdm-conform --contract PINNED ARGS`.
fn run_pinned(args: &[&str], stdin: Option<&str>) -> Output {
    let mut pinned = vec!["--contract", PINNED];
    pinned.extend_from_slice(args);
    run(&pinned, stdin)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The line and rule of each violation printed with `--format json`.
fn lines_and_rules(output: &Output) -> Vec<(u64, String)> {
    stdout(output)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|v| {
            let rule = v["rule"].as_str().unwrap_or_default().to_string();
            (v["line"].as_u64().unwrap_or(0), rule)
        })
        .collect()
}

/// A scratch file, removed afterwards.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, contents: &[u8]) -> Self {
        // Tests run in parallel in one process, some with the same names.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let unique = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "vdm-conform-{}-{unique}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).expect("write temp file");
        Temp(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

// Messages of release PINNED (`run_pinned`).
const GOOD: &str =
    r#"{"v":1,"kind":"call","id":1,"body":{"method":"download.pause","params":{"taskId":"t_01"}}}"#;
const BAD_PARAMS: &str = r#"{"v":1,"kind":"call","id":2,"body":{"method":"download.add","params":{"spec":{"url":"https://example.org/a","segments":40}}}}"#;
const BAD_RANGES: &str = r#"{"v":1,"kind":"reply","id":3,"body":{"method":"download.get","result":{"task":{"summary":{"taskId":"t","url":"https://example.org/a","fileName":"a","state":"downloading","sizeBytes":100,"downloadedBytes":0,"segments":2,"speedBytesPerSec":0,"etaSeconds":null,"createdAt":"2026-11-30T10:00:00Z"},"spec":{"url":"https://example.org/a"},"segmentDetail":[{"index":0,"startByte":0,"endByte":50,"downloadedBytes":0,"state":"pending"},{"index":1,"startByte":50,"endByte":100,"downloadedBytes":0,"state":"pending"}]}}}}"#;

#[test]
fn conforming_json_lines_exit_zero() {
    let file = Temp::new("good.jsonl", format!("{GOOD}\n\n{GOOD}\n").as_bytes());
    let output = run_pinned(&["check", file.path()], None);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn violations_are_listed_in_human_form_and_exit_one() {
    let file = Temp::new(
        "bad.jsonl",
        format!("{GOOD}\n{BAD_PARAMS}\nnot json\n{BAD_RANGES}\n").as_bytes(),
    );
    let output = run_pinned(&["check", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output).replace(file.path(), "bad.jsonl");
    insta::assert_snapshot!("human_report", text);
}

#[test]
fn json_format_gives_one_object_per_violation() {
    let file = Temp::new("bad.json", format!("[{GOOD}, {BAD_PARAMS}]").as_bytes());
    let output = run_pinned(&["--format", "json", "check", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["index"], 1);
    assert_eq!(lines[0]["pointer"], "/body/params/spec/segments");
    assert_eq!(lines[0]["rule"], "schema");
    assert_eq!(lines[0]["keyword"], "maximum");
    assert_eq!(lines[0]["file"], file.path());
}

/// A frame's body is checked as `check` checks a message: a schema finding
/// names its keyword in JSON there too.
#[test]
fn frames_json_format_names_the_keyword() {
    let body = BAD_PARAMS.as_bytes();
    let mut capture = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    capture.extend_from_slice(body);
    let file = Temp::new("bad.bin", &capture[..]);
    let output = run_pinned(&["--format", "json", "frames", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["offset"], 0);
    assert_eq!(lines[0]["rule"], "schema");
    assert_eq!(lines[0]["keyword"], "maximum");
}

#[test]
fn github_format_gives_annotations_with_lines() {
    let file = Temp::new("gh.jsonl", format!("{GOOD}\n{BAD_PARAMS}\n").as_bytes());
    let output = run_pinned(&["--format", "github", "check", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with(&format!(
            "::error file={},line=2,title=schema at /body/params/spec/segments::",
            file.path()
        )),
        "{text}"
    );
}

/// A member name of the input is quoted by the validator's message and
/// makes the pointer: one with a line break, an escape sequence and a NUL
/// cannot add a line of its own, in any format that prints it.
#[test]
fn what_the_input_names_cannot_forge_a_line() {
    // JSON escapes, so the text holds no raw control character (the text
    // policy would refuse it before any name is read).
    let forged = r"x\nbad.jsonl:1 [message 0] /: [schema] all good\u001b[2J\u0000\u2028\u202e";
    let message = format!(
        r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"download.add","params":{{"spec":{{"url":"https://example.org/a","headers":{{"{forged}":7}}}},"{forged}":1}}}}}}"#
    );
    let file = Temp::new("forged.jsonl", format!("{message}\n").as_bytes());
    for format in ["human", "github"] {
        let output = run(&["--format", format, "check", file.path()], None);
        assert_eq!(output.status.code(), Some(1), "{format}");
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        // The unexpected member, and the header value that is not a string.
        assert_eq!(lines.len(), 2, "{format}: {text}");
        for line in &lines {
            assert!(!line.chars().any(char::is_control), "{format}: {line:?}");
            assert!(
                !line.contains(['\u{2028}', '\u{202e}']),
                "{format}: {line:?}"
            );
            assert!(line.contains(r"x\u000abad.jsonl"), "{format}: {line}");
        }
    }
}

/// A value the input holds may be a frame's worth; a report line quotes at
/// most about a kilobyte of it, in every format, and still says where and
/// which rule.
#[test]
fn a_long_value_is_quoted_cut_in_every_format() {
    let long = "x".repeat(500_000);
    let message = format!(
        r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"download.add","params":{{"spec":{{"url":"https://example.org/a","segments":"{long}"}}}}}}}}"#
    );
    let file = Temp::new("long.jsonl", format!("{message}\n").as_bytes());
    for format in ["human", "json", "github"] {
        let output = run(&["--format", format, "check", file.path()], None);
        assert_eq!(output.status.code(), Some(1), "{format}");
        let text = stdout(&output);
        assert_eq!(text.lines().count(), 1, "{format}");
        assert!(text.len() < 2048, "{format}: {} bytes", text.len());
        assert!(
            text.contains("/body/params/spec/segments"),
            "{format}: {text}"
        );
        assert!(text.contains("characters left out"), "{format}: {text}");
        assert!(
            text.contains("is not of type"),
            "{format}: the end is kept: {text}"
        );
    }
}

#[test]
fn standard_input_is_read_for_a_dash() {
    let output = run_pinned(&["check", "-"], Some(BAD_RANGES));
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("[detail.contiguous]") && text.contains("[detail.coverage]"),
        "{text}"
    );
}

#[test]
fn bare_values_are_checked_as_a_named_type() {
    let output = run(
        &["check", "--type", "Segment", "-"],
        Some(r#"{"index":0,"startByte":10,"endByte":5,"downloadedBytes":0,"state":"pending"}"#),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("[segment.range_order]"));
    let output = run(
        &["check", "--type", "Segment", "-"],
        Some(r#"{"index":0,"startByte":0,"endByte":5,"downloadedBytes":6,"state":"complete"}"#),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

/// An unknown type is a usage error that says which type was meant when
/// the name is a method's, an event's, or another's in other case.
#[test]
fn an_unknown_type_is_a_usage_error() {
    for (name, said) in [
        (
            "Segmint",
            "no type called \"Segmint\"; did you mean Segment? known types: CallBody, ",
        ),
        (
            "download.pause",
            "no type called \"download.pause\"; download.pause is a method: its types are \
             DownloadPauseParams and DownloadPauseResult; known types: ",
        ),
        (
            "event.task.removed",
            "event.task.removed is an event: its type is TaskRemovedEvent; known types: ",
        ),
        (
            "segment",
            "no type called \"segment\"; did you mean Segment? known types: ",
        ),
    ] {
        let output = run(&["check", "--type", name, "-"], Some("{}"));
        assert_eq!(output.status.code(), Some(2));
        let told = String::from_utf8_lossy(&output.stderr);
        assert!(told.contains(said), "{told}");
    }
}

#[test]
fn a_missing_file_is_an_io_error() {
    let output = run(&["check", "/nonexistent/messages.jsonl"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/messages.jsonl"));
}

/// A file read whole (a transitions table, a C++ header) that never ends
/// is refused after a bounded read, not read until memory runs out.
#[test]
fn a_file_read_whole_is_refused_past_its_bound() {
    for args in [
        &["trace", "--transitions", "/dev/zero", "-"][..],
        &["mirror", "--cpp-header", "/dev/zero"],
    ] {
        let output = run(args, Some(""));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let told = String::from_utf8_lossy(&output.stderr);
        assert!(
            told.contains("/dev/zero: larger than 16 MiB"),
            "{args:?}: {told}"
        );
    }
}

#[test]
fn bad_arguments_are_a_usage_error() {
    assert_eq!(run(&["check"], None).status.code(), Some(2));
    assert_eq!(
        run(&["--format", "xml", "check", "-"], None).status.code(),
        Some(2)
    );
    // Standard input twice: the second would be an input holding nothing.
    for args in [
        &["check", "-", "-"][..],
        &["frames", "-", "-"],
        &["trace", "-", "--client", "-", "--server", "x.bin"],
    ] {
        let output = run(args, None);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let told = String::from_utf8_lossy(&output.stderr);
        assert!(
            told.contains("standard input (`-`) is named more than once"),
            "{args:?}: {told}"
        );
    }
}

#[test]
fn a_frame_capture_is_checked_frame_by_frame_with_offsets() {
    let mut bytes =
        std::fs::read(repo().join("conformance/frames/two_frames.bin")).expect("fixture");
    let first = bytes.len();
    bytes.extend(
        std::fs::read(repo().join("conformance/frames/wrong_version.bin")).expect("fixture"),
    );
    let second = bytes.len();
    bytes.extend([0, 0, 0, 0]);
    bytes.extend(std::fs::read(repo().join("conformance/frames/cut_body.bin")).expect("fixture"));
    let capture = Temp::new("capture.bin", &bytes);
    let output = run(&["frames", capture.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output).replace(capture.path(), "capture.bin");
    assert!(
        text.contains(&format!(
            "capture.bin @ byte {first} /v: [envelope.version]"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "capture.bin @ byte {second} (root): [frame.empty]"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "capture.bin @ byte {} (root): [frame.truncated] the capture ends inside a frame: its length prefix or its body is cut short",
            second + 4
        )),
        "{text}"
    );
}

/// A capture's zero-filled stretch reads as a run of empty frames, four
/// bytes each: told at its first frame and at its last with the count, not
/// once a frame, in `frames` and in a pair of captures alike; a frame
/// after the run is read and told as before.
#[test]
fn a_run_of_empty_frames_is_told_at_its_ends() {
    let fixture =
        |name: &str| std::fs::read(repo().join("conformance/frames").join(name)).expect("fixture");
    let reply = fixture("reply.bin");
    let mut bytes = reply.clone();
    bytes.extend([0; 4 * 1000]);
    let after = bytes.len();
    bytes.extend(fixture("wrong_version.bin"));
    bytes.extend([0; 4]);
    let capture = Temp::new("zeros.bin", &bytes);
    let output = run(&["frames", capture.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output).replace(capture.path(), "capture.bin");
    let start = reply.len();
    let last = after - 4;
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            format!("capture.bin @ byte {start} (root): [frame.empty] the frame is empty (length 0); a frame carries one envelope"),
            format!("capture.bin @ byte {last} (root): [frame.empty] the last of 1000 empty frames in a row, from byte {start} (length 0 each)"),
            format!("capture.bin @ byte {after} /v: [envelope.version] protocol version 2, but this contract speaks 1; the rest of the message was not checked"),
            format!("capture.bin @ byte {} (root): [frame.empty] the frame is empty (length 0); a frame carries one envelope", bytes.len() - 4),
        ],
        "{text}"
    );
    let client = Temp::new("client.bin", &fixture("call.bin"));
    let mut server = reply;
    server.extend([0; 4 * 3]);
    let server = Temp::new("server.bin", &server);
    let output = run(
        &[
            "trace",
            "--client",
            client.path(),
            "--server",
            server.path(),
        ],
        None,
    );
    let text = stdout(&output).replace(server.path(), "server.bin");
    assert_eq!(
        text.lines().filter(|line| line.contains("[frame.empty]")).collect::<Vec<_>>(),
        [
            format!("server.bin @ byte {start} (root): [frame.empty] the frame is empty (length 0); a frame carries one envelope"),
            format!("server.bin @ byte {} (root): [frame.empty] the last of 3 empty frames in a row, from byte {start} (length 0 each)", start + 8),
        ],
        "{text}"
    );
}

#[test]
fn valid_frame_fixtures_conform() {
    let output = run(
        &[
            "frames",
            "conformance/frames/two_frames.bin",
            "conformance/frames/tool_request.bin",
            "conformance/frames/max_frame.bin",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

/// An engine header mirroring TaskErrorCode as the release `PINNED` froze
/// it; the tests that read it compare against that release, so a release
/// that adds a code edits none of them.
const HEADER: &str = "
namespace vdm {
// The engine's failure codes; ok has no wire spelling.
enum class Error : int {
    ok = 0,
    invalid_url, unsupported_scheme, dns_failed, connect_failed, connect_timeout, tls_failed,
    proxy_failed, probe_failed, http_client_error, http_server_error, auth_required,
    proxy_auth_required, forbidden, not_found, range_not_supported, too_many_redirects,
    read_timeout, connection_reset, server_file_changed, size_mismatch, checksum_mismatch,
    disk_full, write_failed, permission_denied, file_exists, max_retries_exhausted,
    internal_error, /* keep last */
};
}
";

/// `vdm-conform --contract PINNED mirror --cpp-header PATH MORE`.
fn mirror(path: &str, more: &[&str]) -> Output {
    let mut args = vec!["mirror", "--cpp-header", path];
    args.extend(more);
    run_pinned(&args, None)
}

#[test]
fn a_header_that_mirrors_task_error_code_conforms() {
    let header = Temp::new("good.hpp", HEADER.as_bytes());
    let output = mirror(header.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn the_generated_cpp_header_mirrors_task_error_code() {
    let header = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bindings/cpp/include/vdm/contract.hpp"
    );
    let output = run(&["mirror", "--cpp-header", header], None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // The same header with two codes swapped is caught, so the check looked.
    let text = std::fs::read_to_string(header).unwrap();
    let swapped = text.replacen(
        "  dns_failed,\n  connect_failed,",
        "  connect_failed,\n  dns_failed,",
        1,
    );
    assert_ne!(
        swapped, text,
        "the generated enum lists dns_failed before connect_failed"
    );
    let swapped = Temp::new("swapped.hpp", swapped.as_bytes());
    let output = run(&["mirror", "--cpp-header", swapped.path()], None);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
}

#[test]
fn camel_case_enumerators_mirror_too() {
    let camel = HEADER
        .replace("ok = 0", "kOk = 0")
        .replace("invalid_url", "kInvalidUrl")
        .replace("dns_failed", "DnsFailed");
    let header = Temp::new("camel.hpp", camel.as_bytes());
    let output = mirror(header.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn a_drifted_header_reports_missing_extra_and_moved_values() {
    let drifted = HEADER
        .replace("disk_full, ", "")
        .replace("internal_error,", "internal_error, quota_exceeded,")
        .replace(
            "unsupported_scheme, dns_failed,",
            "dns_failed, unsupported_scheme,",
        );
    let header = Temp::new("drift.hpp", drifted.as_bytes());
    let output = mirror(header.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output).replace(header.path(), "drift.hpp");
    insta::assert_snapshot!("mirror_report", text);
}

#[test]
fn a_header_without_the_enum_is_an_input_error() {
    let header = Temp::new("none.hpp", b"enum class Color { red, green };");
    let output = run(&["mirror", "--cpp-header", header.path()], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("no `enum class` whose first enumerator is `ok`"));
}

/// Without --enum, the enum is the one called TaskErrorCode, or the only one
/// that starts with `ok`; two such are refused by name rather than one of
/// them compared. What a string literal holds is no code.
#[test]
fn the_enum_compared_is_never_a_guess() {
    let literal = "const char* doc = \"enum class Example { ok, sample };\";\n";
    let status = "enum class Status { ok, busy };\n";
    let deprecated = HEADER.replace(
        "invalid_url,",
        "[[deprecated(\"say ]] if you must\")]] invalid_url,",
    );
    let header = Temp::new("literal.hpp", format!("{literal}{deprecated}").as_bytes());
    let output = mirror(header.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    let header = Temp::new("two.hpp", format!("{status}{HEADER}").as_bytes());
    let output = mirror(header.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("several enum classes start with `ok`: Status (line 1), Error (line 5); name the engine's error codes with --enum"),
        "{stderr}"
    );
    let output = mirror(header.path(), &["--enum", "Error"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    let named = HEADER.replace("enum class Error", "enum class TaskErrorCode");
    let header = Temp::new("named.hpp", format!("{status}{named}").as_bytes());
    let output = mirror(header.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

/// Nothing checked is not a pass: an empty capture is usually a failed
/// capture step in a lane's CI.
#[test]
fn an_input_with_no_message_fails_unless_allowed() {
    let empty = Temp::new("empty.jsonl", b"\n  \n");
    let capture = Temp::new("empty.bin", b"");
    for args in [vec!["check", empty.path()], vec!["frames", capture.path()]] {
        let output = run(&args, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("holds no message, so nothing in it was checked; pass --allow-empty"),
            "{args:?}: {stderr}"
        );
        let mut allowed = args.clone();
        allowed.push("--allow-empty");
        let output = run(&allowed, None);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{allowed:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // A capture that is one cut or oversize frame is broken, which its
    // finding says; it is not called empty, nor --allow-empty offered.
    for (name, bytes) in [
        ("cut.bin", &b"\x00\x00\x00\x09{}"[..]),
        ("oversize.bin", &b"\xff\xff\xff\xff{}"[..]),
        ("header.bin", &b"\x00\x00"[..]),
    ] {
        let capture = Temp::new(name, bytes);
        for args in [
            vec!["frames", capture.path()],
            vec!["frames", capture.path(), "--allow-empty"],
        ] {
            let output = run(&args, None);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(!stderr.contains("holds no message"), "{args:?}: {stderr}");
            assert!(stdout(&output).contains("[frame."), "{args:?}");
        }
    }
    // Standard input that holds nothing is refused the same way.
    assert_eq!(run(&["check", "-"], Some("")).status.code(), Some(1));
    // Two frame captures of one connection are named as the pair they are.
    let output = run(
        &[
            "trace",
            "--client",
            capture.path(),
            "--server",
            capture.path(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the capture pair {0}, {0} holds no message",
            capture.path()
        )),
        "{stderr}"
    );
    // One empty input beside a good one is still refused, and named.
    let good = Temp::new("good.jsonl", format!("{GOOD}\n").as_bytes());
    let record = format!(r#"{{"conn":"c","from":"client","transport":"unix","msg":{GOOD}}}"#);
    let trace = Temp::new("good.trace.jsonl", format!("{record}\n").as_bytes());
    for args in [
        vec!["check", good.path(), empty.path()],
        vec!["trace", trace.path(), empty.path()],
    ] {
        let output = run(&args, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{} holds no message", empty.path())),
            "{args:?}: {stderr}"
        );
    }
}

/// Captured traffic can hold credentials: no report, in any format, prints a
/// value at an `x-secret` place (`download.provideAuth`'s `password`) or an
/// instance that holds one; it still names the pointer and the rule.
#[test]
fn reports_never_print_a_secret() {
    let call = |password: serde_json::Value, extra: serde_json::Value| {
        let mut params =
            serde_json::json!({"taskId": "t_01", "username": "u", "password": password});
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        serde_json::json!({"v": 1, "kind": "call", "id": 5,
            "body": {"method": "download.provideAuth", "params": params}})
        .to_string()
    };
    let cases = [
        // A secret of the wrong type: the schema rule fires at the secret itself.
        (
            call(serde_json::json!(987654321), serde_json::json!({})),
            "987654321",
            "/body/params/password",
        ),
        // A fine secret beside a refused field: the finding above it must not quote it.
        (
            call(
                serde_json::json!("hunter2-s3cret"),
                serde_json::json!({"save": "yes"}),
            ),
            "hunter2-s3cret",
            "/body/params/save",
        ),
        // A secret that is an object: its contents are never printed either.
        (
            call(
                serde_json::json!({"pin": "42-topsecret-42"}),
                serde_json::json!({}),
            ),
            "42-topsecret-42",
            "/body/params/password",
        ),
        // params encoded twice: a string where the object holding the
        // secret belongs is not printed.
        (
            serde_json::json!({"v": 1, "kind": "call", "id": 5, "body": {
                "method": "download.provideAuth",
                "params": serde_json::json!({"taskId": "t_01", "username": "u",
                    "password": "dbl-encoded-pw"}).to_string()}})
            .to_string(),
            "dbl-encoded-pw",
            "/body/params",
        ),
        // The same, one level down: the params object encoded inside an array.
        (
            serde_json::json!({"v": 1, "kind": "call", "id": 5, "body": {
                "method": "download.provideAuth",
                "params": [{"taskId": "t_01", "username": "u", "password": "in-an-array-pw"}]}})
            .to_string(),
            "in-an-array-pw",
            "/body/params",
        ),
    ];
    for (message, secret, pointer) in cases {
        let file = Temp::new("secret.jsonl", message.as_bytes());
        for format in ["human", "json", "github"] {
            let output = run(&["--format", format, "check", file.path()], None);
            let printed = format!(
                "{}{}",
                stdout(&output),
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(output.status.code(), Some(1), "{format}: {printed}");
            assert!(
                !printed.contains(secret),
                "{format} printed the secret: {printed}"
            );
            assert!(
                printed.contains(pointer),
                "{format} lost the pointer {pointer}: {printed}"
            );
        }
        let human = stdout(&run(&["check", file.path()], None));
        assert!(human.contains("[schema]"), "{human}");
    }
    let output = stdout(&run(
        &[
            "check",
            Temp::new(
                "secret2.jsonl",
                call(serde_json::json!(987654321), serde_json::json!({})).as_bytes(),
            )
            .path(),
        ],
        None,
    ));
    assert!(output.contains("<redacted>"), "{output}");
}

/// A message that is no object at all (a bad capture step): even where its
/// value is hidden, the report says what it is and what belongs there.
#[test]
fn a_value_of_the_wrong_shape_is_named_by_its_shape_even_when_hidden() {
    let file = Temp::new("shapes.jsonl", b"\"hello\"\n[1]\n7\nnull\n");
    let output = run(&["--format", "json", "check", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let messages: Vec<String> = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|finding| finding["message"].as_str().map(str::to_string))
        .collect();
    assert_eq!(messages.len(), 4, "{messages:?}");
    // The root is "(root)" in an annotation's title as in the human report
    // ("/" would be the member named "").
    let github = stdout(&run(&["--format", "github", "check", file.path()], None));
    assert_eq!(
        github.matches(",title=schema at (root)::").count(),
        4,
        "{github}"
    );
    for (message, shape) in messages
        .iter()
        .zip(["a string", "an array", "a number", "null"])
    {
        assert!(
            message.contains(&format!("{shape} where an object is expected"))
                || message.contains(&format!(
                    "expected an object with a \"kind\" tag, found {shape}"
                )),
            "{message}"
        );
    }
}

/// A lane pinned to a release checks against that release.
#[test]
fn a_pinned_contract_refuses_what_only_a_later_one_has() {
    let provide_auth = r#"{"v":1,"kind":"call","id":9,"body":{"method":"download.provideAuth","params":{"taskId":"t_01","username":"u","password":"p"}}}"#;
    let file = Temp::new("provide-auth.jsonl", provide_auth.as_bytes());
    let pinned = run(&["--contract", "1.0.0", "check", file.path()], None);
    assert_eq!(pinned.status.code(), Some(1), "{}", stdout(&pinned));
    assert!(
        stdout(&pinned).contains("download.provideAuth"),
        "{}",
        stdout(&pinned)
    );
    assert!(
        String::from_utf8_lossy(&pinned.stderr).contains("checked against contract 1.0.0"),
        "{}",
        String::from_utf8_lossy(&pinned.stderr)
    );
    let newest = run(&["check", file.path()], None);
    assert_eq!(
        newest.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&newest.stderr)
    );
    let list = run(&["--contract", "list", "rules"], None);
    let versions = stdout(&list);
    assert!(
        versions.lines().any(|v| v == "1.0.0") && versions.lines().any(|v| v == "1.1.0"),
        "{versions}"
    );
    let unknown = run(&["--contract", "0.9.0", "check", file.path()], None);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("no contract \"0.9.0\" is compiled in")
    );
}

/// `trace` over the fixtures: the realistic session conforms, a broken one
/// is reported with the lines of both messages, in every format.
#[test]
fn trace_checks_a_conversation() {
    let table = "conformance/traces/transitions.json";
    let session = run(
        &[
            "trace",
            "--closed",
            "--transitions",
            table,
            "conformance/traces/valid/session.jsonl",
        ],
        None,
    );
    assert_eq!(
        session.status.code(),
        Some(0),
        "{}{}",
        stdout(&session),
        String::from_utf8_lossy(&session.stderr)
    );
    let duplicate = "conformance/traces/invalid/trace.duplicate_answer.jsonl";
    for format in ["human", "json", "github"] {
        let output = run(&["--format", format, "trace", duplicate], None);
        assert_eq!(output.status.code(), Some(1));
        insta::assert_snapshot!(format!("trace_duplicate_answer_{format}"), stdout(&output));
    }
    // Open calls at the end: a warning, unless the capture says it closed cleanly.
    let open = "conformance/traces/invalid/trace.unanswered.jsonl";
    let warned = run(&["trace", open], None);
    assert_eq!(warned.status.code(), Some(0));
    assert!(stdout(&warned).contains("warning:"), "{}", stdout(&warned));
    // Warnings are in every format's stream, and say they are warnings.
    let github = run(&["--format", "github", "trace", open], None);
    assert_eq!(github.status.code(), Some(0));
    assert!(
        stdout(&github).starts_with("::warning file="),
        "{}",
        stdout(&github)
    );
    assert!(!stdout(&github).contains("::error"), "{}", stdout(&github));
    let json = run(&["--format", "json", "trace", open], None);
    let levels: Vec<serde_json::Value> = stdout(&json)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|v| v["level"].clone())
        .collect();
    assert!(
        !levels.is_empty() && levels.iter().all(|l| l == "warning"),
        "{levels:?}"
    );
    assert_eq!(
        run(&["trace", "--closed", open], None).status.code(),
        Some(1)
    );
    // A lane pinned to 1.0.0 checks its conversation against 1.0.0.
    let pinned = run(
        &[
            "--contract",
            "1.0.0",
            "trace",
            "conformance/traces/invalid/trace.transport.jsonl",
        ],
        None,
    );
    assert!(stdout(&pinned).contains("[schema]"), "{}", stdout(&pinned));
}

/// JSON Lines are read a batch at a time: places stay right past a batch's end.
#[test]
fn a_long_json_lines_file_is_checked_across_batches_with_the_right_places() {
    let mut text = String::new();
    for number in 1..=8200 {
        if number == 8195 {
            text.push_str(BAD_PARAMS);
        } else if number == 10 {
            // A blank line: not a message, but a line.
        } else {
            text.push_str(GOOD);
        }
        text.push('\n');
    }
    let file = Temp::new("long.jsonl", text.as_bytes());
    let output = run_pinned(&["check", file.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let report = stdout(&output).replace(file.path(), "long.jsonl");
    assert!(
        report.starts_with("long.jsonl:8195 [message 8193] /body/params/spec/segments: [schema]"),
        "{report}"
    );
    assert_eq!(report.lines().count(), 1, "{report}");
}

/// Every trace rule's report, in each format, as lanes read it.
#[test]
fn every_trace_rule_reads_the_same_in_each_format() {
    let dir = repo().join("conformance/traces/invalid");
    let mut traces: Vec<_> = std::fs::read_dir(&dir)
        .expect("invalid traces")
        .map(|entry| entry.expect("entry").path())
        .collect();
    traces.sort();
    let table = "conformance/traces/transitions.json";
    let checker = conformance::Checker::embedded().expect("the contract");
    let transports = checker
        .schema_set()
        .get(contract::DocKind::Type, "Transport")
        .and_then(|doc| doc.value["enum"].as_array())
        .map(|values| {
            values
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        })
        .expect("a Transport enum");
    for format in ["human", "json", "github"] {
        let mut all = String::new();
        for trace in &traces {
            let name = trace.strip_prefix(repo()).expect("under the repository");
            let name = name.to_str().expect("utf-8");
            let output = run(
                &[
                    "--format",
                    format,
                    "trace",
                    "--closed",
                    "--transitions",
                    table,
                    name,
                ],
                None,
            );
            assert_eq!(output.status.code(), Some(1), "{name}");
            all.push_str(&stdout(&output));
        }
        // The list of transports grows with the contract; the report's
        // shape is what is held here.
        let all = all.replace(&format!("({transports})"), "(TRANSPORTS)");
        insta::assert_snapshot!(format!("trace_rules_{format}"), all);
    }
}

/// A JSON Lines trace of one connection as the two frame captures of it.
fn frame_pair(trace: &str) -> (Vec<u8>, Vec<u8>) {
    let text = std::fs::read_to_string(repo().join(trace)).expect("trace");
    let (mut client, mut server) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let record: serde_json::Value = serde_json::from_str(line).expect("a record");
        let body = record["msg"].to_string();
        let frame = [&(body.len() as u32).to_be_bytes()[..], body.as_bytes()].concat();
        match record["from"].as_str() {
            Some("client") => client.extend(frame),
            _ => server.extend(frame),
        }
    }
    (client, server)
}

fn trace_pair(trace: &str, extra: &[&str]) -> Output {
    let name = trace.rsplit('/').next().unwrap_or(trace);
    let (client, server) = frame_pair(trace);
    let client = Temp::new(&format!("{name}.client.bin"), &client);
    let server = Temp::new(&format!("{name}.server.bin"), &server);
    let mut args = vec![
        "--format",
        "json",
        "trace",
        "--client",
        client.path(),
        "--server",
        server.path(),
    ];
    args.extend(extra);
    run(&args, None)
}

#[test]
fn a_connections_two_frame_captures_are_checked_as_one_conversation() {
    let table = [
        "--closed",
        "--transitions",
        "conformance/traces/transitions.json",
    ];
    let session = trace_pair("conformance/traces/valid/session.jsonl", &table);
    assert_eq!(
        session.status.code(),
        Some(0),
        "{}{}",
        stdout(&session),
        String::from_utf8_lossy(&session.stderr)
    );
    // Each rule that two unix captures can show fires from them as from the
    // JSON Lines trace, at a frame of the right capture.
    for rule in [
        "trace.after_removed",
        "trace.direction",
        "trace.duplicate_answer",
        "trace.not_offered",
        "trace.previous_state",
        "trace.progress_backwards",
        "trace.reply_method",
        "trace.reply_without_call",
        "trace.transition",
        "trace.unanswered",
    ] {
        let output = trace_pair(&format!("conformance/traces/invalid/{rule}.jsonl"), &table);
        assert_eq!(output.status.code(), Some(1), "{rule}: {}", stdout(&output));
        let report = stdout(&output);
        let violations: Vec<serde_json::Value> = report
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON violation per line"))
            .collect();
        let found = violations.iter().find(|v| v["rule"] == rule);
        let found = found.unwrap_or_else(|| panic!("{rule} not reported: {report}"));
        assert!(
            found["offset"].is_u64(),
            "{rule}: a frame's byte offset: {found}"
        );
        assert!(
            found["file"]
                .as_str()
                .is_some_and(|file| file.ends_with(".bin")),
            "{found}"
        );
    }
    // Whether an id was reused in flight depends on how the two directions
    // interleaved, which two captures do not record; that capture is still
    // refused (the reply names another method than the call it can answer).
    let reused = trace_pair("conformance/traces/invalid/trace.id_in_flight.jsonl", &[]);
    assert_eq!(reused.status.code(), Some(1), "{}", stdout(&reused));
    assert!(
        stdout(&reused).contains("trace.reply_method"),
        "{}",
        stdout(&reused)
    );
}

#[test]
fn a_frame_pair_names_the_other_message_by_capture_and_offset() {
    let output = trace_pair(
        "conformance/traces/invalid/trace.duplicate_answer.jsonl",
        &[],
    );
    let text = stdout(&output);
    assert!(
        text.contains("was already answered at the server frame at byte"),
        "{text}"
    );
}

#[test]
fn a_trace_longer_than_a_batch_keeps_its_line_numbers_and_its_state() {
    // 20,000 progress events of one task, read in batches of 8,192 on both
    // cores: the fall at line 17,001 is found, in the third batch, and the
    // state it is judged against came from the batches before.
    let progress = |bytes: u64| {
        format!(
            r#"{{"from":"server","msg":{{"v":1,"kind":"event","body":{{"name":"event.task.progress","params":{{"taskId":"t_01","downloadedBytes":{bytes},"speedBytesPerSec":0,"segments":[]}}}}}}}}"#
        )
    };
    let mut lines: Vec<String> = (1..=17_000).map(progress).collect();
    lines.push(progress(5));
    lines.extend((17_001..=20_000).map(progress));
    let trace = Temp::new("long-trace.jsonl", (lines.join("\n") + "\n").as_bytes());
    let output = run(
        &["--format", "json", "trace", "--closed", trace.path()],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    let found: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!(found[0]["rule"], "trace.progress_backwards");
    assert_eq!(found[0]["line"], 17_001);
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("fell from 17000 (line 17000) to 5"),
        "{text}"
    );
}

/// A byte that is not UTF-8 (an engine writing a Latin-1 file name) is a
/// finding at its line; the lines after it are still read and checked.
#[test]
fn a_line_that_is_not_utf8_is_a_finding_and_reading_goes_on() {
    let latin1 =
        br#"{"v":1,"kind":"call","id":5,"body":{"method":"download.pause","params":{"taskId":"caf"#;
    let mut text = format!("{GOOD}\n").into_bytes();
    text.extend_from_slice(latin1);
    text.extend_from_slice(b"\xe9\"}}}\n");
    text.extend_from_slice(format!("{BAD_PARAMS}\n").as_bytes());
    let file = Temp::new("latin1.jsonl", &text);
    let output = run_pinned(&["--format", "json", "check", file.path()], None);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found = lines_and_rules(&output);
    assert!(found.contains(&(2, "json".to_string())), "{found:?}");
    assert!(
        found
            .iter()
            .any(|(line, rule)| *line == 3 && rule != "json"),
        "{found:?}"
    );

    // The same byte in a conversation: a finding at its line, and the
    // conversation goes on (the call on line 3 is still paired).
    let record = |from: &str, msg: &[u8]| {
        let mut line =
            format!(r#"{{"conn":"c","from":"{from}","transport":"unix","msg":"#).into_bytes();
        line.extend_from_slice(msg);
        line.extend_from_slice(b"}\n");
        line
    };
    let mut trace = record("client", GOOD.as_bytes());
    let mut bad = latin1.to_vec();
    bad.extend_from_slice(b"\xe9\"}}}");
    trace.extend(record("client", &bad));
    trace.extend(record("client", GOOD.as_bytes()));
    let file = Temp::new("latin1.trace.jsonl", &trace);
    let output = run_pinned(&["--format", "json", "trace", file.path()], None);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found = lines_and_rules(&output);
    assert!(found.contains(&(2, "json".to_string())), "{found:?}");
    // Line 3 reuses id 1 while line 1's call is still open: still followed.
    assert!(found.iter().any(|(line, _)| *line == 3), "{found:?}");
}

#[test]
fn the_small_commands_do_what_they_say() {
    // `--contract list` alone lists the releases compiled in.
    let list = run(&["--contract", "list"], None);
    assert_eq!(
        list.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(
        stdout(&list).lines().any(|line| line == "1.0.0"),
        "{}",
        stdout(&list)
    );
    // And as JSON Lines.
    let json = stdout(&run(&["--format", "json", "--contract", "list"], None));
    let listed: Vec<String> = json
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            record["contract"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(listed, stdout(&list).lines().collect::<Vec<_>>());
    // No command otherwise is a usage error.
    assert_eq!(run(&[], None).status.code(), Some(2));
    // A directory where a capture belongs is an I/O error, not a finding.
    let dir = std::env::temp_dir();
    let frames = run(&["frames", dir.to_str().unwrap_or("/tmp")], None);
    assert_eq!(frames.status.code(), Some(2), "{}", stdout(&frames));
    assert!(
        String::from_utf8_lossy(&frames.stderr).contains("is a directory"),
        "{}",
        String::from_utf8_lossy(&frames.stderr)
    );
    // `rules` says what every rule asks, conformance and lint alike.
    let rules = stdout(&run(&["rules"], None));
    for rule in conformance::Rule::ALL {
        let line = rules
            .lines()
            .find(|line| line.split('\t').next() == Some(rule.id()));
        let asks = line.and_then(|line| line.split('\t').nth(1)).unwrap_or("");
        assert!(asks.len() > 3, "{rule}: {line:?}");
    }
    // And as JSON Lines, the same rules in the same order.
    let json = stdout(&run(&["--format", "json", "rules"], None));
    let listed: Vec<(String, String)> = json
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let field = |key: &str| record[key].as_str().unwrap_or_default().to_string();
            (field("rule"), field("of"))
        })
        .collect();
    let ids: Vec<&str> = rules.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(
        listed.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
        ids
    );
    assert_eq!(
        listed.iter().filter(|(_, of)| of == "message").count(),
        conformance::Rule::ALL.len()
    );
    assert_eq!(
        listed.iter().filter(|(_, of)| of == "lint").count(),
        contract::LintRule::ALL.len()
    );
}

/// `docs/wire.md`: `7.0` is not an id. A reply with it is refused, and the
/// call it seems to answer stays open.
#[test]
fn a_reply_id_written_7_0_answers_no_call() {
    let trace = Temp::new(
        "id7.trace.jsonl",
        concat!(
            r#"{"from":"client","msg":{"v":1,"kind":"call","id":7,"body":{"method":"download.pause","params":{"taskId":"t_01"}}}}"#,
            "\n",
            r#"{"from":"server","msg":{"v":1,"kind":"reply","id":7.0,"body":{"method":"download.pause","result":{}}}}"#,
            "\n"
        )
        .as_bytes(),
    );
    let output = run(
        &["--format", "json", "trace", "--closed", trace.path()],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    let found = lines_and_rules(&output);
    assert_eq!(
        found,
        [
            (2, "json.integer".to_string()),
            (1, "trace.unanswered".to_string())
        ]
    );
}

/// `-0` where the contract wants an integer breaks `json.integer`, and the
/// message names the way it was written, not a fraction it does not have.
#[test]
fn an_integer_written_minus_zero_is_told_so() {
    let output = run(
        &["--format", "json", "check", "-"],
        Some(r#"{"v":1,"kind":"call","id":-0,"body":{"method":"download.list","params":{}}}"#),
    );
    assert_eq!(output.status.code(), Some(1));
    let found: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["rule"], "json.integer");
    assert_eq!(found[0]["pointer"], "/id");
    let message = found[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("as -0"), "{message}");
}

/// A transition table is read against the contract's `TaskState`: a state
/// that is not one is a usage error naming where it is, not a flood; and a
/// state given two rows is refused, not read as its last one.
#[test]
fn a_transition_table_with_a_state_that_is_no_task_state_is_refused() {
    let refused = |table: &[u8], said: &str| {
        let table = Temp::new("transitions.json", table);
        let output = run(
            &[
                "trace",
                "--transitions",
                table.path(),
                "conformance/traces/valid/session.jsonl",
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{stderr}");
        assert_eq!(stdout(&output), "");
    };
    refused(
        br#"{"queued": ["probing"], "probing": ["downloding"]}"#,
        "/probing/0: \"downloding\" is not a TaskState",
    );
    refused(
        br#"{"queued": ["probing"], "queued": ["paused"]}"#,
        "/queued is named twice",
    );
    refused(
        b"{\n  \"caf\xe9\": []}",
        ":2:7: not UTF-8 text (byte offset 8)",
    );
    // `generate --conversation` reads the table as `trace` does, and names
    // its file too.
    let table = Temp::new("transitions.json", br#"{"queued": ["probing"#);
    let output = run(
        &[
            "generate",
            "--conversation",
            "-n",
            "1",
            "--transitions",
            table.path(),
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}: not JSON", table.path())),
        "{stderr}"
    );
    assert_eq!(stdout(&output), "");
}

/// `--type` says what values to draw; conversations are of whole messages,
/// so the two together are a usage error, not a type silently ignored.
#[test]
fn a_type_with_conversations_is_refused() {
    let output = run(
        &[
            "generate",
            "--conversation",
            "-n",
            "1",
            "--type",
            "TaskError",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"));
    assert_eq!(stdout(&output), "");
}

#[test]
fn generated_values_pass_check_on_the_command_line() {
    let generated = run(
        &[
            "generate",
            "--type",
            "TaskDetail",
            "-n",
            "40",
            "--seed",
            "3",
        ],
        None,
    );
    assert!(generated.status.success(), "{generated:?}");
    assert_eq!(stdout(&generated).lines().count(), 40);
    let summary = String::from_utf8_lossy(&generated.stderr);
    assert!(
        summary.contains("wrote 40 TaskDetail value(s)"),
        "{summary}"
    );
    let checked = run(
        &["check", "--type", "TaskDetail", "-"],
        Some(&stdout(&generated)),
    );
    assert_eq!(checked.status.code(), Some(0), "{checked:?}");
    let unknown = run(&["generate", "--type", "Nope"], None);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
}

/// The summary of a mutant run lists the rules broken, and ends cleanly
/// when there are none to list.
#[test]
fn a_mutant_summary_lists_rules_only_when_there_are_some() {
    for (args, ends) in [
        (
            &["generate", "--mutants", "-n", "0"][..],
            "from 0 valid value(s)\n",
        ),
        (
            &["generate", "--mutants", "--conversation", "-n", "0"],
            "from 0 valid conversation(s)\n",
        ),
    ] {
        let output = run(args, None);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let summary = String::from_utf8_lossy(&output.stderr);
        assert!(summary.ends_with(ends), "{args:?}: {summary:?}");
    }
    let some = run(&["generate", "--mutants", "-n", "2", "--seed", "1"], None);
    let summary = String::from_utf8_lossy(&some.stderr);
    assert!(summary.contains("valid value(s): "), "{summary:?}");
}

/// `generate … | head`: a reader that closes the output once it has enough
/// ends the run quietly, as it ends any filter's, and the output that could
/// not be written (a full disk) is an error.
#[test]
fn generate_stops_quietly_when_its_reader_closes_the_output() {
    use std::io::Read;
    for args in [
        &["generate", "-n", "100000000", "--seed", "1"][..],
        &[
            "generate",
            "--conversation",
            "-n",
            "100000000",
            "--seed",
            "1",
        ][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
            .args(args)
            .current_dir(repo())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vdm-conform starts");
        let mut head = [0u8; 100];
        child
            .stdout
            .take()
            .expect("stdout")
            .read_exact(&mut head)
            .expect("the first bytes");
        // The pipe's reading end is dropped here: the next write fails.
        let done = child.wait_with_output().expect("vdm-conform finishes");
        assert_eq!(done.status.code(), Some(0), "{args:?}: {done:?}");
        assert!(done.stderr.is_empty(), "{args:?}: {done:?}");
    }
    if Path::new("/dev/full").exists() {
        let full = std::fs::File::create("/dev/full").expect("/dev/full");
        let done = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
            .args(["generate", "-n", "2000", "--seed", "1"])
            .stdout(full)
            .output()
            .expect("vdm-conform runs");
        assert_eq!(done.status.code(), Some(2), "{done:?}");
        let said = String::from_utf8_lossy(&done.stderr);
        assert!(said.contains("writing the values"), "{said}");
    }
}

/// The README shows every command `vdm-conform --help` lists, so a new one
/// cannot land undocumented.
#[test]
fn the_readme_shows_every_command() {
    let help = stdout(&run(&["--help"], None));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|command| *command != "help")
        .collect();
    assert!(commands.len() >= 6, "{help}");
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|command| {
            !readme.lines().any(|line| {
                line.starts_with("vdm-conform ")
                    && line.split_whitespace().any(|word| word == **command)
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "the README shows no `vdm-conform` line for {missing:?}"
    );
}

#[test]
fn generated_conversations_pass_trace_on_the_command_line() {
    let table = "conformance/traces/transitions.json";
    let generated = run(
        &[
            "generate",
            "--conversation",
            "-n",
            "50",
            "--seed",
            "4",
            "--transitions",
            table,
        ],
        None,
    );
    assert!(generated.status.success(), "{generated:?}");
    let records = stdout(&generated);
    assert!(records.lines().count() > 100, "{records}");
    let traced = run(
        &["trace", "--closed", "--transitions", table, "-"],
        Some(&records),
    );
    assert_eq!(traced.status.code(), Some(0), "{traced:?}");
}

#[test]
fn drive_without_a_peer_that_starts_is_a_usage_error() {
    let output = run(&["drive", "--", "/nonexistent/peer"], None);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("starting /nonexistent/peer"), "{stderr}");
}

/// `drive --connect` to a path that is no socket, or to a socket file no
/// process listens on: a usage error saying which.
#[test]
fn drive_connect_says_why_nothing_answers() {
    let dir = std::env::temp_dir().join(format!("vdm-drive-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("capture.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    let stale = dir.join("stale.sock");
    let _ = std::fs::remove_file(&stale);
    drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
    for (path, said) in [
        (&file, "it is not a unix socket"),
        (&stale, "a socket file that no process listens on"),
    ] {
        let output = run(&["drive", "--connect", path.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `drive --connect`: a peer on a unix socket that serves nothing, and
/// answers as docs/wire.md says.
#[test]
fn drive_connects_to_a_peer_on_a_unix_socket() {
    let dir = std::env::temp_dir().join(format!("vdm-drive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("peer.sock");
    let _ = std::fs::remove_file(&path);
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let peer = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut output = stream.try_clone().unwrap();
        let mut reader = proto::FrameReader::new(stream);
        while let Ok(body) = reader.read_raw() {
            let answer = match serde_json::from_slice::<serde_json::Value>(body) {
                Err(_) => {
                    serde_json::json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32700, "message": "not JSON"}})
                }
                Ok(msg) if msg["kind"] == "call" => {
                    serde_json::json!({"v": 1, "kind": "error", "id": msg["id"], "body": {"code": -32601, "message": "not served"}})
                }
                Ok(_) => continue,
            };
            let text = answer.to_string();
            let len = u32::try_from(text.len()).unwrap().to_be_bytes();
            if output
                .write_all(&len)
                .and_then(|()| output.write_all(text.as_bytes()))
                .is_err()
            {
                return;
            }
        }
    });
    let record = dir.join("drive.jsonl");
    let output = run(
        &[
            "drive",
            "--methods",
            "download.list",
            "--timeout",
            "30",
            "--record",
            record.to_str().unwrap(),
            "--connect",
            path.to_str().unwrap(),
        ],
        None,
    );
    peer.join().unwrap();
    // The record is whole, where it was asked for, and nothing beside it.
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.lines().count() >= 10, "{recorded}");
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["drive.jsonl", "peer.sock"]);
    let _ = std::fs::remove_dir_all(&dir);
    let printed = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        printed.contains("drive.method_not_found\texercised 1\theld 1\tbroken 0"),
        "{printed}"
    );
    assert!(
        printed.contains("drive.still_answers\texercised 1\theld 1\tbroken 0"),
        "{printed}"
    );
}

/// A peer that reads everything and answers nothing: every wait runs out,
/// each under its rule, and the exit is 1.
#[test]
fn drive_names_each_rule_a_silent_peer_breaks() {
    let output = run(
        &[
            "drive",
            "--methods",
            "download.pause",
            "--timeout",
            "0.5",
            "--",
            "sh",
            "-c",
            "cat > /dev/null",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let printed = stdout(&output);
    for rule in [
        "drive.answer",
        "drive.method_not_found",
        "drive.parse_error",
        "drive.event_unanswered",
        "drive.still_answers",
        "drive.oversize",
    ] {
        assert!(
            printed.contains(&format!("{rule}\texercised 1\theld 0\tbroken 1"))
                || printed.contains(&format!("{rule}\texercised 2\theld 0\tbroken 2")),
            "{rule}: {printed}"
        );
    }
    assert!(printed.contains("nothing came in 0.5 s"), "{printed}");
}

/// `--as server`: a client that sends nothing and exits 3 breaks the
/// client's two rules, its exit status named.
#[test]
fn drive_as_server_names_a_client_that_fails() {
    let output = run(
        &[
            "drive",
            "--as",
            "server",
            "--timeout",
            "10",
            "--",
            "sh",
            "-c",
            "exit 3",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let printed = stdout(&output);
    assert!(
        printed.contains("drive.client_calls\texercised 1\theld 0\tbroken 1"),
        "{printed}"
    );
    assert!(printed.contains("the client sent no call"), "{printed}");
    assert!(
        printed.contains("drive.carries_on\texercised 1\theld 0\tbroken 1"),
        "{printed}"
    );
    assert!(printed.contains("exit status: 3"), "{printed}");
}

/// A line longer than 64 MiB is a finding at its line, passed over without
/// being held; the lines after it are read and checked, by `check` and by
/// `trace`. A file read whole must fit too.
#[test]
fn a_line_past_64_mib_is_a_finding_and_the_next_lines_are_read() {
    let long = format!(
        r#"{{"v":1,"kind":"event","body":{{"name":"event.notify","params":{{"text":"{}"}}}}}}"#,
        "x".repeat(65 << 20)
    );
    let file = Temp::new(
        "long-line.jsonl",
        format!("{GOOD}\n{long}\n{BAD_PARAMS}\n").as_bytes(),
    );
    let output = run_pinned(&["--format", "json", "check", file.path()], None);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(
        lines_and_rules(&output),
        [(2, "json".to_string()), (3, "schema".to_string())]
    );
    assert!(
        stdout(&output).contains("longer than 64 MiB"),
        "{}",
        stdout(&output)
    );

    let record = |msg: &str| format!(r#"{{"from":"client","msg":{msg}}}"#);
    let trace = Temp::new(
        "long-line-trace.jsonl",
        format!("{}\n{}\n{}\n", record(GOOD), record(&long), record(GOOD)).as_bytes(),
    );
    let output = run_pinned(&["--format", "json", "trace", trace.path()], None);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let rules = lines_and_rules(&output);
    assert!(rules.contains(&(2, "json".to_string())), "{rules:?}");
    // The call on line 3 repeats line 1's id: read, so judged.
    assert!(rules.iter().any(|(line, _)| *line == 3), "{rules:?}");

    let document = Temp::new("long-document.json", format!("[\n{long}\n]\n").as_bytes());
    let output = run_pinned(&["check", document.path()], None);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("is not read whole"), "{said}");
}

/// A line of a trace that is JSON but no record says what it is instead of
/// serde's account of its first item.
#[test]
fn a_trace_line_that_is_no_object_is_named() {
    let trace = Temp::new(
        "not-records.trace.jsonl",
        b"[\"client\", 1]\n\"x\"\n42\nnull\n",
    );
    let output = run(&["trace", trace.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    for (line, kind) in [
        (1, "an array"),
        (2, "a string"),
        (3, "a number"),
        (4, "null"),
    ] {
        assert!(
            out.contains(&format!(
                ":{line} (root): [trace.record] a trace record is an object with from, conn, transport and msg, not {kind}"
            )),
            "{out}"
        );
    }
}

/// Output to a reader that has gone (`vdm-conform rules | head`) ends it
/// quietly: no panic, and the exit code the command would give anyway.
#[test]
fn a_closed_stdout_ends_the_output_without_a_panic() {
    for (args, code) in [
        (&["rules"][..], 0),
        (&["--contract", "list"][..], 0),
        (&["generate", "--type", "Envelope", "-n", "50"][..], 0),
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        // No one reads: the first write finds the pipe broken.
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
            .args(args)
            .current_dir(repo())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("vdm-conform runs");
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {said}");
        assert!(!said.contains("panicked"), "{args:?}: {said}");
    }
    // `2>&1 | head`: stderr gone too. A panic would exit 101.
    let broken = Temp::new("broken.jsonl", b"{}\n[]\n");
    for (args, code) in [
        (&["check", broken.path()][..], 1),
        (&["check", "no-such-file.jsonl"][..], 2),
        (&["rules"][..], 0),
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let status = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
            .args(args)
            .current_dir(repo())
            .stdout(writer.try_clone().expect("a second end"))
            .stderr(writer)
            .status()
            .expect("vdm-conform runs");
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
}

/// A capture written as UTF-16 (some shells' `>`) or UTF-32 is named as
/// such once, as a file that cannot be checked, not as one finding per line
/// of bytes.
#[test]
fn a_utf16_or_utf32_capture_is_named_as_such() {
    let line = r#"{"v": 1, "kind": "event", "body": {"name": "event.notify", "params": {"level": "info", "message": "hi"}}}"#;
    let text = format!("{line}\r\n{line}\r\n");
    let utf16 = |little: bool| -> Vec<u8> {
        let order = if little {
            u16::to_le_bytes
        } else {
            u16::to_be_bytes
        };
        text.encode_utf16().flat_map(order).collect()
    };
    let utf32 = |little: bool| -> Vec<u8> {
        let order = if little {
            u32::to_le_bytes
        } else {
            u32::to_be_bytes
        };
        text.chars().map(u32::from).flat_map(order).collect()
    };
    // With a byte-order mark or without (then named by the NULs beside the
    // first character), little-endian and big-endian.
    for (bom, body, said) in [
        (&[0xFF, 0xFE][..], utf16(true), "UTF-16 text (it starts with a UTF-16 byte-order mark)"),
        (&[0xFE, 0xFF][..], utf16(false), "UTF-16 text (it starts with a UTF-16 byte-order mark)"),
        (&[][..], utf16(true), "UTF-16 text (a NUL byte beside its first character), where messages are UTF-8; convert it first (`iconv -f UTF-16LE"),
        (&[][..], utf16(false), "UTF-16 text (a NUL byte beside its first character), where messages are UTF-8; convert it first (`iconv -f UTF-16BE"),
        (&[0xFF, 0xFE, 0, 0][..], utf32(true), "UTF-32 text (it starts with a UTF-32 byte-order mark)"),
        (&[0, 0, 0xFE, 0xFF][..], utf32(false), "UTF-32 text (it starts with a UTF-32 byte-order mark)"),
        (&[][..], utf32(true), "UTF-32 text (three NUL bytes beside its first character), where messages are UTF-8; convert it first (`iconv -f UTF-32LE"),
        (&[][..], utf32(false), "UTF-32 text (three NUL bytes beside its first character), where messages are UTF-8; convert it first (`iconv -f UTF-32BE"),
    ] {
        let mut bytes = bom.to_vec();
        bytes.extend(body);
        let capture = Temp::new("wide.jsonl", &bytes);
        for command in ["check", "trace"] {
            let output = run(&[command, capture.path()], None);
            let told = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command}: {told}");
            assert!(
                told.contains(&format!("wide.jsonl: {said}")),
                "{command}: {told}"
            );
            assert_eq!(stdout(&output), "", "{command}");
        }
    }
}

/// A compressed capture is named by its compressor, with the command that
/// reads it, not read as lines of bytes that are not UTF-8.
#[test]
fn a_compressed_capture_is_named_by_its_compressor() {
    for (magic, said) in [
        (
            &[0x1F, 0x8B, 0x08, 0x00][..],
            "gzip-compressed, not text; read it decompressed (`zcat ",
        ),
        (
            &[0x28, 0xB5, 0x2F, 0xFD, 0x00][..],
            "zstd-compressed, not text; read it decompressed (`zstdcat ",
        ),
        (
            &[0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00][..],
            "xz-compressed, not text; read it decompressed (`xzcat ",
        ),
    ] {
        let capture = Temp::new("capture.jsonl.z", magic);
        let output = run(&["check", capture.path()], None);
        let told = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{told}");
        assert!(told.contains(said), "{told}");
        assert_eq!(stdout(&output), "");
        // Given to the frame reader, the magic number is a length too large.
        let output = run(&["frames", capture.path()], None);
        let format = said.split('-').next().unwrap_or_default();
        assert!(
            stdout(&output).contains(&format!(
                "(the length prefix's bytes are {format}'s magic number: read the capture decompressed"
            )),
            "{}",
            stdout(&output)
        );
    }
}

/// JSON Lines given to the frame reader: the length prefix that spells text
/// is shown, with the command that reads it.
#[test]
fn json_lines_read_as_frames_are_named_as_text() {
    let capture = Temp::new(
        "lines-as-frames.jsonl",
        b"{\"v\": 1, \"kind\": \"event\"}\n",
    );
    let output = run(&["frames", capture.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    assert!(
        out.contains("[frame.too_large]")
            && out.contains(
                "(the length prefix's four bytes spell \"{\\\"v\\\"\": JSON text, not frames? `vdm-conform check` reads JSON Lines)"
            ),
        "{out}"
    );

    // And the other way round: a frame capture given to `check`.
    let output = run(&["check", "conformance/frames/call.bin"], None);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("call.bin: starts with the bytes of a frame's length prefix, not text; read a frame capture with `vdm-conform frames`"),
        "{said}"
    );
}

/// A record whose member is of the wrong kind is pointed at by that member,
/// and a `from` that is neither peer is shown, escaped. A member of another
/// name is refused at its place (a misspelt `transport` would turn its rule
/// off).
#[test]
fn a_trace_record_member_of_the_wrong_kind_is_pointed_at() {
    let trace = Temp::new(
        "bad-members.trace.jsonl",
        concat!(
            "{\"conn\": 1, \"from\": \"client\", \"msg\": {}}\n",
            "{\"conn\": \"a\", \"from\": \"client\", \"transport\": [\"x\"], \"msg\": {}}\n",
            "{\"conn\": \"a\", \"from\": true, \"msg\": {}}\n",
            "{\"conn\": \"a\", \"from\": \"serv\\u001b[2Jer\\n\", \"msg\": {}}\n",
            "{\"from\": \"client\", \"trasport\": \"websocket\", \"msg\": {}}\n",
            "{\"from\": \"client\", \"msg\": {}, \"a/b~\\n\": 1}\n",
        )
        .as_bytes(),
    );
    let output = run(&["trace", trace.path()], None);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    for said in [
        ":1 /conn: [trace.record] a trace record's \"conn\" is a string, not a number",
        ":2 /transport: [trace.record] a trace record's \"transport\" is a string, not an array",
        ":3 /from: [trace.record] a trace record's \"from\" is a string, not a boolean",
        ":4 /from: [trace.record] a trace record has \"from\": \"client\" or \"server\", not \"serv\\u001b[2Jer\\u000a\"",
        ":5 /trasport: [trace.record] a trace record has no member \"trasport\": its members are conn, from, transport, msg and mutant",
        ":6 /a~1b~0\\u000a: [trace.record] a trace record has no member \"a/b~\\u000a\": its members are conn, from, transport, msg and mutant",
    ] {
        assert!(out.contains(said), "{said}\n{out}");
    }
    assert_eq!(out.lines().count(), 6, "{out}");
}

/// What the readers print of the wire (`proto::wire::printable`) and what
/// the tools print of schemas and findings (`contract::plain`) escape the
/// same characters the same way: every character of the Basic
/// Multilingual Plane and a few beyond it, alone and between others.
#[test]
fn text_from_the_wire_and_from_schemas_is_escaped_alike() {
    let mut differ = Vec::new();
    let beyond = ['\u{10000}', '\u{1f600}', '\u{e0001}', '\u{10ffff}'];
    for c in (0..=0xffffu32).filter_map(char::from_u32).chain(beyond) {
        let text = format!("a{c}b");
        let (wire, schema) = (proto::wire::printable(&text), contract::plain(&text));
        if wire != schema {
            differ.push(format!("U+{:04X}: {wire} against {schema}", u32::from(c)));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// A report lost to a full disk (here `/dev/full`) is exit 2 with the reason,
/// whatever was found: a cut or empty report must not pass for the real
/// one (a reader that closes early is another matter: see
/// `a_closed_stdout_ends_the_output_without_a_panic`).
#[test]
fn a_report_that_cannot_be_written_is_an_error() {
    let broken = Temp::new("broken.json", b"{\"v\": 1}");
    for args in [
        &["rules"][..],
        &["--format", "json", "check", broken.path()],
        &["generate", "-n", "3", "--seed", "1"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens");
        let output = Command::new(env!("CARGO_BIN_EXE_vdm-conform"))
            .args(args)
            .current_dir(repo())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .expect("vdm-conform runs");
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains("No space left on device"), "{args:?}: {said}");
    }
}

/// `drive --timeout` is seconds above 0 and at most a day: none, a wait
/// the clock cannot add (`1e19` panicked), and what is no number are
/// refused by the argument, before anything starts.
#[test]
fn a_drive_timeout_out_of_range_is_refused() {
    for timeout in ["0", "1e19", "86401", "nan", "inf", "ten"] {
        let output = run(&["drive", "--timeout", timeout, "--", "true"], None);
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{timeout}: {said}");
        assert!(
            said.contains(&format!(
                "invalid value '{timeout}' for '--timeout <SECS>': a number of seconds above 0 and at most 86400"
            )),
            "{timeout}: {said}"
        );
    }
}

/// A `--contract` no release is compiled in for is an error for every
/// command, `rules` too, which reads no schema.
#[test]
fn an_unknown_contract_is_refused_by_every_command() {
    for command in [&["rules"][..], &["check", "-"], &["generate", "-n", "1"]] {
        let mut args = vec!["--contract", "1.0"];
        args.extend_from_slice(command);
        let output = run(&args, Some(""));
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command:?}: {said}");
        assert!(
            said.contains("no contract \"1.0\" is compiled in; there are: 1.0.0"),
            "{command:?}: {said}"
        );
    }
}

/// Whether `pid` is a live process (a zombie nobody reaped is not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// The pid a peer wrote to `file`, waited for (generously: two busy cores).
fn pid_in(file: &Temp) -> u32 {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Ok(pid) = std::fs::read_to_string(file.path())
            .unwrap_or_default()
            .trim()
            .parse()
        {
            return pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the peer never wrote its pid"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A started peer that ends (a crash, an exit on a bad config) is told
/// with how it ended, not only as a stream that closed or a broken pipe:
/// before it reads anything, and after its first frame.
#[test]
fn a_peer_that_ends_is_told_with_how() {
    for (script, told) in [
        ("exit 3", "(it had ended: exit status: 3)"),
        (
            "head -c 4 > /dev/null; kill -SEGV $$",
            // "(core dumped)" may follow, where cores are kept.
            "(it had ended: signal: 11 (SIGSEGV)",
        ),
    ] {
        let output = run(
            &["drive", "--timeout", "20", "--", "sh", "-c", script],
            None,
        );
        let said = stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{script}: {said}");
        let breaks: Vec<&str> = said.lines().filter(|l| l.starts_with("  ")).collect();
        assert!(!breaks.is_empty(), "{script}: {said}");
        assert!(breaks.iter().all(|l| l.contains(told)), "{script}: {said}");
    }
}

/// A `--record` that cannot be written is said before the peer starts,
/// not after a session that may take minutes.
#[test]
fn a_record_that_cannot_be_written_is_refused_before_the_peer_starts() {
    let started = Temp::new("started.mark", b"");
    let _ = std::fs::remove_file(started.path());
    let output = run(
        &[
            "drive",
            "--record",
            "/nonexistent/folder/record.jsonl",
            "--",
            "sh",
            "-c",
            &format!("touch {}", started.path()),
        ],
        None,
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--record /nonexistent/folder/record.jsonl: No such file or directory"),
        "{said}"
    );
    assert!(!Path::new(started.path()).exists(), "the peer was started");
    // A folder is no file to write either.
    let folder = std::env::temp_dir();
    let folder = folder.to_str().unwrap();
    let output = run(&["drive", "--record", folder, "--", "true"], None);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("--record {folder}: a folder")),
        "{said}"
    );
}

/// A peer that answers nothing and leaves a process of its own behind
/// (`sh -c 'helper & exec peer'`, `cargo run`, `npm start`), driven with
/// `--timeout SECONDS`: the pids of both are written to the two files.
/// `detach` goes before the helper's command (`setsid `: in a session of
/// its own, out of the peer's group).
fn leaving_peer(leader: &Temp, helper: &Temp, seconds: &str, detach: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vdm-conform"));
    command
        .args(["drive", "--timeout", seconds, "--", "sh", "-c"])
        .arg(format!(
            "echo $$ > {}; {detach}sleep 3000 & echo $! > {}; exec sleep 3001",
            leader.path(),
            helper.path()
        ))
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Which of `pids` still run; each is ended, so a failed test leaves
/// nothing running.
fn left_running(pids: [u32; 2]) -> Vec<u32> {
    let left: Vec<u32> = pids.into_iter().filter(|pid| running(*pid)).collect();
    for pid in &left {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(pid.to_string())
            .status();
    }
    left
}

/// What a started peer leaves behind ends with the session: a process it
/// started that outlived it held the driver's stderr, so a pipeline
/// reading the report waited for that process's end (here 3000 s).
#[test]
fn a_started_peer_leaves_nothing_behind() {
    let (leader, helper) = (Temp::new("leader.pid", b""), Temp::new("helper.pid", b""));
    let mut driver = leaving_peer(&leader, &helper, "1", "").spawn().unwrap();
    let (leader_pid, helper_pid) = (pid_in(&leader), pid_in(&helper));
    let status = driver.wait().unwrap();
    let left = left_running([leader_pid, helper_pid]);
    assert!(left.is_empty(), "{left:?} still run after the session");
    assert_eq!(status.code(), Some(1), "the silent peer breaks rules");
    // The helper stayed in the peer's group: nothing was set apart.
    let mut said = String::new();
    std::io::Read::read_to_string(&mut driver.stderr.take().unwrap(), &mut said).unwrap();
    assert!(!said.contains("outside its process group"), "{said}");
}

/// A process the peer set apart in a session of its own (`setsid`, a
/// daemon's double fork) is out of the reach of its group's end: the
/// driver adopts such orphans (a child subreaper) and ends them too.
#[test]
#[cfg(target_os = "linux")]
fn a_process_the_peer_set_apart_ends_with_the_session() {
    let (leader, helper) = (Temp::new("leader.pid", b""), Temp::new("helper.pid", b""));
    let mut driver = leaving_peer(&leader, &helper, "1", "setsid ")
        .spawn()
        .unwrap();
    let (leader_pid, helper_pid) = (pid_in(&leader), pid_in(&helper));
    driver.wait().unwrap();
    // Ended before stderr is read: a helper left running holds it open.
    let left = left_running([leader_pid, helper_pid]);
    let mut said = String::new();
    std::io::Read::read_to_string(&mut driver.stderr.take().unwrap(), &mut said).unwrap();
    assert!(
        left.is_empty(),
        "{left:?} still run after the session: {said}"
    );
    assert!(
        said.contains(
            "vdm-conform: ended 1 process(es) the peer left running outside its process group"
        ),
        "{said}"
    );
}

/// A signal that stops the driver (a CI step cancelled, Ctrl-C, `Ctrl-\`) ends the
/// started peer and what it started first, then ends the driver as that
/// signal does: the peer leads a process group of its own, which the
/// terminal's Ctrl-C does not reach.
#[test]
fn a_signalled_driver_ends_its_peer() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
        (libc::SIGQUIT, "QUIT"),
    ] {
        let (leader, helper) = (Temp::new("leader.pid", b""), Temp::new("helper.pid", b""));
        // A wait longer than the test takes: only the signal ends the session.
        let mut command = leaving_peer(&leader, &helper, "600", "");
        // SIGQUIT's default action writes a core file into the working tree.
        // SAFETY: setrlimit(2) is async-signal-safe and sets only the
        // child's own limit, as pre_exec asks.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                match libc::setrlimit(libc::RLIMIT_CORE, &none) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                }
            });
        }
        let driver = command.spawn().unwrap();
        let (leader_pid, helper_pid) = (pid_in(&leader), pid_in(&helper));
        let _ = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(driver.id().to_string())
            .status();
        let output = driver.wait_with_output().unwrap();
        let left = left_running([leader_pid, helper_pid]);
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(left.is_empty(), "{name}: {left:?} still run: {said}");
        assert_eq!(output.status.signal(), Some(signal), "{name}: {said}");
        assert!(
            said.contains(&format!(
                "vdm-conform: stopped by signal {signal}; 1 started peer(s) ended"
            )),
            "{name}: {said}"
        );
    }
}
