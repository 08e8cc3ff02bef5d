//! Reading messages from a file: one JSON value, a JSON array of them, or
//! JSON Lines; and checking many at once on every core.

use std::io::BufRead;

use serde_json::Value;

use crate::{Checker, Error, Finding};

/// One message of an input, located.
#[derive(Debug)]
pub struct Message<'a> {
    /// Position in the file: array index, or the line's index among messages.
    pub index: usize,
    /// 1-based line where the message starts, when the layout tells it.
    pub line: Option<usize>,
    pub text: Source<'a>,
}

#[derive(Debug)]
pub enum Source<'a> {
    /// Text still to be parsed (a JSON Lines line), as read: bytes that are
    /// not UTF-8 are the policy's to refuse, as a finding at their line.
    Text(&'a [u8]),
    /// A value already parsed (an array element).
    Value(Value),
    /// A file of messages that breaks the JSON text policy as a whole.
    Refused(Finding),
}

/// Splits a file's text into messages. A file that is one JSON value is one
/// message (or, if it is an array, one per element); anything else is read as
/// JSON Lines, each non-blank line a message, so one bad line does not hide
/// the rest.
pub fn split(text: &[u8]) -> Vec<Message<'_>> {
    let trimmed = text.trim_ascii_start();
    let start_line = || {
        let before = text.len() - trimmed.len();
        text.get(..before).map_or(1, |head| {
            head.iter().filter(|&&byte| byte == b'\n').count() + 1
        })
    };
    let one_document = (trimmed.starts_with(b"{") || trimmed.starts_with(b"["))
        && serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok();
    if one_document && trimmed.starts_with(b"[") {
        // An array of messages: the policy holds for each with one level more.
        let messages = crate::parse(text, proto::text::Layout::Contained);
        return match messages {
            Ok(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(index, value)| Message {
                    index,
                    line: None,
                    text: Source::Value(value),
                })
                .collect(),
            Ok(value) => vec![Message {
                index: 0,
                line: Some(start_line()),
                text: Source::Value(value),
            }],
            Err(finding) => vec![Message {
                index: 0,
                line: Some(start_line()),
                text: Source::Refused(finding),
            }],
        };
    }
    if one_document {
        return vec![Message {
            index: 0,
            line: Some(start_line()),
            text: Source::Text(text),
        }];
    }
    text.split(|&byte| byte == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .enumerate()
        .filter(|(_, line)| !line.trim_ascii().is_empty())
        .enumerate()
        .map(|(index, (number, line))| Message {
            index,
            line: Some(number + 1),
            text: Source::Text(line),
        })
        .collect()
}

/// Checks every message as `target`, in parallel, keeping input order.
/// A message with what was found in it.
pub type Checked<'a> = (Message<'a>, Vec<Finding>);

pub fn check_all<'a>(
    checker: &Checker,
    target: &str,
    messages: Vec<Message<'a>>,
) -> Result<Vec<Checked<'a>>, Error> {
    checker.require_type(target)?;
    let found = in_pieces(&messages, |message| check_one(checker, target, message))
        .ok_or_else(|| Error::Input {
            path: String::new(),
            message: "a checker thread failed".into(),
        })?
        .into_iter()
        .flatten()
        .collect::<Result<Vec<_>, _>>()?;
    // One entry per message, in order.
    Ok(messages.into_iter().zip(found).collect())
}

/// Runs `work` on each item on every core; the results come back in the
/// items' order, in pieces (flatten them for one per item), or `None` when a
/// thread failed. Items go in pieces of 256, each taken by whichever thread
/// is free rather than one share per thread, so a thread the machine delays
/// does not leave the other cores idle at the end. The pieces are handed
/// back as they are: joining them would copy every result once more.
pub fn in_pieces<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Option<Vec<Vec<R>>> {
    const PIECE: usize = 256;
    let pieces: Vec<&[T]> = items.chunks(PIECE).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(pieces.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Per thread: the pieces it did, by index; `None` when it failed.
    type Done<R> = Option<Vec<(usize, Vec<R>)>>;
    let done: Vec<Done<R>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(piece) = pieces.get(index) else {
                            return done;
                        };
                        done.push((index, piece.iter().map(&work).collect()));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().ok())
            .collect()
    });
    let mut ordered: Vec<Option<Vec<R>>> = (0..pieces.len()).map(|_| None).collect();
    for (index, results) in done
        .into_iter()
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .flatten()
    {
        *ordered.get_mut(index)? = Some(results);
    }
    ordered.into_iter().collect()
}

