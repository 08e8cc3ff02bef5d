//! JSON text read at any depth without overflowing the stack, and with no
//! object naming a member twice.
//!
//! serde_json stops at 128 levels by default and would call a deeper but
//! valid document "not JSON". Here the nesting is measured first, by a scan
//! of the text that keeps no values (so nothing deep is ever built or
//! dropped); a document within [`MAX_JSON_DEPTH`] is then parsed as usual,
//! and a deeper one is only checked to be JSON (serde_json with no depth
//! limit, its stack grown on the heap by `serde_stacker`, made for this,
//! into `IgnoredAny`) and kept as the fact that it is too deep, because
//! everything that reads a `Value` afterwards recurses. The same scan notes
//! the first member named twice in one object, and the first `\u` escape
//! that leaves half a surrogate pair, which serde_json refuses in words that
//! name neither the escape nor the surrogate ("unexpected end of hex
//! escape").

use serde::Deserialize;
use serde_json::Value;

/// How deep a schema document may nest as JSON and still be read: as deep
/// as serde_json reads by default (its limit of 128 refuses the 128th
/// level), and as deep as a message may (`docs/wire.md`, "JSON text").
pub const MAX_JSON_DEPTH: usize = 127;

/// A document nested past [`MAX_JSON_DEPTH`]: how deep, and where it first goes past.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    /// How deep it goes.
    pub depth: usize,
    /// Where it first goes past the limit.
    pub pointer: String,
}

impl std::fmt::Display for TooDeep {
    /// The fact in words, for every tool that keeps such a document unread.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the document nests {} levels deep, past the {MAX_JSON_DEPTH} this tool reads",
            self.depth
        )
    }
}

/// `text` as JSON, or the place where it nests too deep. An object that
/// names a member twice is an error, as on the wire (`docs/wire.md`, "JSON
/// text"): serde_json keeps the last value, while a reader of the file —
/// a reviewer, or a library that keeps the first — takes the first.
pub fn read(text: &str) -> Result<Result<Value, TooDeep>, serde_json::Error> {
    if text.starts_with('\u{feff}') {
        // serde_json would say only "expected value at line 1 column 1".
        return Err(serde::de::Error::custom(
            "the text starts with a byte-order mark (U+FEFF), which JSON text has not (RFC 8259, section 8.1): save the file as UTF-8 without one",
        ));
    }
    // UTF-16 or UTF-32 without a byte-order mark is UTF-8 with NULs beside
    // each ASCII character; serde_json would say only where it stopped.
    if matches!(text.as_bytes(), [0, _, ..] | [_, 0, ..]) {
        return Err(serde::de::Error::custom(
            "the text has a NUL byte beside its first character, as UTF-16 and UTF-32 have, and no JSON text has: save the file as UTF-8",
        ));
    }
    let scan = nesting(text, MAX_JSON_DEPTH);
    // serde_json refuses half a surrogate pair as "unexpected end of hex
    // escape" or "lone leading surrogate" (for a trailing one too).
    let named = |err: serde_json::Error| match scan.half_surrogate {
        Some(at) if err.to_string().contains("escape") => {
            let before = text.get(..at).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before
                .rsplit('\n')
                .next()
                .unwrap_or_default()
                .chars()
                .count()
                + 1;
            serde::de::Error::custom(format!(
                "the \\u escape at line {line} column {column} leaves half a surrogate pair, which no Unicode text holds: write the character itself, or both halves"
            ))
        }
        _ => err,
    };
    let read = match scan.past {
        None => serde_json::from_str(text).map(Ok).map_err(named)?,
        Some(pointer) => {
            let mut json = serde_json::Deserializer::from_str(text);
            json.disable_recursion_limit();
            serde::de::IgnoredAny::deserialize(serde_stacker::Deserializer::new(&mut json))
                .map_err(named)?;
            json.end()?;
            Err(TooDeep {
                depth: scan.deepest,
                pointer,
            })
        }
    };
    // Only once the text is known to be JSON: on text that is not, the
    // scan's answer means nothing.
    if let Some(pointer) = scan.repeated {
        if let Ok(value) = read {
            dismantle(value);
        }
        return Err(serde::de::Error::custom(format!(
            "the member at {pointer} is named twice in its object"
        )));
    }
    Ok(read)
}

