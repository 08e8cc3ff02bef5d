//! Whole conversations, checked as `trace --closed` checks them.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::Value;

use super::{GenerateError, Valid, MAX_FAILED_IN_A_ROW};
use crate::{Checker, Rule};

/// What one run of [`conversations`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversed {
    /// Conversations written (each one `trace --closed` passes).
    pub written: usize,
    /// Records written.
    pub records: usize,
    /// Conversations built and dropped because `trace` found something.
    pub dropped: usize,
    /// The rules the dropped conversations broke, with how often.
    pub broken: BTreeMap<Rule, usize>,
}

/// How many messages one conversation holds at most, beside its hello.
const MAX_STEPS: usize = 24;

/// The events said along a task's life, where its rules call for them
/// (added first, states along the table, progress that never falls,
/// removed last); every other event may be said at any time.
const TASK_EVENTS: [&str; 4] = [
    "event.task.added",
    "event.task.state",
    "event.task.progress",
    "event.task.removed",
];

/// Writes `count` whole conversations as trace records (`{"conn", "from",
/// "transport", "msg"}`), each on its own connection: a `session.hello`
/// that offers the methods the transport carries, calls of offered methods
/// answered (replies and errors) in any order the rules allow, and a few
/// tasks told about by events (state changes along `transitions` when given,
/// progress that never falls, removal last). Each conversation is checked as
/// `trace --closed` checks it, with `transitions`, and kept only when it
/// holds every rule; same seed, same records.
pub fn conversations(
    checker: &Checker,
    count: usize,
    seed: u64,
    transitions: Option<&str>,
    out: &mut dyn Write,
) -> Result<Conversed, GenerateError> {
    let mut valid = Conversations::new(checker, seed, transitions)?;
    while valid.done.written < count {
        for record in valid.next()? {
            writeln!(out, "{record}")?;
        }
    }
    Ok(valid.done)
}

/// How many one-step changes of each valid conversation are tried.
const TRIED_PER_CONVERSATION: usize = 24;

/// Writes `count` conversation mutants as trace records, each on its own
/// connection and each record carrying `"mutant": RULE`: `trace --closed`
/// (with `transitions`) finds in that connection the trace rule named and
/// no other. Each is a valid conversation changed in one place (a record
/// dropped, repeated, moved, its sender or transport swapped, an id, a
/// method, a state or a byte count changed, a record left without its
/// message); the rules take turns as [`super::mutants`]' do.
pub fn conversation_mutants(
    checker: &Checker,
    count: usize,
    seed: u64,
    transitions: Option<&str>,
    out: &mut dyn Write,
) -> Result<super::Mutated, GenerateError> {
    let mut valid = Conversations::new(checker, seed, transitions)?;
    super::in_turns(
        count,
        "conversation",
        &mut |offer| {
            let records: Vec<Value> = valid
                .next()?
                .iter()
                .filter_map(|record| serde_json::from_str(record).ok())
                .collect();
            for _ in 0..TRIED_PER_CONVERSATION {
                let mutant = mutate(&records, &mut valid.speaker);
                let texts: Vec<String> = mutant.iter().map(Value::to_string).collect();
                let found = valid.findings(&texts);
                let rule = found.first().map(|finding| finding.finding.rule);
                if let Some(rule) =
                    rule.filter(|rule| found.iter().all(|f| f.finding.rule == *rule))
                {
                    offer(rule, mutant);
                }
            }
            Ok(())
        },
        &mut |rule, records, place| {
            // A connection of its own, so mutants written together stay apart.
            let conn = format!("m{}", place + 1);
            for mut record in records {
                if let Some(fields) = record.as_object_mut() {
                    fields.insert("conn".into(), Value::String(conn.clone()));
                    fields.insert("mutant".into(), Value::String(rule.id().into()));
                }
                writeln!(out, "{record}")?;
            }
            Ok(())
        },
    )
}