/// The longest line read, line end left out: 64 times the most a message
/// may be on the wire (`proto::MAX_FRAME`), so any capture of real traffic
/// fits, while a line with no end in sight is not held whole.
pub const MAX_LINE: usize = 64 << 20;

/// A batch stops once it holds this much text, however few lines: memory
/// holds one batch, and a batch of long lines is as long as one line.
const MAX_BATCH_TEXT: usize = MAX_LINE;

/// The largest file read whole (one JSON value, or an array of messages):
/// the value it becomes takes several times its text.
pub const MAX_DOCUMENT: usize = 256 << 20;

/// A line of a stream, as [`Lines`] read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// Its bytes, line end left out.
    Text(&'a [u8]),
    /// Longer than the limit: passed over, not kept.
    TooLong,
}

impl Line<'_> {
    /// Whether the line holds only whitespace (one past the limit is not
    /// taken for blank: it is a finding).
    pub fn is_blank(&self) -> bool {
        matches!(self, Line::Text(text) if text.trim_ascii().is_empty())
    }

    /// The finding for a line past the limit.
    pub fn too_long() -> Finding {
        Finding {
            keyword: None,
            pointer: String::new(),
            rule: crate::Rule::Json,
            message: format!(
                "the line is longer than {} MiB, the most a line is read; not read",
                MAX_LINE >> 20
            ),
        }
    }
}

/// A stream's lines, read a batch at a time into one buffer kept from batch
/// to batch: one allocation for a whole capture, not one per line. Lines are
/// bytes, not text: a line that is not UTF-8 is a finding at that line, not
/// the end of the stream. A line longer than the limit is passed over
/// without being kept ([`Line::TooLong`]), so memory stays bounded whatever
/// the stream holds.
pub struct Lines<R> {
    reader: R,
    text: Vec<u8>,
    /// Where each line of the batch starts and ends in `text`, its line end
    /// left out; `None` for a line past the limit.
    spans: Vec<Option<(usize, usize)>>,
    /// Lines read before this batch.
    before: usize,
    /// The longest line kept, line end left out.
    max_line: usize,
    /// The last batch ended on a line past the limit whose end was not yet
    /// read: the next batch passes over the rest of it first.
    unfinished: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Self {
        Self::with_limit(reader, MAX_LINE)
    }

    /// Lines of at most `max_line` bytes, line end left out.
    pub fn with_limit(reader: R, max_line: usize) -> Self {
        Lines {
            reader,
            text: Vec::new(),
            spans: Vec::new(),
            before: 0,
            max_line,
            unfinished: false,
        }
    }

    /// Reads the next batch of up to `count` lines in place of the last;
    /// `Ok(false)` when the stream had none left.
    pub fn read_batch(&mut self, count: usize) -> std::io::Result<bool> {
        self.before += self.spans.len();
        self.text.clear();
        self.spans.clear();
        if std::mem::take(&mut self.unfinished) {
            self.pass_over_line()?;
        }
        while self.spans.len() < count && self.text.len() < MAX_BATCH_TEXT.max(self.max_line) {
            let start = self.text.len();
            // Room for the line, `\r\n` and one byte more, which tells a
            // line past the limit.
            let room = self.max_line.saturating_add(3);
            let read = read_line_within(&mut self.reader, &mut self.text, room)?;
            if read == 0 {
                break;
            }
            // `start` is where this read began: within the text.
            let line = self.text.get(start..).unwrap_or_default();
            let ended = line.ends_with(b"\n");
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let end = start + line.strip_suffix(b"\r").unwrap_or(line).len();
            if end - start > self.max_line {
                self.text.truncate(start);
                self.spans.push(None);
                if !ended {
                    // Told now, passed over by the next batch: a line that
                    // never ends (a stream of NULs) is still reported.
                    self.unfinished = true;
                    break;
                }
            } else {
                self.spans.push(Some((start, end)));
            }
        }
        Ok(!self.spans.is_empty())
    }

    /// Reads on to the end of the line, keeping nothing.
    fn pass_over_line(&mut self) -> std::io::Result<()> {
        loop {
            let buffer = self.reader.fill_buf()?;
            if buffer.is_empty() {
                return Ok(());
            }
            let (used, ended) = match buffer.iter().position(|&byte| byte == b'\n') {
                Some(at) => (at + 1, true),
                None => (buffer.len(), false),
            };
            self.reader.consume(used);
            if ended {
                return Ok(());
            }
        }
    }

