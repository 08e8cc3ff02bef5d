//! `TaskErrorCode` against the engine's C++ `enum class`: same names, same
//! order, after a leading `ok` that has no wire spelling.
//!
//! Written by hand rather than with a C++ parser crate: an enum body is a
//! comma-separated list of identifiers with optional initialisers, and the
//! only syntax around it that matters is comments, string literals (raw
//! ones too; they may hold `//` or `/*`) and attributes (`[[nodiscard]]`,
//! `[[deprecated]]`). Macros are not expanded: an enum whose body holds a
//! preprocessor directive or a macro is refused, with the advice to compare
//! the preprocessed header.

use crate::report::Violation;

/// One enumerator of the header, normalised to the wire's snake_case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumerator {
    /// The name, in snake_case.
    pub name: String,
    /// The name as the header writes it.
    pub written: String,
    /// Its line in the header.
    pub line: usize,
}

/// Finds `enum class NAME` or `enum struct NAME` and returns its
/// enumerators after `ok`. Without a name: the enum called `TaskErrorCode`,
/// or else the one enum whose first enumerator is `ok` (several such are
/// refused, naming them: comparing the wrong one would report every value).
pub fn parse_header(text: &str, wanted: Option<&str>) -> Result<(String, Vec<Enumerator>), String> {
    let clean = strip_attributes(&strip_comments(text));
    let enums = scoped_enums(&clean);
    let defined: Vec<(String, usize)> = enums
        .iter()
        .map(|found| (found.name.clone(), found.line))
        .collect();
    let chosen = match wanted {
        Some(wanted) => enums
            .into_iter()
            .find(|found| found.name == wanted)
            .ok_or_else(|| format!("no `enum class {wanted}` in the header"))?,
        None => {
            let (named, mut starting_ok): (Vec<ScopedEnum>, Vec<ScopedEnum>) = enums
                .into_iter()
                .filter(|found| found.name == "TaskErrorCode" || found.starts_ok())
                .partition(|found| found.name == "TaskErrorCode");
            match (named.into_iter().next(), starting_ok.len()) {
                (Some(named), _) => named,
                (None, 0) => {
                    return Err(
                        "no `enum class TaskErrorCode`, and no `enum class` whose first enumerator is `ok`; name one with --enum".into(),
                    )
                }
                (None, 1) => starting_ok.remove(0),
                (None, _) => {
                    let listed: Vec<String> = starting_ok
                        .iter()
                        .map(|found| format!("{} (line {})", found.name, found.line))
                        .collect();
                    return Err(format!(
                        "several enum classes start with `ok`: {}; name the engine's error codes with --enum",
                        listed.join(", ")
                    ));
                }
            }
        }
    };
    // Two definitions of one name (in two namespaces, or one nested in a
    // class): the header alone does not say which is the engine's.
    let twins: Vec<String> = defined
        .iter()
        .filter(|(name, _)| *name == chosen.name)
        .map(|(_, line)| line.to_string())
        .collect();
    if twins.len() > 1 {
        return Err(format!(
            "the header defines enum class {} more than once (lines {}), and mirror does not tell scopes apart; compare a header that defines it once",
            chosen.name,
            twins.join(", ")
        ));
    }
    let ScopedEnum {
        name, enumerators, ..
    } = chosen;
    if let Some(odd) = enumerators.iter().find(|e| !is_identifier(&e.written)) {
        return Err(format!(
            "line {}: \"{}\" in enum class {name} is no enumerator name (a preprocessor directive or a macro?): mirror reads the header as written and does not expand macros; compare the preprocessed header instead (`g++ -E -P HEADER > preprocessed.hpp`, with the build's -D flags)",
            odd.line,
            proto::wire::printable(&odd.written),
        ));
    }
    if enumerators.first().is_none_or(|first| first.name != "ok") {
        return Err(format!(
            "enum class {name} does not start with `ok`; the wire values follow it"
        ));
    }
    Ok((name, enumerators.into_iter().skip(1).collect()))
}

/// One `enum class` or `enum struct` of the header.
struct ScopedEnum {
    name: String,
    /// The line of its body's `{`.
    line: usize,
    enumerators: Vec<Enumerator>,
}

