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
//! last state and progress of each task, removed tasks, a window of the
//! latest answers — so a capture of any length is checked as a stream. Checking a record takes two steps:
//! [`read_record`] (parse, the message's own rules, the [`Fact`] the
//! conversation rules need) depends on no other record and may run on any
//! thread; [`Tracer::follow`] takes the records in order.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};

use compact_str::CompactString;
// The tracer's maps are keyed by ids and names from the input; foldhash is
// seeded per process like std's SipHash and costs a fraction of it per
// lookup, and a trace makes several lookups per message.
use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use crate::{Checker, Rule};

/// Who sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Peer {
    /// The side that calls (`"from": "client"`).
    Client,
    /// The side that answers and tells events (`"from": "server"`).
    Server,
}

/// Where a message of a trace is: a line of a JSON Lines trace, or a frame
/// of one direction's capture (by the byte offset of its length prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    /// A line of a JSON Lines trace (1-based).
    Line(usize),
    /// A frame of one side's capture.
    Frame {
        /// Whose capture.
        from: Peer,
        /// The byte offset of its length prefix.
        offset: u64,
    },
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
    /// The message it is about.
    pub place: Place,
    /// Where in that message (a JSON pointer; empty for the whole).
    pub pointer: String,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong, in a sentence; it names the other message involved.
    pub message: String,
}

/// The state transitions lanes allow (their decision, not the contract's):
/// a JSON object from each state to the states it may move to.
#[derive(Clone, Debug, Default)]
pub struct Transitions(HashSet<(String, String)>);

impl Transitions {
    /// Reads `{"queued": ["probing", "paused", ...], ...}`; every state named,
    /// on either side, is one of `states` (the contract's `TaskState`), so a
    /// misspelt state is refused here rather than flooding the report.
    /// A refusal names the JSON pointer of what is wrong.
    pub fn parse(text: &str, states: &[&str]) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?;
        let map = value
            .as_object()
            .ok_or("a transition table is an object from a state to the states it may move to")?;
        let known = |state: &str, at: &contract::Pointer| {
            if states.contains(&state) {
                Ok(())
            } else {
                Err(format!(
                    "{at}: \"{state}\" is not a TaskState ({})",
                    states.join(", ")
                ))
            }
        };
        let mut allowed = HashSet::new();
        for (from, to) in map {
            let at = contract::Pointer::root().push(from);
            known(from, &at)?;
            let to = to
                .as_array()
                .ok_or_else(|| format!("{at}: a list of the states {from} may move to"))?;
            for (index, state) in to.iter().enumerate() {
                let at = at.push(index);
                let state = state
                    .as_str()
                    .ok_or_else(|| format!("{at}: states are strings"))?;
                known(state, &at)?;
                allowed.insert((from.clone(), state.to_string()));
            }
        }
        Ok(Transitions(allowed))
    }

    /// [`Transitions::parse`] with the states of `checker`'s contract.
    pub fn parse_for(checker: &Checker, text: &str) -> Result<Self, String> {
        let states: Vec<&str> = checker
            .schema_set()
            .get(contract::DocKind::Type, "TaskState")
            .and_then(|doc| doc.value.get("enum"))
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        Self::parse(text, &states)
    }

    fn allows(&self, from: &str, to: &str) -> bool {
        self.0.contains(&(from.to_string(), to.to_string()))
    }
}

/// How many of its latest answers a connection remembers, to tell a second
/// answer to one call (`trace.duplicate_answer`) from an answer to no call.
/// Ids only grow on a long connection; remembering every answer would make
/// memory grow with the capture. An answer repeated after this many others
/// is still refused, as `trace.reply_without_call`.
pub const ANSWERS_REMEMBERED: usize = 4096;

