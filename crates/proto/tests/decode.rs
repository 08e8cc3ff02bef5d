//! Two-stage decoding: what a newer peer's names decode to, and what every
//! failure carries for the answer (the id when readable, the JSON-RPC code).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proto::wire::{self, Problem};
use proto::{CallBody, DecodeError, Envelope, EnvelopeKind, EventBody, ReplyBody, RpcErrorCode};
use serde_json::{json, Value};

fn decode(value: &Value) -> Result<Envelope, DecodeError> {
    wire::decode(value.to_string().as_bytes())
}

/// One failing case: the code, the id and the kind a server reads off it.
fn check_refused(
    body: &[u8],
    code: RpcErrorCode,
    id: Option<u64>,
    kind: Option<EnvelopeKind>,
    says: &str,
) {
    let err = wire::decode::<Envelope>(body).expect_err("refused");
    let text = String::from_utf8_lossy(body);
    assert_eq!(err.rpc_code(), code, "{text}: {err:?}");
    assert_eq!(err.id, id, "{text}: {err:?}");
    assert_eq!(err.kind, kind, "{text}: {err:?}");
    let sentence = wire::sentence(&err);
    assert!(
        sentence.contains(says),
        "{text}: {sentence:?} lacks {says:?}"
    );
}

#[test]
fn an_unknown_method_decodes_to_the_unknown_variant_with_its_name_and_params() {
    let wire = json!({"v": 1, "kind": "call", "id": 11, "body": {"method": "download.frobnicate", "params": {"taskId": "t_01", "n": [1, 2]}}});
    let envelope = decode(&wire).expect("an unknown method decodes");
    let Envelope::Call {
        body: CallBody::Unknown(unknown),
        id,
        ..
    } = &envelope
    else {
        panic!("{envelope:?}");
    };
    assert_eq!(**id, 11);
    assert_eq!(unknown.name(), "download.frobnicate");
    assert_eq!(unknown.content(), &json!({"taskId": "t_01", "n": [1, 2]}));
    // It writes back as it arrived.
    assert_eq!(serde_json::to_value(&envelope).expect("encodes"), wire);
}

#[test]
fn an_unknown_event_and_an_unknown_reply_decode_to_their_unknown_variants() {
    let event = decode(&json!({"v": 1, "kind": "event", "body": {"name": "event.from.the.future", "params": {"x": 1}}}))
        .expect("an unknown event decodes");
    assert!(
        matches!(&event, Envelope::Event { body: EventBody::Unknown(u), .. } if u.name() == "event.from.the.future"),
        "{event:?}"
    );
    let reply = decode(&json!({"v": 1, "kind": "reply", "id": 3, "body": {"method": "download.frobnicate", "result": [true]}}))
        .expect("an unknown reply decodes");
    assert!(
        matches!(&reply, Envelope::Reply { body: ReplyBody::Unknown(u), .. } if u.content() == &json!([true])),
        "{reply:?}"
    );
}

#[test]
fn a_known_name_with_bad_content_is_an_error_never_the_unknown_variant() {
    check_refused(
        br#"{"v":1,"kind":"call","id":12,"body":{"method":"tool.invoke","params":{"input":{}}}}"#,
        RpcErrorCode::InvalidParams,
        Some(12),
        Some(EnvelopeKind::Call),
        "at /body/params/tool: the params of tool.invoke do not fit the contract: missing field `tool`",
    );
    check_refused(
        br#"{"v":1,"kind":"call","id":13,"body":{"method":"download.pause","params":{"taskId":7}}}"#,
        RpcErrorCode::InvalidParams,
        Some(13),
        Some(EnvelopeKind::Call),
        "the params of download.pause",
    );
    check_refused(
        br#"{"v":1,"kind":"event","body":{"name":"event.task.state","params":{"taskId":"t","state":"asleep","previousState":"new"}}}"#,
        RpcErrorCode::InvalidParams,
        None,
        Some(EnvelopeKind::Event),
        "the params of event.task.state",
    );
    check_refused(
        br#"{"v":1,"kind":"reply","id":4,"body":{"method":"download.add","result":{}}}"#,
        RpcErrorCode::InvalidParams,
        Some(4),
        Some(EnvelopeKind::Reply),
        "the result of download.add",
    );
}