/// One change to a conversation's records, drawn at random.
fn mutate(records: &[Value], speaker: &mut Speaker<'_>) -> Vec<Value> {
    let mut out = records.to_vec();
    let len = out.len();
    if len == 0 {
        return out;
    }
    let rng = &mut speaker.rng;
    let at = rng.below(len);
    let other = rng.below(len);
    match rng.below(12) {
        0 => {
            out.remove(at);
        }
        1 => {
            if let Some(record) = out.get(at).cloned() {
                out.insert(other, record);
            }
        }
        2 => {
            if let Some(record) = out.get(at).cloned() {
                out.remove(at);
                out.insert(other.min(out.len()), record);
            }
        }
        3 => edit(&mut out, at, "/from", |from| match from.as_str() {
            Some("client") => "server".into(),
            _ => "client".into(),
        }),
        4 => edit(&mut out, at, "/transport", |transport| {
            match transport.as_str() {
                Some("unix") => "websocket".into(),
                _ => "unix".into(),
            }
        }),
        5 => {
            let id = out
                .get(other)
                .and_then(|record| record.pointer("/msg/id"))
                .cloned();
            if let Some(id) = id {
                edit(&mut out, at, "/msg/id", |_| id.clone());
            }
        }
        6 => {
            let method = out
                .get(other)
                .and_then(|record| record.pointer("/msg/body/method"))
                .cloned();
            if let Some(method) = method {
                edit(&mut out, at, "/msg/body/method", |_| method.clone());
            }
        }
        7 => {
            // No states only without a TaskState enum: "" is then no state.
            let state = rng.pick(&speaker.states).cloned().unwrap_or_default();
            let field = if rng.chance(50) {
                "/msg/body/params/state"
            } else {
                "/msg/body/params/previousState"
            };
            edit(&mut out, at, field, |_| Value::String(state.clone()));
        }
        8 => edit(&mut out, at, "/msg/body/params/downloadedBytes", |bytes| {
            Value::from(bytes.as_u64().unwrap_or(0) / 2)
        }),
        9 => {
            // A method the hello no longer offers.
            let hello = out
                .iter_mut()
                .find_map(|record| record.pointer_mut("/msg/body/result/methods"))
                .and_then(Value::as_array_mut);
            if let Some(methods) = hello.filter(|methods| !methods.is_empty()) {
                methods.remove(other % methods.len());
            }
        }
        10 => {
            // A call and its answers given another call's id: reused while
            // that call is open, unless it was answered before.
            let id_of = |record: &Value| record.pointer("/msg/id").and_then(Value::as_u64);
            let call = |record: &Value| record.pointer("/msg/kind") == Some(&Value::from("call"));
            let ids = out
                .get(at)
                .filter(|r| call(r))
                .and_then(id_of)
                .zip(out.get(other).filter(|r| call(r)).and_then(id_of));
            if let Some((from, to)) = ids.filter(|(from, to)| from != to) {
                let conn = out.get(at).and_then(|r| r.get("conn")).cloned();
                for record in out.iter_mut().skip(at) {
                    if id_of(record) == Some(from) && record.get("conn").cloned() == conn {
                        if let Some(slot) = record.pointer_mut("/msg/id") {
                            *slot = Value::from(to);
                        }
                    }
                }
            }
        }
        _ => {
            if let Some(fields) = out.get_mut(at).and_then(Value::as_object_mut) {
                fields.remove("msg");
            }
        }
    }
    out
}

/// Replaces the value at `pointer` in record `at`, where there is one.
fn edit(records: &mut [Value], at: usize, pointer: &str, to: impl Fn(&Value) -> Value) {
    if let Some(slot) = records
        .get_mut(at)
        .and_then(|record| record.pointer_mut(pointer))
    {
        *slot = to(slot);
    }
}

/// Valid conversations, one after another, each checked as `trace --closed`.
struct Conversations<'c> {
    checker: &'c Checker,
    table: Option<crate::trace::Transitions>,
    next: BTreeMap<String, Vec<String>>,
    speaker: Speaker<'c>,
    done: Conversed,
    failed_in_a_row: usize,
}