/// What one connection keeps open.
#[derive(Default)]
struct Connection {
    /// The transport the connection's first record named, and where.
    transport: Option<(Cow<'static, str>, Place)>,
    /// Calls in flight: id → (method, place).
    open: HashMap<u64, (CompactString, Place)>,
    /// The latest answers, at most [`ANSWERS_REMEMBERED`]: id → place of
    /// the answer, and the same in the order they came.
    answered: HashMap<u64, Place>,
    answer_order: VecDeque<(u64, Place)>,
    /// The methods `session.hello` offered, once it answered.
    offered: Option<HashSet<String>>,
    /// What was told of each task, by task id: one entry, so an event looks
    /// its task up once.
    tasks: HashMap<CompactString, Told>,
}

impl Connection {
    /// Remembers an answer, forgetting the oldest beyond the window.
    fn remember_answer(&mut self, id: u64, place: Place) {
        if self.answer_order.len() >= ANSWERS_REMEMBERED {
            if let Some((old, at)) = self.answer_order.pop_front() {
                // The id may have been called and answered again since.
                if self.answered.get(&old) == Some(&at) {
                    self.answered.remove(&old);
                }
            }
        }
        self.answered.insert(id, place);
        self.answer_order.push_back((id, place));
    }
}

/// Findings of one record, each at its place, at a pointer into its
/// message.
struct Say<'o> {
    place: Place,
    out: &'o mut Vec<TraceFinding>,
}

impl Say<'_> {
    fn say(&mut self, rule: Rule, pointer: &str, message: String) {
        self.out.push(TraceFinding {
            place: self.place,
            pointer: format!("/msg{pointer}"),
            rule,
            message,
        });
    }
}

/// The record's transport when the contract names it (`trace.transport`
/// when it does not, and then it is not kept).
fn known_transport(
    known: Option<&[String]>,
    transport: Option<Cow<'static, str>>,
    place: Place,
    out: &mut Vec<TraceFinding>,
) -> Option<Cow<'static, str>> {
    transport.filter(|name| match known {
        Some(known) if !known.iter().any(|k| k == name) => {
            out.push(TraceFinding {
                place,
                pointer: "/transport".into(),
                rule: Rule::TraceTransport,
                message: format!(
                    "\"{name}\" is none of the contract's transports ({})",
                    known.join(", ")
                ),
            });
            false
        }
        _ => true,
    })
}

/// `trace.direction`: calls come from the client, the rest from the server.
fn direction(kind: Kind, from: Peer, say: &mut Say<'_>) {
    let expected = if kind == Kind::Call {
        Peer::Client
    } else {
        Peer::Server
    };
    if from != expected {
        say.say(
            Rule::TraceDirection,
            "/kind",
            format!(
                "a {} comes from the {}, and this one came from the {}",
                kind.name(),
                side(expected),
                side(from)
            ),
        );
    }
}

impl Connection {
    /// A change of transport is told once, and the connection goes on under
    /// the transport it changed to.
    fn keep_transport(
        &mut self,
        transport: Option<Cow<'static, str>>,
        place: Place,
        out: &mut Vec<TraceFinding>,
    ) {
        match (&self.transport, transport) {
            (None, Some(name)) => self.transport = Some((name, place)),
            (Some((was, at)), Some(name)) if *was != name => {
                out.push(TraceFinding {
                    place,
                    pointer: "/transport".into(),
                    rule: Rule::TraceTransport,
                    message: format!(
                        "this connection was {was} at {at}, and this record says {name}: a connection keeps its transport"
                    ),
                });
                self.transport = Some((name, place));
            }
            _ => {}
        }
    }

    /// A call: its id not in flight, its method offered and carried here.
    fn call(&mut self, checker: &Checker, fact: Fact, say: &mut Say<'_>) {
        let method = fact.method.unwrap_or_default();
        if let Some(id) = fact.id {
            if let Some((open, at)) = self.open.get(&id) {
                say.say(
                    Rule::TraceIdInFlight,
                    "/id",
                    format!(
                        "id {id} is still in flight: the call of {open} at {at} has no answer yet"
                    ),
                );
            }
            self.answered.remove(&id);
            self.open.insert(id, (method.clone(), say.place));
        }
        if let Some(offered) = &self.offered {
            if method != "session.hello" && !offered.contains(method.as_str()) {
                say.say(
                    Rule::TraceNotOffered,
                    "/body/method",
                    format!("{method} was not among the methods session.hello offered on this connection"),
                );
            }
        }
        if matches!(&self.transport, Some((name, _)) if name == "websocket") {
            let carried = checker
                .schema_set()
                .get(contract::DocKind::Method, &method)
                .map(|doc| doc.transports().contains(&"websocket"));
            if carried == Some(false) {
                say.say(
                    Rule::TraceTransport,
                    "/body/method",
                    format!("{method} is carried on unix only, and this connection is a websocket"),
                );
            }
        }
    }

