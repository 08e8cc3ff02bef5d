//! What `vdm-conform check`, `frames` and `trace` do with their inputs:
//! files read as streams, a batch at a time on every core, each finding
//! handed to a [`Sink`] as a [`Violation`] as soon as it is found.

use std::io::{BufRead, Read};

use proto::{FrameError, FrameReader};

use crate::report::Violation;
use crate::{input, Checker, Rule};

/// Where violations go as they are found.
pub trait Sink: Send {
    /// Violations found; each counts.
    fn emit(&mut self, violations: Vec<Violation>);
    /// Warnings, printed where violations go; they do not count.
    fn warn(&mut self, warnings: &[Violation]);
}

/// Lines checked together: both cores work on a batch, and memory holds one.
const BATCH: usize = 8192;

/// Checks one file's messages, printing violations as they are found;
/// returns how many messages it held. JSON Lines are read as a stream, a
/// batch at a time; a JSON array, or one value spread over lines, is read
/// whole.
pub fn check_file(
    checker: &Checker,
    type_name: &str,
    file: &str,
    out: &mut dyn Sink,
) -> Result<usize, String> {
    let mut lines = input::Lines::new(open_text(file)?);
    let read =
        |lines: &mut input::Lines<_>| lines.read_batch(BATCH).map_err(|e| format!("{file}: {e}"));
    // The first line that is not blank tells the layout.
    let whole = loop {
        if !read(&mut lines)? {
            return Ok(0);
        }
        if let Some((_, head)) = lines.batch().find(|(_, line)| !line.is_blank()) {
            // A line past the limit is a finding of its own: JSON Lines.
            let input::Line::Text(head) = head else {
                break false;
            };
            let head = head.trim_ascii();
            // A line that is not UTF-8 is no start of one document: JSON
            // Lines, where that line is a finding of its own.
            break head.starts_with(b"[")
                || (std::str::from_utf8(head).is_ok()
                    && serde_json::from_slice::<serde::de::IgnoredAny>(head).is_err());
        }
    };
    let checked = |batch: Vec<input::Message<'_>>| -> Result<Vec<Violation>, String> {
        Ok(input::check_all(checker, type_name, batch)
            .map_err(|e| e.to_string())?
            .into_iter()
            .flat_map(|(message, findings)| {
                findings.into_iter().map(move |f| Violation {
                    file: file.to_string(),
                    index: Some(message.index),
                    line: message.line,
                    offset: None,
                    finding: f,
                })
            })
            .collect())
    };
    if whole {
        // The blank lines before this batch stay as line ends, so lines keep
        // their numbers.
        let too_big = |what: String| {
            format!("{file}: {what}, so it is not read whole; write its messages one per line (JSON Lines)")
        };
        let (reader, before, batch) = lines.into_parts().ok_or_else(|| {
            too_big(format!(
                "a line of this JSON document is longer than {} MiB",
                input::MAX_LINE >> 20
            ))
        })?;
        let larger = || {
            too_big(format!(
                "this JSON document is larger than {} MiB",
                input::MAX_DOCUMENT >> 20
            ))
        };
        // Told before the blank lines are kept: a file of gigabytes of them
        // would otherwise be held whole first.
        if before.saturating_add(batch.len()) > input::MAX_DOCUMENT {
            return Err(larger());
        }
        let mut text = vec![b'\n'; before];
        text.extend_from_slice(&batch);
        // One byte past the limit tells a document that is larger.
        let room = (input::MAX_DOCUMENT + 1).saturating_sub(text.len()) as u64;
        reader
            .take(room)
            .read_to_end(&mut text)
            .map_err(|e| format!("{file}: {e}"))?;
        if text.len() > input::MAX_DOCUMENT {
            return Err(larger());
        }
        let messages = input::split(&text);
        let count = messages.len();
        out.emit(checked(messages)?);
        return Ok(count);
    }
    let mut count = 0;
    loop {
        let messages: Vec<input::Message<'_>> = lines
            .batch()
            .filter(|(_, line)| !line.is_blank())
            .zip(count..)
            .map(|((number, line), index)| input::Message {
                index,
                line: Some(number),
                text: match line {
                    input::Line::Text(text) => input::Source::Text(text),
                    input::Line::TooLong => input::Source::Refused(input::Line::too_long()),
                },
            })
            .collect();
        count += messages.len();
        out.emit(checked(messages)?);
        if !read(&mut lines)? {
            return Ok(count);
        }
    }
}