impl<'c> Conversations<'c> {
    fn new(
        checker: &'c Checker,
        seed: u64,
        transitions: Option<&str>,
    ) -> Result<Self, GenerateError> {
        let table = match transitions {
            Some(text) => Some(crate::trace::Transitions::parse_for(checker, text).map_err(
                |message| GenerateError::Draw {
                    target: "conversation".into(),
                    message: format!("the transitions table: {message}"),
                },
            )?),
            None => None,
        };
        // The text was read as a table just above; only its absence is empty.
        let next: BTreeMap<String, Vec<String>> = transitions
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default();
        Ok(Conversations {
            checker,
            table,
            next,
            speaker: Speaker::new(checker, seed)?,
            done: Conversed::default(),
            failed_in_a_row: 0,
        })
    }

    /// What `trace --closed` finds in one connection's records.
    fn findings(&self, records: &[String]) -> Vec<crate::trace::TraceFinding> {
        let mut tracer = crate::trace::Tracer::new(self.checker, self.table.clone());
        let mut found = Vec::new();
        for (line, record) in records.iter().enumerate() {
            found.extend(tracer.feed_line(line + 1, record.as_bytes()));
        }
        found.extend(tracer.unanswered());
        found
    }

    /// The next conversation that holds every rule, as record texts.
    fn next(&mut self) -> Result<Vec<String>, GenerateError> {
        loop {
            let conn = format!("c{}", self.done.written + self.done.dropped + 1);
            let next = std::mem::take(&mut self.next);
            let records = self.speaker.conversation(&conn, &next);
            self.next = next;
            let records = records?;
            let found = self.findings(&records);
            if found.is_empty() {
                self.done.written += 1;
                self.done.records += records.len();
                self.failed_in_a_row = 0;
                return Ok(records);
            }
            self.done.dropped += 1;
            self.failed_in_a_row += 1;
            super::count_dropped(
                &mut self.done.broken,
                self.done.written,
                found.iter().map(|finding| finding.finding.rule),
                self.failed_in_a_row >= MAX_FAILED_IN_A_ROW / 100,
                "conversation",
            )?;
        }
    }
}

/// Valid single messages drawn on demand, for a driver that speaks to a
/// live peer: what a conversation holds, one message at a time.
pub(crate) struct Messages<'c> {
    speaker: Speaker<'c>,
}

impl<'c> Messages<'c> {
    pub(crate) fn new(checker: &'c Checker, seed: u64) -> Result<Self, GenerateError> {
        Ok(Messages {
            speaker: Speaker::new(checker, seed)?,
        })
    }

    /// Every method of the contract, by name.
    pub(crate) fn methods(&self) -> Vec<String> {
        self.speaker
            .methods
            .iter()
            .map(|shape| shape.name.clone())
            .collect()
    }

    /// A valid call of `method` with `id`; `None` when the contract has no
    /// such method or no valid params could be drawn.
    pub(crate) fn call(&mut self, method: &str, id: u64) -> Result<Option<Value>, GenerateError> {
        let Some(params) = self.shape(method).and_then(|shape| shape.params.clone()) else {
            return Ok(None);
        };
        self.speaker
            .message(&params, &|p| envelope_call(id, method, p), &mut |_| {})
    }

    /// A valid reply to call `id` of `method`, its result changed by `fill`
    /// (and checked after); `None` as for [`Messages::call`].
    pub(crate) fn reply(
        &mut self,
        method: &str,
        id: u64,
        fill: &mut dyn FnMut(&mut Value),
    ) -> Result<Option<Value>, GenerateError> {
        let Some(result) = self.shape(method).and_then(|shape| shape.result.clone()) else {
            return Ok(None);
        };
        self.speaker
            .message(&result, &|r| envelope_reply(id, method, r), fill)
    }

