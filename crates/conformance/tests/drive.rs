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

use conformance::drive::{drive, Driven, Options, Role};
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
    /// Takes any length and waits for its body.
    WaitsForOversizeBody,
    /// Sends an event of its own before each answer, as a daemon sends
    /// progress: no fault at all.
    SendsEvents,
    /// Reads nothing and writes events for as long as it can.
    FloodsEvents,
    /// The same with events of half a megabyte, each with a member the
    /// event does not have and a task id of the wrong type.
    FloodsLargeEvents,
    /// Writes back every frame it reads, as it came.
    Echoes,
    /// Reads every frame and answers none.
    Silent,
    /// Answers `session.hello`, offering `download.pause` alone; driven
    /// without `--methods`.
    OffersPause,
    /// Writes a log line on its stdout before its frames.
    LogsFirst,
    /// Writes half a frame and closes its stream.
    CutsAFrame,
    /// Answers every call with a body that is not JSON.
    AnswersNotJson,
    /// Answers the first call with a length prefix 3 more than its body's
    /// bytes (as one that counts something else), then answers nothing.
    OverstatesLength,
}

/// The padding of each event a `FloodsLargeEvents` peer sends.
const LARGE_EVENT: usize = 512 * 1024;

/// An event a peer sends of its own accord.
fn own_event() -> Value {
    json!({"v": 1, "kind": "event", "body": {"name": "event.task.removed", "params": {"taskId": "t_01"}}})
}

fn write_frame(out: &mut impl Write, msg: &Value) -> bool {
    let body = msg.to_string();
    let len = u32::try_from(body.len()).unwrap().to_be_bytes();
    out.write_all(&len).is_ok() && out.write_all(body.as_bytes()).is_ok() && out.flush().is_ok()
}

