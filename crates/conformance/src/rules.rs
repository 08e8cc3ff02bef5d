//! The conformance rules: their ids, what each asks, and the semantic checks
//! JSON Schema cannot express (closed inclusive byte ranges, coverage, sums).

use std::fmt;

use serde_json::Value;

/// Every rule a message can break. Ids are stable: lanes grep for them.
/// Each variant's id is [`Rule::id`] and what it asks [`Rule::asks`]: said
/// there once (and in `docs/conformance.md`), not again on each variant.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// A JSON Schema failure no named rule covers.
    Schema,
    SegmentRangeOrder,
    SegmentDownloadedBound,
    SegmentCompleteFull,
    DetailCount,
    DetailIndexOrder,
    DetailContiguous,
    DetailCoverage,
    DetailSum,
    DetailEmptyWhenUnsized,
    ErrorHttpStatus,
    ErrorCause,
    SummaryErrorState,
    SummaryDownloadedBound,
    SummaryCompleteFull,
    ChecksumLength,
    EnvelopeVersion,
    /// Input that is not JSON as the wire takes it (`docs/wire.md`, "JSON text").
    Json,
    /// An integer written with a fraction, an exponent or as `-0` (`1.0`,
    /// `1e3`, `-0`).
    JsonInteger,
    FrameEmpty,
    FrameTooLarge,
    FrameTruncated,
    /// The C++ mirror of an enum disagrees with the schema.
    MirrorMissing,
    MirrorExtra,
    MirrorMoved,
    /// A trace line that is not a record of one message.
    TraceRecord,
    TraceDirection,
    TraceReplyWithoutCall,
    TraceDuplicateAnswer,
    TraceIdInFlight,
    TraceReplyMethod,
    TraceUnanswered,
    TraceNotOffered,
    TraceTransport,
    TracePreviousState,
    TraceProgressBackwards,
    TraceAfterRemoved,
    TraceTransition,
    /// A live peer's answers (`vdm-conform drive`).
    DriveAnswer,
    DriveMethodNotFound,
    DriveInvalidParams,
    DriveParseError,
    DriveEventUnanswered,
    DriveStillAnswers,
    DriveOversize,
    /// A live client's side (`vdm-conform drive --as server`).
    DriveClientCalls,
    DriveCarriesOn,
}