impl ScopedEnum {
    fn starts_ok(&self) -> bool {
        self.enumerators.first().is_some_and(|e| e.name == "ok")
    }
}

/// Every scoped enum of `clean` (comments, literals and attributes blanked), in order.
fn scoped_enums(clean: &str) -> Vec<ScopedEnum> {
    let mut found = Vec::new();
    let mut rest = clean;
    let mut offset = 0;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    // Every offset below is found by `find` or past an ASCII character:
    // each `get` is on a character boundary, and `None` only ends the search.
    while let Some((at, keyword)) = scoped_enum(rest) {
        let Some(after) = rest.get(at + keyword..) else {
            break;
        };
        // `enum classes`, `my_enum class`: not the keywords.
        let before = clean
            .get(..offset + at)
            .and_then(|head| head.chars().next_back());
        if before.is_some_and(word) || after.starts_with(word) {
            let consumed = at + keyword;
            offset += consumed;
            rest = after;
            continue;
        }
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| word(*c))
            .collect();
        let Some(open) = after.find(['{', ';']) else {
            break;
        };
        // An opaque declaration (`enum class E : int;`) has no body: the
        // next `{` belongs to whatever follows it.
        if after.get(open..).is_some_and(|tail| tail.starts_with(';')) {
            let consumed = at + keyword + open + 1;
            offset += consumed;
            let Some(tail) = rest.get(consumed..) else {
                break;
            };
            rest = tail;
            continue;
        }
        let Some(close) = after.get(open..).and_then(|tail| tail.find('}')) else {
            break;
        };
        let body_start = offset + at + keyword + open + 1;
        let Some(body) = after.get(open + 1..open + close) else {
            break;
        };
        found.push(ScopedEnum {
            name,
            line: clean
                .get(..body_start)
                .map_or(0, |head| head.matches('\n').count())
                + 1,
            enumerators: enumerators(clean, body_start, body),
        });
        let consumed = at + keyword + open + close;
        offset += consumed;
        let Some(tail) = rest.get(consumed..) else {
            break;
        };
        rest = tail;
    }
    found
}

fn enumerators(full: &str, body_start: usize, body: &str) -> Vec<Enumerator> {
    let mut out = Vec::new();
    // Lines are counted as the items pass, not from the top for each one:
    // a header of many enumerators costs its length, not its square.
    let mut line = full
        .get(..body_start)
        .map_or(0, |head| head.matches('\n').count())
        + 1;
    for item in body.split(',') {
        let trimmed = item.trim_start();
        let lead = item.get(..item.len() - trimmed.len()).unwrap_or_default();
        line += lead.matches('\n').count();
        // `split` yields at least one piece: the default is never taken.
        let name = trimmed.split('=').next().unwrap_or_default().trim();
        if !name.is_empty() {
            out.push(Enumerator {
                name: snake(name),
                written: name.to_string(),
                line,
            });
        }
        line += trimmed.matches('\n').count();
    }
    out
}

/// A C++ identifier as an enumerator is written: a letter or `_`, then
/// letters, digits and `_`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `kInvalidUrl`, `InvalidUrl`, `INVALID_URL` and `invalid_url` all read as `invalid_url`.
fn snake(name: &str) -> String {
    let name = match name.strip_prefix('k') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_uppercase()) => rest,
        _ => name,
    };
    if name.chars().any(|c| c.is_ascii_lowercase()) {
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    } else {
        name.to_ascii_lowercase()
    }
}

/// Where the first `enum class` or `enum struct` of `text` starts, and the
/// keywords' length.
fn scoped_enum(text: &str) -> Option<(usize, usize)> {
    ["enum class", "enum struct"]
        .into_iter()
        .filter_map(|keyword| text.find(keyword).map(|at| (at, keyword.len())))
        .min()
}

