//! The frame rules, one test each, driven through the synchronous reader and
//! (with the `tokio` feature) the codec, with the same cases.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use proto::frame::{outcome_word, outcomes};
use proto::{read_frame, write_frame, Envelope, FrameError, FrameReader, FrameWriter, MAX_FRAME};
use serde_json::json;

/// How a scripted reader hands out bytes.
#[derive(Clone, Copy, Debug)]
enum Script {
    /// As much as is asked for.
    Whole,
    /// One byte per call.
    OneByte,
    /// `Interrupted` before every byte.
    Interrupted,
}

struct ScriptedReader {
    bytes: Vec<u8>,
    at: usize,
    script: Script,
    interrupt_next: bool,
}

impl ScriptedReader {
    fn new(bytes: &[u8], script: Script) -> Self {
        Self {
            bytes: bytes.to_vec(),
            at: 0,
            script,
            interrupt_next: true,
        }
    }
}

impl Read for ScriptedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if matches!(self.script, Script::Interrupted) {
            self.interrupt_next = !self.interrupt_next;
            if !self.interrupt_next {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
        }
        let rest = &self.bytes[self.at..];
        let n = match self.script {
            Script::Whole => rest.len().min(buf.len()),
            Script::OneByte | Script::Interrupted => rest.len().min(buf.len()).min(1),
        };
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

fn outcomes_sync(bytes: &[u8], script: Script) -> Vec<String> {
    outcomes(ScriptedReader::new(bytes, script))
}

#[cfg(feature = "tokio")]
fn outcomes_codec(bytes: &[u8], script: Script) -> Vec<String> {
    use tokio_util::codec::Decoder;
    let chunk = match script {
        Script::Whole => bytes.len().max(1),
        Script::OneByte | Script::Interrupted => 1,
    };
    let mut codec = proto::FrameCodec::new();
    let mut buf = bytes::BytesMut::new();
    let mut out = Vec::new();
    let mut chunks = bytes.chunks(chunk);
    loop {
        match codec.decode(&mut buf) {
            Ok(None) => match chunks.next() {
                Some(more) => buf.extend_from_slice(more),
                None => {
                    match codec.decode_eof(&mut buf) {
                        Ok(None) => out.push("closed".into()),
                        other => out.push(outcome_word(
                            &other.map(|e| e.expect("decode returned None before")),
                        )),
                    }
                    return out;
                }
            },
            Ok(Some(envelope)) => out.push(outcome_word(&Ok(envelope))),
            Err(err) => {
                let recoverable = err.is_recoverable();
                out.push(outcome_word(&Err(err)));
                if !recoverable {
                    return out;
                }
            }
        }
    }
}

/// Checks one byte stream against its expected outcomes, under every script,
/// through every implementation.
fn check(bytes: &[u8], expected: &[&str]) {
    for script in [Script::Whole, Script::OneByte, Script::Interrupted] {
        assert_eq!(
            outcomes_sync(bytes, script),
            expected,
            "sync reader, {script:?}"
        );
        #[cfg(feature = "tokio")]
        assert_eq!(
            outcomes_codec(bytes, script),
            expected,
            "tokio codec, {script:?}"
        );
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = u32::try_from(body.len())
        .expect("test bodies fit")
        .to_be_bytes()
        .to_vec();
    out.extend_from_slice(body);
    out
}

const EVENT: &str =
    r#"{"kind":"event","body":{"name":"event.task.removed","params":{"taskId":"t_01"}},"v":1}"#;

fn event() -> Envelope {
    serde_json::from_str(EVENT).expect("EVENT is an envelope")
}

#[test]
fn a_frame_is_read_across_short_and_interrupted_reads() {
    check(&frame(EVENT.as_bytes()), &["envelope:event", "closed"]);
}

#[test]
fn end_of_stream_before_a_frame_is_closed() {
    check(&[], &["closed"]);
}

#[test]
fn end_of_stream_inside_the_length_is_unexpected_eof() {
    for cut in 1..=3 {
        check(&frame(EVENT.as_bytes())[..cut], &["io:unexpected_eof"]);
    }
}

#[test]
fn a_zero_length_is_refused_and_the_next_frame_is_read() {
    let mut bytes = vec![0, 0, 0, 0];
    bytes.extend(frame(EVENT.as_bytes()));
    check(&bytes, &["empty", "envelope:event", "closed"]);
}

#[test]
fn a_length_past_max_frame_is_refused_and_ends_the_stream() {
    let mut bytes = u32::try_from(MAX_FRAME + 1)
        .expect("fits")
        .to_be_bytes()
        .to_vec();
    bytes.extend_from_slice(EVENT.as_bytes());
    check(&bytes, &[&format!("too_large:{}", MAX_FRAME + 1)]);
    check(&[0xff; 4], &[&format!("too_large:{}", u32::MAX)]);
}

/// Panics if anything past the 4-byte header is read.
struct HeaderOnly {
    header: [u8; 4],
    at: usize,
}

impl Read for HeaderOnly {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        assert!(
            self.at < 4,
            "the body was read although the length was refused"
        );
        let n = buf.len().min(4 - self.at);
        buf[..n].copy_from_slice(&self.header[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_refused_length_is_decided_before_the_body_is_read() {
    for (len, expected) in [
        (0u32, "empty"),
        (
            u32::try_from(MAX_FRAME + 1).expect("fits"),
            "too_large:1048577",
        ),
    ] {
        let mut reader = HeaderOnly {
            header: len.to_be_bytes(),
            at: 0,
        };
        assert_eq!(
            outcome_word(&read_frame(&mut reader)),
            expected,
            "sync reader"
        );
        // The codec is handed only the header: it must decide on it rather
        // than wait for a body.
        #[cfg(feature = "tokio")]
        {
            use tokio_util::codec::Decoder;
            let mut buf = bytes::BytesMut::from(&len.to_be_bytes()[..]);
            let decided = proto::FrameCodec::new()
                .decode(&mut buf)
                .map(|got| got.expect("a refused length is decided, not awaited"));
            assert_eq!(outcome_word(&decided), expected, "tokio codec");
        }
    }
}

#[test]
fn a_body_of_exactly_max_frame_is_accepted() {
    let head =
        r#"{"kind":"event","body":{"name":"event.task.removed","params":{"taskId":"t_01"}},"v":1"#;
    // Whitespace is valid JSON padding: the body is an envelope of MAX_FRAME bytes.
    let mut body = head.as_bytes().to_vec();
    body.resize(MAX_FRAME - 1, b' ');
    body.push(b'}');
    check(&frame(&body), &["envelope:event", "closed"]);
}

#[test]
fn end_of_stream_inside_the_body_is_unexpected_eof() {
    let bytes = frame(EVENT.as_bytes());
    check(&bytes[..bytes.len() - 1], &["io:unexpected_eof"]);
}

#[test]
fn a_body_that_is_not_an_envelope_is_json_and_the_next_frame_is_read() {
    for body in [
        &b"{\"v\":1"[..],
        b"[1,2]",
        b"{\"v\":1,\"kind\":\"nap\"}",
        b"\xff\xfe",
    ] {
        let mut bytes = frame(body);
        bytes.extend(frame(EVENT.as_bytes()));
        check(&bytes, &["json", "envelope:event", "closed"]);
    }
}

#[test]
fn the_version_decides_before_the_rest_of_the_body() {
    let mut bytes = frame(br#"{"v":2,"anything":"new"}"#);
    bytes.extend(frame(EVENT.as_bytes()));
    check(&bytes, &["bad_version:2", "envelope:event", "closed"]);
    // A v2 body that would otherwise be a fine v1 envelope is still a version error.
    check(
        &frame(EVENT.replace("\"v\":1", "\"v\":7").as_bytes()),
        &["bad_version:7", "closed"],
    );
}

#[test]
fn a_body_without_a_numeric_version_is_json_not_a_version_error() {
    for body in [
        r#"{"kind":"event"}"#,
        r#"{"v":"2"}"#,
        r#"{"v":-1}"#,
        r#"{"v":1.5}"#,
    ] {
        check(&frame(body.as_bytes()), &["json", "closed"]);
    }
}

#[test]
fn writing_puts_the_length_the_body_and_a_flush() {
    struct Recorder {
        bytes: Vec<u8>,
        flushed: bool,
    }
    impl io::Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.flushed = true;
            Ok(())
        }
    }
    let mut out = Recorder {
        bytes: Vec::new(),
        flushed: false,
    };
    write_frame(&mut out, &event()).expect("an event fits a frame");
    assert_eq!(out.bytes, frame(EVENT.as_bytes()));
    assert!(out.flushed);
}

#[test]
fn an_oversized_envelope_is_refused_with_nothing_written() {
    let big: Envelope = serde_json::from_value(json!({
        "v": 1, "kind": "reply", "id": 1,
        "body": {"method": "tool.invoke", "result": {"exitCode": 0, "stderr": "", "stdout": "x".repeat(MAX_FRAME)}}
    }))
    .expect("a reply");
    let mut out = Vec::new();
    let err = write_frame(&mut out, &big).expect_err("a body over MAX_FRAME is refused");
    assert!(
        matches!(err, FrameError::TooLarge(n) if n > MAX_FRAME),
        "{err:?}"
    );
    assert!(out.is_empty(), "{} bytes were written", out.len());
    let mut writer = FrameWriter::new(Vec::new());
    assert!(writer.write(&big).is_err());
    writer
        .write(&event())
        .expect("the writer goes on after a refusal");
    assert_eq!(writer.into_inner(), frame(EVENT.as_bytes()));
}

#[test]
fn an_envelope_a_reader_would_refuse_is_not_written() {
    // 2^60 fits an i64, and no JavaScript reader holds it exactly.
    let unsafe_integer = Envelope::Call {
        body: proto::CallBody::ToolInvoke(proto::ToolInvokeParams::new(
            json!({"n": 1_152_921_504_606_846_976i64}),
            "t".into(),
        )),
        id: 1.into(),
        v: proto::ProtocolVersion,
    };
    let mut out = Vec::new();
    let err = write_frame(&mut out, &unsafe_integer).expect_err("the policy refuses it");
    assert!(matches!(err, FrameError::Unreadable(_)), "{err:?}");
    assert!(out.is_empty(), "{} bytes were written", out.len());
}

/// The writer holds the policy as it writes; it must refuse exactly what the
/// reader's scan of the same text refuses. Inputs of every depth around the
/// limit and integers around ±(2^53 − 1), compared one by one.
#[test]
fn the_writer_refuses_exactly_what_the_policy_refuses() {
    let invoke = |input: serde_json::Value| Envelope::Call {
        body: proto::CallBody::ToolInvoke(proto::ToolInvokeParams::new(input, "t".into())),
        id: 1.into(),
        v: proto::ProtocolVersion,
    };
    let nested = |depth: usize, leaf: serde_json::Value| {
        (0..depth).fold(leaf, |inner, level| {
            if level % 2 == 0 {
                json!([inner])
            } else {
                json!({ "k": inner })
            }
        })
    };
    let safe = 9_007_199_254_740_991i64;
    let leaves = [
        json!(safe),
        json!(safe + 1),
        json!(-safe),
        json!(-safe - 1),
        json!(u64::MAX),
        json!(1.5),
        json!("x"),
        json!(null),
    ];
    let mut compared = 0;
    for depth in (0..10).chain(118..130) {
        for leaf in &leaves {
            let envelope = invoke(nested(depth, leaf.clone()));
            let text = serde_json::to_vec(&envelope).expect("serde writes it");
            let policy = proto::text::check(&text).map(|_| ()).map_err(|e| e.problem);
            let mut out = Vec::new();
            let written = match write_frame(&mut out, &envelope) {
                Ok(()) => Ok(()),
                Err(FrameError::Unreadable(err)) => Err(err.problem),
                Err(other) => panic!("depth {depth}, {leaf}: {other}"),
            };
            assert_eq!(written, policy, "depth {depth}, leaf {leaf}");
            if written.is_ok() {
                assert_eq!(out.get(4..), Some(text.as_slice()));
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 22 * leaves.len());
}

#[test]
fn errors_read_as_sentences() {
    let messages = [
        FrameError::Closed.to_string(),
        FrameError::Empty.to_string(),
        FrameError::TooLarge(2_000_000).to_string(),
        read_frame(&mut &frame(br#"{"v":2,"kind":"call","id":3}"#)[..])
            .map_err(|err| proto::wire::sentence(&err))
            .expect_err("a v2 envelope is refused"),
    ];
    assert_eq!(
        messages,
        [
            "the stream closed between frames",
            "the frame is empty (length 0); a frame carries one envelope",
            "the frame's body is 2000000 bytes, more than the 1048576 a frame may carry",
            "the frame's body is not a usable envelope: at /v: the envelope is protocol version 2, and this reader speaks 1",
        ]
    );
}

/// Every `conformance/frames/*.bin` with its bytes, in name order.
fn frame_fixtures() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/frames");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("conformance/frames exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("fixture reads");
            (path, bytes)
        })
        .collect()
}

#[test]
fn every_frame_fixture_reads_as_its_sidecar_says() {
    let mut seen = 0;
    for (path, bytes) in frame_fixtures() {
        let sidecar: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expect.json"))
                .expect("every fixture has a sidecar"),
        )
        .expect("sidecar is JSON");
        let expected: Vec<&str> = sidecar["outcomes"]
            .as_array()
            .expect("outcomes")
            .iter()
            .filter_map(|o| o.as_str())
            .collect();
        assert_eq!(
            outcomes_sync(&bytes, Script::Whole),
            expected,
            "{}",
            path.display()
        );
        #[cfg(feature = "tokio")]
        assert_eq!(
            outcomes_codec(&bytes, Script::Whole),
            expected,
            "{} (codec)",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 14, "only {seen} frame fixtures found");
}

#[test]
fn writing_reproduces_every_valid_fixture_byte_for_byte() {
    let mut seen = 0;
    for (path, bytes) in frame_fixtures() {
        let read: Result<Vec<Envelope>, FrameError> = FrameReader::new(&bytes[..]).collect();
        if read.is_err() {
            continue;
        }
        if let Some(unwritten) = proto::frame::first_unwritten(&bytes) {
            panic!(
                "{}: frame {} is not what write_frame writes; write its body as\n{}\nnot\n{}",
                path.display(),
                unwritten.frame,
                String::from_utf8_lossy(&unwritten.written),
                String::from_utf8_lossy(&unwritten.found),
            );
        }
        seen += 1;
    }
    assert!(seen >= 7, "only {seen} valid frame fixtures found");
}

/// A length past the limit whose four bytes are printable is said as the
/// text it spells; any other length is not.
#[test]
fn an_oversize_length_that_spells_text_is_said_as_text() {
    let length = |bytes: &[u8; 4]| u32::from_be_bytes(*bytes) as usize;
    assert_eq!(
        proto::frame::spelled_length(length(b"Star")),
        Some("\"Star\"".into())
    );
    assert_eq!(
        proto::frame::spelled_length(length(b"{\"v\"")),
        Some(r#""{\"v\"""#.into())
    );
    assert_eq!(
        proto::frame::spelled_length(length(b"\x1f\x8b\x08\x00")),
        None
    );
    assert_eq!(proto::frame::spelled_length(proto::MAX_FRAME), None);
    assert_eq!(proto::frame::spelled_length(usize::MAX), None);
}