impl Rule {
    /// Every rule, in the order `docs/conformance.md` lists them.
    pub const ALL: &'static [Rule] = &[
        Rule::Schema,
        Rule::SegmentRangeOrder,
        Rule::SegmentDownloadedBound,
        Rule::SegmentCompleteFull,
        Rule::DetailCount,
        Rule::DetailIndexOrder,
        Rule::DetailContiguous,
        Rule::DetailCoverage,
        Rule::DetailSum,
        Rule::DetailEmptyWhenUnsized,
        Rule::ErrorHttpStatus,
        Rule::ErrorCause,
        Rule::SummaryErrorState,
        Rule::SummaryDownloadedBound,
        Rule::SummaryCompleteFull,
        Rule::ChecksumLength,
        Rule::EnvelopeVersion,
        Rule::Json,
        Rule::JsonInteger,
        Rule::FrameEmpty,
        Rule::FrameTooLarge,
        Rule::FrameTruncated,
        Rule::MirrorMissing,
        Rule::MirrorExtra,
        Rule::MirrorMoved,
        Rule::TraceRecord,
        Rule::TraceDirection,
        Rule::TraceReplyWithoutCall,
        Rule::TraceDuplicateAnswer,
        Rule::TraceIdInFlight,
        Rule::TraceReplyMethod,
        Rule::TraceUnanswered,
        Rule::TraceNotOffered,
        Rule::TraceTransport,
        Rule::TracePreviousState,
        Rule::TraceProgressBackwards,
        Rule::TraceAfterRemoved,
        Rule::TraceTransition,
        Rule::DriveAnswer,
        Rule::DriveMethodNotFound,
        Rule::DriveInvalidParams,
        Rule::DriveParseError,
        Rule::DriveEventUnanswered,
        Rule::DriveStillAnswers,
        Rule::DriveOversize,
        Rule::DriveClientCalls,
        Rule::DriveCarriesOn,
    ];

    /// The id reports print (`segment.range_order`).
    pub fn id(self) -> &'static str {
        match self {
            Rule::Schema => "schema",
            Rule::SegmentRangeOrder => "segment.range_order",
            Rule::SegmentDownloadedBound => "segment.downloaded_bound",
            Rule::SegmentCompleteFull => "segment.complete_full",
            Rule::DetailCount => "detail.count",
            Rule::DetailIndexOrder => "detail.index_order",
            Rule::DetailContiguous => "detail.contiguous",
            Rule::DetailCoverage => "detail.coverage",
            Rule::DetailSum => "detail.sum",
            Rule::DetailEmptyWhenUnsized => "detail.empty_when_unsized",
            Rule::ErrorHttpStatus => "error.http_status",
            Rule::ErrorCause => "error.cause",
            Rule::SummaryErrorState => "summary.error_state",
            Rule::SummaryDownloadedBound => "summary.downloaded_bound",
            Rule::SummaryCompleteFull => "summary.complete_full",
            Rule::ChecksumLength => "checksum.length",
            Rule::EnvelopeVersion => "envelope.version",
            Rule::Json => "json",
            Rule::JsonInteger => "json.integer",
            Rule::FrameEmpty => "frame.empty",
            Rule::FrameTooLarge => "frame.too_large",
            Rule::FrameTruncated => "frame.truncated",
            Rule::MirrorMissing => "mirror.missing",
            Rule::MirrorExtra => "mirror.extra",
            Rule::MirrorMoved => "mirror.moved",
            Rule::TraceRecord => "trace.record",
            Rule::TraceDirection => "trace.direction",
            Rule::TraceReplyWithoutCall => "trace.reply_without_call",
            Rule::TraceDuplicateAnswer => "trace.duplicate_answer",
            Rule::TraceIdInFlight => "trace.id_in_flight",
            Rule::TraceReplyMethod => "trace.reply_method",
            Rule::TraceUnanswered => "trace.unanswered",
            Rule::TraceNotOffered => "trace.not_offered",
            Rule::TraceTransport => "trace.transport",
            Rule::TracePreviousState => "trace.previous_state",
            Rule::TraceProgressBackwards => "trace.progress_backwards",
            Rule::TraceAfterRemoved => "trace.after_removed",
            Rule::TraceTransition => "trace.transition",
            Rule::DriveAnswer => "drive.answer",
            Rule::DriveMethodNotFound => "drive.method_not_found",
            Rule::DriveInvalidParams => "drive.invalid_params",
            Rule::DriveParseError => "drive.parse_error",
            Rule::DriveEventUnanswered => "drive.event_unanswered",
            Rule::DriveStillAnswers => "drive.still_answers",
            Rule::DriveOversize => "drive.oversize",
            Rule::DriveClientCalls => "drive.client_calls",
            Rule::DriveCarriesOn => "drive.carries_on",
        }
    }

    /// What the rule asks, as `docs/conformance.md` says it (a test keeps
    /// the two the same).
    pub fn asks(self) -> &'static str {
        match self {
            Rule::Schema => "the message has the shape its schema gives (types, required fields, closed objects, bounds, patterns, formats)",
            Rule::SegmentRangeOrder => "`endByte >= startByte`",
            Rule::SegmentDownloadedBound => "`downloadedBytes <= endByte − startByte + 1`",
            Rule::SegmentCompleteFull => "a `complete` segment has all its bytes",
            Rule::DetailCount => "`segmentDetail` has `summary.segments` entries (when not empty)",
            Rule::DetailIndexOrder => "entry `i` has `index: i`",
            Rule::DetailContiguous => "each `startByte` is the previous `endByte + 1` (no gap, no overlap)",
            Rule::DetailCoverage => "the first range starts at 0 and the last ends at `sizeBytes − 1`",
            Rule::DetailSum => "the segments' `downloadedBytes` add up to `summary.downloadedBytes`",
            Rule::DetailEmptyWhenUnsized => "`segmentDetail` is empty while `sizeBytes` is null or 0",
            Rule::ErrorHttpStatus => "`httpStatus` is present exactly when the code is in `x-carriesHttpStatus` (schema `if`/`then`)",
            Rule::ErrorCause => "`cause` only on `max_retries_exhausted`, and never equal to it (schema `if`/`then`)",
            Rule::SummaryErrorState => "`error` is present exactly when `state` is `failed` or `retry_wait` (schema `if`/`then`)",
            Rule::SummaryDownloadedBound => "`downloadedBytes <= sizeBytes` when the size is known",
            Rule::SummaryCompleteFull => "`complete` means `downloadedBytes == sizeBytes`",
            Rule::ChecksumLength => "the digest is as long as its algorithm's: 32, 40, 64, 128 hex digits (schema `if`/`then`)",
            Rule::EnvelopeVersion => "`v` is 1",
            Rule::Json => "the input is JSON as the wire takes it (`docs/wire.md`, \"JSON text\": UTF-8 without a byte-order mark, one value, nested at most 127 deep, no member named twice, no half surrogate pair, integer literals within ±(2^53 − 1))",
            Rule::JsonInteger => "where the contract wants an integer, it is written as one (`1.0`, `1e3` and `-0` are not)",
            Rule::FrameEmpty => "a frame's length is not 0",
            Rule::FrameTooLarge => "a frame's length is at most 1,048,576 (ends the capture)",
            Rule::FrameTruncated => "the capture does not end inside a frame",
            Rule::MirrorMissing => "every TaskErrorCode value is in the C++ enum",
            Rule::MirrorExtra => "the C++ enum has no value TaskErrorCode lacks",
            Rule::MirrorMoved => "the shared values are in the same order",
            Rule::TraceRecord => "each line is one record with `from` and `msg`, and no member but `conn`, `from`, `transport`, `msg` and `mutant`",
            Rule::TraceDirection => "calls come from the client; replies, errors and events from the server",
            Rule::TraceReplyWithoutCall => "a reply or error answers a call that is open",
            Rule::TraceDuplicateAnswer => "a call is answered once",
            Rule::TraceIdInFlight => "an id is not reused while its call is open",
            Rule::TraceReplyMethod => "a reply names its call's method",
            Rule::TraceUnanswered => "every call is answered by the end (a warning unless `--closed` says the capture ended cleanly)",
            Rule::TraceNotOffered => "a call names a method the `session.hello` result offered",
            Rule::TraceTransport => "a record's transport is one the contract names (`Transport`: `unix`, `websocket`), a connection keeps one transport, and a unix-only method never travels on a websocket connection",
            Rule::TracePreviousState => "`event.task.state`'s `previousState` is the last state told for that task",
            Rule::TraceProgressBackwards => "a task's `downloadedBytes` does not fall between two progress events without a state event between them",
            Rule::TraceAfterRemoved => "nothing is said about a task after its `event.task.removed`",
            Rule::TraceTransition => "with `--transitions FILE`, each state change is in the table",
            Rule::DriveAnswer => "each call is answered, within the timeout, with its id: a reply naming its method, or an error",
            Rule::DriveMethodNotFound => "a call of a method the peer does not know is answered `-32601` with its id",
            Rule::DriveInvalidParams => "a known method with params that do not fit is answered `-32602` with its id",
            Rule::DriveParseError => "a body that is not JSON is answered `-32700` with id `null`",
            Rule::DriveEventUnanswered => "events are never answered, an unknown one or one with a field this version lacks included",
            Rule::DriveStillAnswers => "after all of that, the peer still answers a call",
            Rule::DriveOversize => "a length past 1,048,576 ends the session: the peer closes its stream without waiting for the body (an error before closing is allowed)",
            Rule::DriveClientCalls => "a client sends calls, at least one within the timeout, and nothing else: replies, errors and events come from the server",
            Rule::DriveCarriesOn => "a client sent an unknown event, an event and a reply with a field this version lacks, and a body that is not JSON carries on: its stream stays whole, it reads its answers, and a started client exits 0",
        }
    }

    /// The rule an `x-rule` annotation names.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|rule| rule.id() == id)
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One broken rule inside one value: the one finding type from the rule
/// that finds it to the report, where [`TraceFinding`](crate::trace::TraceFinding)
/// and [`Violation`](crate::report::Violation) only add where the value stands.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Finding {
    /// JSON pointer into the value.
    pub pointer: String,
    /// The rule broken.
    pub rule: Rule,
    /// The JSON Schema keyword that refused the value (`required`,
    /// `additionalProperties`), for a finding of the schema: what tells two
    /// `schema` findings at one place apart. `None` for the semantic rules,
    /// the trace rules and the text policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// A place being checked: a JSON pointer kept as a stack of tokens, turned