/// A file, or standard input for `-`, read through a buffer. A directory is
/// an I/O error here, not an input that cannot be read further.
pub fn open(file: &str) -> Result<Box<dyn BufRead>, String> {
    if file == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let opened = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    if opened.metadata().is_ok_and(|meta| meta.is_dir()) {
        return Err(format!("{file}: is a directory; name the files in it"));
    }
    Ok(Box::new(std::io::BufReader::new(opened)))
}

/// A file of text (JSON, JSON Lines, a trace), opened as [`open`] opens it.
/// One that is UTF-16 by its first bytes (what some shells write on `>`), or
/// starts with a compressor's magic number or a frame's length prefix, is named
/// as such, once, instead of read as lines of bytes that are not UTF-8 or
/// not JSON: no JSON text in UTF-8 starts with those bytes.
pub fn open_text(file: &str) -> Result<Box<dyn BufRead>, String> {
    let mut reader = open(file)?;
    let head = reader.fill_buf().map_err(|e| format!("{file}: {e}"))?;
    if let Some((format, tool)) = compressed(head) {
        return Err(format!(
            "{file}: {format}-compressed, not text; read it decompressed \
             (`{tool} {file} | vdm-conform … -`)"
        ));
    }
    let wide = proto::text::wide_text(head);
    // A frame's length prefix starts so (a frame carries at most 1 MiB),
    // and no JSON text does (a raw NUL is UTF-8, but not JSON); UTF-32 is
    // told apart by the NULs of the next character, which a frame's text
    // does not start with.
    if let [0, second, ..] = head {
        if *second <= 0x10 && wide.is_none_or(|wide| wide.name != "UTF-32") {
            return Err(format!(
                "{file}: starts with the bytes of a frame's length prefix, not text; \
                 read a frame capture with `vdm-conform frames`"
            ));
        }
    }
    if let Some(proto::text::WideText {
        name,
        why,
        encoding,
    }) = wide
    {
        return Err(format!(
            "{file}: {name} text ({why}), where messages are UTF-8; convert it first \
             (`iconv -f {encoding} -t UTF-8`)"
        ));
    }
    Ok(reader)
}

/// The compressor and the command that decompresses, when `head` starts
/// with a compressor's magic number (none of them starts UTF-8 text; a
/// frame's length prefix cannot be as large as any of them).
fn compressed(head: &[u8]) -> Option<(&'static str, &'static str)> {
    [
        (&[0x1F, 0x8B][..], "gzip", "zcat"),
        (&[0x28, 0xB5, 0x2F, 0xFD][..], "zstd", "zstdcat"),
        (&[0xFD, 0x37, 0x7A, 0x58][..], "xz", "xzcat"),
    ]
    .into_iter()
    .find(|(magic, _, _)| head.starts_with(magic))
    .map(|(_, format, tool)| (format, tool))
}

