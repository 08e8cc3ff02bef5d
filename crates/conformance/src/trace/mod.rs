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
//! `read_record` (parse, the message's own rules, the `Fact` the
//! conversation rules need) depends on no other record and may run on any
//! thread; `Tracer::follow` takes the records in order.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use compact_str::CompactString;
// The tracer's maps are keyed by ids and names from the input; foldhash is
// seeded per process like std's SipHash and costs a fraction of it per
// lookup, and a trace makes several lookups per message.
use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use crate::{Checker, Finding, Rule};

mod connection;
mod read;
mod transitions;

use connection::{direction, known_transport, Connection, Say};
use read::check_message;
pub(crate) use read::{read_record, EventFact, EventKind, Fact, Record};
pub use transitions::Transitions;

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
    /// What is wrong there; the message names the other message involved.
    pub finding: Finding,
}

/// How many of its latest answers a connection remembers, to tell a second
/// answer to one call (`trace.duplicate_answer`) from an answer to no call.
/// Ids only grow on a long connection; remembering every answer would make
/// memory grow with the capture. An answer repeated after this many others
/// is still refused, as `trace.reply_without_call`.
pub const ANSWERS_REMEMBERED: usize = 4096;

/// Checks a conversation, one record at a time.
pub struct Tracer<'a> {
    checker: &'a Checker,
    transitions: Option<Transitions>,
    /// The transports the contract names (its `Transport` type), when it
    /// has one: a record naming another is refused.
    transports: Option<Vec<String>>,
    connections: HashMap<CompactString, Connection>,
    offers: Offers,
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
            offers: Offers::default(),
            records: 0,
        }
    }

    /// Checks one line of a JSON Lines trace (numbered from 1). Blank lines
    /// are skipped.
    pub fn feed_line(&mut self, line: usize, text: &[u8]) -> Vec<TraceFinding> {
        match read_record(self.checker, text) {
            Ok(None) => Vec::new(),
            Ok(Some(record)) => self.follow(Place::Line(line), record),
            Err(finding) => vec![TraceFinding {
                place: Place::Line(line),
                finding,
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
            .map(|mut finding| {
                finding.pointer.insert_str(0, "/msg");
                TraceFinding { place, finding }
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
            Some(kind @ (Kind::Reply | Kind::Error)) => {
                connection.answer(kind, fact, &mut self.offers, &mut say)
            }
            Some(Kind::Event) => connection.event(self.transitions.as_ref(), fact, &mut say),
            None => {}
        }
        out
    }

    /// Calls still open at the end, each at the line of its call.
    pub fn unanswered(&self) -> Vec<TraceFinding> {
        self.open_calls()
            .into_iter()
            .map(|(place, id, method)| unanswered(place, id, method))
            .collect()
    }

    /// Calls still open at the end as `(place, id, method)`, in the order
    /// they were made: a capture of many unanswered calls is reported from
    /// these, a piece at a time, rather than from a finding each held at
    /// once.
    pub fn open_calls(&self) -> Vec<(Place, u64, &str)> {
        let mut out: Vec<(Place, u64, &str)> = self
            .connections
            .values()
            .flat_map(|connection| {
                let reused = connection
                    .reused
                    .iter()
                    .flat_map(|reused| reused.iter())
                    .flat_map(|(id, calls)| calls.iter().map(move |call| (id, call)));
                connection.open.iter().chain(reused)
            })
            .map(|(id, (method, place))| (*place, *id, method.as_str()))
            .collect();
        // One message per place: the place alone orders them.
        out.sort_unstable_by_key(|(place, _, _)| *place);
        out
    }
}

/// One copy of each list of methods a `session.hello` offered. A capture of
/// many short connections is told the same list on each; kept per
/// connection, the list (a dozen strings and a set around them) was most of
/// what a connection costs.
#[derive(Default)]
pub(super) struct Offers(HashSet<Arc<[String]>>);

impl Offers {
    /// The shared copy of `methods` (sorted, no repeats).
    fn share(&mut self, methods: Box<[String]>) -> Arc<[String]> {
        if let Some(shared) = self.0.get(&*methods) {
            return Arc::clone(shared);
        }
        let shared: Arc<[String]> = Arc::from(methods);
        self.0.insert(Arc::clone(&shared));
        shared
    }
}

/// The finding for a call never answered.
pub fn unanswered(place: Place, id: u64, method: &str) -> TraceFinding {
    TraceFinding {
        place,
        finding: Finding {
            keyword: None,
            pointer: "/msg/id".into(),
            rule: Rule::TraceUnanswered,
            message: format!("the call of {method} with id {id} was never answered"),
        },
    }
}

/// The kind of an envelope, as the codec names it.
pub(crate) use proto::wire::EnvelopeKind as Kind;

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
                .map(|finding| finding.finding.rule)
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

    /// An id reused while in flight is one finding: both calls stay open,
    /// a reply takes the oldest call its method names and an error (which
    /// names none) the oldest, so answers in any order that fits are no
    /// further finding; a reused call left unanswered is told.
    #[test]
    fn an_id_reused_in_flight_is_one_finding_and_both_calls_are_answered() {
        let checker = Checker::embedded_contract(NEWEST_CONTRACT).expect("the newest contract");
        let record = |from: &str, kind: &str, body: &str| {
            format!(r#"{{"from":"{from}","msg":{{"v":1,"kind":"{kind}","id":5,"body":{body}}}}}"#)
        };
        let resume = record(
            "client",
            "call",
            r#"{"method":"download.resume","params":{"taskId":"t_01"}}"#,
        );
        let error = record(
            "server",
            "error",
            r#"{"code":-32003,"message":"no such task"}"#,
        );
        let reply = |method: &str| {
            record(
                "server",
                "reply",
                &format!(r#"{{"method":"{method}","result":{{}}}}"#),
            )
        };
        let (paused, resumed) = (reply("download.pause"), reply("download.resume"));
        for answers in [
            [&paused, &resumed],
            [&resumed, &paused],
            [&paused, &error],
            [&resumed, &error],
            [&error, &resumed],
        ] {
            let mut tracer = Tracer::new(&checker, None);
            let mut found = Vec::new();
            let records = [&call(5), &resume, answers[0], answers[1]];
            for (line, text) in records.into_iter().enumerate() {
                found.extend(tracer.feed_line(line + 1, text.as_bytes()));
            }
            found.extend(tracer.unanswered());
            let rules: Vec<Rule> = found.iter().map(|f| f.finding.rule).collect();
            assert_eq!(rules, [Rule::TraceIdInFlight], "{answers:?}: {found:#?}");
        }
        let mut tracer = Tracer::new(&checker, None);
        for (line, text) in [&call(5), &resume, &paused].into_iter().enumerate() {
            tracer.feed_line(line + 1, text.as_bytes());
        }
        let left: Vec<String> = tracer
            .unanswered()
            .iter()
            .map(|f| f.finding.message.clone())
            .collect();
        assert_eq!(
            left,
            ["the call of download.resume with id 5 was never answered"]
        );
    }

    #[test]
    fn connections_offered_the_same_methods_share_one_list() {
        let checker = Checker::embedded_contract(NEWEST_CONTRACT).expect("the newest contract");
        let mut tracer = Tracer::new(&checker, None);
        let hello = |conn: &str| {
            format!(
                r#"{{"conn":"{conn}","from":"client","msg":{{"v":1,"kind":"call","id":1,"body":{{"method":"session.hello","params":{{"client":"gui/1","contractVersion":"1.1.0"}}}}}}}}"#
            )
        };
        let offer = |conn: &str, methods: &str| {
            format!(
                r#"{{"conn":"{conn}","from":"server","msg":{{"v":1,"kind":"reply","id":1,"body":{{"method":"session.hello","result":{{"daemon":"d/1","contractVersion":"1.1.0","methods":[{methods}]}}}}}}}}"#
            )
        };
        let pause = |conn: &str| {
            format!(
                r#"{{"conn":"{conn}","from":"client","msg":{{"v":1,"kind":"call","id":2,"body":{{"method":"download.pause","params":{{"taskId":"t_01"}}}}}}}}"#
            )
        };
        let records = [
            hello("a"),
            offer("a", r#""session.hello","download.pause""#),
            hello("b"),
            // The same methods, in another order.
            offer("b", r#""download.pause","session.hello""#),
            hello("c"),
            offer("c", r#""session.hello""#),
        ];
        for (line, text) in records.iter().enumerate() {
            assert!(
                tracer.feed_line(line + 1, text.as_bytes()).is_empty(),
                "{text}"
            );
        }
        let offered = |conn: &str| {
            tracer.connections[conn]
                .offered
                .clone()
                .expect("session.hello answered")
        };
        assert!(std::sync::Arc::ptr_eq(&offered("a"), &offered("b")));
        assert!(!std::sync::Arc::ptr_eq(&offered("a"), &offered("c")));
        // Each connection is still held to its own list.
        let rules = |tracer: &mut Tracer, line: usize, text: String| {
            tracer
                .feed_line(line, text.as_bytes())
                .into_iter()
                .map(|finding| finding.finding.rule)
                .collect::<Vec<_>>()
        };
        assert_eq!(rules(&mut tracer, 7, pause("b")), []);
        assert_eq!(rules(&mut tracer, 8, pause("c")), [Rule::TraceNotOffered]);
    }

    #[test]
    fn the_conformance_guide_gives_the_window_the_tracer_keeps() {
        let guide = include_str!("../../../../docs/conformance.md").replace('\n', " ");
        assert!(guide.contains(&format!("latest {ANSWERS_REMEMBERED} answers")));
        assert!(guide.contains(&format!("more than {ANSWERS_REMEMBERED} answers earlier")));
    }
}