    /// A reply or an error: it answers an open call, once, and a reply
    /// names that call's method; session.hello's reply tells what is offered.
    fn answer(&mut self, kind: Kind, fact: Fact, say: &mut Say<'_>) {
        let Some(id) = fact.id else {
            // An error with id null answers what could not be read.
            return;
        };
        match self.open.remove(&id) {
            Some((method, at)) => {
                if kind == Kind::Reply {
                    if let Some(named) = fact.method.as_deref().filter(|named| *named != method) {
                        say.say(
                            Rule::TraceReplyMethod,
                            "/body/method",
                            format!("the reply names {named}, and the call of id {id} at {at} was a call of {method}"),
                        );
                    }
                    if method == "session.hello" {
                        self.offered = fact.offered.map(|offered| *offered);
                    }
                }
                self.remember_answer(id, say.place);
            }
            None => match self.answered.get(&id) {
                Some(at) => say.say(
                    Rule::TraceDuplicateAnswer,
                    "/id",
                    format!("id {id} was already answered at {at}"),
                ),
                None => say.say(
                    Rule::TraceReplyWithoutCall,
                    "/id",
                    format!("no call of id {id} is open on this connection"),
                ),
            },
        }
    }

    /// An event about a task: nothing after its removal, states along the
    /// table and from the last one told, progress that does not fall.
    fn event(&mut self, transitions: Option<&Transitions>, fact: Fact, say: &mut Say<'_>) {
        let Some(EventFact {
            kind,
            name,
            task,
            state,
            previous,
            bytes,
        }) = fact.event
        else {
            return;
        };
        let place = say.place;
        let told = match self.tasks.get_mut(&task) {
            Some(told) => told,
            None => self.tasks.entry(task.clone()).or_default(),
        };
        if let Some(at) = told.removed {
            say.say(
                Rule::TraceAfterRemoved,
                "/body/params",
                format!("task {task} was removed at {at}, and {name} still speaks of it"),
            );
        }
        match kind {
            EventKind::Added => {
                if let Some(state) = state {
                    told.state = Some((state, place));
                }
            }
            EventKind::State => {
                let state = state.unwrap_or_default();
                let previous = previous.unwrap_or_default();
                if let Some((last, at)) = &told.state {
                    if *last != previous {
                        say.say(
                            Rule::TracePreviousState,
                            "/body/params/previousState",
                            format!("previousState is {previous}, and the last state told for task {task} was {last} ({at})"),
                        );
                    }
                }
                if let Some(table) = transitions {
                    if !table.allows(&previous, &state) {
                        let since = match &told.state {
                            Some((_, at)) => format!(" (its last state was told at {at})"),
                            None => String::new(),
                        };
                        say.say(
                            Rule::TraceTransition,
                            "/body/params/state",
                            format!("task {task} moved {previous} → {state}, which is not in the transition table{since}"),
                        );
                    }
                }
                told.progress = None;
                told.state = Some((state, place));
            }
            EventKind::Progress => {
                if let Some(bytes) = bytes {
                    if let Some((last, at)) = told.progress {
                        if bytes < last {
                            say.say(
                                Rule::TraceProgressBackwards,
                                "/body/params/downloadedBytes",
                                format!("downloadedBytes fell from {last} ({at}) to {bytes} with no state event between"),
                            );
                        }
                    }
                    told.progress = Some((bytes, place));
                }
            }
            EventKind::Removed => {
                told.state = None;
                told.progress = None;
                told.removed.get_or_insert(place);
            }
            EventKind::Other => {}
        }
    }
}

/// What a connection was told of one task.
#[derive(Default)]
struct Told {
    /// The last state, and where.
    state: Option<(CompactString, Place)>,
    /// The last progress since that state, and where.
    progress: Option<(u64, Place)>,
    /// Where it was removed.
    removed: Option<Place>,
}

/// Checks a conversation, one record at a time.
pub struct Tracer<'a> {
    checker: &'a Checker,
    transitions: Option<Transitions>,
    /// The transports the contract names (its `Transport` type), when it
    /// has one: a record naming another is refused.
    transports: Option<Vec<String>>,
    connections: HashMap<CompactString, Connection>,
    /// Records seen.
    pub records: usize,
}

impl<'a> Tracer<'a> {
    /// A follower of conversations checked by `checker`, state changes held
    /// to `transitions` when given.
    pub fn new(checker: &'a Checker, transitions: Option<Transitions>) -> Self {
        let transports = checker.enum_values("Transport");
        Tracer {
            checker,
            transitions,
            transports,
            connections: HashMap::new(),
            records: 0,
        }
    }

