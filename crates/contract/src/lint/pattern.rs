//! `lint.pattern`: the regular expressions every reader reads alike.
//!
//! Several engines read a contract `pattern`: ECMAScript's `RegExp` with the
//! `u` flag (TypeScript), the `jsonschema` crate (Rust and `vdm-conform`),
//! in C++ a DFA or `std::regex`, both over UTF-8 bytes, and the `regex`
//! crate, with which `vdm-conform generate` builds strings. They agree on a
//! closed set of constructs whose atoms match ASCII characters only: a byte
//! of a multi-byte character then matches no atom in C++, as the character
//! matches none in the others. Everything else is refused, with what to
//! write instead: `.`, negated classes and non-ASCII characters (a byte is
//! not a character), class escapes (`std::regex` reads `\w` by the
//! process's locale; `\s` is a different set in each engine), lookaround
//! and back-references (the `regex` crate has neither), inline flags, and
//! what ECMAScript's `u` mode refuses but others read as a literal (a lone
//! `{`, `}` or `]`).

/// `Ok` when `pattern` keeps to the constructs every reader reads alike:
/// ASCII literals, escaped punctuation, classes of ASCII members and ranges,
/// groups (`(…)`, `(?:…)`), alternation, the quantifiers `* + ? {n} {n,}
/// {n,m}` (lazy or not), and the anchors `^` and `$`. `Err` says what else
/// it uses, at which byte.
pub fn pattern_reads_alike(pattern: &str) -> Result<(), String> {
    reads_alike(pattern.as_bytes()).map_err(|(at, what, instead)| {
        format!(
            "pattern {} uses {what} at byte {at}, which the readers do not all read \
             alike; {instead}",
            quoted(pattern)
        )
    })
}

/// A pattern as a message quotes it: the whole of it when short, its start
/// and length when not (a message is one line of a report, and a pattern
/// can be as long as its file).
pub(super) fn quoted(pattern: &str) -> String {
    const SHOWN: usize = 120;
    let count = pattern.chars().count();
    if count <= SHOWN {
        return format!("{pattern:?}");
    }
    let start: String = pattern.chars().take(SHOWN).collect();
    format!("{start:?}… ({count} characters)")
}

/// Where a pattern leaves the common constructs, what it uses there, and
/// what to write instead.
type Refusal = (usize, &'static str, &'static str);

fn reads_alike(bytes: &[u8]) -> Result<(), Refusal> {
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        at = match byte {
            b'\\' => match bytes.get(at + 1) {
                Some(next) if PUNCTUATION.contains(next) => at + 2,
                _ => return Err((
                    at,
                    "an escape that is not escaped punctuation",
                    "spell a class out with ASCII members ([0-9] for \\d, [A-Za-z0-9_] for \\w)",
                )),
            },
            b'.' => return Err((at, "`.`", "spell out the characters it may be")),
            b'[' => class(bytes, at).map_err(|(at, what)| {
                (
                    at,
                    what,
                    "list the ASCII characters a class holds, escaping `[`, `]`, `\\`, `-` and `^`",
                )
            })?,
            b'(' if bytes.get(at + 1) == Some(&b'?') => {
                if bytes.get(at + 2) != Some(&b':') {
                    return Err((
                        at,
                        "a group other than (…) and (?:…)",
                        "lookaround, named groups and inline flags are not in every engine",
                    ));
                }
                at + 3
            }
            b'{' => quantifier(bytes, at).ok_or((
                at,
                "a `{` that opens no {n}, {n,} or {n,m}",
                "escape it as \\{",
            ))?,
            b'}' | b']' => return Err((at, "a lone closing bracket", "escape it")),
            byte if byte.is_ascii_control() || !byte.is_ascii() => {
                return Err((
                    at,
                    "a control or non-ASCII character",
                    "a byte of UTF-8 is not a character to every reader",
                ))
            }
            _ => at + 1,
        };
    }
    Ok(())
}

