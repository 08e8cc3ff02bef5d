//! The generated types read and write the wire as `docs/wire.md` shows it.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proto::{
    CallBody, Envelope, EventBody, ReplyBody, RpcErrorCode, TaskErrorCode, TaskState, Transport,
    EVENTS, METHODS, PROTOCOL_VERSION,
};
use serde_json::{json, Value};

/// Reads `wire` as an envelope, writes it back and compares the JSON values.
fn check_round_trip(wire: Value) -> Envelope {
    let envelope: Envelope = serde_json::from_value(wire.clone())
        .unwrap_or_else(|err| panic!("{wire} does not read as an Envelope: {err}"));
    let written = serde_json::to_value(&envelope).expect("an envelope always serializes");
    assert_eq!(written, wire, "the envelope did not round-trip");
    envelope
}

#[test]
fn a_call_round_trips_with_typed_params() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "call", "id": 7,
        "body": {"method": "download.add", "params": {"spec": {"url": "https://example.org/a.iso", "segments": 4,
            "checksum": {"algorithm": "sha256", "value": "ab".repeat(32)}}}}
    }));
    let Envelope::Call {
        body: CallBody::DownloadAdd(params),
        id,
        ..
    } = envelope
    else {
        panic!("not a download.add call: {envelope:?}");
    };
    assert_eq!(*id, 7);
    assert_eq!(params.spec.segments, Some(4));
}

#[test]
fn a_reply_round_trips_and_names_its_method() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "reply", "id": 7,
        "body": {"method": "download.add", "result": {"taskId": "t_01"}}
    }));
    let Envelope::Reply { body, .. } = envelope else {
        panic!("not a reply")
    };
    assert_eq!(body.method(), "download.add");
    assert!(matches!(body, ReplyBody::DownloadAdd(ref result) if *result.task_id == "t_01"));
}

#[test]
fn an_empty_result_round_trips_as_an_empty_object() {
    check_round_trip(
        json!({"v": 1, "kind": "reply", "id": 8, "body": {"method": "download.pause", "result": {}}}),
    );
}

#[test]
fn an_error_round_trips_with_a_named_code_and_a_null_id() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "error", "id": null,
        "body": {"code": -32602, "message": "spec.url: not an absolute URL", "data": {"pointer": "/spec/url"}}
    }));
    let Envelope::Error { body, id, .. } = envelope else {
        panic!("not an error")
    };
    assert_eq!(id, None);
    assert_eq!(body.code, RpcErrorCode::InvalidParams);
    assert_eq!(body.code.to_string(), "invalid_params");
}

#[test]
fn an_event_round_trips_with_typed_params() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "event",
        "body": {"name": "event.task.state", "params": {"taskId": "t_01", "state": "paused", "previousState": "downloading"}}
    }));
    let Envelope::Event {
        body: EventBody::EventTaskState(params),
        ..
    } = envelope
    else {
        panic!("not a state event")
    };
    assert_eq!(params.state, TaskState::Paused);
    assert_eq!(params.previous_state, TaskState::Downloading);
}

#[test]
fn a_tool_invoke_reply_carries_a_tool_capture_directly() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "reply", "id": 1,
        "body": {"method": "tool.invoke", "result": {"exitCode": 127, "stdout": "", "stderr": "vdm-exec: no tool \"x\"\n"}}
    }));
    let Envelope::Reply {
        body: ReplyBody::ToolInvoke(capture),
        ..
    } = envelope
    else {
        panic!("not a tool reply")
    };
    assert_eq!(capture.exit_code, 127);
}

#[test]
fn readers_ignore_fields_they_do_not_know() {
    // A later minor version may add fields; a reader of this one must survive them.
    let wire = json!({
        "v": 1, "kind": "call", "id": 1, "traceId": "abc",
        "body": {"method": "download.pause", "params": {"taskId": "t_01", "reason": "user"}, "extra": true}
    });
    let envelope: Envelope = serde_json::from_value(wire).expect("unknown fields are ignored");
    assert!(matches!(
        envelope,
        Envelope::Call {
            body: CallBody::DownloadPause(_),
            ..
        }
    ));
}

#[test]
fn a_version_other_than_one_is_refused() {
    let wire = json!({"v": 2, "kind": "event", "body": {"name": "event.task.removed", "params": {"taskId": "t"}}});
    let err =
        serde_json::from_value::<Envelope>(wire).expect_err("v: 2 must not read as a v1 envelope");
    assert!(err.to_string().contains("protocol version 2"), "{err}");
    assert_eq!(PROTOCOL_VERSION, 1);
}

#[test]
fn an_unknown_rpc_error_code_is_refused_by_name() {
    let wire = json!({"v": 1, "kind": "error", "id": 1, "body": {"code": -1, "message": "?"}});
    let err = serde_json::from_value::<Envelope>(wire).expect_err("-1 is not a contract code");
    assert!(
        err.to_string().contains("-1 is not an RpcErrorCode"),
        "{err}"
    );
}