#[test]
fn unknown_fields_stay_ignored_at_every_level() {
    let envelope = decode(&json!({"v": 1, "kind": "call", "id": 1, "trace": "x",
        "body": {"method": "download.pause", "params": {"taskId": "t_01", "urgent": true}, "hint": 1}}))
    .expect("unknown fields are ignored");
    assert!(
        matches!(&envelope, Envelope::Call { body: CallBody::DownloadPause(p), .. } if *p.task_id == "t_01"),
        "{envelope:?}"
    );
}

#[test]
fn every_failure_maps_to_one_json_rpc_code_and_keeps_a_readable_id() {
    use EnvelopeKind::*;
    use RpcErrorCode::*;
    type Case<'a> = (
        &'a [u8],
        RpcErrorCode,
        Option<u64>,
        Option<EnvelopeKind>,
        &'a str,
    );
    let cases: &[Case] = &[
        (b"{\"v\":1,\"kind\":", ParseError, None, None, "not JSON"),
        (b"\xff\xfe", ParseError, None, None, "not JSON"),
        (b"[1,2]", InvalidRequest, None, None, "not an envelope"),
        (br#"{"v":1,"kind":"nap","id":2}"#, InvalidRequest, Some(2), None, "`kind` is \"nap\""),
        (br#"{"kind":"call","id":3,"body":{}}"#, InvalidRequest, Some(3), Some(Call), "`v`, the protocol version, is missing"),
        (br#"{"v":"1","kind":"call","id":3}"#, InvalidRequest, Some(3), Some(Call), "`v` is not"),
        (br#"{"v":2,"kind":"call","id":5,"body":{}}"#, InvalidRequest, Some(5), Some(Call), "protocol version 2"),
        (br#"{"v":1,"kind":"call","id":4}"#, InvalidRequest, Some(4), Some(Call), "has a `body`"),
        (br#"{"v":1,"kind":"call","body":{"method":"download.pause","params":{"taskId":"t"}}}"#, InvalidRequest, None, Some(Call), "has an `id`"),
        (br#"{"v":1,"kind":"call","id":"7","body":{"method":"download.pause","params":{"taskId":"t"}}}"#, InvalidRequest, None, Some(Call), "`id` is not an integer"),
        (br#"{"v":1,"kind":"call","id":6,"body":{"params":{}}}"#, InvalidRequest, Some(6), Some(Call), "has no `method`"),
        (br#"{"v":1,"kind":"call","id":6,"body":{"method":"download.pause"}}"#, InvalidRequest, Some(6), Some(Call), "has no `params`"),
        (br#"{"v":1,"kind":"call","id":6,"body":[]}"#, InvalidRequest, Some(6), Some(Call), "a body is an object"),
        (br#"{"v":1,"kind":"error","id":"x","body":{"code":-32603,"message":"m"}}"#, InvalidRequest, None, Some(Error), "`id` is neither null nor an integer"),
    ];
    for (body, code, id, kind, says) in cases {
        check_refused(body, *code, *id, *kind, says);
    }
}

#[test]
fn only_calls_and_unreadable_envelopes_are_answered() {
    let answer = |body: &[u8]| {
        wire::decode::<Envelope>(body)
            .expect_err("refused")
            .answer()
    };
    let Some(Envelope::Error { id, body, .. }) =
        answer(br#"{"v":1,"kind":"call","id":9,"body":{"method":"tool.invoke","params":{}}}"#)
    else {
        panic!("a bad call is answered");
    };
    assert_eq!((id, body.code), (Some(9), RpcErrorCode::InvalidParams));
    assert!(body.message.contains("missing field `"), "{}", body.message);
    assert!(matches!(
        answer(b"nope"),
        Some(Envelope::Error { id: None, .. })
    ));
    assert!(
        answer(br#"{"v":1,"kind":"event","body":{"name":"event.task.removed","params":{}}}"#)
            .is_none()
    );
    assert!(answer(br#"{"v":1,"kind":"reply","id":1,"body":{}}"#).is_none());
}

#[test]
fn the_version_decides_before_a_bad_kind_or_body() {
    check_refused(
        br#"{"v":3,"kind":"whatever","id":8}"#,
        RpcErrorCode::InvalidRequest,
        Some(8),
        None,
        "protocol version 3",
    );
    let err = wire::decode::<Envelope>(br#"{"v":3}"#).expect_err("refused");
    assert!(matches!(err.problem, Problem::BadVersion(3)), "{err:?}");
}

/// A version written `1.0`, `1e0` or `-0` is refused with a reason that
/// covers the way it was written.
#[test]
fn a_version_written_as_no_integer_is_told_how() {
    for v in ["1.0", "1e0", "-0"] {
        let text = format!(
            r#"{{"v":{v},"kind":"call","id":8,"body":{{"method":"download.list","params":{{}}}}}}"#
        );
        check_refused(
            text.as_bytes(),
            RpcErrorCode::InvalidRequest,
            Some(8),
            Some(EnvelopeKind::Call),
            "no fraction, no exponent, not -0",
        );
    }
}

#[test]
fn the_envelope_kinds_are_the_schemas() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../contracts/schema/envelope/Envelope.json"
    );
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("Envelope.json")).expect("JSON");
    let kinds: Vec<&str> = schema["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .filter_map(|branch| {
            branch
                .pointer("/properties/kind/const")
                .and_then(Value::as_str)
        })
        .collect();
    let ours: Vec<&str> = EnvelopeKind::ALL.iter().map(|kind| kind.name()).collect();
    assert_eq!(kinds, ours);
}

#[test]
fn deserialize_reads_envelopes_from_values_and_text_alike() {
    let wire = json!({"v": 1, "kind": "event", "body": {"name": "event.task.removed", "params": {"taskId": "t_01"}}});
    let from_value: Envelope = serde_json::from_value(wire.clone()).expect("from a value");
    let from_text: Envelope = serde_json::from_str(&wire.to_string()).expect("from text");
    assert_eq!(from_value, from_text);
    let err = serde_json::from_value::<Envelope>(
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "tool.invoke", "params": {}}}),
    )
    .expect_err("bad params");
    assert!(
        err.to_string()
            .contains("the params of tool.invoke do not fit the contract: missing field `"),
        "{err}"
    );
}

/// `Deserialize` for `Envelope` takes the raw text serde_json lends (or
/// copies): every entry point reads the same envelope.
#[test]
fn every_serde_json_entry_point_reads_an_envelope() {
    let text = r#"{"v":1,"kind":"call","id":7,"body":{"method":"download.pause","params":{"taskId":"t_01"}}}"#;
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    let reads: Vec<proto::Envelope> = vec![
        serde_json::from_str(text).expect("from_str"),
        serde_json::from_slice(text.as_bytes()).expect("from_slice"),
        serde_json::from_reader(text.as_bytes()).expect("from_reader"),
        serde_json::from_value(value.clone()).expect("from_value"),
        serde::Deserialize::deserialize(&value).expect("from a borrowed Value"),
    ];
    for read in reads {
        assert_eq!(serde_json::to_value(&read).expect("writes"), value);
    }
}

/// A body read alone (`Deserialize` for `CallBody`, `ReplyBody`,
/// `EventBody`) is the body its envelope reads to: the same decoder, the
/// content read from the same kind of tokens, with escapes, nesting, numbers
/// of every kind and unknown members on the way.
#[test]
fn a_body_alone_reads_as_inside_its_envelope() {
    let envelopes = [
        json!({"v": 1, "kind": "call", "id": 3, "body": {"method": "download.add", "params": {"spec": {
            "url": "https://example.org/a\u{e9}\"b\\c", "fileName": "caf\u{e9}.iso", "segments": 4,
            "headers": {"X-A": "1", "X-\u{1F600}": "\\u0041"}}, "later": [1.5, -0, [[{}]], {"a": null}]}}}),
        json!({"v": 1, "kind": "reply", "id": 4, "body": {"method": "download.add", "result": {"taskId": "t_01", "x": -2.5e-3}}}),
        json!({"v": 1, "kind": "event", "body": {"name": "event.task.progress", "params": {"taskId": "t_01",
            "downloadedBytes": 9_007_199_254_740_991_u64, "speedBytesPerSec": 0,
            "segments": [{"index": 0, "downloadedBytes": 1, "state": "downloading"}]}}}),
        json!({"v": 1, "kind": "event", "body": {"name": "event.from.later", "params": {"deep": [[[1e-300]]]}}}),
    ];
    for wire in envelopes {
        let body = wire["body"].to_string();
        match wire::decode::<Envelope>(wire.to_string().as_bytes()).expect("decodes") {
            Envelope::Call { body: read, .. } => {
                assert_eq!(
                    serde_json::from_str::<CallBody>(&body).expect("alone"),
                    read
                );
            }
            Envelope::Reply { body: read, .. } => {
                assert_eq!(
                    serde_json::from_str::<ReplyBody>(&body).expect("alone"),
                    read
                );
            }
            Envelope::Event { body: read, .. } => {
                assert_eq!(
                    serde_json::from_str::<EventBody>(&body).expect("alone"),
                    read
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            wire::decode::<Envelope>(wire.to_string().as_bytes()).ok(),
            wire::decode_from_text::<Envelope>(wire.to_string().as_bytes()).ok()
        );
    }
}

/// A message of more tokens than a tape records (a tape costs up to eight
/// times its text) is read from its text instead, to the same envelope.
#[test]
fn a_message_past_the_tape_is_read_from_its_text() {
    let many: Vec<u64> = (0..100_000).map(|i| i % 10).collect();
    for wire in [
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a"}, "later": many}}}),
        json!({"v": 1, "kind": "reply", "id": 2, "body": {"method": "download.add", "result": {
            "taskId": "t_01", "later": [many]}}}),
    ] {
        let text = wire.to_string();
        let read = wire::decode::<Envelope>(text.as_bytes()).expect("decodes");
        assert_eq!(
            Some(&read),
            wire::decode_from_text::<Envelope>(text.as_bytes())
                .ok()
                .as_ref()
        );
    }
    // Read from its text, a struct is still an object and an enum value a
    // string, at any depth.
    for wire in [
        json!({"v": 1, "kind": "call", "id": 3, "body": {"method": "download.add", "params": [
            {"url": "https://example.org/a"}, many]}}),
        json!({"v": 1, "kind": "call", "id": 4, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a", "checksum": {"algorithm": {"md5": null},
            "value": "00000000000000000000000000000000"}}, "later": many}}}),
    ] {
        let err = wire::decode::<Envelope>(wire.to_string().as_bytes()).expect_err("refused");
        let said = wire::sentence(&err);
        assert!(said.contains("invalid type: "), "{said}");
    }
}

/// A number where any value may stand (a tool's input) is the `Value`
/// serde_json reads from the same text, from the tape and from the text
/// alike, under the serde_json features a lane's graph may turn on
/// (`cargo xtask test` runs this crate's tests with `arbitrary_precision`,
/// where a `Number` keeps the text it was written as).
#[test]
fn a_free_number_is_the_value_serde_json_reads() {
    let input = "[1e2, 1E+2, -0, -0.0, 1.50, 1.0, 0.1, -1.5e-3, 2.5, 9007199254740991, \
                 -9007199254740991, 12345678901234567e-3, {\"n\": -7e0}]";
    let serde: Value = serde_json::from_str(input).unwrap();
    let text = format!(
        r#"{{"v": 1, "kind": "call", "id": 1, "body": {{"method": "tool.invoke", "params": {{"tool": "t", "input": {input}}}}}}}"#
    );
    let from_tape = wire::decode::<Envelope>(text.as_bytes()).expect("decodes");
    let from_text = wire::decode_from_text::<Envelope>(text.as_bytes()).expect("decodes");
    for (read, how) in [(from_tape, "tape"), (from_text, "text")] {
        let written = serde_json::to_value(&read).unwrap();
        assert_eq!(
            written["body"]["params"]["input"].to_string(),
            serde.to_string(),
            "from the {how}"
        );
    }
}

/// What an answer quotes of the call is cut, so the answer fits a frame
/// however large the call was: an enum's unknown spelling is quoted, and
/// escaped again inside the message.
#[test]
fn an_answer_fits_a_frame_whatever_the_call_quotes() {
    let quotes = "\"".repeat(500_000);
    let controls = "\u{1}".repeat(170_000);
    let calls = [
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a", "segments": quotes}}}}),
        json!({"v": 1, "kind": "call", "id": 2, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a", "segments": controls}}}}),
        json!({"v": 1, "kind": "call", "id": 3, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a", "checksum": {"algorithm": quotes, "value": "00"}}}}}),
        json!({"v": 1, "kind": "call", "id": 4, "body": {"method": "download.add", "params": {
            "spec": {"url": "https://example.org/a", "checksum": {"algorithm": controls, "value": "00"}}}}}),
    ];
    for call in calls {
        let text = call.to_string();
        assert!(text.len() <= proto::MAX_FRAME, "{} bytes", text.len());
        let err = wire::decode::<Envelope>(text.as_bytes()).expect_err("refused");
        let answer = err.answer().expect("a call is answered");
        let mut sent = Vec::new();
        proto::write_frame(&mut sent, &answer).expect("the answer fits a frame");
        assert!(sent.len() < 4096, "{} bytes", sent.len());
        let sentence = wire::sentence(&err);
        assert!(
            sentence.chars().count() <= wire::SENTENCE_CHARS + 80,
            "{sentence}"
        );
        assert!(!sentence.contains('\u{1}'), "{sentence}");
    }
    let name = quotes.clone() + "x";
    let answer = wire::method_not_found(4, &name, &["tool.invoke"]);
    let mut sent = Vec::new();
    proto::write_frame(&mut sent, &answer).expect("the answer fits a frame");
    assert!(sent.len() < 4096, "{} bytes", sent.len());
}

/// The whole account of a misfit (the error, its sources, the answer sent
/// back) never quotes a string value: a credential in the wrong place, such
/// as `params` sent as the text of an object, would be printed wherever the
/// error is. An enum's unknown spelling is quoted, cut and escaped. Read
/// from the tape and, past it, from the text, alike.
#[test]
fn a_misfit_quotes_no_string_value() {
    let auth = json!({"taskId": "t_01", "username": "u", "password": "hunter2"});
    let many: Vec<u64> = (0..100_000).map(|i| i % 10).collect();
    let cases = [
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.provideAuth",
                "params": auth.to_string()}}),
            "invalid type: a string, expected struct DownloadProvideAuthParams",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 2, "body": {"method": "download.provideAuth",
                "params": {"taskId": "t_01", "username": "u", "password": "p", "save": "hunter2 \" \\ \""}}}),
            "invalid type: a string, expected a boolean",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 3, "body": {"method": "download.add", "params": {
                "spec": {"url": "https://example.org/a", "segments": "hunter2"}, "later": many}}}),
            "invalid type: a string, expected u8",
        ),
        (
            json!({"v": 1, "kind": "error", "id": 4, "body": {"code": "hunter2", "message": "m"}}),
            "invalid type: a string, expected i64",
        ),
        (
            json!({"v": 1, "kind": "event", "body": {"name": "event.task.state",
                "params": {"taskId": "t_01", "state": "x\nerror: forged\u{2028}"}}}),
            "unknown variant `x\\u000aerror: forged\\u2028`, expected one of `new`",
        ),
    ];
    for (wire, told) in cases {
        let text = wire.to_string();
        let err = wire::decode::<Envelope>(text.as_bytes()).expect_err("refused");
        let mut whole = err.to_string();
        let mut cause = std::error::Error::source(&err);
        while let Some(next) = cause {
            whole.push_str(&format!(" <- {next}"));
            cause = next.source();
        }
        if let Some(answer) = err.answer() {
            whole.push_str(&serde_json::to_string(&answer).expect("an answer writes"));
        }
        assert!(!whole.contains("hunter2"), "{whole}");
        assert!(!whole.contains(['\n', '\u{2028}']), "{whole}");
        assert!(whole.contains(told), "{whole}\ndoes not say {told}");
        // serde_json says where in the content; the tape does not.
        let from_text = wire::decode_from_text::<Envelope>(text.as_bytes()).expect_err("refused");
        let from_text = wire::sentence(&from_text);
        assert!(!from_text.contains("hunter2"), "{from_text}");
        assert!(from_text.contains(told), "{from_text}\ndoes not say {told}");
    }
}

/// An unknown name with no content, or an unknown `kind`, is refused
/// naming it; it may be as long as a frame and hold a line break, so it is
/// quoted cut and escaped in the error itself, not only in the answer.
#[test]
fn a_name_without_its_content_is_quoted_cut_and_escaped() {
    let name = format!("x\nerror: forged{}", "y".repeat(100_000));
    for wire in [
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": name}}),
        json!({"v": 1, "kind": "event", "body": {"name": name}}),
        json!({"v": 1, "kind": name, "body": {}}),
    ] {
        let err = wire::decode::<Envelope>(wire.to_string().as_bytes()).expect_err("refused");
        let said = err.to_string();
        assert!(!said.contains('\n'), "{said}");
        // Escaped as JSON where it is quoted as a string, else by `printable`.
        assert!(
            said.contains("x\\nerror: forged") || said.contains("x\\u000aerror: forged"),
            "{said}"
        );
        assert!(said.len() < 1000, "{} bytes", said.len());
    }
}

#[test]
fn a_short_text_is_not_cut_and_a_long_one_keeps_both_ends() {
    assert_eq!(wire::shortened("abc", 3), "abc");
    let text: String = ('a'..='z').cycle().take(100).collect();
    let short = wire::shortened(&text, 40);
    assert!(short.starts_with(&text[..20]), "{short}");
    assert!(short.ends_with(&text[90..]), "{short}");
    assert!(short.contains("(70 characters left out)"), "{short}");
    // Characters, not bytes: a cut never splits one.
    let wide = "é".repeat(100);
    assert_eq!(wire::shortened(&wide, 40).matches('é').count(), 30);
}

#[test]
fn printable_escapes_what_breaks_or_reorders_a_line() {
    let text = "a\nb\u{85}c\u{2028}d\u{202e}e\u{2066}f\u{200f}g\u{1b}h é 😀";
    assert_eq!(
        wire::printable(text),
        r"a\u000ab\u0085c\u2028d\u202ee\u2066f\u200fg\u001bh é 😀"
    );
    assert!(matches!(
        wire::printable("plain é 😀"),
        std::borrow::Cow::Borrowed(_)
    ));
}

/// `null` stands only where the schema allows it: an optional field that
/// may not be null refuses it (serde reads `null` into an `Option` as
/// absent), a field that may be null keeps it apart from absent, and an
/// error envelope's `id` may be null but must be there. From text, the
/// text past the tape, and a `Value`, alike.
#[test]
fn null_stands_only_where_the_schema_allows_it() {
    // The invalid fixture for it, which follows the contract, and more.
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../conformance/invalid/optional_field_null.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let refused = [
        fixture["value"].clone(),
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.list", "params": {"states": null}}}),
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {"spec": {"url": "https://example.org/a", "headers": null}}}}),
        json!({"v": 1, "kind": "error", "body": {"code": -32600, "message": "m"}}),
    ];
    for value in &refused {
        let text = value.to_string();
        assert!(decode(value).is_err(), "{text}");
        assert!(
            wire::decode_from_text::<Envelope>(text.as_bytes()).is_err(),
            "{text}"
        );
        assert!(
            serde_json::from_value::<Envelope>(value.clone()).is_err(),
            "{text}"
        );
    }
    let read = [
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.list", "params": {}}}),
        json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.update", "params": {"taskId": "t_01", "patch": {"speedLimitBytesPerSec": null}}}}),
        json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32600, "message": "m"}}),
    ];
    for value in &read {
        let envelope = decode(value).unwrap_or_else(|err| panic!("{value}: {err}"));
        assert_eq!(&serde_json::to_value(&envelope).unwrap(), value);
        assert_eq!(
            serde_json::from_value::<Envelope>(value.clone()).unwrap(),
            envelope
        );
    }
}