    /// Checks one line of a JSON Lines trace (numbered from 1). Blank lines
    /// are skipped.
    pub fn feed_line(&mut self, line: usize, text: &[u8]) -> Vec<TraceFinding> {
        match read_record(self.checker, text) {
            Ok(None) => Vec::new(),
            Ok(Some(record)) => self.follow(Place::Line(line), record),
            Err((rule, message)) => vec![TraceFinding {
                place: Place::Line(line),
                pointer: String::new(),
                rule,
                message,
            }],
        }
    }

    /// Whether a call of `id` is in flight on connection `conn`.
    pub fn is_open(&self, conn: &str, id: u64) -> bool {
        self.connections
            .get(conn)
            .is_some_and(|connection| connection.open.contains_key(&id))
    }

    /// Checks one message of connection `conn`, at `place`.
    pub fn feed(
        &mut self,
        place: Place,
        conn: &str,
        from: Peer,
        transport: Option<Cow<'static, str>>,
        msg: &Value,
    ) -> Vec<TraceFinding> {
        let record = Record {
            from,
            conn: conn.into(),
            transport,
            findings: check_message(self.checker, msg),
            fact: Fact::of(msg),
        };
        self.follow(place, record)
    }

    /// The rules between messages, for one record read by [`read_record`]
    /// (which may run on another thread): its message's own findings, then
    /// what it breaks of what its connection was told before.
    pub(crate) fn follow(&mut self, place: Place, record: Record) -> Vec<TraceFinding> {
        self.records += 1;
        let Record {
            from,
            conn,
            transport,
            findings,
            fact,
        } = record;
        let mut out: Vec<TraceFinding> = findings
            .into_iter()
            .map(|f| TraceFinding {
                place,
                pointer: format!("/msg{}", f.pointer),
                rule: f.rule,
                message: f.message,
            })
            .collect();
        let connection = match self.connections.get_mut(conn.as_str()) {
            Some(connection) => connection,
            None => self.connections.entry(conn).or_default(),
        };
        let transport = known_transport(self.transports.as_deref(), transport, place, &mut out);
        connection.keep_transport(transport, place, &mut out);
        let mut say = Say {
            place,
            out: &mut out,
        };
        if let Some(kind) = fact.kind {
            direction(kind, from, &mut say);
        }
        match fact.kind {
            Some(Kind::Call) => connection.call(self.checker, fact, &mut say),
            Some(kind @ (Kind::Reply | Kind::Error)) => connection.answer(kind, fact, &mut say),
            Some(Kind::Event) => connection.event(self.transitions.as_ref(), fact, &mut say),
            None => {}
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

/// One record of a trace, read and checked on its own: who sent it, on which
/// connection, the message's own findings, and what the conversation rules
/// need of it. Reading is independent of every other record, so it can run
/// on any thread; [`Tracer::follow`] then takes the records in order.
pub(crate) struct Record {
    pub from: Peer,
    pub conn: CompactString,
    pub transport: Option<Cow<'static, str>>,
    pub findings: Vec<crate::Finding>,
    pub fact: Fact,
}

/// Reads one line of a JSON Lines trace: `Ok(None)` for a blank line, the
/// rule and sentence when the line is not a record.
pub(crate) fn read_record(
    checker: &Checker,
    text: &[u8],
) -> Result<Option<Record>, (Rule, String)> {
    if text.trim_ascii().is_empty() {
        return Ok(None);
    }
    // The record's own fields are read into a struct, not a map, borrowing
    // their text: only `msg` becomes a `Value`.
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        from: Option<Text<'a>>,
        #[serde(borrow)]
        conn: Option<Text<'a>>,
        #[serde(borrow)]
        transport: Option<Text<'a>>,
        msg: Option<Value>,
    }
    // serde borrows a `Cow` only where it is a field's whole type, not inside
    // an `Option`; a string with escapes is still read, owned.
    #[derive(serde::Deserialize)]
    struct Text<'a>(#[serde(borrow)] Cow<'a, str>);
    // The message one level down keeps the JSON text policy's depth.
    proto::text::scan(text, proto::text::Layout::Contained)
        .map_err(|err| (Rule::Json, format!("the line: {err}")))?;
    // The policy has bounded the depth (the message one level down), so
    // serde's own limit, one short of that, is lifted.
    let mut json = serde_json::Deserializer::from_slice(text);
    json.disable_recursion_limit();
    let record: Raw<'_> = serde::Deserialize::deserialize(&mut json).map_err(|err| {
        match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => (
                Rule::TraceRecord,
                format!(
                    "a trace record is an object whose from, conn and transport are strings: {err}"
                ),
            ),
            Err(_) => (Rule::Json, format!("the line is not JSON: {err}")),
        }
    })?;
    let from = match record.from.as_ref().map(|text| &*text.0) {
        Some("client") => Peer::Client,
        Some("server") => Peer::Server,
        _ => {
            return Err((
                Rule::TraceRecord,
                "a trace record has \"from\": \"client\" or \"server\"".into(),
            ))
        }
    };
    let msg = record.msg.ok_or((
        Rule::TraceRecord,
        "a trace record carries the message in \"msg\"".into(),
    ))?;
    Ok(Some(Record {
        from,
        conn: record
            .conn
            .map(|text| CompactString::from(text.0))
            .unwrap_or_default(),
        transport: record.transport.map(|text| transport_name(&text.0)),
        findings: check_message(checker, &msg),
        fact: Fact::of(&msg),
    }))
}