/// into text only when something is reported.
#[derive(Clone, Debug, Default)]
pub struct Path(Vec<String>);

impl Path {
    /// One level down, at `token` (a member name or an index).
    pub fn push(&mut self, token: impl fmt::Display) {
        self.0.push(token.to_string());
    }

    /// One level up.
    pub fn pop(&mut self) {
        self.0.pop();
    }

    /// The JSON pointer of the place.
    pub fn pointer(&self) -> String {
        self.0
            .iter()
            .map(|t| format!("/{}", contract::escape_pointer_token(t)))
            .collect()
    }

    /// The JSON pointer of `token` one level down.
    pub fn with(&self, token: impl fmt::Display) -> String {
        format!(
            "{}/{}",
            self.pointer(),
            contract::escape_pointer_token(&token.to_string())
        )
    }
}

fn uint(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

fn found(out: &mut Vec<Finding>, pointer: String, rule: Rule, message: String) {
    out.push(Finding {
        keyword: None,
        pointer,
        rule,
        message,
    });
}

/// A semantic rule check of one value of its type, at `path`.
pub(crate) type SemanticCheck = fn(&Value, &mut Path, &mut Vec<Finding>);

/// The types that carry semantic rules, each with its check and the rules
/// it judges: the one list the compiled plan stops at, [`crate::Checker::check`]
/// runs and the reference pages name.
pub(crate) const SEMANTIC: &[(&str, SemanticCheck, &[Rule])] = &[
    (
        "TaskDetail",
        check_detail,
        &[
            Rule::DetailCount,
            Rule::DetailIndexOrder,
            Rule::DetailContiguous,
            Rule::DetailCoverage,
            Rule::DetailSum,
            Rule::DetailEmptyWhenUnsized,
        ],
    ),
    (
        "TaskSummary",
        |value, path, out| check_summary(value, path, out),
        &[Rule::SummaryDownloadedBound, Rule::SummaryCompleteFull],
    ),
    (
        "Segment",
        |value, path, out| check_segment(value, path, out),
        &[
            Rule::SegmentRangeOrder,
            Rule::SegmentDownloadedBound,
            Rule::SegmentCompleteFull,
        ],
    ),
];

/// The rules the checker judges a value of `type_name` by beyond its schema
/// (rules a schema names with `x-rule` are not among them).
pub fn semantic_rules(type_name: &str) -> &'static [Rule] {
    if type_name == "Envelope" {
        // Judged before the schema: a `v` other than 1 decides alone.
        return &[Rule::EnvelopeVersion];
    }
    SEMANTIC
        .iter()
        .find(|(name, _, _)| *name == type_name)
        .map_or(&[], |(_, _, rules)| rules)
}

