//! `vdm-conform drive`: a live peer, driven over frames as its client.
//!
//! The driver sends a generated valid call of every method it is told to
//! (`--methods`, else every method of the contract), then what a newer peer
//! may send (an unknown method, a known method with bad params, an unknown
//! event, an event with a field this version lacks, a body that is not
//! JSON), then a last call to see the peer still answers. Each answer is
//! judged by the answer table of `docs/wire.md` (`drive.*` rules) and by
//! every message rule; every wait is bounded. One exchange at a time: the
//! next frame the peer writes is the answer to the last thing sent, so an
//! answered event shows as the wrong answer to the call after it.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::generate::GenerateError;
use crate::{Checker, Rule};

/// How one rule fared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub exercised: usize,
    pub held: usize,
    /// What broke it, a sentence each.
    pub broken: Vec<String>,
}

/// What a drive found: per rule, and the conversation as trace records.
#[derive(Clone, Debug, Default)]
pub struct Driven {
    pub rules: BTreeMap<Rule, Tally>,
    pub records: Vec<String>,
}

impl Driven {
    /// Whether every rule exercised held.
    pub fn held(&self) -> bool {
        self.rules.values().all(|tally| tally.broken.is_empty())
    }

    fn judge(&mut self, rule: Rule, broken: Option<String>) {
        let tally = self.rules.entry(rule).or_default();
        tally.exercised += 1;
        match broken {
            None => tally.held += 1,
            Some(why) => tally.broken.push(why),
        }
    }
}

/// How to drive.
#[derive(Clone, Debug)]
pub struct Options {
    /// The methods to call (default: every method of the contract).
    pub methods: Option<Vec<String>>,
    /// How long to wait for each answer.
    pub timeout: Duration,
    /// The seed the calls are drawn from.
    pub seed: u64,
}

/// Why a drive could not run.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    #[error(transparent)]
    Generate(#[from] GenerateError),
    #[error("no method called {0:?} in this contract")]
    UnknownMethod(String),
}

/// What arrived from the peer, or why nothing did.
enum Heard {
    Frame(Vec<u8>),
    Closed,
    Broken(String),
}

/// Drives the peer that reads `to_peer` and writes `from_peer`.
pub fn drive(
    checker: &Checker,
    from_peer: impl Read + Send + 'static,
    mut to_peer: impl Write,
    options: &Options,
) -> Result<Driven, DriveError> {
    let (tx, rx) = mpsc::channel();
    // The peer's frames, read on a thread of their own so every wait can
    // be bounded; it ends with the stream.
    std::thread::spawn(move || {
        let mut reader = proto::FrameReader::new(from_peer);
        loop {
            let heard = match reader.read_raw() {
                Ok(body) => Heard::Frame(body.to_vec()),
                Err(proto::FrameError::Closed) => Heard::Closed,
                Err(err) => Heard::Broken(err.to_string()),
            };
            let last = !matches!(heard, Heard::Frame(_));
            if tx.send(heard).is_err() || last {
                return;
            }
        }
    });
    let methods = match &options.methods {
        Some(methods) => methods.clone(),
        None => checker
            .schema_set()
            .of_kind(contract::DocKind::Method)
            .map(|doc| doc.name.clone())
            .collect(),
    };
    let mut driver = Driver {
        checker,
        rx,
        timeout: options.timeout,
        driven: Driven::default(),
        next_id: 1,
        closed: false,
        gone: None,
    };
    let mut served: Option<Value> = None;
    for (index, method) in methods.iter().enumerate() {
        let seed = options.seed.wrapping_add(index as u64);
        let Some(call) = crate::generate::valid_call(checker, method, driver.next_id, seed)? else {
            return Err(DriveError::UnknownMethod(method.clone()));
        };
        if let Some(answer) = driver.call(&mut to_peer, call.clone())? {
            if answer.get("kind").and_then(Value::as_str) == Some("reply") {
                served.get_or_insert(call);
            }
        }
    }
    // What a newer peer may send.
    let id = driver.next_id;
    let unknown = json!({"v": 1, "kind": "call", "id": id, "body": {"method": "vdm.unknownMethod", "params": {}}});
    driver.expect_error(
        &mut to_peer,
        &unknown,
        Some(id),
        -32601,
        Rule::DriveMethodNotFound,
    )?;
    if let Some(call) = &served {
        let id = driver.next_id;
        let mut bad = call.clone();
        if let Some(slot) = bad.pointer_mut("/id") {
            *slot = json!(id);
        }
        if let Some(slot) = bad.pointer_mut("/body/params") {
            *slot = json!(42);
        }
        driver.expect_error(
            &mut to_peer,
            &bad,
            Some(id),
            -32602,
            Rule::DriveInvalidParams,
        )?;
    }
    let events = [
        json!({"v": 1, "kind": "event", "body": {"name": "event.vdm.unknown", "params": {"x": 1}}}),
        json!({"v": 1, "kind": "event", "body": {"name": "event.notify", "params": {"level": "info", "message": "a notice", "addedLater": true}}}),
    ];
    for event in events {
        driver.send(&mut to_peer, &event)?;
        driver.probe(&mut to_peer, served.as_ref(), Rule::DriveEventUnanswered)?;
    }
    driver.expect_raw(&mut to_peer, b"{not json", -32700)?;
    driver.probe(&mut to_peer, served.as_ref(), Rule::DriveStillAnswers)?;
    Ok(driver.driven)
}

