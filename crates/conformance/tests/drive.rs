//! `drive` against peers with planted faults, run in this process over
//! pipes: each fault is reported under its rule, and nothing else is.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{Read, Write};
use std::time::Duration;

use conformance::drive::{drive, Driven, Options};
use conformance::{Checker, Rule};
use serde_json::{json, Value};

/// What a test peer does wrong.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    None,
    DropsIds,
    AnswersEvents,
    DiesOnUnknownEvent,
    WrongMethodsResult,
}

fn write_frame(out: &mut impl Write, msg: &Value) -> bool {
    let body = msg.to_string();
    let len = u32::try_from(body.len()).unwrap().to_be_bytes();
    out.write_all(&len).is_ok() && out.write_all(body.as_bytes()).is_ok() && out.flush().is_ok()
}

/// A peer that serves `download.pause` (a reply with an empty result) and
/// answers as docs/wire.md says, but for its fault.
fn peer(mut input: impl Read, mut output: impl Write, fault: Fault) {
    let mut reader = proto::FrameReader::new(&mut input);
    while let Ok(body) = reader.read_raw() {
        let Ok(msg) = serde_json::from_slice::<Value>(body) else {
            write_frame(
                &mut output,
                &json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32700, "message": "not JSON"}}),
            );
            continue;
        };
        let id = msg["id"].clone();
        let answer = match msg["kind"].as_str() {
            Some("event") => {
                let name = msg["body"]["name"].as_str().unwrap_or_default();
                if fault == Fault::DiesOnUnknownEvent && name == "event.vdm.unknown" {
                    return;
                }
                if fault != Fault::AnswersEvents {
                    continue;
                }
                json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32600, "message": "an event"}})
            }
            _ => match msg["body"]["method"].as_str() {
                Some("download.pause") if msg["body"]["params"].is_object() => {
                    let method = if fault == Fault::WrongMethodsResult {
                        "download.resume"
                    } else {
                        "download.pause"
                    };
                    json!({"v": 1, "kind": "reply", "id": id, "body": {"method": method, "result": {}}})
                }
                Some("download.pause") => {
                    json!({"v": 1, "kind": "error", "id": id, "body": {"code": -32602, "message": "bad params"}})
                }
                _ => {
                    json!({"v": 1, "kind": "error", "id": id, "body": {"code": -32601, "message": "not served"}})
                }
            },
        };
        let mut answer = answer;
        if fault == Fault::DropsIds && answer["id"].is_u64() {
            answer["id"] = json!(answer["id"].as_u64().unwrap() + 1000);
        }
        if !write_frame(&mut output, &answer) {
            return;
        }
    }
}

fn drive_peer(fault: Fault) -> Driven {
    let (from_driver, to_peer) = std::io::pipe().unwrap();
    let (from_peer, to_driver) = std::io::pipe().unwrap();
    let peer = std::thread::spawn(move || peer(from_driver, to_driver, fault));
    let checker = Checker::embedded().unwrap();
    let options = Options {
        methods: Some(vec!["download.pause".into(), "download.list".into()]),
        // A peer that drops ids is waited for until the time runs out;
        // the others answer at once.
        timeout: Duration::from_secs(if fault == Fault::DropsIds { 2 } else { 30 }),
        seed: 1,
    };
    let driven = drive(&checker, from_peer, to_peer, &options).unwrap();
    peer.join().unwrap();
    driven
}

fn broken(driven: &Driven) -> Vec<&'static str> {
    driven
        .rules
        .iter()
        .filter(|(_, tally)| !tally.broken.is_empty())
        .map(|(rule, _)| rule.id())
        .collect()
}

#[test]
fn a_peer_that_keeps_every_rule_passes() {
    let driven = drive_peer(Fault::None);
    assert!(driven.held(), "{:#?}", driven.rules);
    assert_eq!(driven.rules[&Rule::DriveAnswer].held, 2);
    assert_eq!(driven.rules[&Rule::DriveEventUnanswered].held, 2);
}

#[test]
fn each_planted_fault_is_named_by_its_rule() {
    let drops = drive_peer(Fault::DropsIds);
    assert!(
        broken(&drops).contains(&"drive.answer"),
        "{:#?}",
        drops.rules
    );
    assert!(broken(&drops).contains(&"drive.method_not_found"));

    let answers = drive_peer(Fault::AnswersEvents);
    assert_eq!(
        broken(&answers),
        ["drive.event_unanswered"],
        "{:#?}",
        answers.rules
    );

    let dies = drive_peer(Fault::DiesOnUnknownEvent);
    let dead = broken(&dies);
    assert!(
        dead.contains(&"drive.event_unanswered") && dead.contains(&"drive.still_answers"),
        "{dead:?}"
    );

    let wrong = drive_peer(Fault::WrongMethodsResult);
    assert!(
        broken(&wrong).contains(&"drive.answer"),
        "{:#?}",
        wrong.rules
    );
    let why = &wrong.rules[&Rule::DriveAnswer].broken[0];
    assert!(why.contains("download.resume"), "{why}");
}