    /// The batch's lines with their 1-based numbers in the stream. Each span
    /// was cut from `text` as it was read, so it is in range; `get` only
    /// keeps indexing out of the reader.
    pub fn batch(&self) -> impl Iterator<Item = (usize, Line<'_>)> {
        self.spans
            .iter()
            .zip(self.before + 1..)
            .map(|(span, number)| {
                let line = match *span {
                    // The spans were cut from this text: the default is never taken.
                    Some((start, end)) => Line::Text(self.text.get(start..end).unwrap_or_default()),
                    None => Line::TooLong,
                };
                (number, line)
            })
    }

    /// The reader, the lines before this batch, and the batch's text as it
    /// was read (line ends kept): for a file to be read whole after all.
    /// `None` when a line of the batch was past the limit, and so not kept.
    pub fn into_parts(self) -> Option<(R, usize, Vec<u8>)> {
        if self.spans.iter().any(Option::is_none) {
            return None;
        }
        Some((self.reader, self.before, self.text))
    }
}

/// `read_until(b'\n')` of at most `room` bytes onto `into`, its count of
/// bytes read. `Vec`'s own growth would double the buffer past the limit
/// (a line of 64 MiB and a byte more left 128 MiB reserved, and both copies
/// alive while it moved): here it doubles too, but never past the room.
fn read_line_within<R: BufRead>(
    reader: &mut R,
    into: &mut Vec<u8>,
    room: usize,
) -> std::io::Result<usize> {
    let start = into.len();
    loop {
        let read = into.len() - start;
        let left = room.saturating_sub(read);
        if left == 0 {
            return Ok(read);
        }
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        let window = buffer.get(..buffer.len().min(left)).unwrap_or_default();
        if window.is_empty() {
            return Ok(read);
        }
        let (used, ended) = match window.iter().position(|&byte| byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (window.len(), false),
        };
        if into.capacity() - into.len() < used {
            into.reserve_exact(into.capacity().max(used).min(left));
        }
        into.extend_from_slice(window.get(..used).unwrap_or_default());
        reader.consume(used);
        if ended {
            return Ok(into.len() - start);
        }
    }
}

fn check_one(
    checker: &Checker,
    target: &str,
    message: &Message<'_>,
) -> Result<Vec<Finding>, Error> {
    match &message.text {
        Source::Value(value) => checker.check(target, value),
        Source::Text(text) => checker.check_text(target, text),
        Source::Refused(finding) => Ok(vec![finding.clone()]),
    }
}

#[cfg(test)]
mod tests {
    use super::{in_pieces, Line, Lines};

    /// Each batch's lines as `number:text`, `number:TOO LONG` past the limit.
    fn batches<R: std::io::BufRead>(lines: &mut Lines<R>, count: usize) -> Vec<Vec<String>> {
        let mut seen = Vec::new();
        while lines.read_batch(count).map_err(|e| e.to_string()) == Ok(true) {
            seen.push(
                lines
                    .batch()
                    .map(|(number, line)| match line {
                        Line::Text(text) => format!("{number}:{}", String::from_utf8_lossy(text)),
                        Line::TooLong => format!("{number}:TOO LONG"),
                    })
                    .collect::<Vec<_>>(),
            );
        }
        seen
    }

