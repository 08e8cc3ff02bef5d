//! Reading one record on its own: the message parsed and checked, and the
//! [`Fact`] the conversation rules need of it. Depends on no other record,
//! so it may run on any thread.

use super::*;

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
/// finding (its pointer into the record) when the line is not a record.
pub(crate) fn read_record(checker: &Checker, text: &[u8]) -> Result<Option<Record>, Finding> {
    if text.trim_ascii().is_empty() {
        return Ok(None);
    }
    // The record's own fields are read into a struct, not a map, borrowing
    // their text: only `msg` becomes a `Value`. A member of another name is
    // refused, not skipped: a misspelt `transport` or `conn` would turn the
    // rules it feeds off without a word.
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Raw<'a> {
        #[serde(borrow)]
        from: Option<Text<'a>>,
        #[serde(borrow)]
        conn: Option<Text<'a>>,
        #[serde(borrow)]
        transport: Option<Text<'a>>,
        msg: Option<Value>,
        /// The rule a generated mutant breaks (`generate --conversation
        /// --mutants`), for the reader of the file; not read here.
        #[serde(rename = "mutant")]
        _mutant: Option<serde::de::IgnoredAny>,
    }
    // serde borrows a `Cow` only where it is a field's whole type, not inside
    // an `Option`; a string with escapes is still read, owned.
    #[derive(serde::Deserialize)]
    struct Text<'a>(#[serde(borrow)] Cow<'a, str>);
    // The message one level down keeps the JSON text policy's depth.
    proto::text::scan(text, proto::text::Layout::Contained)
        .map_err(|err| at("", Rule::Json, format!("the line: {err}")))?;
    // serde would read an array as the record's fields in order, and say
    // only that its first item is not a string.
    let kind = match text.trim_ascii_start().first() {
        Some(b'{') => None,
        Some(b'[') => Some("an array"),
        Some(b'"') => Some("a string"),
        Some(b't' | b'f') => Some("a boolean"),
        Some(b'n') => Some("null"),
        _ => Some("a number"),
    };
    if let Some(kind) = kind {
        return Err(at(
            "",
            Rule::TraceRecord,
            format!("a trace record is an object with from, conn, transport and msg, not {kind}"),
        ));
    }
    // The policy has bounded the depth (the message one level down), so
    // serde's own limit, one short of that, is lifted.
    let mut json = serde_json::Deserializer::from_slice(text);
    json.disable_recursion_limit();
    let record: Raw<'_> =
        serde::Deserialize::deserialize(&mut json).map_err(|err| misfit_record(text, &err))?;
    let from = match record.from.as_ref().map(|text| &*text.0) {
        Some("client") => Peer::Client,
        Some("server") => Peer::Server,
        Some(other) => {
            return Err(at(
                "/from",
                Rule::TraceRecord,
                format!(
                    "a trace record has \"from\": \"client\" or \"server\", not \"{}\"",
                    proto::wire::printable(&proto::wire::shortened(other, 200))
                ),
            ))
        }
        None => {
            return Err(at(
                "",
                Rule::TraceRecord,
                "a trace record has \"from\": \"client\" or \"server\"".into(),
            ))
        }
    };
    let msg = record.msg.ok_or_else(|| {
        at(
            "",
            Rule::TraceRecord,
            "a trace record carries the message in \"msg\"".into(),
        )
    })?;
    Ok(Some(Record {
        from,
        conn: record
            .conn
            .map(|text| CompactString::from(text.0))
            // No `conn`: the one connection, "".
            .unwrap_or_default(),
        transport: record.transport.map(|text| transport_name(&text.0)),
        findings: check_message(checker, &msg),
        fact: Fact::of(&msg),
    }))
}

fn at(pointer: &str, rule: Rule, message: String) -> Finding {
    Finding {
        keyword: None,
        pointer: pointer.into(),
        rule,
        message,
    }
}

/// The members a trace record may have.
const RECORD_MEMBERS: [&str; 5] = ["conn", "from", "transport", "msg", "mutant"];

/// Why a line the policy let through is not a record: a member of another
/// name, or the member that is not a string, by its pointer; serde's own
/// sentence names only a column.
fn misfit_record(text: &[u8], err: &serde_json::Error) -> Finding {
    let mut json = serde_json::Deserializer::from_slice(text);
    json.disable_recursion_limit();
    let value = match <Value as serde::Deserialize>::deserialize(&mut json) {
        Ok(value) => value,
        Err(_) => return at("", Rule::Json, format!("the line is not JSON: {err}")),
    };
    let unknown = value.as_object().and_then(|record| {
        record
            .keys()
            .find(|name| !RECORD_MEMBERS.contains(&name.as_str()))
    });
    if let Some(name) = unknown {
        return at(
            &format!("/{}", contract::escape_pointer_token(name)),
            Rule::TraceRecord,
            format!(
                "a trace record has no member \"{}\": its members are conn, from, transport, msg and mutant",
                proto::wire::printable(&proto::wire::shortened(name, 200))
            ),
        );
    }
    ["from", "conn", "transport"]
        .into_iter()
        .find_map(|name| {
            let member = value.get(name)?;
            (!member.is_string() && !member.is_null()).then(|| {
                at(
                    &format!("/{name}"),
                    Rule::TraceRecord,
                    format!(
                        "a trace record's \"{name}\" is a string, not {}",
                        crate::kind_of(member)
                    ),
                )
            })
        })
        .unwrap_or_else(|| {
            at(
                "",
                Rule::TraceRecord,
                format!(
                    "a trace record is an object whose from, conn and transport are strings: {err}"
                ),
            )
        })
}

pub(super) fn check_message(checker: &Checker, msg: &Value) -> Vec<crate::Finding> {
    checker.check("Envelope", msg).unwrap_or_else(|err| {
        vec![crate::Finding {
            keyword: None,
            pointer: String::new(),
            rule: Rule::Schema,
            message: err.to_string(),
        }]
    })
}

/// What the conversation rules need of one message, read off it so the
/// message itself can be dropped where it was parsed.
#[derive(Debug, Default)]
pub(crate) struct Fact {
    /// `None` when `kind` is not one of the four.
    pub kind: Option<Kind>,
    pub id: Option<u64>,
    /// A call's or reply's `body.method`.
    pub method: Option<CompactString>,
    /// A reply's `result.methods` (read for session.hello), sorted and
    /// without repeats, so a tracer can share one copy of each list among
    /// the connections offered it ([`Offers`](super::Offers)).
    pub offered: Option<Box<[String]>>,
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
                // A call without a method is refused by the schema; it still
                // opens its id.
                fact.method = Some(text(method).unwrap_or_default());
            }
            Some(Kind::Reply) => {
                let [method, result] = fields(body, ["method", "result"]);
                fact.method = text(method);
                // Kept for whichever call the reply answers; only session.hello's has it.
                let [methods] = fields(result, ["methods"]);
                fact.offered = methods.as_array().map(|methods| {
                    let mut names: Vec<String> = methods
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                    names.sort_unstable();
                    names.dedup();
                    names.into_boxed_slice()
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
                // No name is refused by the schema; "" is no event's.
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
pub(super) fn fields<'v, const N: usize>(value: &'v Value, names: [&str; N]) -> [&'v Value; N] {
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
pub(super) fn event_kind(name: &str) -> EventKind {
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
pub(super) fn transport_name(name: &str) -> Cow<'static, str> {
    match name {
        "unix" => Cow::Borrowed("unix"),
        "websocket" => Cow::Borrowed("websocket"),
        other => Cow::Owned(other.to_string()),
    }
}