/// ASCII punctuation an escape may make literal in every engine: the
/// characters ECMAScript's `u` mode lets an escape make literal.
const PUNCTUATION: &[u8] = b"\\./+*?()[]{}|^$";

/// In a class, `\-` too.
const CLASS_PUNCTUATION: &[u8] = b"\\./+*?()[]{}|^$-";

/// The end of the class that opens at `start`, or where and what it uses
/// that not every reader reads alike.
fn class(bytes: &[u8], start: usize) -> Result<usize, (usize, &'static str)> {
    let mut at = start + 1;
    if bytes.get(at) == Some(&b'^') {
        return Err((
            start,
            "a negated class (its bytes are not characters in C++)",
        ));
    }
    loop {
        match bytes.get(at) {
            None => return Err((start, "a class that does not close")),
            Some(b']') if at > start + 1 => return Ok(at + 1),
            Some(b']') => return Err((at, "an empty class")),
            Some(b'\\') => match bytes.get(at + 1) {
                Some(next) if CLASS_PUNCTUATION.contains(next) => at += 2,
                _ => return Err((at, "an escape in a class that is not escaped punctuation")),
            },
            // The `regex` crate reads `[` in a class as a nested class, and
            // `&&`, `--`, `~~` as set operations; ECMAScript reads them as text.
            Some(b'[') => return Err((at, "an unescaped `[` in a class")),
            Some(&twice @ (b'&' | b'-' | b'~')) if bytes.get(at + 1) == Some(&twice) => {
                return Err((at, "a doubled `&`, `-` or `~` in a class"))
            }
            Some(&byte) if byte.is_ascii_control() || !byte.is_ascii() => {
                return Err((at, "a control or non-ASCII character in a class"))
            }
            Some(_) => at += 1,
        }
    }
}

/// The end of the `{n}`, `{n,}` or `{n,m}` that opens at `start`.
fn quantifier(bytes: &[u8], start: usize) -> Option<usize> {
    let digits = |from: usize| {
        bytes.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    };
    let mut at = start + 1;
    let low = digits(at);
    if low == 0 {
        return None;
    }
    at += low;
    if bytes.get(at) == Some(&b',') {
        at += 1;
        at += digits(at);
    }
    (bytes.get(at) == Some(&b'}')).then_some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::pattern_reads_alike;

    /// The contract's own patterns pass too: `tests/lint.rs` lints the real
    /// schema set clean.
    #[test]
    fn the_common_constructs_read_alike() {
        for pattern in [
            "^[A-Za-z0-9_-]+$",
            "^(a[Bb]?|c)://",
            "\\.[0-9]+$",
            "^/",
            "a{2,3}b?$",
            "(?:ab|cd)*?e{2,}",
            "[\\[\\]\\-]",
            "[-a]",
        ] {
            assert_eq!(pattern_reads_alike(pattern), Ok(()), "{pattern}");
        }
    }

    #[test]
    fn what_the_readers_differ_on_is_refused_with_its_place() {
        for (pattern, at) in [
            ("^.+$", 1),
            ("^\\d+$", 1),
            ("\\w", 0),
            ("\\s", 0),
            ("\\bx", 0),
            ("(a)\\1", 3),
            ("^[^/]+$", 1),
            ("^é$", 1),
            ("a\tb", 1),
            ("(?=a)", 0),
            ("(?<n>a)", 0),
            ("(?i:a)", 0),
            ("a{", 1),
            ("a{,2}", 1),
            ("a}", 1),
            ("a]", 1),
            ("[a[b]]", 2),
            ("[a&&b]", 2),
            ("[a--b]", 2),
            ("[]", 1),
            ("[a", 0),
            ("\\A", 0),
            ("\\", 0),
            ("a\\-b", 1),
        ] {
            let why = pattern_reads_alike(pattern).expect_err(pattern);
            assert!(why.contains(&format!("at byte {at},")), "{pattern}: {why}");
        }
    }
}