/// What [`nesting`] found.
struct Scan {
    /// How deep the text nests.
    deepest: usize,
    /// The pointer where it first passes the limit.
    past: Option<String>,
    /// The pointer of the first member named a second time in its object.
    repeated: Option<String>,
    /// The byte offset of the first `\u` escape that leaves half a
    /// surrogate pair (serde_json's own words for it name neither).
    half_surrogate: Option<usize>,
}

/// One open array or object of the scan, with where it stands.
enum Frame {
    Array {
        index: usize,
    },
    Object {
        key: Option<String>,
        expect_key: bool,
        /// The names met so far (hashed: an object may hold many).
        names: std::collections::HashSet<String>,
    },
}

/// How deep `text` nests, the pointer where it first passes `limit`, and
/// the first member named twice in one object. The text is assumed to be
/// JSON; on text that is not, the answer is meaningless but bounded, and
/// the parse after it says what is wrong.
fn nesting(text: &str, limit: usize) -> Scan {
    let bytes = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::new();
    let (mut deepest, mut past, mut repeated) = (0, None, None);
    let mut half_surrogate = None;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                let start = at;
                at += 1;
                while let Some(&b) = bytes.get(at) {
                    match b {
                        b'\\' if bytes.get(at + 1) == Some(&b'u') => {
                            let pair = surrogates(bytes, at);
                            if pair == Some(false) && half_surrogate.is_none() {
                                half_surrogate = Some(at);
                            }
                            // A whole pair is two escapes of six bytes;
                            // past anything else, as past any escape.
                            at += match pair {
                                Some(true) => 12,
                                Some(false) => 6,
                                None => 2,
                            };
                        }
                        b'\\' => at += 2,
                        b'"' => break,
                        _ => at += 1,
                    }
                }
                if let Some(Frame::Object {
                    key,
                    expect_key,
                    names,
                }) = frames.last_mut()
                {
                    if *expect_key {
                        let raw = text.get(start..=at).unwrap_or("\"\"");
                        // On JSON the key reads back; on text that is not,
                        // "" only blurs an answer the parse will overrule.
                        let name: String = serde_json::from_str(raw).unwrap_or_default();
                        let again = !names.insert(name.clone());
                        *key = Some(name);
                        *expect_key = false;
                        if again && repeated.is_none() {
                            repeated = Some(pointer(&frames));
                        }
                    }
                }
            }
            b'[' | b'{' => {
                frames.push(if byte == b'[' {
                    Frame::Array { index: 0 }
                } else {
                    Frame::Object {
                        key: None,
                        expect_key: true,
                        names: std::collections::HashSet::new(),
                    }
                });
                deepest = deepest.max(frames.len());
                if frames.len() > limit && past.is_none() {
                    // The pointer to the value that just opened: every frame but its own.
                    past = frames.split_last().map(|(_, outer)| pointer(outer));
                }
            }
            b']' | b'}' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    Scan {
        deepest,
        past,
        repeated,
        half_surrogate,
    }
}