/// A peer that serves `download.pause` (a reply with an empty result) and
/// answers as docs/wire.md says, but for its fault.
fn peer(input: impl Read, mut output: impl Write, fault: Fault) {
    if fault == Fault::FloodsEvents {
        // Until the driver stops reading.
        while write_frame(&mut output, &own_event()) {}
        return;
    }
    if fault == Fault::FloodsLargeEvents {
        let mut event = own_event();
        event["body"]["params"]["padding"] = json!("x".repeat(LARGE_EVENT));
        event["body"]["params"]["taskId"] = json!(5);
        while write_frame(&mut output, &event) {}
        return;
    }
    if fault == Fault::CutsAFrame {
        let _ = output.write_all(&100u32.to_be_bytes());
        let _ = output.write_all(b"{\"v\": 1");
        // Its stream ends there; it goes on reading until the driver closes.
        drop(output);
        let _ = std::io::copy(&mut { input }, &mut std::io::sink());
        return;
    }
    if fault == Fault::LogsFirst {
        let _ = output.write_all(b"Starting daemon 1.2\n");
        let _ = output.flush();
    }
    if fault == Fault::Silent {
        // Until the driver closes its end.
        let _ = std::io::copy(&mut { input }, &mut std::io::sink());
        return;
    }
    let mut reader = proto::FrameReader::new(input);
    loop {
        let body = match reader.read_raw() {
            Ok(body) => body.to_vec(),
            Err(proto::FrameError::TooLarge(_)) if fault == Fault::WaitsForOversizeBody => {
                // Waits for a body that never comes, until the driver closes.
                let mut rest = Vec::new();
                let _ = reader.into_inner().read_to_end(&mut rest);
                return;
            }
            Err(_) => return,
        };
        let body = body.as_slice();
        if fault == Fault::Echoes {
            let len = u32::try_from(body.len()).unwrap().to_be_bytes();
            if output
                .write_all(&len)
                .and_then(|()| output.write_all(body))
                .and_then(|()| output.flush())
                .is_err()
            {
                return;
            }
            continue;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(body) else {
            write_frame(
                &mut output,
                &json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32700, "message": "not JSON"}}),
            );
            continue;
        };
        if fault == Fault::AnswersNotJson && msg["kind"] == "call" {
            if output
                .write_all(&7u32.to_be_bytes())
                .and_then(|()| output.write_all(b"{\"v\": 1"))
                .and_then(|()| output.flush())
                .is_err()
            {
                return;
            }
            continue;
        }
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
                Some("session.hello")
                    if fault == Fault::OffersPause && msg["body"]["params"].is_object() =>
                {
                    json!({"v": 1, "kind": "reply", "id": id, "body": {"method": "session.hello",
                        "result": {"daemon": "test/1", "contractVersion": "1.1.0", "methods": ["download.pause", "vdm.later"]}}})
                }
                Some("download.pause") if msg["body"]["params"].is_object() => {
                    let method = if fault == Fault::WrongMethodsResult {
                        "download.resume"
                    } else {
                        "download.pause"
                    };
                    json!({"v": 1, "kind": "reply", "id": id, "body": {"method": method, "result": {}}})
                }
                Some("download.pause" | "session.hello") => {
                    json!({"v": 1, "kind": "error", "id": id, "body": {"code": -32602, "message": "bad params"}})
                }
                _ => {
                    json!({"v": 1, "kind": "error", "id": id, "body": {"code": -32601, "message": "not served"}})
                }
            },
        };
        if fault == Fault::SendsEvents && !write_frame(&mut output, &own_event()) {
            return;
        }
        let mut answer = answer;
        if fault == Fault::DropsIds && answer["id"].is_u64() {
            answer["id"] = json!(answer["id"].as_u64().unwrap() + 1000);
        }
        if fault == Fault::OverstatesLength {
            let body = answer.to_string();
            let len = u32::try_from(body.len() + 3).unwrap().to_be_bytes();
            let _ = output.write_all(&len);
            let _ = output.write_all(body.as_bytes());
            let _ = output.flush();
            // Until the driver closes its end.
            let _ = std::io::copy(&mut reader.into_inner(), &mut std::io::sink());
            return;
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
    let methods = if fault == Fault::Echoes {
        vec!["download.provideAuth".into(), "download.add".into()]
    } else {
        vec!["download.pause".into(), "download.list".into()]
    };
    let options = Options {
        methods: (fault != Fault::OffersPause).then_some(methods),
        // A peer that drops ids is waited for until the time runs out;
        // the others answer at once, or flood (the large frames until the
        // driver has heard its fill, whatever the time each takes to judge).
        timeout: Duration::from_secs(match fault {
            // A peer whose answers are not JSON is waited for too, for the
            // answer with the call's id that never comes.
            Fault::DropsIds | Fault::WaitsForOversizeBody | Fault::AnswersNotJson => 2,
            Fault::FloodsEvents | Fault::Silent => 1,
            // Long enough for the first answer's bytes to arrive on a busy
            // machine: the wait after them is what is told.
            Fault::OverstatesLength => 3,
            _ => 30,
        }),
        seed: 1,
        role: Role::Client,
    };
    let driven = drive(&checker, from_peer, to_peer, &options).unwrap();
    peer.join().unwrap();
    driven
}

/// Runs `session` and returns what it gave, failing when it has not ended
/// in five minutes (a wait without a bound runs for ever).
fn ends(session: impl FnOnce() -> Driven + Send + 'static) -> Driven {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(session());
    });
    finished
        .recv_timeout(Duration::from_secs(300))
        .expect("the session ends")
}

/// A peer that says back what it was sent (a password among it) breaks
/// rules, and the report quotes what it sent: with every credential
/// hidden, as `check` hides them. The record keeps the conversation whole.
#[test]
fn a_report_never_quotes_a_credential_the_peer_sent() {
    let driven = ends(|| drive_peer(Fault::Echoes));
    let broken: Vec<&String> = driven.rules.values().flat_map(|t| &t.broken).collect();
    let quoted: Vec<&&String> = broken
        .iter()
        .filter(|b| b.contains("\"password\":"))
        .collect();
    assert!(!quoted.is_empty(), "the echoed call is quoted: {broken:#?}");
    for sentence in quoted {
        assert!(
            sentence.contains("\"password\":\"<redacted>\""),
            "{sentence}"
        );
    }
    let recorded = driven
        .records
        .iter()
        .filter(|r| r.contains("\"password\":"))
        .count();
    assert!(recorded >= 2, "{:#?}", driven.records);
}

fn broken(driven: &Driven) -> Vec<&'static str> {
    driven
        .rules
        .iter()
        .filter(|(_, tally)| !tally.broken.is_empty())
        .map(|(rule, _)| rule.id())
        .collect()
}