/// Attributes (`[[...]]`) become spaces (newlines kept), as comments do.
fn strip_attributes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(close) = rest.get(open..).and_then(|tail| tail.find("]]")) else {
            break;
        };
        out.push_str(rest.get(..open).unwrap_or_default());
        let attribute = rest.get(open..open + close + 2).unwrap_or_default();
        out.extend(
            attribute
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        rest = rest.get(open + close + 2..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Comments and the content of string and character literals become spaces
/// (newlines kept), so offsets and lines still match; a `//` or `/*` in a
/// literal (`"http://…"`) starts no comment.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // The word being written, told as it goes (no look back): a quote inside
    // a number is C++14's digit separator (`1'000`, `0xFF'FF`), no character
    // literal; after a prefix (`u8'a'`, `L'a'`) it opens one.
    let mut word = Word::None;
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('"', _) if raw_prefix(&out) => {
                word = Word::None;
                out.push(c);
                // `R"delim( ... )delim"`: quotes and backslashes inside are
                // text, and it may span lines; it ends at `)delim"` only.
                let mut delimiter = String::new();
                let blanked = |c: char, out: &mut String| {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                };
                for c in chars.by_ref() {
                    blanked(c, &mut out);
                    if c == '(' || delimiter.len() > 16 {
                        break;
                    }
                    delimiter.push(c);
                }
                let end = format!("){delimiter}\"");
                let mut tail = String::new();
                for c in chars.by_ref() {
                    tail.push(c);
                    if tail.ends_with(&end) {
                        out.push('"');
                        break;
                    }
                    blanked(c, &mut out);
                }
            }
            ('"' | '\'', _) if c == '"' || word != Word::Number => {
                word = Word::None;
                out.push(c);
                // To the closing quote, past escapes; a literal never spans
                // a line, so a newline ends it too. Its content becomes
                // spaces: an `enum class` or `]]` written in a string is text.
                while let Some(inner) = chars.next() {
                    match inner {
                        '\\' => {
                            out.push(' ');
                            match chars.next() {
                                Some('\n') => out.push('\n'),
                                Some(_) => out.push(' '),
                                None => {}
                            }
                        }
                        '\n' => {
                            out.push('\n');
                            break;
                        }
                        _ if inner == c => {
                            out.push(inner);
                            break;
                        }
                        _ => out.push(' '),
                    }
                }
            }
            ('/', Some('/')) => {
                word = Word::None;
                out.push(' ');
                // A backslash ending the line splices the next one onto it
                // (before comments are read), so the comment goes on there.
                let mut previous = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        if previous != '\\' {
                            break;
                        }
                    } else {
                        out.push(' ');
                    }
                    if c != '\r' {
                        previous = c;
                    }
                }
            }
            ('/', Some('*')) => {
                word = Word::None;
                out.push(' ');
                let mut previous = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            (c, _) => {
                word = word.then(c);
                out.push(c);
            }
        }
    }
    out
}

/// Whether `written` ends with a raw string literal's prefix (`R`, `u8R`,
/// `uR`, `UR`, `LR`) standing as a word of its own.
fn raw_prefix(written: &str) -> bool {
    let word: String = written
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    // Reversed, as taken from the end.
    ["R", "R8u", "Ru", "RU", "RL"].contains(&word.as_str())
}

/// What the word being written is: C++'s pp-number starts with a digit, or
/// a `.` and a digit, and goes on with letters, digits, `_`, `.` and
/// separators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    None,
    Dot,
    Number,
    Other,
}

impl Word {
    fn then(self, c: char) -> Word {
        let in_word = c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '\'');
        match (self, in_word) {
            (_, false) => Word::None,
            (Word::None, true) if c.is_ascii_digit() => Word::Number,
            (Word::None, true) if c == '.' => Word::Dot,
            (Word::Dot, true) if c.is_ascii_digit() => Word::Number,
            (Word::None | Word::Dot, true) => Word::Other,
            (word, true) => word,
        }
    }
}