/// Whether the `\u` escape at `at` is a surrogate: `Some(true)` for a
/// high one an escaped low one follows, `Some(false)` for half a pair, `None`
/// for no surrogate (or four bytes that are no hex digits).
fn surrogates(bytes: &[u8], at: usize) -> Option<bool> {
    let unit = |from: usize| {
        let hex = std::str::from_utf8(bytes.get(from + 2..from + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    match unit(at)? {
        0xD800..=0xDBFF => Some(
            bytes.get(at + 6..at + 8) == Some(b"\\u".as_slice())
                && unit(at + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)),
        ),
        0xDC00..=0xDFFF => Some(false),
        _ => None,
    }
}

/// The pointer to the value the innermost of `frames` is at.
fn pointer(frames: &[Frame]) -> String {
    let mut out = String::new();
    for frame in frames {
        out.push('/');
        match frame {
            Frame::Array { index } => out.push_str(&index.to_string()),
            Frame::Object { key, .. } => {
                out.push_str(&crate::escape_pointer_token(key.as_deref().unwrap_or("")))
            }
        }
    }
    out
}

/// Drops a value of any depth without recursion (serde_json's own drop recurses).
pub fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => stack.append(items),
            Value::Object(map) => {
                let map = std::mem::take(map);
                stack.extend(map.into_iter().map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_deeper_than_serdes_limit_is_json_all_the_same() {
        let depth = 200_000;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(
            read(&text).expect("it is JSON"),
            Err(TooDeep {
                depth,
                pointer: "/0".repeat(MAX_JSON_DEPTH)
            })
        );
        assert!(read(&format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1))).is_err());
    }

    /// The limit is where serde_json stops: a document exactly that deep is
    /// read, one level more is too deep (never "not JSON").
    #[test]
    fn a_document_as_deep_as_the_limit_is_read_and_one_deeper_is_too_deep() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(matches!(read(&nested(MAX_JSON_DEPTH)), Ok(Ok(_))));
        assert_eq!(
            read(&nested(MAX_JSON_DEPTH + 1)).expect("it is JSON"),
            Err(TooDeep {
                depth: MAX_JSON_DEPTH + 1,
                pointer: "/0".repeat(MAX_JSON_DEPTH)
            })
        );
    }

    #[test]
    fn half_a_surrogate_pair_is_named_where_it_stands() {
        for (text, line, column) in [
            ("\"\\ud800\"", 1, 2),
            ("{\n  \"a\": \"é\\udc00x\"\n}", 2, 10),
            ("[\"\\ud83d\\ude00\", \"\\ud800\\u0041\"]", 1, 19),
        ] {
            let err = read(text).expect_err(text).to_string();
            assert!(
                err.contains(&format!(
                    "\\u escape at line {line} column {column} leaves half a surrogate pair"
                )),
                "{text}: {err}"
            );
        }
        // A whole pair is a character; a syntax error before half of one is
        // named as serde_json names it.
        assert!(read("\"\\ud83d\\ude00\"").is_ok());
        let err = read("[1,, \"\\ud800\"]").expect_err("not JSON").to_string();
        assert!(!err.contains("surrogate"), "{err}");
    }

    /// On strings of escapes of every kind, drawn at random: serde_json
    /// refuses a string exactly when the scan finds half a surrogate pair
    /// in it, and the error then names it.
    #[test]
    fn the_scan_finds_half_a_pair_exactly_where_serde_json_refuses_one() {
        let pieces = [
            "a", "é", "\\u0041", "\\ud83d", "\\ude00", "\\uDBFF", "\\uDC00", "\\\\", "\\\"",
            "\\\\u", "\\n", "u", "d800",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let (mut refused, mut read_back) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::from("[\"");
            for _ in 0..6 {
                // xorshift64: the pieces drawn are all a test needs.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = usize::try_from(state % pieces.len() as u64).unwrap_or(0);
                text.push_str(pieces[at]);
            }
            text.push_str("\", 1]");
            let serde = serde_json::from_str::<Value>(&text).is_ok();
            let scan = nesting(&text, MAX_JSON_DEPTH).half_surrogate;
            assert_eq!(serde, scan.is_none(), "{text}");
            match read(&text) {
                Ok(_) => read_back += 1,
                Err(err) => {
                    assert!(
                        err.to_string().contains("half a surrogate pair"),
                        "{text}: {err}"
                    );
                    refused += 1;
                }
            }
        }
        assert!(
            refused > 1_000 && read_back > 1_000,
            "{refused} refused, {read_back} read"
        );
    }

    #[test]
    fn the_pointer_names_keys_and_indices_on_the_way_down() {
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        let text = format!(r#"{{"a": 1, "b/c": [true, {deep}]}}"#);
        let found = read(&text).expect("JSON").expect_err("too deep");
        assert!(
            found.pointer.starts_with("/b~1c/1/0/0"),
            "{}",
            found.pointer
        );
        assert_eq!(found.depth, MAX_JSON_DEPTH + 2);
    }
}