fn check_message(checker: &Checker, msg: &Value) -> Vec<crate::Finding> {
    checker.check("Envelope", msg).unwrap_or_else(|err| {
        vec![crate::Finding {
            pointer: String::new(),
            rule: Rule::Schema,
            message: err.to_string(),
        }]
    })
}

/// The kind of an envelope, as the codec names it.
pub(crate) use proto::wire::EnvelopeKind as Kind;

/// What the conversation rules need of one message, read off it so the
/// message itself can be dropped where it was parsed.
#[derive(Debug, Default)]
pub(crate) struct Fact {
    /// `None` when `kind` is not one of the four.
    pub kind: Option<Kind>,
    pub id: Option<u64>,
    /// A call's or reply's `body.method`.
    pub method: Option<CompactString>,
    /// A reply's `result.methods` (read for session.hello). Boxed: a fact
    /// crosses from the thread that read it to the one that follows the
    /// conversation, and most facts have none.
    #[allow(clippy::box_collection)] // One pointer wide, for the reason above.
    pub offered: Option<Box<HashSet<String>>>,
    /// An event about a task.
    pub event: Option<EventFact>,
}

/// What an event says of its task. Names, ids and states are short and
/// held inline, so most facts own no heap memory: none is allocated on the
/// reading thread to be freed on the following one.
#[derive(Debug)]
pub(crate) struct EventFact {
    pub kind: EventKind,
    pub name: CompactString,
    pub task: CompactString,
    /// `state` (event.task.state) or `task.state` (event.task.added).
    pub state: Option<CompactString>,
    pub previous: Option<CompactString>,
    pub bytes: Option<u64>,
}

impl Fact {
    /// Reads the fact with `get` alone: `Value::pointer` splits its pointer
    /// and unescapes each token into a new string, on every message.
    pub(crate) fn of(msg: &Value) -> Fact {
        let text = |value: &Value| value.as_str().map(CompactString::from);
        let [kind, id, body] = fields(msg, ["kind", "id", "body"]);
        let kind = match kind.as_str() {
            Some(name) => Kind::from_name(name),
            _ => None,
        };
        let mut fact = Fact {
            kind,
            id: id.as_u64(),
            ..Fact::default()
        };
        match kind {
            Some(Kind::Call) => {
                let [method] = fields(body, ["method"]);
                fact.method = Some(text(method).unwrap_or_default());
            }
            Some(Kind::Reply) => {
                let [method, result] = fields(body, ["method", "result"]);
                fact.method = text(method);
                // Kept for whichever call the reply answers; only session.hello's has it.
                let [methods] = fields(result, ["methods"]);
                fact.offered = methods.as_array().map(|methods| {
                    Box::new(
                        methods
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                    )
                });
            }
            Some(Kind::Event) => {
                let [name, params] = fields(body, ["name", "params"]);
                let [task_id, state, previous, bytes, task] = fields(
                    params,
                    [
                        "taskId",
                        "state",
                        "previousState",
                        "downloadedBytes",
                        "task",
                    ],
                );
                // event.task.added carries the task itself; the others its id.
                let [inner_id, inner_state] = fields(task, ["taskId", "state"]);
                let (task_id, state) = match task_id.is_null() {
                    true => (inner_id, inner_state),
                    false => (task_id, state),
                };
                let name = name.as_str().unwrap_or_default();
                fact.event = task_id.as_str().map(|id| EventFact {
                    kind: event_kind(name),
                    name: name.into(),
                    task: id.into(),
                    state: text(state),
                    previous: text(previous),
                    bytes: bytes.as_u64(),
                });
            }
            Some(Kind::Error) | None => {}
        }
        fact
    }
}

