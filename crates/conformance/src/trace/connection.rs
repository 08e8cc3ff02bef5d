//! What a tracer keeps of one connection, and the conversation rules each
//! kind of message is held to against it.

use super::*;

/// Calls behind the one in flight with their id: id → (method, place),
/// oldest first.
pub(super) type Reused = HashMap<u64, VecDeque<(CompactString, Place)>>;

/// What one connection keeps open.
#[derive(Default)]
pub(super) struct Connection {
    /// The transport the connection's first record named, and where.
    pub(super) transport: Option<(Cow<'static, str>, Place)>,
    /// Calls in flight: id → (method, place).
    pub(super) open: HashMap<u64, (CompactString, Place)>,
    /// Calls made with an id already in flight (`trace.id_in_flight`), behind
    /// the one in `open`, oldest first: each is still answered, so one reused
    /// id is one finding, not one on every answer after it. Boxed, and
    /// absent while empty: most connections never reuse an id, and a
    /// capture of many keeps one of these each.
    pub(super) reused: Option<Box<Reused>>,
    /// The latest answers, at most [`ANSWERS_REMEMBERED`]: id → place of
    /// the answer, and the same in the order they came.
    pub(super) answered: HashMap<u64, Place>,
    pub(super) answer_order: VecDeque<(u64, Place)>,
    /// The methods `session.hello` offered, once it answered: sorted, and
    /// shared with every connection offered the same list.
    pub(super) offered: Option<Arc<[String]>>,
    /// What was told of each task, by task id: one entry, so an event looks
    /// its task up once.
    pub(super) tasks: HashMap<CompactString, Told>,
}

impl Connection {
    /// Remembers an answer, forgetting the oldest beyond the window.
    pub(super) fn remember_answer(&mut self, id: u64, place: Place) {
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
pub(super) struct Say<'o> {
    pub(super) place: Place,
    pub(super) out: &'o mut Vec<TraceFinding>,
}

impl Say<'_> {
    pub(super) fn say(&mut self, rule: Rule, pointer: &str, message: String) {
        self.out.push(TraceFinding {
            place: self.place,
            finding: crate::Finding {
                keyword: None,
                pointer: format!("/msg{pointer}"),
                rule,
                message,
            },
        });
    }
}

/// The record's transport when the contract names it (`trace.transport`
/// when it does not, and then it is not kept).
pub(super) fn known_transport(
    known: Option<&[String]>,
    transport: Option<Cow<'static, str>>,
    place: Place,
    out: &mut Vec<TraceFinding>,
) -> Option<Cow<'static, str>> {
    transport.filter(|name| match known {
        Some(known) if !known.iter().any(|k| k == name) => {
            out.push(TraceFinding {
                place,
                finding: crate::Finding {
                    keyword: None,
                    pointer: "/transport".into(),
                    rule: Rule::TraceTransport,
                    message: format!(
                        "\"{name}\" is none of the contract's transports ({})",
                        known.join(", ")
                    ),
                },
            });
            false
        }
        _ => true,
    })
}

/// `trace.direction`: calls come from the client, the rest from the server.
pub(super) fn direction(kind: Kind, from: Peer, say: &mut Say<'_>) {
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
                "{} comes from the {}, and this one came from the {}",
                kind.with_article(),
                side(expected),
                side(from)
            ),
        );
    }
}

impl Connection {
    /// A change of transport is told once, and the connection goes on under
    /// the transport it changed to.
    pub(super) fn keep_transport(
        &mut self,
        transport: Option<Cow<'static, str>>,
        place: Place,
        out: &mut Vec<TraceFinding>,
    ) {
        match (&self.transport, transport) {
            (None, Some(name)) => self.transport = Some((name, place)),
            (Some((was, at)), Some(name)) if *was != name => {
                out.push(TraceFinding { place, finding: crate::Finding { pointer: "/transport".into(), rule: Rule::TraceTransport, keyword: None, message: format!(
                        "this connection was {was} at {at}, and this record says {name}: a connection keeps its transport"
                    ) } });
                self.transport = Some((name, place));
            }
            _ => {}
        }
    }