/// A misfit names its place exactly, as the C++ and TypeScript readers'
/// `pointer()` does: the member or item that does not fit, or the required
/// member that is missing; the same from the tokens and from the
/// text, with the member names of a map escaped as RFC 6901 says.
#[test]
fn a_misfit_names_its_exact_place() {
    let cases = [
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {"spec": {"url": "https://e/a", "segments": "x"}}}}),
            "/body/params/spec/segments",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {"spec": {"url": "https://e/a", "headers": {"a/b~c": 1}}}}}),
            "/body/params/spec/headers/a~1b~0c",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.list", "params": {"states": ["queued", "nope"]}}}),
            "/body/params/states/1",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "tool.invoke", "params": {"input": {}}}}),
            "/body/params/tool",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {"spec": {}}}}),
            "/body/params/spec/url",
        ),
        (
            json!({"v": 1, "kind": "error", "id": 1, "body": {"code": -32600, "message": 5}}),
            "/body/message",
        ),
        (
            json!({"v": 1, "kind": "event", "body": {"name": "event.task.progress", "params": {"taskId": "t_01", "downloadedBytes": 1, "speedBytesPerSec": 1, "segments": [{"index": 0, "downloadedBytes": -1, "state": "downloading"}]}}}),
            "/body/params/segments/0/downloadedBytes",
        ),
    ];
    for (value, pointer) in cases {
        let text = value.to_string();
        for err in [
            decode(&value).expect_err("refused"),
            wire::decode_from_text::<Envelope>(text.as_bytes()).expect_err("refused"),
        ] {
            assert!(
                matches!(err.problem, Problem::BadContent { .. }),
                "{text}: {err:?}"
            );
            assert_eq!(err.pointer, pointer, "{text}");
            let sentence = wire::sentence(&err);
            assert!(
                sentence.starts_with(&format!("at {pointer}: ")) && !sentence.contains(" at line "),
                "{text}: {sentence}"
            );
        }
    }
}