    /// A valid event of the contract with a field added to its params, as
    /// a newer peer may send: the first event, in the contract's order,
    /// whose params are an object; `None` when there is none.
    pub(crate) fn event_with_a_field_added(&mut self) -> Result<Option<Value>, GenerateError> {
        let events: Vec<(String, String)> = self
            .speaker
            .events
            .iter()
            .filter_map(|event| Some((event.name.clone(), event.params.clone()?)))
            .collect();
        for (name, params) in events {
            let Some(mut event) =
                self.speaker
                    .message(&params, &|p| envelope_event(&name, p), &mut |_| {})?
            else {
                continue;
            };
            if let Some(Value::Object(fields)) = event.pointer_mut("/body/params") {
                let free = (0..)
                    .map(|n| match n {
                        0 => "addedLater".to_string(),
                        n => format!("addedLater{n}"),
                    })
                    .find(|field| !fields.contains_key(field))
                    .unwrap_or_default();
                fields.insert(free, Value::Bool(true));
                return Ok(Some(event));
            }
        }
        Ok(None)
    }

    fn shape(&self, method: &str) -> Option<&Shape> {
        self.speaker
            .methods
            .iter()
            .find(|shape| shape.name == method)
    }
}

/// One method's or event's name and the types of its shapes.
struct Shape {
    name: String,
    /// `params`' type name (calls, events).
    params: Option<String>,
    /// `result`'s type name (replies).
    result: Option<String>,
    /// The transports a method may travel on (empty: any).
    transports: Vec<String>,
}

/// Builds conversations: valid values of every shape, drawn on demand.
struct Speaker<'c> {
    checker: &'c Checker,
    seed: u64,
    methods: Vec<Shape>,
    events: Vec<Shape>,
    transports: Vec<String>,
    states: Vec<String>,
    valid: BTreeMap<String, Valid<'c>>,
    rng: sample::Rng,
}

impl<'c> Speaker<'c> {
    fn new(checker: &'c Checker, seed: u64) -> Result<Self, GenerateError> {
        let set = checker.schema_set();
        let shapes = |kind: contract::DocKind| -> Vec<Shape> {
            set.of_kind(kind)
                .map(|doc| {
                    let places = doc.named_places();
                    let title = |pointer: &str| {
                        places
                            .iter()
                            .find(|(_, at, _)| at == pointer)
                            .map(|(title, _, _)| title.clone())
                    };
                    Shape {
                        name: doc.name.clone(),
                        params: title("/$defs/params"),
                        result: title("/$defs/result"),
                        transports: doc.transports().into_iter().map(str::to_string).collect(),
                    }
                })
                .collect()
        };
        // No such enum: nothing to pick from, and the conversation says less.
        let names = |ty: &str| checker.enum_values(ty).unwrap_or_default();
        Ok(Speaker {
            checker,
            seed,
            methods: shapes(contract::DocKind::Method),
            events: shapes(contract::DocKind::Event),
            transports: names("Transport"),
            states: names("TaskState"),
            valid: BTreeMap::new(),
            rng: sample::Rng::new(seed),
        })
    }

    /// A valid value of the type called `name`.
    fn value(&mut self, name: &str) -> Result<Value, GenerateError> {
        if !self.valid.contains_key(name) {
            let seed = name.bytes().fold(self.seed, |hash, byte| {
                hash.rotate_left(5) ^ u64::from(byte)
            });
            let valid = Valid::new(self.checker, name, seed)?;
            self.valid.insert(name.to_string(), valid);
        }
        match self.valid.get_mut(name) {
            Some(valid) => valid.next().map(|(value, _)| value),
            None => Err(GenerateError::Draw {
                target: name.to_string(),
                message: "no generator".into(),
            }),
        }
    }

    /// A message built from a drawn value of `ty` by `build`, changed by
    /// `fill`, that `check` passes; a few draws are tried, then `None`.
    fn message(
        &mut self,
        ty: &str,
        build: &dyn Fn(Value) -> Value,
        fill: &mut dyn FnMut(&mut Value),
    ) -> Result<Option<Value>, GenerateError> {
        for _ in 0..64 {
            let mut inner = self.value(ty)?;
            fill(&mut inner);
            let msg = build(inner);
            let text = msg.to_string();
            if self
                .checker
                .check_text("Envelope", text.as_bytes())?
                .is_empty()
            {
                return Ok(Some(msg));
            }
        }
        Ok(None)
    }