/// The values `types/NAME.json` lists, in order (for an integer enum, its
/// `x-enum-varnames`).
fn listed(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../contracts/schema/types/{name}.json"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let values = schema
        .get("x-enum-varnames")
        .unwrap_or(&schema["enum"])
        .as_array()
        .unwrap();
    values
        .iter()
        .map(|value| value.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn enums_keep_the_contracts_order_and_spelling() {
    let spelled = |all: Vec<String>, name: &str| assert_eq!(all, listed(name), "{name}");
    spelled(
        TaskErrorCode::ALL.iter().map(ToString::to_string).collect(),
        "TaskErrorCode",
    );
    spelled(
        TaskState::ALL.iter().map(ToString::to_string).collect(),
        "TaskState",
    );
    for value in listed("TaskErrorCode") {
        assert_eq!(
            value
                .parse::<TaskErrorCode>()
                .ok()
                .map(|code| code.to_string()),
            Some(value.clone())
        );
    }
    for value in listed("TaskState") {
        assert_eq!(
            value
                .parse::<TaskState>()
                .ok()
                .map(|state| state.to_string()),
            Some(value.clone())
        );
    }
    for name in listed("RpcErrorCode") {
        assert!(name.parse::<RpcErrorCode>().is_ok(), "{name}");
    }
    assert!(
        "ok".parse::<TaskErrorCode>().is_err(),
        "ok has no wire spelling"
    );
    // JSON-RPC's own codes come first, as JSON-RPC numbers them.
    assert_eq!(
        RpcErrorCode::ALL.map(RpcErrorCode::code)[..5],
        [-32700, -32600, -32601, -32602, -32603]
    );
}

#[test]
fn the_http_status_table_is_the_contracts_column() {
    let carriers: Vec<String> = TaskErrorCode::CARRIES_HTTP_STATUS
        .iter()
        .map(ToString::to_string)
        .collect();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../contracts/schema/types/TaskErrorCode.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the schema")).expect("JSON");
    let listed: Vec<String> = schema["x-carriesHttpStatus"]
        .as_array()
        .expect("x-carriesHttpStatus")
        .iter()
        .map(|code| code.as_str().expect("a code").to_string())
        .collect();
    assert!(!listed.is_empty());
    assert_eq!(carriers, listed);
    for code in TaskErrorCode::ALL {
        assert_eq!(
            code.carries_http_status(),
            listed.contains(&code.to_string()),
            "{code}"
        );
    }
}

/// A file of the contract the bindings were generated from.
fn contract(rel: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../contracts/schema")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path:?}: {err}"));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path:?}: {err}"))
}

/// The tags of a body's branches, in order.
fn tags(body: &str, tag: &str) -> Vec<String> {
    contract(&format!("envelope/{body}.json"))["oneOf"]
        .as_array()
        .expect("a body is a oneOf")
        .iter()
        .map(|branch| {
            branch["properties"][tag]["const"]
                .as_str()
                .expect("a tag")
                .to_string()
        })
        .collect()
}

/// The tables say what the schemas say, for whatever methods and events
/// the contract has (a release that adds one keeps this true).
#[test]
fn the_method_table_lists_every_method_with_its_transports() {
    let names: Vec<&str> = METHODS.iter().map(|info| info.name).collect();
    assert_eq!(names, tags("CallBody", "method"));
    for info in METHODS {
        let doc = contract(&format!("methods/{}.json", info.name));
        let words = |list: &Value| -> Vec<String> {
            list.as_array()
                .into_iter()
                .flatten()
                .map(|w| w.as_str().expect("a name").to_string())
                .collect()
        };
        let transports: Vec<String> = info.transports.iter().map(ToString::to_string).collect();
        assert_eq!(transports, words(&doc["x-transports"]), "{}", info.name);
        let errors: Vec<String> = info.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, words(&doc["x-errors"]), "{}", info.name);
        assert_eq!(info.since, doc["x-since"], "{}", info.name);
        assert_eq!(
            info.spawns_process,
            doc["x-spawnsProcess"] == json!(true),
            "{}",
            info.name
        );
    }
    let events: Vec<&str> = EVENTS.iter().map(|info| info.name).collect();
    assert_eq!(events, tags("EventBody", "name"));
    // The typed values the table holds, on two methods the wire knows well.
    let tool = proto::method_info("tool.invoke").expect("tool.invoke is a method");
    assert_eq!(tool.transports, [Transport::Unix]);
    assert!(tool.spawns_process);
    let add = proto::method_info("download.add").expect("download.add is a method");
    assert_eq!(add.transports, [Transport::Unix, Transport::Websocket]);
    assert!(add.errors.contains(&RpcErrorCode::InvalidParams));
}

#[test]
fn a_secret_reads_and_writes_as_a_string_and_never_prints() {
    let envelope = check_round_trip(json!({
        "v": 1, "kind": "call", "id": 15,
        "body": {"method": "download.provideAuth", "params": {"taskId": "t_01", "username": "alice", "password": "hunter2", "save": true}}
    }));
    let printed = format!("{envelope:?}");
    assert!(!printed.contains("hunter2"), "{printed}");
    assert!(printed.contains("SecretString(<redacted>)"), "{printed}");
    let Envelope::Call {
        body: CallBody::DownloadProvideAuth(params),
        ..
    } = envelope
    else {
        panic!("not provideAuth")
    };
    assert_eq!(params.password.expose(), "hunter2");
    assert_eq!(
        proto::method_info("download.provideAuth").map(|m| m.transports),
        Some(&[Transport::Unix][..])
    );
}