/// Every refusal names its place as the C++ and TypeScript readers do, the
/// envelope's own members too; text that is not JSON, or not an object,
/// is refused at `""` and its message has no place.
#[test]
fn every_refusal_names_its_place() {
    let cases: [(&[u8], &str); 11] = [
        (br#"{"v":1,"kind":"call","body":{"method":"download.get","params":{"taskId":"t"}}}"#, "/id"),
        (br#"{"v":1,"kind":"call","id":-1,"body":{"method":"download.get","params":{"taskId":"t"}}}"#, "/id"),
        (br#"{"v":1,"id":1,"body":{"method":"download.get","params":{"taskId":"t"}}}"#, "/kind"),
        (br#"{"v":1,"kind":"zz","id":1,"body":{}}"#, "/kind"),
        (br#"{"v":1,"kind":"call","id":1}"#, "/body"),
        (br#"{"v":1,"kind":"call","id":1,"body":[]}"#, "/body"),
        (br#"{"v":1,"kind":"call","id":1,"body":{"params":{}}}"#, "/body/method"),
        (br#"{"v":1,"kind":"call","id":1,"body":{"method":"download.get"}}"#, "/body/params"),
        (br#"{"kind":"call","id":1,"body":{"method":"download.get","params":{"taskId":"t"}}}"#, "/v"),
        (br#"{"v":2,"kind":"call","id":1,"body":{}}"#, "/v"),
        (br#"[]"#, ""),
    ];
    for (text, pointer) in cases {
        let err = wire::decode::<Envelope>(text).expect_err("refused");
        let shown = String::from_utf8_lossy(text);
        assert_eq!(err.pointer, pointer, "{shown}");
        assert!(
            err.to_string().starts_with(&format!("at {pointer}: ")) || pointer.is_empty(),
            "{shown}: {err}"
        );
    }
    let err = wire::decode::<Envelope>(b"{").expect_err("refused");
    assert_eq!(
        (err.pointer.as_str(), err.to_string().starts_with("at ")),
        ("", false)
    );
}

/// A pointer holds a map's member names, which come from the input: the
/// error keeps it exact, and its message shows it cut as the C++ and
/// TypeScript readers cut one (its first 512 and last 256 characters past
/// 1,024) and escaped.
#[test]
fn a_pointer_is_exact_and_shown_cut_and_escaped() {
    let name = format!("\n{}\u{202e}", "k".repeat(5_000));
    let value = json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "download.add", "params": {"spec": {"url": "https://e/a", "headers": {name.clone(): 1}}}}});
    let err = decode(&value).expect_err("refused");
    assert_eq!(err.pointer, format!("/body/params/spec/headers/{name}"));
    let shown = err.to_string();
    assert!(shown.contains("characters left out"), "{shown}");
    assert!(
        shown.contains("\\u202e") && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert!(!shown.contains('\n'), "{shown}");
}

/// A missing `body` or `id` is told in a sentence for each kind: "an error
/// envelope", "an event envelope", not "a error".
#[test]
fn a_missing_part_is_told_with_the_kinds_article() {
    for (envelope, said) in [
        (
            json!({"v": 1, "kind": "event"}),
            "an event envelope has a `body`",
        ),
        (
            json!({"v": 1, "kind": "error", "id": 1}),
            "an error envelope has a `body`",
        ),
        (
            json!({"v": 1, "kind": "call", "id": 1}),
            "a call envelope has a `body`",
        ),
        (
            json!({"v": 1, "kind": "reply", "body": {"method": "download.list", "result": {"tasks": []}}}),
            "a reply envelope has an `id`",
        ),
    ] {
        let err = decode(&envelope).expect_err("refused");
        assert!(
            matches!(&err.problem, Problem::NotEnvelope(why) if why == said),
            "{envelope}: {err:?}"
        );
    }
}