/// Compares the header's enumerators with the schema's values.
pub fn compare(
    file: &str,
    enum_name: &str,
    header: &[Enumerator],
    schema: &[&str],
) -> Vec<Violation> {
    let mut out = Vec::new();
    let violation =
        |line: Option<usize>, pointer: String, rule: crate::Rule, message: String| Violation {
            file: file.to_string(),
            index: None,
            line,
            offset: None,
            finding: crate::Finding {
                keyword: None,
                pointer,
                rule,
                message,
            },
        };
    for (index, value) in schema.iter().enumerate() {
        if !header.iter().any(|e| e.name == *value) {
            out.push(violation(
                None,
                format!("/enum/{index}"),
                crate::Rule::MirrorMissing,
                format!(
                    "the contract's TaskErrorCode {value:?} (position {}) has no enumerator in the C++ {enum_name}",
                    index + 1
                ),
            ));
        }
    }
    for (index, e) in header.iter().enumerate() {
        if !schema.contains(&e.name.as_str()) {
            out.push(violation(
                Some(e.line),
                String::new(),
                crate::Rule::MirrorExtra,
                format!(
                    "the C++ {enum_name} has {:?} (position {} after ok), which the contract's TaskErrorCode does not",
                    e.name,
                    index + 1
                ),
            ));
        }
    }
    // Order is compared among the values both sides have, so one missing or
    // extra value is not also reported as moving everything after it.
    let common_schema: Vec<&str> = schema
        .iter()
        .copied()
        .filter(|v| header.iter().any(|e| e.name == *v))
        .collect();
    let common_header: Vec<&Enumerator> = header
        .iter()
        .filter(|e| schema.contains(&e.name.as_str()))
        .collect();
    for (position, e) in common_header.iter().enumerate() {
        if common_schema.get(position) != Some(&e.name.as_str()) {
            let expected = common_schema
                .iter()
                .position(|v| *v == e.name)
                .map_or(0, |p| p + 1);
            let index = schema.iter().position(|v| *v == e.name).unwrap_or(0);
            out.push(violation(
                Some(e.line),
                format!("/enum/{index}"),
                crate::Rule::MirrorMoved,
                format!("{:?} is enumerator {} of the shared values in the C++ {enum_name} but {expected} in the contract's TaskErrorCode", e.name, position + 1),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse_header;

    #[test]
    fn only_the_keywords_start_an_enum() {
        let header = "enum classes_of_things { ok, wrong };\nint my_enum class_count;\n\
                      enum class Error : int {\n  ok,\n  // a comment, with commas\n  kDiskFull = 3,\n  InvalidUrl\n};\n";
        let (name, values) = parse_header(header, None).expect("the enum");
        assert_eq!(name, "Error");
        let found: Vec<(&str, usize)> = values.iter().map(|e| (e.name.as_str(), e.line)).collect();
        assert_eq!(found, [("disk_full", 6), ("invalid_url", 7)]);
    }

    /// An opaque declaration has no body: the braces after it are another
    /// declaration's, and the enum defined later is the one read.
    #[test]
    fn an_opaque_declaration_borrows_no_body() {
        let header = "enum class Error : int;\nstruct Pair { int a, b; };\n\
                      enum class Other;\n\
                      enum class Error : int {\n  ok,\n  DiskFull\n};\n";
        let (name, values) = parse_header(header, Some("Error")).expect("the enum");
        assert_eq!(name, "Error");
        let found: Vec<(&str, usize)> = values.iter().map(|e| (e.name.as_str(), e.line)).collect();
        assert_eq!(found, [("disk_full", 6)]);
        let (name, _) = parse_header(header, None).expect("the enum starting with ok");
        assert_eq!(name, "Error");
    }

    /// Two definitions of one name, in two scopes: which one the engine
    /// uses is not in the header's text as mirror reads it, so it says so
    /// rather than compare the first.
    #[test]
    fn one_name_defined_twice_is_refused_naming_both() {
        let header = "namespace v1 { enum class TaskErrorCode { ok, Old }; }\n\
                      namespace v2 {\nenum class TaskErrorCode { ok, DiskFull };\n}\n";
        for wanted in [None, Some("TaskErrorCode")] {
            let refused = parse_header(header, wanted).expect_err("two definitions");
            assert!(refused.contains("more than once (lines 1, 3)"), "{refused}");
        }
    }

    /// A raw string literal holds quotes, backslashes and lines as text: an
    /// `enum class` written in one is no enum, and the code after it is read.
    #[test]
    fn a_raw_string_is_text_to_its_own_end() {
        let header =
            "const char* doc = R\"x(say \"enum class Error { ok, Fake };\" \\\n)\" still)x\";\n\
                      auto w = LR\"(\")\"; enum class Error { ok, DiskFull };\n";
        let (name, values) = parse_header(header, None).expect("the enum");
        assert_eq!(name, "Error");
        let found: Vec<(&str, usize)> = values.iter().map(|e| (e.name.as_str(), e.line)).collect();
        assert_eq!(found, [("disk_full", 3)]);
    }

    /// `enum struct` is `enum class`; attributes stand before the name and
    /// after an enumerator, and are not part of either.
    #[test]
    fn attributes_and_enum_struct_are_read_through() {
        let header = "// enum class Error { ok, fake };\n\
                      enum struct [[nodiscard]] Error : std::uint8_t {\n  ok,\n  \
                      DiskFull [[deprecated(\"use x, not y\")]] = 3,\n  InvalidUrl\n};\n";
        let (name, values) = parse_header(header, Some("Error")).expect("the enum");
        assert_eq!(name, "Error");
        let found: Vec<(&str, usize)> = values.iter().map(|e| (e.name.as_str(), e.line)).collect();
        assert_eq!(found, [("disk_full", 4), ("invalid_url", 5)]);
    }

    /// A `//` or `/*` inside a string or character literal starts no
    /// comment, so the enum after it is still found.
    #[test]
    fn comment_markers_in_literals_are_text() {
        let header = "const char* glob = \"/*\"; const char* url = \"http://x\\\"//\";\n\
                      char slash = '/'; char star = '*';\n\
                      enum class Error { ok, DiskFull = 1'000, // a comment, with commas\n Full };\n";
        let (name, values) = parse_header(header, None).expect("the enum");
        assert_eq!(name, "Error");
        let found: Vec<&str> = values.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(found, ["disk_full", "full"]);
    }

    /// A `//` comment whose line ends in a backslash goes on to the next
    /// line (lines are spliced before comments are read): an enum written
    /// there is commented out, with LF or CRLF line ends.
    #[test]
    fn a_line_comment_ending_in_a_backslash_goes_on() {
        for end in ["\n", "\r\n"] {
            let header = format!(
                "// the old one: \\{end}enum class TaskErrorCode {{ ok, Gone }};{end}\
                 enum class TaskErrorCode {{ ok, // no splice \\ here{end} DiskFull }};{end}"
            );
            let (name, values) = parse_header(&header, None).expect("the enum");
            assert_eq!(name, "TaskErrorCode");
            let found: Vec<(&str, usize)> =
                values.iter().map(|e| (e.name.as_str(), e.line)).collect();
            assert_eq!(found, [("disk_full", 4)], "{header:?}");
        }
    }

    /// A quote inside a number separates digits; after a literal's prefix
    /// (`u8`, `L`) it opens a character literal, whose end is found.
    #[test]
    fn a_prefixed_character_literal_is_no_digit_separator() {
        let header = "constexpr char8_t x = u8'x'; enum class Error { ok, /* old */ Full = 0xFF'FF,                       Half = 0b1'0 };
constexpr wchar_t w = L'*';
";
        let (_, values) = parse_header(header, None).expect("the enum");
        let found: Vec<&str> = values.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(found, ["full", "half"]);
    }

    /// A directive or a macro inside the enum is refused with its line,
    /// not read as an enumerator called `#if 0\n  Bogus`.
    #[test]
    fn a_directive_or_macro_in_the_enum_is_refused() {
        for (body, line, shown) in [
            (
                "ok,\n#if ENGINE_FTP\n  FtpFailed,\n#endif\n  DiskFull",
                3,
                "#if ENGINE_FTP\\u000a  FtpFailed",
            ),
            ("ok,\n  ERROR_CODES(X)\n", 3, "ERROR_CODES(X)"),
        ] {
            let header = format!("namespace e {{\nenum class Error {{ {body} }};\n}}\n");
            let err = parse_header(&header, Some("Error")).expect_err("refused");
            assert!(
                err.starts_with(&format!(
                    "line {line}: \"{shown}\" in enum class Error is no enumerator name"
                )),
                "{err}"
            );
            assert!(err.contains("g++ -E -P"), "{err}");
        }
    }
}
