//! Conformance of a conversation: the rules between messages of one
//! connection, in order. Each record is one message as seen on a connection:
//!
//! ```json
//! {"conn": "c1", "from": "client", "transport": "websocket", "msg": {"v": 1, "kind": "call", ...}}
//! ```
//!
//! (`conn` and `transport` are optional: one connection, transport unknown.)
//! Every per-message rule applies to each `msg`; on top, calls come from the
//! client and the rest from the server, every answer matches one open call
//! of its id, a reply names its call's method, a call names a method the
//! `session.hello` result offered and a transport that may carry it, and what
//! events say about a task agrees with what was said before.
//!
//! A tracer keeps only what a conversation keeps open — calls in flight, the
//! last state and progress of each task, removed tasks — so a capture of any
//! length is checked line by line.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::{Checker, Rule};

/// Who sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum From {
    Client,
    Server,
}

/// Where a message of a trace is: a line of a JSON Lines trace, or a frame
/// of one direction's capture (by the byte offset of its length prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    Line(usize),
    Frame { from: From, offset: u64 },
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Line(line) => write!(f, "line {line}"),
            Place::Frame { from, offset } => {
                write!(f, "the {} frame at byte {offset}", side(*from))
            }
        }
    }
}

/// One finding of a trace: the place of the message it is about, and in the
/// message the place of the other message involved, when there is one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TraceFinding {
    pub place: Place,
    pub pointer: String,
    pub rule: Rule,
    pub message: String,
}

/// The state transitions lanes allow (their decision, not the contract's):
/// a JSON object from each state to the states it may move to.
#[derive(Clone, Debug, Default)]
pub struct Transitions(HashSet<(String, String)>);

impl Transitions {
    /// Reads `{"queued": ["probing", "paused", ...], ...}`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?;
        let map = value
            .as_object()
            .ok_or("a transition table is an object from a state to the states it may move to")?;
        let mut allowed = HashSet::new();
        for (from, to) in map {
            let to = to
                .as_array()
                .ok_or_else(|| format!("/{from}: a list of states"))?;
            for state in to {
                let state = state
                    .as_str()
                    .ok_or_else(|| format!("/{from}: states are strings"))?;
                allowed.insert((from.clone(), state.to_string()));
            }
        }
        Ok(Transitions(allowed))
    }

    fn allows(&self, from: &str, to: &str) -> bool {
        self.0.contains(&(from.to_string(), to.to_string()))
    }
}

/// What one connection keeps open.
#[derive(Default)]
struct Connection {
    transport: Option<String>,
    /// Calls in flight: id → (method, place).
    open: HashMap<u64, (String, Place)>,
    /// Ids answered and not called again: id → place of the answer.
    answered: HashMap<u64, Place>,
    /// The methods `session.hello` offered, once it answered.
    offered: Option<HashSet<String>>,
    /// The last state told for each task: id → (state, place).
    states: HashMap<String, (String, Place)>,
    /// The last progress told for each task since its last state: id → (bytes, place).
    progress: HashMap<String, (u64, Place)>,
    /// Tasks removed: id → place.
    removed: HashMap<String, Place>,
}

/// Checks a conversation, one record at a time.
pub struct Tracer<'a> {
    checker: &'a Checker,
    transitions: Option<Transitions>,
    connections: HashMap<String, Connection>,
    /// Records seen.
    pub records: usize,
}

impl<'a> Tracer<'a> {
    pub fn new(checker: &'a Checker, transitions: Option<Transitions>) -> Self {
        Tracer {
            checker,
            transitions,
            connections: HashMap::new(),
            records: 0,
        }
    }