    fn conversation(
        &mut self,
        conn: &str,
        next: &BTreeMap<String, Vec<String>>,
    ) -> Result<Vec<String>, GenerateError> {
        let transport = self
            .rng
            .pick(&self.transports)
            .cloned()
            .unwrap_or_else(|| "unix".into());
        let offered: Vec<usize> = (0..self.methods.len())
            .filter(|&index| {
                self.methods.get(index).is_some_and(|method| {
                    method.transports.is_empty() || method.transports.contains(&transport)
                })
            })
            .collect();
        let mut said = Said {
            conn,
            transport: &transport,
            records: Vec::new(),
        };
        self.hello(&offered, &mut said)?;
        let mut tasks = self.tasks(&mut said)?;
        let mut open = self.steps(&offered, &mut tasks, next, &mut said)?;
        // Every call answered; then some tasks removed, and nothing said after.
        while let Some((id, index)) = open.pop() {
            match self.answer(id, index, &tasks)? {
                Some(answer) => said.push("server", &answer),
                // No answer could be drawn: the conversation is dropped by the check.
                None => break,
            }
        }
        for task in &tasks {
            if self.rng.chance(50) {
                let id = task.id.clone();
                let removed =
                    self.event_message("event.task.removed", &mut |p| retarget(p, &id))?;
                if let Some(removed) = removed {
                    said.push("server", &removed);
                }
            }
        }
        Ok(said.records)
    }

    /// The hello first, answered with the methods this transport offers.
    fn hello(&mut self, offered: &[usize], said: &mut Said<'_>) -> Result<(), GenerateError> {
        let names: Vec<Value> = offered
            .iter()
            .filter_map(|&index| self.methods.get(index))
            .map(|method| Value::String(method.name.clone()))
            .collect();
        let hello = self
            .methods
            .iter()
            .find(|method| method.name == "session.hello");
        let Some((Some(params), Some(result))) =
            hello.map(|hello| (hello.params.clone(), hello.result.clone()))
        else {
            return Ok(());
        };
        let call = self.message(
            &params,
            &|p| envelope_call(1, "session.hello", p),
            &mut |_| {},
        )?;
        let reply = self.message(
            &result,
            &|r| envelope_reply(1, "session.hello", r),
            &mut |r| set(r, "methods", Value::Array(names.clone())),
        )?;
        if let (Some(call), Some(reply)) = (call, reply) {
            said.push("client", &call);
            said.push("server", &reply);
        }
        Ok(())
    }