/// The members `names` of an object, null where there is none (or where
/// `value` is no object). One walk over the object's members: several
/// `get`s would each search the map from its root.
fn fields<'v, const N: usize>(value: &'v Value, names: [&str; N]) -> [&'v Value; N] {
    let mut found = [&Value::Null; N];
    if let Some(object) = value.as_object() {
        for (key, member) in object {
            if let Some(slot) = names
                .iter()
                .position(|name| *name == key)
                .and_then(|at| found.get_mut(at))
            {
                *slot = member;
            }
        }
    }
    found
}

/// The events whose content the rules follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    Added,
    State,
    Progress,
    Removed,
    Other,
}

/// An event's kind, told once where it was read so the thread that follows
/// compares no text.
fn event_kind(name: &str) -> EventKind {
    match name {
        "event.task.added" => EventKind::Added,
        "event.task.state" => EventKind::State,
        "event.task.progress" => EventKind::Progress,
        "event.task.removed" => EventKind::Removed,
        _ => EventKind::Other,
    }
}

/// The transport named in a record: the two the contract has borrow a
/// constant.
fn transport_name(name: &str) -> Cow<'static, str> {
    match name {
        "unix" => Cow::Borrowed("unix"),
        "websocket" => Cow::Borrowed("websocket"),
        other => Cow::Owned(other.to_string()),
    }
}

fn side(from: Peer) -> &'static str {
    match from {
        Peer::Client => "client",
        Peer::Server => "server",
    }
}

#[cfg(test)]
mod tests {
    use super::{Tracer, ANSWERS_REMEMBERED};
    use crate::{Checker, Rule, NEWEST_CONTRACT};

    fn call(id: usize) -> String {
        format!(
            r#"{{"from":"client","msg":{{"v":1,"kind":"call","id":{id},"body":{{"method":"download.pause","params":{{"taskId":"t_01"}}}}}}}}"#
        )
    }

    fn reply(id: usize) -> String {
        format!(
            r#"{{"from":"server","msg":{{"v":1,"kind":"reply","id":{id},"body":{{"method":"download.pause","result":{{}}}}}}}}"#
        )
    }

    #[test]
    fn an_answer_repeated_beyond_the_remembered_window_is_still_refused() {
        let checker = Checker::embedded_contract(NEWEST_CONTRACT).expect("the newest contract");
        let mut tracer = Tracer::new(&checker, None);
        let mut line = 0;
        let mut feed = |text: String| {
            line += 1;
            tracer
                .feed_line(line, text.as_bytes())
                .into_iter()
                .map(|finding| finding.rule)
                .collect::<Vec<_>>()
        };
        for id in 1..=ANSWERS_REMEMBERED + 1 {
            assert_eq!(feed(call(id)), []);
            assert_eq!(feed(reply(id)), []);
        }
        // The latest answer is remembered; the first is not, and its repeat
        // is an answer to no open call.
        assert_eq!(
            feed(reply(ANSWERS_REMEMBERED + 1)),
            [Rule::TraceDuplicateAnswer]
        );
        assert_eq!(feed(reply(1)), [Rule::TraceReplyWithoutCall]);
        // An id called again after its answer is open again, then answered once.
        assert_eq!(feed(call(2)), []);
        assert_eq!(feed(reply(2)), []);
        assert_eq!(feed(reply(2)), [Rule::TraceDuplicateAnswer]);
    }

    #[test]
    fn the_conformance_guide_gives_the_window_the_tracer_keeps() {
        let guide = include_str!("../../../docs/conformance.md").replace('\n', " ");
        assert!(guide.contains(&format!("latest {ANSWERS_REMEMBERED} answers")));
        assert!(guide.contains(&format!("more than {ANSWERS_REMEMBERED} answers earlier")));
    }
}