    /// Checks one line of a JSON Lines trace (numbered from 1). Blank lines
    /// are skipped.
    pub fn feed_line(&mut self, line: usize, text: &str) -> Vec<TraceFinding> {
        if text.trim().is_empty() {
            return Vec::new();
        }
        let finding = |rule: Rule, message: String| TraceFinding {
            place: Place::Line(line),
            pointer: String::new(),
            rule,
            message,
        };
        let record: Value = match serde_json::from_str(text) {
            Ok(record) => record,
            Err(err) => return vec![finding(Rule::Json, format!("the line is not JSON: {err}"))],
        };
        let from = match record.get("from").and_then(Value::as_str) {
            Some("client") => From::Client,
            Some("server") => From::Server,
            _ => {
                return vec![finding(
                    Rule::TraceRecord,
                    "a trace record has \"from\": \"client\" or \"server\"".into(),
                )]
            }
        };
        let Some(msg) = record.get("msg") else {
            return vec![finding(
                Rule::TraceRecord,
                "a trace record carries the message in \"msg\"".into(),
            )];
        };
        let conn = record
            .get("conn")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let transport = record
            .get("transport")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.feed(Place::Line(line), &conn, from, transport, msg)
    }

    /// Whether a call of `id` is in flight on connection `conn`.
    pub fn is_open(&self, conn: &str, id: u64) -> bool {
        self.connections
            .get(conn)
            .is_some_and(|connection| connection.open.contains_key(&id))
    }