/// Counts the bytes read through it, to place each frame.
struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// Checks one trace as a stream, line by line, printing violations as they
/// are found; returns how many records it held. Calls left open at the end
/// are violations when the capture is `closed`, warnings (on stderr)
/// otherwise.
pub fn check_trace(
    checker: &Checker,
    file: &str,
    transitions: Option<crate::trace::Transitions>,
    closed: bool,
    out: &mut dyn Sink,
) -> Result<usize, String> {
    let mut lines = input::Lines::new(open_text(file)?);
    let files = [file, file];
    // Reading a record (parsing it, checking its message) needs no other
    // record, so a batch is read on every core; the conversation rules then
    // follow the records in order, on a thread of their own, while this one
    // reads the next batch.
    let (read, records) = std::sync::mpsc::sync_channel::<(usize, Vec<Vec<ReadRecord>>)>(1);
    std::thread::scope(|scope| {
        let follower = scope.spawn(move || {
            let mut tracer = crate::trace::Tracer::new(checker, transitions);
            for (first, pieces) in records {
                let mut findings = Vec::new();
                for (read, number) in pieces.into_iter().flatten().zip(first..) {
                    let place = crate::trace::Place::Line(number);
                    match read {
                        Ok(None) => {}
                        Ok(Some(record)) => findings.extend(tracer.follow(place, record)),
                        Err(finding) => {
                            findings.push(crate::trace::TraceFinding { place, finding })
                        }
                    }
                }
                out.emit(trace_violations(files, findings));
            }
            finish_trace(&tracer, files, closed, out);
            tracer.records
        });
        let mut failure = None;
        loop {
            match lines.read_batch(BATCH) {
                Ok(true) => {}
                Ok(false) => break,
                Err(err) => {
                    failure = Some(format!("{file}: {err}"));
                    break;
                }
            }
            let batch: Vec<(usize, input::Line<'_>)> = lines.batch().collect();
            let first = batch.first().map_or(1, |(number, _)| *number);
            if read.send((first, read_records(checker, &batch))).is_err() {
                break;
            }
        }
        drop(read);
        let records = follower
            .join()
            .map_err(|_| format!("{file}: the thread following the conversation failed"))?;
        match failure {
            Some(failure) => Err(failure),
            None => Ok(records),
        }
    })
}

type ReadRecord = Result<Option<crate::trace::Record>, crate::Finding>;

/// Reads a batch of trace lines on every core, keeping their order, in
/// pieces. Each message is parsed and dropped on the thread that reads it;
/// only its `Record` crosses over.
fn read_records(checker: &Checker, lines: &[(usize, input::Line<'_>)]) -> Vec<Vec<ReadRecord>> {
    input::in_pieces(lines, |(_, line)| match line {
        input::Line::Text(text) => crate::trace::read_record(checker, text),
        input::Line::TooLong => Err(input::Line::too_long()),
    })
    .unwrap_or_else(|| {
        // One finding per line, so the lines after the batch keep their numbers.
        vec![lines
            .iter()
            .map(|_| {
                Err(crate::Finding {
                    keyword: None,
                    pointer: String::new(),
                    rule: Rule::Schema,
                    message: "the thread reading this line failed".to_string(),
                })
            })
            .collect()]
    })
}

/// A trace finding as a violation: a line of `files[0]`, or a frame of the
/// client's (`files[0]`) or the server's (`files[1]`) capture.
fn trace_violations(files: [&str; 2], findings: Vec<crate::trace::TraceFinding>) -> Vec<Violation> {
    use crate::trace::{Peer, Place};
    findings
        .into_iter()
        .map(|f| {
            let (file, line, offset) = match f.place {
                Place::Line(line) => (files[0], Some(line), None),
                Place::Frame {
                    from: Peer::Client,
                    offset,
                } => (files[0], None, Some(offset)),
                Place::Frame {
                    from: Peer::Server,
                    offset,
                } => (files[1], None, Some(offset)),
            };
            Violation {
                file: file.to_string(),
                index: None,
                line,
                offset,
                finding: f.finding,
            }
        })
        .collect()
}

/// Calls left open at the end: violations when the capture is `closed`,
/// warnings otherwise (printed with the violations, in the same format).
fn finish_trace(
    tracer: &crate::trace::Tracer<'_>,
    files: [&str; 2],
    closed: bool,
    out: &mut dyn Sink,
) {
    // A piece at a time: a capture may leave millions open.
    for piece in tracer.open_calls().chunks(BATCH) {
        let findings = piece
            .iter()
            .map(|(place, id, method)| crate::trace::unanswered(*place, *id, method))
            .collect();
        let open_calls = trace_violations(files, findings);
        if closed {
            out.emit(open_calls);
        } else {
            out.warn(&open_calls);
        }
    }
}

/// One direction's frame capture, read a frame at a time.
struct Capture<'f> {
    file: &'f str,
    from: crate::trace::Peer,
    reader: FrameReader<Counting<Box<dyn BufRead>>>,
    done: bool,
    frames: usize,
    empty_run: EmptyRun,
}

impl Capture<'_> {
    /// The next frame's message and place; frames that hold no message are
    /// reported into `out` and skipped. `None` at the end of the capture, or
    /// after a frame error the capture cannot go on from.
    fn next(&mut self, out: &mut dyn Sink) -> Option<(crate::trace::Place, serde_json::Value)> {
        while !self.done {
            let offset = self.reader.get_ref().count;
            let place = crate::trace::Place::Frame {
                from: self.from,
                offset,
            };
            let violation = |rule: Rule, message: String, offset: u64| Violation {
                file: self.file.to_string(),
                index: None,
                line: None,
                offset: Some(offset),
                finding: crate::Finding {
                    keyword: None,
                    pointer: String::new(),
                    rule,
                    message,
                },
            };
            let read = self.reader.read_raw();
            if matches!(read, Err(FrameError::Empty)) {
                if !self.empty_run.first_of_run(self.frames, offset) {
                    self.frames += 1;
                    continue;
                }
            } else if let Some((_, at, message)) = self.empty_run.end() {
                out.emit(vec![violation(Rule::FrameEmpty, message, at)]);
            }
            let mut refuse =
                |rule: Rule, message: String| out.emit(vec![violation(rule, message, offset)]);
            match read {
                Ok(body) => {
                    self.frames += 1;
                    match crate::parse(body, proto::text::Layout::Envelope) {
                        Ok(value) => return Some((place, value)),
                        Err(finding) => refuse(
                            finding.rule,
                            format!("the frame's body: {}", finding.message),
                        ),
                    }
                }
                Err(FrameError::Closed) => self.done = true,
                Err(err) => {
                    let (rule, message, goes_on) = refusal(err);
                    // Counted like any frame: a side that is one cut frame
                    // is a broken capture, which its finding says, not an
                    // empty one.
                    self.frames += 1;
                    self.done = !goes_on;
                    refuse(rule, message)
                }
            }
        }
        None
    }
}

/// Checks one unix-socket connection from its two frame captures, as a
/// stream. The captures do not say how the two directions interleave, so each
/// server message is checked after the client's calls up to the one it
/// answers (or all of them, when none is open with its id) and before the
/// rest: the latest order the captures allow for each call, which is the one
/// that blames the peers least. Returns how many frames the two held.
pub fn check_trace_pair(
    checker: &Checker,
    [client, server]: [&String; 2],
    transitions: Option<crate::trace::Transitions>,
    closed: bool,
    out: &mut dyn Sink,
) -> Result<usize, String> {
    use crate::trace::Peer;
    let files = [client.as_str(), server.as_str()];
    let capture = |file, from| -> Result<Capture<'_>, String> {
        Ok(Capture {
            file,
            from,
            reader: FrameReader::new(Counting {
                inner: open(file)?,
                count: 0,
            }),
            done: false,
            frames: 0,
            empty_run: EmptyRun::default(),
        })
    };
    let mut clients = capture(files[0], Peer::Client)?;
    let mut servers = capture(files[1], Peer::Server)?;
    let mut tracer = crate::trace::Tracer::new(checker, transitions);
    let transport = || Some(std::borrow::Cow::Borrowed("unix"));
    while let Some((place, msg)) = servers.next(out) {
        let answers = matches!(
            msg.get("kind").and_then(serde_json::Value::as_str),
            Some("reply" | "error")
        );
        if let (true, Some(id)) = (answers, msg.get("id").and_then(serde_json::Value::as_u64)) {
            while !tracer.is_open("", id) {
                let Some((call_place, call)) = clients.next(out) else {
                    break;
                };
                out.emit(trace_violations(
                    files,
                    tracer.feed(call_place, "", Peer::Client, transport(), &call),
                ));
            }
        }
        out.emit(trace_violations(
            files,
            tracer.feed(place, "", Peer::Server, transport(), &msg),
        ));
    }
    while let Some((place, msg)) = clients.next(out) {
        out.emit(trace_violations(
            files,
            tracer.feed(place, "", Peer::Client, transport(), &msg),
        ));
    }
    finish_trace(&tracer, files, closed, out);
    Ok(clients.frames + servers.frames)
}