    /// A few tasks, an id each; some announced first, as queued.
    fn tasks(&mut self, said: &mut Said<'_>) -> Result<Vec<Task>, GenerateError> {
        let mut tasks: Vec<Task> = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            if let Value::String(id) = self.value("TaskId")? {
                if tasks.iter().all(|task| task.id != id) {
                    tasks.push(Task {
                        id,
                        state: None,
                        bytes: 0,
                    });
                }
            }
        }
        for task in &mut tasks {
            if !self.rng.chance(50) {
                continue;
            }
            let id = task.id.clone();
            let added = self.event_message("event.task.added", &mut |p| {
                retarget(p, &id);
                if let Some(summary) = p.get_mut("task") {
                    set(summary, "state", Value::String("queued".into()));
                }
            })?;
            if let Some(added) = added {
                said.push("server", &added);
                task.state = Some("queued".into());
            }
        }
        Ok(tasks)
    }

    /// The middle of a conversation: calls (at most four open), answers in
    /// any order, notices, and the tasks told about; returns the calls
    /// still open, as (id, method index).
    fn steps(
        &mut self,
        offered: &[usize],
        tasks: &mut [Task],
        next: &BTreeMap<String, Vec<String>>,
        said: &mut Said<'_>,
    ) -> Result<Vec<(u64, usize)>, GenerateError> {
        // The hello is said once: a second would offer anew.
        let callable: Vec<usize> = offered
            .iter()
            .copied()
            .filter(|&index| {
                self.methods
                    .get(index)
                    .is_some_and(|m| m.name != "session.hello")
            })
            .collect();
        let mut open: Vec<(u64, usize)> = Vec::new();
        let mut next_id = 2u64;
        let steps = self.rng.below(MAX_STEPS + 1);
        for _ in 0..steps {
            match self.rng.below(10) {
                0..=2 if open.len() < 4 => {
                    let Some(&index) = self.rng.pick(&callable) else {
                        continue;
                    };
                    let Some(method) = self.methods.get(index) else {
                        continue;
                    };
                    let (name, Some(params)) = (method.name.clone(), method.params.clone()) else {
                        continue;
                    };
                    let task = self.rng.pick(tasks).map(|task| task.id.clone());
                    let id = next_id;
                    let call =
                        self.message(&params, &|p| envelope_call(id, &name, p), &mut |p| {
                            if let Some(task) = &task {
                                retarget(p, task);
                            }
                        })?;
                    if let Some(call) = call {
                        said.push("client", &call);
                        open.push((id, index));
                        next_id += 1;
                    }
                }
                0..=5 if !open.is_empty() => {
                    let at = self.rng.below(open.len());
                    let (id, index) = open.swap_remove(at);
                    if let Some(answer) = self.answer(id, index, tasks)? {
                        said.push("server", &answer);
                    } else {
                        open.push((id, index));
                    }
                }
                6 => {
                    // Any event a task's life does not tell, about one of
                    // the tasks when it names one: `event.notify`, and
                    // whatever events a later contract adds.
                    let free: Vec<String> = self
                        .events
                        .iter()
                        .filter(|event| {
                            !TASK_EVENTS.contains(&event.name.as_str())
                                && (event.transports.is_empty()
                                    || event.transports.iter().any(|t| t == said.transport))
                        })
                        .map(|event| event.name.clone())
                        .collect();
                    let Some(name) = self.rng.pick(&free).cloned() else {
                        continue;
                    };
                    let task = self.rng.pick(tasks).map(|task| task.id.clone());
                    if let Some(event) = self.event_message(&name, &mut |p| {
                        if let Some(task) = &task {
                            retarget(p, task);
                        }
                    })? {
                        said.push("server", &event);
                    }
                }
                _ => {
                    let at = self.rng.below(tasks.len().max(1));
                    let Some(task) = tasks.get_mut(at) else {
                        continue;
                    };
                    let mut task = task.clone();
                    if let Some(event) = self.task_event(&mut task, next)? {
                        said.push("server", &event);
                        if let Some(slot) = tasks.get_mut(at) {
                            *slot = task;
                        }
                    }
                }
            }
        }
        Ok(open)
    }

    /// A reply (or now and then an error) to call `id` of method `index`.
    fn answer(
        &mut self,
        id: u64,
        index: usize,
        tasks: &[Task],
    ) -> Result<Option<Value>, GenerateError> {
        let Some(method) = self.methods.get(index) else {
            return Ok(None);
        };
        let (name, result) = (method.name.clone(), method.result.clone());
        let task = self.rng.pick(tasks).map(|task| task.id.clone());
        if self.rng.chance(20) {
            return self.message("RpcError", &|e| envelope_error(id, e), &mut |_| {});
        }
        let Some(result) = result else {
            return Ok(None);
        };
        self.message(&result, &|r| envelope_reply(id, &name, r), &mut |r| {
            if let Some(task) = &task {
                retarget(r, task);
            }
        })
    }

    /// A state change along the table (any state without one), or progress.
    fn task_event(
        &mut self,
        task: &mut Task,
        next: &BTreeMap<String, Vec<String>>,
    ) -> Result<Option<Value>, GenerateError> {
        let id = task.id.clone();
        if self.rng.chance(40) {
            let bytes = task.bytes.saturating_add(self.rng.below(1 << 20) as u64);
            let event = self.event_message("event.task.progress", &mut |p| {
                retarget(p, &id);
                set(p, "downloadedBytes", bytes.into());
            })?;
            if event.is_some() {
                task.bytes = bytes;
            }
            return Ok(event);
        }
        let choices: Vec<String> = match (&task.state, next.is_empty()) {
            (_, true) => self.states.clone(),
            // A state the table does not list leads nowhere: no event is told.
            (None, false) => next.get("new").cloned().unwrap_or_default(),
            (Some(state), false) => next.get(state).cloned().unwrap_or_default(),
        };
        let Some(state) = self.rng.pick(&choices).cloned() else {
            return Ok(None);
        };
        let previous = task.state.clone().unwrap_or_else(|| "new".into());
        let event = self.event_message("event.task.state", &mut |p| {
            retarget(p, &id);
            set(p, "state", Value::String(state.clone()));
            set(p, "previousState", Value::String(previous.clone()));
        })?;
        if event.is_some() {
            task.state = Some(state);
            // A state change lets the bytes fall (a restart).
            task.bytes = 0;
        }
        Ok(event)
    }

    fn event_message(
        &mut self,
        name: &str,
        fill: &mut dyn FnMut(&mut Value),
    ) -> Result<Option<Value>, GenerateError> {
        let Some(params) = self
            .events
            .iter()
            .find(|event| event.name == name)
            .and_then(|event| event.params.clone())
        else {
            return Ok(None);
        };
        let name = name.to_string();
        self.message(&params, &|p| envelope_event(&name, p), fill)
    }
}