/// A peer that writes a log line where its frames go is told so, not
/// only that a frame of 1.4 GB came.
#[test]
fn a_log_line_on_the_frame_stream_is_named_as_text() {
    let driven = ends(|| drive_peer(Fault::LogsFirst));
    let told: Vec<&String> = driven.rules.values().flat_map(|t| &t.broken).collect();
    assert!(!told.is_empty(), "{:#?}", driven.rules);
    assert!(
        told.iter().all(|said| said.contains(
            "(the length prefix's four bytes spell \"Star\": text on the stream where frames go?"
        )),
        "{told:#?}"
    );
}

/// A peer whose stream ends inside a frame is told so, not that a frame
/// "could not be read or written".
#[test]
fn a_frame_cut_short_is_named_as_cut() {
    let driven = ends(|| drive_peer(Fault::CutsAFrame));
    let told: Vec<&String> = driven.rules.values().flat_map(|t| &t.broken).collect();
    assert!(!told.is_empty(), "{:#?}", driven.rules);
    assert!(
        told.iter().any(|said| said.contains(
            "the stream ends inside a frame: its length prefix or its body is cut short"
        )),
        "{told:#?}"
    );
}

/// A peer that answers with a body that is not JSON is told it did, not
/// shown a redacted nothing in its place.
#[test]
fn an_answer_that_is_not_json_is_named_so() {
    let driven = ends(|| drive_peer(Fault::AnswersNotJson));
    let answer = &driven.rules[&Rule::DriveAnswer];
    // On a busy machine an answer may come after the two seconds, and be
    // told as late instead.
    assert!(
        answer.broken.iter().any(|said| said.ends_with(
            "was answered with a body that is not an envelope (see `json` and `schema`)"
        )),
        "{:#?}",
        driven.rules
    );
    assert!(
        answer
            .broken
            .iter()
            .all(|said| !said.contains(conformance::REDACTED)),
        "{:#?}",
        answer.broken
    );
    assert!(!driven.rules[&Rule::Json].broken.is_empty());
}