struct Driver<'c> {
    checker: &'c Checker,
    rx: mpsc::Receiver<Heard>,
    timeout: Duration,
    driven: Driven,
    next_id: u64,
    closed: bool,
    /// Why the peer is gone, when it is.
    gone: Option<String>,
}

impl Driver<'_> {
    fn record(&mut self, from: &str, msg: &Value) {
        self.driven
            .records
            .push(json!({"from": from, "transport": "unix", "msg": msg}).to_string());
    }

    fn send(&mut self, to_peer: &mut impl Write, msg: &Value) -> Result<(), DriveError> {
        self.record("client", msg);
        let body = msg.to_string();
        self.send_raw(to_peer, body.as_bytes())
    }

    /// Writes one frame; a peer that stopped reading is closed, and what
    /// was to be answered is judged as unanswered.
    fn send_raw(&mut self, to_peer: &mut impl Write, body: &[u8]) -> Result<(), DriveError> {
        let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
        let written = to_peer
            .write_all(&len.to_be_bytes())
            .and_then(|()| to_peer.write_all(body))
            .and_then(|()| to_peer.flush());
        if let Err(err) = written {
            self.closed = true;
            self.gone
                .get_or_insert_with(|| format!("the peer stopped reading: {err}"));
        }
        Ok(())
    }

    /// The next message from the peer, judged by the message rules; `Err`
    /// with why when none came.
    fn hear(&mut self) -> Result<Value, String> {
        if self.closed {
            return Err(self
                .gone
                .clone()
                .unwrap_or_else(|| "the peer had closed its stream".into()));
        }
        let heard = match self.rx.recv_timeout(self.timeout) {
            Ok(heard) => heard,
            Err(_) => return Err(format!("no answer in {:.1} s", self.timeout.as_secs_f64())),
        };
        let body = match heard {
            Heard::Frame(body) => body,
            Heard::Closed => {
                self.closed = true;
                self.gone = Some("the peer closed its stream".into());
                return Err("the peer closed its stream".into());
            }
            Heard::Broken(why) => {
                self.closed = true;
                return Err(format!("the peer's frames broke: {why}"));
            }
        };
        let findings = self
            .checker
            .check_text("Envelope", &body)
            .unwrap_or_default();
        let msg = crate::parse(&body, proto::text::Layout::Envelope).unwrap_or(Value::Null);
        self.record("server", &msg);
        for finding in findings {
            let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
            self.driven.judge(
                finding.rule,
                Some(format!(
                    "{text:?} at {:?}: {}",
                    finding.pointer, finding.message
                )),
            );
        }
        Ok(msg)
    }

    /// Sends `call` and judges its answer by `drive.answer`.
    fn call(&mut self, to_peer: &mut impl Write, call: Value) -> Result<Option<Value>, DriveError> {
        let id = self.next_id;
        self.next_id += 1;
        let method = call
            .pointer("/body/method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.send(to_peer, &call)?;
        match self.hear() {
            Ok(answer) => {
                let kind = answer.get("kind").and_then(Value::as_str);
                let answered = answer.get("id").and_then(Value::as_u64) == Some(id);
                let named = match kind {
                    Some("reply") => {
                        answer.pointer("/body/method").and_then(Value::as_str) == Some(&method)
                    }
                    Some("error") => true,
                    _ => false,
                };
                let broken = (!answered || !named).then(|| {
                    format!(
                        "the call {id} of {method} was answered with {}",
                        shown(&answer)
                    )
                });
                self.driven.judge(Rule::DriveAnswer, broken);
                Ok(Some(answer))
            }
            Err(why) => {
                self.driven.judge(
                    Rule::DriveAnswer,
                    Some(format!("the call {id} of {method}: {why}")),
                );
                Ok(None)
            }
        }
    }

    /// Sends `msg` and expects an error with `code` and `id`.
    fn expect_error(
        &mut self,
        to_peer: &mut impl Write,
        msg: &Value,
        id: Option<u64>,
        code: i64,
        rule: Rule,
    ) -> Result<(), DriveError> {
        self.next_id += 1;
        self.send(to_peer, msg)?;
        let broken = self.error_broken(id, code);
        self.driven.judge(rule, broken);
        Ok(())
    }

    /// Sends a body that is not JSON and expects `code` with id null.
    fn expect_raw(
        &mut self,
        to_peer: &mut impl Write,
        body: &[u8],
        code: i64,
    ) -> Result<(), DriveError> {
        self.send_raw(to_peer, body)?;
        let broken = self.error_broken(None, code);
        self.driven.judge(Rule::DriveParseError, broken);
        Ok(())
    }

    fn error_broken(&mut self, id: Option<u64>, code: i64) -> Option<String> {
        match self.hear() {
            Ok(answer) => {
                let got_code = answer.pointer("/body/code").and_then(Value::as_i64);
                let got_id = answer.get("id").cloned().unwrap_or(Value::Null);
                let want_id = id.map_or(Value::Null, Value::from);
                let ok = answer.get("kind").and_then(Value::as_str) == Some("error")
                    && got_code == Some(code)
                    && got_id == want_id;
                (!ok).then(|| {
                    format!(
                        "expected error {code} with id {want_id}, got {}",
                        shown(&answer)
                    )
                })
            }
            Err(why) => Some(format!("expected error {code}: {why}")),
        }
    }

    /// A call the peer serves (or an unknown one, answered with an error),
    /// whose answer must be the next frame: judged by `rule`.
    fn probe(
        &mut self,
        to_peer: &mut impl Write,
        served: Option<&Value>,
        rule: Rule,
    ) -> Result<(), DriveError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut probe = served.cloned().unwrap_or_else(|| {
            json!({"v": 1, "kind": "call", "id": id, "body": {"method": "vdm.probe", "params": {}}})
        });
        if let Some(slot) = probe.pointer_mut("/id") {
            *slot = json!(id);
        }
        self.send(to_peer, &probe)?;
        let broken = match self.hear() {
            Ok(answer) if answer.get("id").and_then(Value::as_u64) == Some(id) => None,
            Ok(answer) => {
                // Catch up with the probe's own answer, so one extra frame
                // is not blamed on every exchange after it.
                while let Ok(next) = self.hear() {
                    if next.get("id").and_then(Value::as_u64) == Some(id) {
                        break;
                    }
                }
                Some(format!(
                    "the next frame was {}, not the answer to call {id}",
                    shown(&answer)
                ))
            }
            Err(why) => Some(format!("call {id}: {why}")),
        };
        self.driven.judge(rule, broken);
        Ok(())
    }
}

/// A message from the peer as a report quotes it: its JSON, cut at 300
/// characters (an answer may be a megabyte).
fn shown(msg: &Value) -> String {
    let text = msg.to_string();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
        None => text,
    }
}