/// The records of one conversation, as they are said.
struct Said<'c> {
    conn: &'c str,
    transport: &'c str,
    records: Vec<String>,
}

impl Said<'_> {
    fn push(&mut self, from: &str, msg: &Value) {
        self.records.push(
            serde_json::json!({"conn": self.conn, "from": from, "transport": self.transport, "msg": msg})
                .to_string(),
        );
    }
}

/// A task a conversation tells about.
#[derive(Clone)]
struct Task {
    id: String,
    state: Option<String>,
    bytes: u64,
}

fn envelope_call(id: u64, method: &str, params: Value) -> Value {
    serde_json::json!({"v": 1, "kind": "call", "id": id, "body": {"method": method, "params": params}})
}

fn envelope_reply(id: u64, method: &str, result: Value) -> Value {
    serde_json::json!({"v": 1, "kind": "reply", "id": id, "body": {"method": method, "result": result}})
}

fn envelope_error(id: u64, error: Value) -> Value {
    serde_json::json!({"v": 1, "kind": "error", "id": id, "body": error})
}

fn envelope_event(name: &str, params: Value) -> Value {
    serde_json::json!({"v": 1, "kind": "event", "body": {"name": name, "params": params}})
}

fn set(value: &mut Value, name: &str, to: Value) {
    if let Some(fields) = value.as_object_mut() {
        fields.insert(name.into(), to);
    }
}

/// Every `taskId` in `value` becomes `task`: a drawn value speaks of the
/// conversation's tasks only. Bounded by the sampler's depth.
fn retarget(value: &mut Value, task: &str) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|item| retarget(item, task)),
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                if name == "taskId" && field.is_string() {
                    *field = Value::String(task.to_string());
                } else {
                    retarget(field, task);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::Messages;
    use crate::Checker;

    /// The event a newer peer sends with a field added is one of the
    /// contract's, valid but for that field: drawn from the contract, it
    /// follows the contract's events as they change.
    #[test]
    fn an_event_with_a_field_added_is_valid_but_for_that_field() {
        let checker = Checker::embedded().unwrap();
        let mut messages = Messages::new(&checker, 7).unwrap();
        let mut event = messages.event_with_a_field_added().unwrap().unwrap();
        let findings = checker.check("Envelope", &event).unwrap();
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(
            findings[0].pointer.ends_with("/body/params"),
            "{findings:?}"
        );
        let params = event
            .pointer_mut("/body/params")
            .and_then(serde_json::Value::as_object_mut)
            .unwrap();
        assert_eq!(
            params.remove("addedLater"),
            Some(serde_json::Value::Bool(true))
        );
        assert_eq!(checker.check("Envelope", &event).unwrap(), vec![]);
    }
}