/// Without `--methods` the driver says hello first and calls what the
/// peer offers: `download.pause`, and not a method this contract lacks
/// (`vdm.later`) nor one the peer did not list.
#[test]
fn the_methods_called_are_those_the_hello_offers() {
    let driven = drive_peer(Fault::OffersPause);
    assert!(driven.held(), "{:#?}", driven.rules);
    let called: Vec<String> = driven
        .records
        .iter()
        .map(|record| serde_json::from_str::<Value>(record).unwrap())
        .filter(|record| record["from"] == "client" && record["msg"]["kind"] == "call")
        .map(|record| {
            record["msg"]["body"]["method"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        called[..2],
        ["session.hello", "download.pause"],
        "{called:?}"
    );
    assert!(
        called[2..].iter().all(|method| method != "download.list"),
        "{called:?}"
    );
    assert_eq!(driven.rules[&Rule::DriveAnswer].held, 2);
}

#[test]
fn a_peer_that_keeps_every_rule_passes() {
    let driven = drive_peer(Fault::None);
    assert!(driven.held(), "{:#?}", driven.rules);
    // Every message the peer wrote was held to the schema.
    let from_peer = driven
        .records
        .iter()
        .filter(|record| record.starts_with(r#"{"from":"server""#))
        .count();
    let schema = &driven.rules[&Rule::Schema];
    assert_eq!((schema.exercised, schema.held), (from_peer, from_peer));
    assert!(from_peer > 0);
    assert_eq!(driven.rules[&Rule::DriveAnswer].held, 2);
    assert_eq!(driven.rules[&Rule::DriveEventUnanswered].held, 2);
    assert_eq!(driven.rules[&Rule::DriveOversize].held, 1);
}

/// A timeout past what the clock can add (`Duration::MAX`) is taken as
/// the longest wait, not a panic computing the deadline.
#[test]
fn the_longest_timeout_is_a_wait_not_a_panic() {
    let driven = ends(|| {
        let (from_driver, to_peer) = std::io::pipe().unwrap();
        let (from_peer, to_driver) = std::io::pipe().unwrap();
        let peer = std::thread::spawn(move || peer(from_driver, to_driver, Fault::None));
        let options = Options {
            methods: Some(vec!["download.pause".into()]),
            timeout: Duration::MAX,
            seed: 1,
            role: Role::Client,
        };
        let driven = drive(&Checker::embedded().unwrap(), from_peer, to_peer, &options).unwrap();
        peer.join().unwrap();
        driven
    });
    assert!(driven.held(), "{:#?}", driven.rules);
}

#[test]
fn events_between_a_call_and_its_answer_are_passed_over() {
    let driven = drive_peer(Fault::SendsEvents);
    assert!(driven.held(), "{:#?}", driven.rules);
    assert_eq!(driven.rules[&Rule::DriveAnswer].held, 2);
    assert_eq!(driven.rules[&Rule::DriveEventUnanswered].held, 2);
}

/// A peer that floods the driver with large frames ends the session once
/// it has sent 64 MiB: what the driver keeps of it (the records, the
/// sentences) stays bounded however long it would go on.
#[test]
fn a_peer_that_floods_large_frames_is_heard_up_to_a_bound() {
    let driven = ends(|| drive_peer(Fault::FloodsLargeEvents));
    let from_peer = driven
        .records
        .iter()
        .filter(|record| record.starts_with(r#"{"from":"server""#))
        .count();
    let most = conformance::drive::MAX_HEARD_BYTES / LARGE_EVENT;
    assert!(
        from_peer > 0 && from_peer <= most,
        "{from_peer} frames kept, at most {most}"
    );
    let schema = &driven.rules[&Rule::Schema];
    // Two findings in each, one break of the rule each.
    assert_eq!(
        (schema.exercised, schema.broken_count()),
        (from_peer, from_peer),
        "each event breaks `schema` once"
    );
    assert!(
        schema
            .broken
            .iter()
            .all(|why| why.ends_with("(and 1 more in this message)")),
        "{:#?}",
        schema.broken.first()
    );
    assert_eq!(schema.broken.len(), conformance::drive::KEPT_PER_RULE);
    assert!(
        schema.broken.iter().all(|why| why.len() < 2 * 1024),
        "each sentence is cut"
    );
    let answer = &driven.rules[&Rule::DriveAnswer];
    assert!(
        answer
            .broken
            .iter()
            .any(|why| why.contains("more than the 64 MiB one session hears")),
        "{answer:#?}"
    );
}

/// Every wait ends, however many events come instead of an answer.
#[test]
fn a_peer_that_floods_events_ends_every_wait() {
    // Each of the eight waits ends after 10,000 events or a second.
    let driven = ends(|| drive_peer(Fault::FloodsEvents));
    let answer = &driven.rules[&Rule::DriveAnswer];
    assert_eq!(
        (answer.exercised, answer.held),
        (2, 0),
        "{:#?}",
        driven.rules
    );
    assert!(
        broken(&driven).contains(&"drive.oversize"),
        "{:#?}",
        driven.rules
    );
}

/// Each format says the same: every rule with its counts, every break kept.
#[test]
fn the_report_says_the_same_in_every_format() {
    use conformance::report::Format;
    let driven = drive_peer(Fault::DropsIds);
    let human = driven.render(Format::Human);
    let json: Vec<Value> = driven
        .render(Format::Json)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let github = driven.render(Format::Github);
    assert_eq!(json.len(), driven.rules.len());
    for ((rule, tally), line) in driven.rules.iter().zip(&json) {
        assert_eq!(line["rule"], rule.id());
        assert_eq!(line["exercised"], tally.exercised);
        assert_eq!(line["held"], tally.held);
        assert_eq!(line["broken"], tally.broken_count());
        assert_eq!(line["why"].as_array().unwrap().len(), tally.broken.len());
        let counts = format!(
            "{}\texercised {}\theld {}\tbroken {}\n",
            rule.id(),
            tally.exercised,
            tally.held,
            tally.broken_count()
        );
        assert!(human.contains(&counts), "{human}");
        assert!(github.contains(&counts), "{github}");
        let title = format!("::error title={}::", rule.id());
        assert_eq!(
            github.matches(&title).count(),
            tally.broken.len(),
            "{github}"
        );
    }
    assert!(
        driven.rules[&Rule::DriveAnswer].broken_count() > 0,
        "{human}"
    );
}

#[test]
fn a_peer_that_waits_for_an_oversize_body_is_named() {
    let driven = drive_peer(Fault::WaitsForOversizeBody);
    assert_eq!(broken(&driven), ["drive.oversize"], "{:#?}", driven.rules);
    let why = &driven.rules[&Rule::DriveOversize].broken[0];
    assert!(why.contains("stream stayed open"), "{why}");
}

/// A peer that never answers is waited for twice, then taken as gone:
/// every exchange after is judged at once, saying why, instead of costing
/// one more timeout each.
#[test]
fn a_silent_peer_is_waited_for_twice_not_once_an_exchange() {
    let driven = ends(|| drive_peer(Fault::Silent));
    let reasons: Vec<&String> = driven.rules.values().flat_map(|t| &t.broken).collect();
    let waited = reasons
        .iter()
        .filter(|why| why.contains("nothing came in 1.0 s"))
        .count();
    let gone = reasons
        .iter()
        .filter(|why| why.contains("twice the timeout, and was taken as gone"))
        .count();
    assert_eq!(waited, 2, "{reasons:#?}");
    assert_eq!(gone + waited, reasons.len(), "{reasons:#?}");
    assert!(gone >= 4, "{reasons:#?}");
    assert!(broken(&driven).contains(&"drive.still_answers"));
}

/// A peer whose length prefix announces more than the body it sends has
/// answered, and waits as the driver does: the wait is told with what came
/// of the frame, not as "nothing came".
#[test]
fn a_length_prefix_past_the_body_is_told_with_what_came() {
    let driven = ends(|| drive_peer(Fault::OverstatesLength));
    let reasons: Vec<&String> = driven.rules.values().flat_map(|t| &t.broken).collect();
    let body = json!({"v": 1, "kind": "reply", "id": 1, "body": {"method": "download.pause", "result": {}}})
        .to_string()
        .len();
    let told = format!(
        "no whole frame came in 3.0 s (a length prefix announced a body of {} bytes and {body} came)",
        body + 3
    );
    assert!(
        reasons.iter().any(|why| why.contains(&told)),
        "{told}: {reasons:#?}"
    );
    assert!(
        reasons.iter().all(|why| !why.contains("nothing")),
        "{reasons:#?}"
    );
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

/// What a test client does wrong.
#[derive(Clone, Copy, PartialEq, Debug)]
enum ClientFault {
    None,
    AnswersEvents,
    SendsNothing,
    /// Writes a frame that is not JSON, then closes.
    SendsGarbage,
    /// Fails (as a process would exit 1) on the first unknown event.
    DiesOnUnknownEvent,
    /// Calls and calls, and reads nothing.
    NeverReads,
}

/// A client that says hello, calls `download.list` three times and closes,
/// reading every frame between its calls; `Err` is how it failed.
fn client(mut input: impl Read, mut output: impl Write, fault: ClientFault) -> Result<(), String> {
    if fault == ClientFault::SendsGarbage {
        let body = b"{not json";
        let len = u32::try_from(body.len()).unwrap().to_be_bytes();
        let _ = output.write_all(&len).and_then(|()| output.write_all(body));
        return Ok(());
    }
    if fault == ClientFault::NeverReads {
        let mut id = 1u64;
        // Until the driver stops reading; the answers fill its pipe.
        while write_frame(
            &mut output,
            &json!({"v": 1, "kind": "call", "id": id, "body": {"method": "download.list", "params": {}}}),
        ) {
            id += 1;
        }
        return Err("the driver stopped reading".into());
    }
    if fault == ClientFault::SendsNothing {
        // Reads until the driver gives up on it.
        let mut sink = Vec::new();
        let _ = input.read_to_end(&mut sink);
        return Ok(());
    }
    let mut reader = proto::FrameReader::new(&mut input);
    let hello = json!({"v": 1, "kind": "call", "id": 1, "body": {"method": "session.hello",
        "params": {"client": "test", "contractVersion": "1.0.0"}}});
    write_frame(&mut output, &hello);
    let mut answered = 0;
    let mut id = 1;
    while answered < 4 {
        let body = match reader.read_raw() {
            Ok(body) => body.to_vec(),
            Err(proto::FrameError::Decode(_)) => continue,
            Err(err) => return Err(err.to_string()),
        };
        let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
            // Unreadable: nothing is answered.
            continue;
        };
        match msg["kind"].as_str() {
            Some("event") => {
                if fault == ClientFault::DiesOnUnknownEvent
                    && msg["body"]["name"] == "event.vdm.unknown"
                {
                    return Err("an unknown event".into());
                }
                if fault == ClientFault::AnswersEvents {
                    write_frame(
                        &mut output,
                        &json!({"v": 1, "kind": "error", "id": null, "body": {"code": -32600, "message": "an event"}}),
                    );
                }
            }
            _ => {
                answered += 1;
                id += 1;
                if answered < 4 {
                    let call = json!({"v": 1, "kind": "call", "id": id, "body": {"method": "download.list", "params": {}}});
                    write_frame(&mut output, &call);
                }
            }
        }
    }
    Ok(())
}

/// A write the client does not read ends the session when the timeout
/// runs out, as silence would: the driver is not stuck on a full pipe.
#[test]
fn a_client_that_never_reads_ends_the_session() {
    let driven = ends(|| serve_client(ClientFault::NeverReads));
    assert!(
        driven.rules[&Rule::DriveClientCalls].exercised > 0,
        "{:#?}",
        driven.rules
    );
    // And the report says why: not only how the client ended, but that it
    // read none of its answers.
    assert!(
        driven.rules[&Rule::DriveCarriesOn]
            .broken
            .iter()
            .any(|why| why.starts_with("the peer stopped reading: it read nothing")),
        "{:#?}",
        driven.rules
    );
}

fn serve_client(fault: ClientFault) -> Driven {
    let (from_driver, to_client) = std::io::pipe().unwrap();
    let (from_client, to_driver) = std::io::pipe().unwrap();
    let client = std::thread::spawn(move || client(from_driver, to_driver, fault));
    let checker = Checker::embedded().unwrap();
    let options = Options {
        methods: None,
        // The session ends when the client falls silent for this long.
        timeout: Duration::from_secs(2),
        seed: 1,
        role: Role::Server,
    };
    let mut driven = drive(&checker, from_client, to_client, &options).unwrap();
    driven.judge_exit(client.join().unwrap());
    driven
}

#[test]
fn a_client_that_keeps_every_rule_passes() {
    let driven = serve_client(ClientFault::None);
    assert!(driven.held(), "{:#?}", driven.rules);
    for rule in [
        Rule::DriveClientCalls,
        Rule::DriveEventUnanswered,
        Rule::DriveCarriesOn,
    ] {
        assert!(
            driven.rules[&rule].held >= 1,
            "{rule:?}: {:#?}",
            driven.rules
        );
    }
    // The recorded conversation is one `trace` reads: the client's side
    // first, then the server's answer.
    let first: Value = serde_json::from_str(&driven.records[0]).unwrap();
    assert_eq!(first["from"], "client");
    let second: Value = serde_json::from_str(&driven.records[1]).unwrap();
    assert_eq!(second["from"], "server");
    assert_eq!(second["msg"]["body"]["method"], "session.hello");
}

#[test]
fn each_planted_client_fault_is_named_by_its_rule() {
    let answers = serve_client(ClientFault::AnswersEvents);
    assert_eq!(
        broken(&answers),
        ["drive.event_unanswered"],
        "{:#?}",
        answers.rules
    );

    let silent = serve_client(ClientFault::SendsNothing);
    assert_eq!(
        broken(&silent),
        ["drive.client_calls"],
        "{:#?}",
        silent.rules
    );

    let garbage = serve_client(ClientFault::SendsGarbage);
    assert_eq!(
        broken(&garbage),
        ["json", "drive.client_calls"],
        "{:#?}",
        garbage.rules
    );
    let why = &garbage.rules[&Rule::DriveClientCalls].broken[0];
    assert!(why.contains("not a message"), "{why}");

    let dies = serve_client(ClientFault::DiesOnUnknownEvent);
    assert_eq!(broken(&dies), ["drive.carries_on"], "{:#?}", dies.rules);
    let why = &dies.rules[&Rule::DriveCarriesOn].broken[0];
    assert!(why.contains("unknown event"), "{why}");
}