    #[test]
    fn work_in_pieces_comes_back_in_the_items_order() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled: Option<Vec<usize>> =
            in_pieces(&items, |n| n * 2).map(|pieces| pieces.into_iter().flatten().collect());
        assert_eq!(doubled, Some(items.iter().map(|n| n * 2).collect()));
        assert_eq!(in_pieces(&[] as &[usize], |n| *n), Some(Vec::new()));
    }

    #[test]
    fn lines_keep_their_numbers_across_batches_without_their_line_ends() {
        let mut lines = Lines::new("one\r\ntwo\n\nfour\nfive".as_bytes());
        assert_eq!(
            batches(&mut lines, 2),
            [vec!["1:one", "2:two"], vec!["3:", "4:four"], vec!["5:five"]]
        );
    }

    #[test]
    fn a_line_past_the_limit_is_passed_over_and_the_next_read() {
        // Limit 4: "abcd" and "wxyz\r" stay; "abcde" and a long last line
        // with no end do not, and nothing of them is kept.
        let text = "abcd\nabcde\nwxyz\r\nok\n0123456789abcdef0123456789";
        let mut lines = Lines::with_limit(text.as_bytes(), 4);
        assert_eq!(
            batches(&mut lines, 3),
            [
                vec!["1:abcd", "2:TOO LONG", "3:wxyz"],
                vec!["4:ok", "5:TOO LONG"]
            ]
        );
        let mut lines = Lines::with_limit(text.as_bytes(), 4);
        assert_eq!(lines.read_batch(2).ok(), Some(true));
        assert!(lines.into_parts().is_none(), "a line that was not kept");
    }

    /// Over generated texts, limits and batch sizes, the lines read are the
    /// text split at `\n` (one `\r` before it dropped, nothing after a final
    /// `\n`), each past the limit told as such, numbered from 1.
    #[test]
    fn lines_read_are_the_text_split_whatever_the_limit() {
        let mut rng = sample::Rng::new(7);
        for _ in 0..3000 {
            let text: Vec<u8> = (0..rng.below(40))
                .map(|_| *rng.pick(b"ab\r\n\n").unwrap_or(&b'a'))
                .collect();
            let (limit, count) = (rng.below(8), 1 + rng.below(4));
            let body = text.strip_suffix(b"\n").unwrap_or(&text);
            let expected: Vec<String> = if text.is_empty() {
                Vec::new()
            } else {
                body.split(|&byte| byte == b'\n')
                    .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
                    .enumerate()
                    .map(|(index, line)| match line.len() > limit {
                        true => format!("{}:TOO LONG", index + 1),
                        false => format!("{}:{}", index + 1, String::from_utf8_lossy(line)),
                    })
                    .collect()
            };
            let mut lines = Lines::with_limit(text.as_slice(), limit);
            let read: Vec<String> = batches(&mut lines, count).into_iter().flatten().collect();
            assert_eq!(
                read, expected,
                "{text:?}, limit {limit}, batches of {count}"
            );
            // The same through a reader that hands out a few bytes at a time.
            let small = std::io::BufReader::with_capacity(1 + rng.below(5), text.as_slice());
            let mut lines = Lines::with_limit(small, limit);
            let read: Vec<String> = batches(&mut lines, count).into_iter().flatten().collect();
            assert_eq!(
                read, expected,
                "{text:?}, limit {limit}, batches of {count}, read in pieces"
            );
        }
    }

    /// A line past the limit is told in the batch that reaches the limit,
    /// before its end is read: a stream that never ends it is reported.
    #[test]
    fn a_line_past_the_limit_is_told_before_its_end_is_read() {
        struct Broken;
        impl std::io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("no end in sight"))
            }
        }
        use std::io::Read as _;
        let endless = std::io::repeat(b'x').take(100).chain(Broken);
        let stream = std::io::BufReader::with_capacity(8, "ok\n".as_bytes().chain(endless));
        let mut lines = Lines::with_limit(stream, 10);
        assert_eq!(lines.read_batch(10).ok(), Some(true));
        let told: Vec<String> = lines
            .batch()
            .map(|(number, line)| match line {
                Line::Text(text) => format!("{number}:{}", String::from_utf8_lossy(text)),
                Line::TooLong => format!("{number}:TOO LONG"),
            })
            .collect();
        assert_eq!(told, ["1:ok", "2:TOO LONG"]);
        assert!(
            lines.read_batch(10).is_err(),
            "the rest is read on the next batch"
        );
    }

    #[test]
    fn a_line_past_the_limit_reserves_no_more_than_the_limit() {
        // Growth by doubling, as `Vec` grows, would reserve 2048 here.
        let text = vec![b'a'; 5000];
        let small = std::io::BufReader::with_capacity(7, text.as_slice());
        let mut lines = Lines::with_limit(small, 1000);
        assert_eq!(lines.read_batch(1).ok(), Some(true));
        assert!(matches!(lines.batch().next(), Some((1, Line::TooLong))));
        assert!(lines.text.capacity() <= 1003, "{}", lines.text.capacity());
    }

    #[test]
    fn a_batch_read_whole_keeps_its_text_and_the_count_before_it() {
        let mut lines = Lines::new("a\nb\n[1,\n2]\n".as_bytes());
        assert_eq!(lines.read_batch(2).ok(), Some(true));
        assert_eq!(lines.read_batch(1).ok(), Some(true));
        let (_, before, text) = lines.into_parts().expect("every line kept");
        assert_eq!((before, text.as_slice()), (2, &b"[1,\n"[..]));
    }
}