/// Checks one capture frame by frame, printing violations as they are
/// found; returns how many frames it held, the one it could not read counted
/// (a capture that is one cut frame holds a broken frame, not nothing).
pub fn check_frames(
    checker: &Checker,
    file: &str,
    input: Box<dyn BufRead>,
    sink: &mut dyn Sink,
) -> usize {
    let mut reader = FrameReader::new(Counting {
        inner: input,
        count: 0,
    });
    let mut index = 0;
    let mut empty_run = EmptyRun::default();
    loop {
        let mut out = Vec::new();
        let offset = reader.get_ref().count;
        let found = |finding: crate::Finding| Violation {
            file: file.to_string(),
            index: Some(index),
            line: None,
            offset: Some(offset),
            finding,
        };
        // The frame's own faults are the frame's, at no place inside it.
        let violation = |rule: Rule, message: String| {
            found(crate::Finding {
                keyword: None,
                pointer: String::new(),
                rule,
                message,
            })
        };
        let read = reader.read_raw();
        if matches!(read, Err(FrameError::Empty)) {
            if !empty_run.first_of_run(index, offset) {
                index += 1;
                continue;
            }
        } else if let Some((last, at, message)) = empty_run.end() {
            sink.emit(vec![Violation {
                index: Some(last),
                offset: Some(at),
                ..violation(Rule::FrameEmpty, message)
            }]);
        }
        match read {
            Ok(body) => match checker.check_text("Envelope", body) {
                Ok(findings) => out.extend(findings.into_iter().map(found)),
                Err(err) => out.push(violation(Rule::Schema, err.to_string())),
            },
            Err(FrameError::Closed) => break,
            Err(err) => {
                let (rule, message, goes_on) = refusal(err);
                out.push(violation(rule, message));
                if !goes_on {
                    sink.emit(out);
                    index += 1;
                    break;
                }
            }
        }
        sink.emit(out);
        index += 1;
    }
    index
}