    /// Checks one message of connection `conn`, at `line` (any place).
    pub fn feed(
        &mut self,
        line: Place,
        conn: &str,
        from: From,
        transport: Option<String>,
        msg: &Value,
    ) -> Vec<TraceFinding> {
        self.records += 1;
        let mut out: Vec<TraceFinding> = match self.checker.check("Envelope", msg) {
            Ok(findings) => findings
                .into_iter()
                .map(|f| TraceFinding {
                    place: line,
                    pointer: format!("/msg{}", f.pointer),
                    rule: f.rule,
                    message: f.message,
                })
                .collect(),
            Err(err) => vec![TraceFinding {
                place: line,
                pointer: "/msg".into(),
                rule: Rule::Schema,
                message: err.to_string(),
            }],
        };
        let connection = self.connections.entry(conn.to_string()).or_default();
        if connection.transport.is_none() {
            connection.transport = transport;
        }
        let mut say = |rule: Rule, pointer: &str, message: String| {
            out.push(TraceFinding {
                place: line,
                pointer: format!("/msg{pointer}"),
                rule,
                message,
            })
        };
        let kind = msg.get("kind").and_then(Value::as_str).unwrap_or_default();
        let body = msg.get("body").unwrap_or(&Value::Null);
        let id = msg.get("id").and_then(Value::as_u64);
        let expected = if kind == "call" {
            From::Client
        } else {
            From::Server
        };
        if matches!(kind, "call" | "reply" | "error" | "event") && from != expected {
            say(
                Rule::TraceDirection,
                "/kind",
                format!(
                    "a {kind} comes from the {}, and this one came from the {}",
                    side(expected),
                    side(from)
                ),
            );
        }
        match kind {
            "call" => {
                let method = body
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if let Some(id) = id {
                    if let Some((open, at)) = connection.open.get(&id) {
                        say(
                            Rule::TraceIdInFlight,
                            "/id",
                            format!("id {id} is still in flight: the call of {open} at {at} has no answer yet"),
                        );
                    }
                    connection.answered.remove(&id);
                    connection.open.insert(id, (method.to_string(), line));
                }
                if let Some(offered) = &connection.offered {
                    if method != "session.hello" && !offered.contains(method) {
                        say(
                            Rule::TraceNotOffered,
                            "/body/method",
                            format!("{method} was not among the methods session.hello offered on this connection"),
                        );
                    }
                }
                if connection.transport.as_deref() == Some("websocket") {
                    let carried = self
                        .checker
                        .schema_set()
                        .get(contract::DocKind::Method, method)
                        .map(|doc| doc.transports().contains(&"websocket"));
                    if carried == Some(false) {
                        say(
                            Rule::TraceTransport,
                            "/body/method",
                            format!("{method} is carried on unix only, and this connection is a websocket"),
                        );
                    }
                }
            }
            "reply" | "error" => {
                let Some(id) = id else {
                    // An error with id null answers what could not be read.
                    return out;
                };
                match connection.open.remove(&id) {
                    Some((method, at)) => {
                        let named = body.get("method").and_then(Value::as_str);
                        if kind == "reply" && named.is_some_and(|named| named != method) {
                            say(
                                Rule::TraceReplyMethod,
                                "/body/method",
                                format!(
                                    "the reply names {}, and the call of id {id} at {at} was a call of {method}",
                                    named.unwrap_or_default()
                                ),
                            );
                        }
                        if kind == "reply" && method == "session.hello" {
                            connection.offered = body
                                .pointer("/result/methods")
                                .and_then(Value::as_array)
                                .map(|methods| {
                                    methods
                                        .iter()
                                        .filter_map(Value::as_str)
                                        .map(str::to_string)
                                        .collect()
                                });
                        }
                        connection.answered.insert(id, line);
                    }
                    None => match connection.answered.get(&id) {
                        Some(at) => say(
                            Rule::TraceDuplicateAnswer,
                            "/id",
                            format!("id {id} was already answered at {at}"),
                        ),
                        None => say(
                            Rule::TraceReplyWithoutCall,
                            "/id",
                            format!("no call of id {id} is open on this connection"),
                        ),
                    },
                }
            }
            "event" => {
                let name = body.get("name").and_then(Value::as_str).unwrap_or_default();
                let params = body.get("params").unwrap_or(&Value::Null);
                let task = params
                    .get("taskId")
                    .or_else(|| params.pointer("/task/taskId"))
                    .and_then(Value::as_str);
                let Some(task) = task else {
                    return out;
                };
                if let Some(at) = connection.removed.get(task) {
                    say(
                        Rule::TraceAfterRemoved,
                        "/body/params",
                        format!("task {task} was removed at {at}, and {name} still speaks of it"),
                    );
                }
                match name {
                    "event.task.added" => {
                        if let Some(state) = params.pointer("/task/state").and_then(Value::as_str) {
                            connection
                                .states
                                .insert(task.to_string(), (state.to_string(), line));
                        }
                    }
                    "event.task.state" => {
                        let state = params
                            .get("state")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let previous = params
                            .get("previousState")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        if let Some((last, at)) = connection.states.get(task) {
                            if last != previous {
                                say(
                                    Rule::TracePreviousState,
                                    "/body/params/previousState",
                                    format!("previousState is {previous}, and the last state told for task {task} was {last} ({at})"),
                                );
                            }
                        }
                        if let Some(table) = &self.transitions {
                            if !table.allows(previous, state) {
                                say(
                                    Rule::TraceTransition,
                                    "/body/params/state",
                                    format!("{previous} → {state} is not in the transition table"),
                                );
                            }
                        }
                        connection
                            .states
                            .insert(task.to_string(), (state.to_string(), line));
                        connection.progress.remove(task);
                    }
                    "event.task.progress" => {
                        if let Some(bytes) = params.get("downloadedBytes").and_then(Value::as_u64) {
                            if let Some((last, at)) = connection.progress.get(task) {
                                if bytes < *last {
                                    say(
                                        Rule::TraceProgressBackwards,
                                        "/body/params/downloadedBytes",
                                        format!("downloadedBytes fell from {last} ({at}) to {bytes} with no state event between"),
                                    );
                                }
                            }
                            connection.progress.insert(task.to_string(), (bytes, line));
                        }
                    }
                    "event.task.removed" => {
                        connection.removed.entry(task.to_string()).or_insert(line);
                        connection.states.remove(task);
                        connection.progress.remove(task);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        out
    }

    /// Calls still open at the end, each at the line of its call.
    pub fn unanswered(&self) -> Vec<TraceFinding> {
        let mut out: Vec<TraceFinding> = self
            .connections
            .values()
            .flat_map(|connection| connection.open.iter())
            .map(|(id, (method, place))| TraceFinding {
                place: *place,
                pointer: "/msg/id".into(),
                rule: Rule::TraceUnanswered,
                message: format!("the call of {method} with id {id} was never answered"),
            })
            .collect();
        out.sort();
        out
    }
}

fn side(from: From) -> &'static str {
    match from {
        From::Client => "client",
        From::Server => "server",
    }
}