/// `Segment`: a closed, inclusive byte range and its progress.
pub fn check_segment(segment: &Value, path: &Path, out: &mut Vec<Finding>) {
    let (Some(start), Some(end), Some(done)) = (
        uint(segment, "startByte"),
        uint(segment, "endByte"),
        uint(segment, "downloadedBytes"),
    ) else {
        return; // the schema reports missing or mistyped fields
    };
    if end < start {
        found(
            out,
            path.with("endByte"),
            Rule::SegmentRangeOrder,
            format!(
                "endByte {end} is before startByte {start}; ranges are closed and inclusive, so a \
                 segment always holds at least one byte (endByte >= startByte)"
            ),
        );
        return;
    }
    // u128: [0, u64::MAX] holds 2^64 bytes.
    let length = u128::from(end - start) + 1;
    if u128::from(done) > length {
        found(
            out,
            path.with("downloadedBytes"),
            Rule::SegmentDownloadedBound,
            format!(
                "downloadedBytes {done} is more than the segment's {length} bytes \
                 ([{start}, {end}] inclusive holds endByte - startByte + 1)"
            ),
        );
    }
    if segment.get("state").and_then(Value::as_str) == Some("complete")
        && u128::from(done) != length
    {
        found(
            out,
            path.with("downloadedBytes"),
            Rule::SegmentCompleteFull,
            format!(
                "the segment is complete but downloadedBytes is {done}, not its length {length}"
            ),
        );
    }
}

/// `TaskSummary`: progress against size, and completion.
pub fn check_summary(summary: &Value, path: &Path, out: &mut Vec<Finding>) {
    let done = uint(summary, "downloadedBytes");
    let size = uint(summary, "sizeBytes");
    if let (Some(done), Some(size)) = (done, size) {
        if done > size {
            found(
                out,
                path.with("downloadedBytes"),
                Rule::SummaryDownloadedBound,
                format!("downloadedBytes {done} is more than sizeBytes {size}"),
            );
        }
    }
    if summary.get("state").and_then(Value::as_str) == Some("complete")
        && done.is_some()
        && done != size
    {
        let size = size.map_or("unknown (null)".to_string(), |size| size.to_string());
        found(
            out,
            path.with("downloadedBytes"),
            Rule::SummaryCompleteFull,
            format!(
                "the task is complete but downloadedBytes is {}, and sizeBytes is {size}",
                done.unwrap_or(0)
            ),
        );
    }
}