/// A run of empty frames (a capture's zero-filled tail, four bytes each):
/// told at its first frame and once more at its last, with how many it
/// held, rather than once a frame.
#[derive(Default)]
struct EmptyRun {
    /// The offset of the run's first frame.
    first: u64,
    /// The index and offset of its latest.
    last: (usize, u64),
    /// How many it holds so far; 0 outside a run.
    count: usize,
}

impl EmptyRun {
    /// Notes an empty frame; whether it starts a run (and is told).
    fn first_of_run(&mut self, index: usize, offset: u64) -> bool {
        if self.count == 0 {
            self.first = offset;
        }
        self.count += 1;
        self.last = (index, offset);
        self.count == 1
    }

    /// Ends the run at a frame that is not empty, or at the capture's end:
    /// the index, offset and message of the finding for its last frame,
    /// when it held more than one.
    fn end(&mut self) -> Option<(usize, u64, String)> {
        let count = std::mem::take(&mut self.count);
        let (index, offset) = self.last;
        (count > 1).then(|| {
            (
                index,
                offset,
                format!(
                    "the last of {count} empty frames in a row, from byte {} (length 0 each)",
                    self.first
                ),
            )
        })
    }
}

/// A frame the capture holds no message in: its rule, what to say, and
/// whether the capture can be read on after it (only after an empty frame:
/// past an oversize length or inside a cut frame nothing is in step).
fn refusal(err: FrameError) -> (Rule, String, bool) {
    match err {
        FrameError::Empty => (Rule::FrameEmpty, err.to_string(), true),
        FrameError::TooLarge(len) => {
            // A length prefix that spells text is most often a file of
            // JSON Lines given to the frame reader.
            let prefix = u32::try_from(len).map(u32::to_be_bytes).ok();
            let packed = prefix.and_then(|bytes| compressed(&bytes));
            let hint = match (proto::frame::spelled_length(len), packed) {
                (Some(text), _) => format!(
                    " (the length prefix's four bytes spell {text}: JSON text, not frames? `vdm-conform check` reads JSON Lines)"
                ),
                (None, Some((format, tool))) => format!(
                    " (the length prefix's bytes are {format}'s magic number: read the capture decompressed, `{tool} FILE | vdm-conform frames -`)"
                ),
                (None, None) => String::new(),
            };
            (
                Rule::FrameTooLarge,
                format!("{err}; the rest of the capture cannot be read{hint}"),
                false,
            )
        }
        FrameError::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => (
            Rule::FrameTruncated,
            "the capture ends inside a frame: its length prefix or its body is cut short".into(),
            false,
        ),
        FrameError::Io(io) => (
            Rule::FrameTruncated,
            format!(
                "reading the capture failed inside a frame ({io}); nothing after it can be read"
            ),
            false,
        ),
        err => (
            Rule::FrameTruncated,
            format!("{err}; the capture ends inside a frame"),
            false,
        ),
    }
}