    /// A call: its id not in flight, its method offered and carried here.
    pub(super) fn call(&mut self, checker: &Checker, fact: Fact, say: &mut Say<'_>) {
        // A call without a method is refused by the schema; "" is offered by
        // no hello and carried by no transport.
        let method = fact.method.unwrap_or_default();
        if let Some(id) = fact.id {
            match self.open.get(&id) {
                Some((open, at)) => {
                    say.say(
                        Rule::TraceIdInFlight,
                        "/id",
                        format!(
                            "id {id} is still in flight: the call of {open} at {at} has no answer yet"
                        ),
                    );
                    self.reused
                        .get_or_insert_with(Box::default)
                        .entry(id)
                        .or_default()
                        .push_back((method.clone(), say.place));
                }
                None => {
                    self.answered.remove(&id);
                    self.open.insert(id, (method.clone(), say.place));
                }
            }
        }
        if let Some(offered) = &self.offered {
            let listed = offered
                .binary_search_by(|name| name.as_str().cmp(method.as_str()))
                .is_ok();
            if method != "session.hello" && !listed {
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
    pub(super) fn answer(
        &mut self,
        kind: Kind,
        fact: Fact,
        offers: &mut Offers,
        say: &mut Say<'_>,
    ) {
        let Some(id) = fact.id else {
            // An error with id null answers what could not be read.
            return;
        };
        match self.take_open(id, fact.method.as_deref().filter(|_| kind == Kind::Reply)) {
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
                        self.offered = fact.offered.map(|offered| offers.share(offered));
                    }
                }
                if self.open.is_empty() {
                    // A quiet connection holds no table for calls in flight:
                    // a capture of many short connections keeps each one's.
                    self.open = HashMap::new();
                    self.reused = None;
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

    /// The open call of `id` an answer answers: of several (the id reused
    /// while in flight), the oldest whose method a reply names, else the
    /// oldest; the next one of that id stays open.
    fn take_open(&mut self, id: u64, named: Option<&str>) -> Option<(CompactString, Place)> {
        let first = self.open.remove(&id)?;
        let Some(reused) = self.reused.as_deref_mut() else {
            return Some(first);
        };
        let Some(queue) = reused.get_mut(&id) else {
            return Some(first);
        };
        let taken = match named {
            Some(named) if first.0 != named => {
                match queue.iter().position(|(method, _)| method == named) {
                    Some(at) => {
                        let taken = queue.remove(at);
                        queue.push_front(first);
                        taken
                    }
                    None => Some(first),
                }
            }
            _ => Some(first),
        };
        if let Some(next) = queue.pop_front() {
            self.open.insert(id, next);
        }
        if queue.is_empty() {
            reused.remove(&id);
        }
        taken
    }

    /// An event about a task: nothing after its removal, states along the
    /// table and from the last one told, progress that does not fall.
    pub(super) fn event(
        &mut self,
        transitions: Option<&Transitions>,
        fact: Fact,
        say: &mut Say<'_>,
    ) {
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
                // Absent only in a message the schema refuses (reported
                // with it); "" then matches no state told.
                let state = state.unwrap_or_default();
                let previous = previous.unwrap_or_default();
                told.state_change(&task, state, &previous, transitions, say);
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
pub(super) struct Told {
    /// The last state, and where.
    pub(super) state: Option<(CompactString, Place)>,
    /// The last progress since that state, and where.
    pub(super) progress: Option<(u64, Place)>,
    /// Where it was removed.
    pub(super) removed: Option<Place>,
}

impl Told {
    /// A state event: from the last state told, along the table.
    fn state_change(
        &mut self,
        task: &str,
        state: CompactString,
        previous: &str,
        transitions: Option<&Transitions>,
        say: &mut Say<'_>,
    ) {
        let place = say.place;
        if let Some((last, at)) = &self.state {
            if *last != previous {
                say.say(
                    Rule::TracePreviousState,
                    "/body/params/previousState",
                    format!("previousState is {previous}, and the last state told for task {task} was {last} ({at})"),
                );
            }
        }
        if let Some(table) = transitions {
            if !table.allows(previous, &state) {
                let since = match &self.state {
                    Some((_, at)) => format!(" (its last state was told at {at})"),
                    None => String::new(),
                };
                say.say(
                    Rule::TraceTransition,
                    "/body/params/state",
                    format!(
                        "task {task} moved {previous} → {state}, which is not in the transition table ({}){since}",
                        table.row(previous)
                    ),
                );
            }
        }
        self.progress = None;
        self.state = Some((state, place));
    }
}