/// `TaskDetail`: the segments tile `[0, sizeBytes − 1]` exactly. (Each
/// segment's own rules are checked where the walk reaches it as a `Segment`.)
pub fn check_detail(detail: &Value, path: &mut Path, out: &mut Vec<Finding>) {
    let Some(summary) = detail.get("summary") else {
        return;
    };
    let Some(segments) = detail.get("segmentDetail").and_then(Value::as_array) else {
        return;
    };
    let size = uint(summary, "sizeBytes");
    if size.is_none_or(|size| size == 0) {
        if !segments.is_empty() {
            found(
                out,
                path.with("segmentDetail"),
                Rule::DetailEmptyWhenUnsized,
                format!(
                    "the size is {}, so segmentDetail must be empty, but it has {} entries",
                    size.map_or("unknown".into(), |s| s.to_string()),
                    segments.len()
                ),
            );
        }
        return;
    }
    if segments.is_empty() {
        return;
    }
    if let Some(count) = uint(summary, "segments") {
        if count != segments.len() as u64 {
            found(
                out,
                path.with("segmentDetail"),
                Rule::DetailCount,
                format!(
                    "segmentDetail has {} entries but summary.segments says {count} connections are in use",
                    segments.len()
                ),
            );
        }
    }
    path.push("segmentDetail");
    let sum = detail_tiling(segments, path, out);
    path.pop();
    if let Some(size) = size {
        detail_coverage(segments, size, path, out);
    }
    if let Some(total) = uint(summary, "downloadedBytes") {
        if total != sum {
            found(
                out,
                format!("{}/summary/downloadedBytes", path.pointer()),
                Rule::DetailSum,
                format!("the segments' downloadedBytes add up to {sum}, but summary.downloadedBytes is {total}"),
            );
        }
    }
}

/// `detail.index_order` and `detail.contiguous` over the segments, at
/// `path` (the list); returns the sum of their `downloadedBytes`.
fn detail_tiling(segments: &[Value], path: &mut Path, out: &mut Vec<Finding>) -> u64 {
    let mut previous_end: Option<u64> = None;
    let mut sum: u64 = 0;
    for (position, segment) in segments.iter().enumerate() {
        path.push(position);
        if let Some(index) = uint(segment, "index") {
            if index != position as u64 {
                found(
                    out,
                    path.with("index"),
                    Rule::DetailIndexOrder,
                    format!("entry {position} has index {index}; segments are listed by index, 0 to n-1 in order"),
                );
            }
        }
        let start = uint(segment, "startByte");
        let end = uint(segment, "endByte");
        if let (Some(previous), Some(start)) = (previous_end, start) {
            if previous.checked_add(1) != Some(start) {
                let how = if start <= previous {
                    "overlaps"
                } else {
                    "leaves a gap after"
                };
                let half_open = if start == previous {
                    " (endByte looks half-open: one past the last byte)"
                } else {
                    ""
                };
                found(
                    out,
                    path.with("startByte"),
                    Rule::DetailContiguous,
                    format!(
                        "startByte {start} {how} the previous segment, which ends at {previous}; the next \
                         segment must start at {}{half_open}",
                        previous.saturating_add(1)
                    ),
                );
            }
        }
        previous_end = end.or(previous_end);
        sum = sum.saturating_add(uint(segment, "downloadedBytes").unwrap_or(0));
        path.pop();
    }
    sum
}

/// `detail.coverage`: the segments run from byte 0 to the last byte of a
/// `size`-byte file (`size` > 0).
fn detail_coverage(segments: &[Value], size: u64, path: &Path, out: &mut Vec<Finding>) {
    let first = segments.first().and_then(|s| uint(s, "startByte"));
    let last = segments.last().and_then(|s| uint(s, "endByte"));
    if first != Some(0) || last != Some(size - 1) {
        let half_open = if last == Some(size) {
            "; endByte is the last byte, not one past it"
        } else {
            ""
        };
        found(
            out,
            path.with("segmentDetail"),
            Rule::DetailCoverage,
            format!(
                "the segments cover [{}, {}] but a {size}-byte file is [0, {}]{half_open}",
                first.map_or("?".into(), |v| v.to_string()),
                last.map_or("?".into(), |v| v.to_string()),
                size - 1
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_spanning_every_u64_byte_is_measured_without_overflow() {
        let segment = serde_json::json!({
            "index": 0, "startByte": 0, "endByte": u64::MAX,
            "downloadedBytes": u64::MAX, "state": "complete"
        });
        let mut out = Vec::new();
        check_segment(&segment, &Path::default(), &mut out);
        // 2^64 bytes, of which 2^64 - 1 are there: not full.
        let rules: Vec<Rule> = out.iter().map(|finding| finding.rule).collect();
        assert_eq!(rules, vec![Rule::SegmentCompleteFull], "{out:#?}");
    }
}
