//! A schema `pattern` as C++ code. `std::regex` costs about a quarter of the
//! C++ reader's time; a pattern that is a plain ASCII expression (literals,
//! classes of ASCII characters, groups, alternation, repetition, anchors)
//! becomes a DFA instead, built by regex-automata when the bindings are
//! generated and written out as tables: one lookup per byte. On such a
//! pattern a byte-wise DFA and ECMAScript's code-point regex agree, since no
//! atom of it can match a byte of a non-ASCII character. `lint.pattern`
//! refuses any other pattern; a plain one whose DFA is too large, or another
//! in a set the lint refuses, keeps `std::regex`.

use std::collections::HashMap;
use std::fmt::Write as _;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

/// The DFA of a pattern, as tables over byte classes.
#[derive(Debug)]
pub struct Tables {
    /// The class of each byte.
    pub classes: [u8; 256],
    /// `next[state][class]`.
    pub next: Vec<Vec<usize>>,
    /// A match ends before the byte that led here.
    pub matched: Vec<bool>,
    /// A match ends at the end of the text, from this state.
    pub matched_at_end: Vec<bool>,
    pub start: usize,
    pub dead: usize,
}

impl Tables {
    /// Whether the pattern finds a match in `text` (ECMAScript's `test`):
    /// the walk the generated C++ does.
    #[cfg(test)]
    pub fn test(&self, text: &[u8]) -> bool {
        let mut state = self.start;
        for &byte in text {
            let class = usize::from(self.classes[usize::from(byte)]);
            state = self.next[state][class];
            if self.matched[state] {
                return true;
            }
            if state == self.dead {
                return false;
            }
        }
        self.matched_at_end[state]
    }
}

/// Whether `pattern` keeps to what every reader reads alike
/// ([`contract::pattern_reads_alike`], rule `lint.pattern`): every atom is
/// ASCII and matches only ASCII, so bytes and code points count alike.
pub fn plain_ascii(pattern: &str) -> bool {
    contract::pattern_reads_alike(pattern).is_ok()
}

/// The DFA tables of `pattern`, when it is plain ASCII and small.
pub fn tables(pattern: &str) -> Option<Tables> {
    if !plain_ascii(pattern) {
        return None;
    }
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Unanchored)
                .minimize(true),
        )
        .syntax(
            regex_automata::util::syntax::Config::new()
                .unicode(false)
                .utf8(false),
        )
        .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
        .build(pattern)
        .ok()?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .ok()?;
    // One representative byte per class.
    let byte_classes = dfa.byte_classes();
    let mut classes = [0u8; 256];
    let mut representatives: Vec<u8> = Vec::new();
    for (byte, slot) in (0..=255u8).zip(classes.iter_mut()) {
        let class = byte_classes.get(byte);
        *slot = class;
        if usize::from(class) == representatives.len() {
            representatives.push(byte);
        }
    }
    // The states reachable from the start, numbered as found.
    let mut index: HashMap<regex_automata::util::primitives::StateID, usize> = HashMap::new();
    let mut states = vec![start];
    index.insert(start, 0);
    let mut next = Vec::new();
    let mut at = 0;
    while let Some(&state) = states.get(at) {
        let mut row = Vec::with_capacity(representatives.len());
        for &byte in &representatives {
            let to = dfa.next_state(state, byte);
            let id = *index.entry(to).or_insert_with(|| {
                states.push(to);
                states.len() - 1
            });
            row.push(id);
        }
        next.push(row);
        at += 1;
        // A pattern that needs more states than this is left to std::regex.
        if states.len() > 64 {
            return None;
        }
    }
    let matched: Vec<bool> = states.iter().map(|s| dfa.is_match_state(*s)).collect();
    let matched_at_end: Vec<bool> = states
        .iter()
        .map(|s| dfa.is_match_state(dfa.next_eoi_state(*s)))
        .collect();
    if states.iter().any(|s| dfa.is_quit_state(*s)) {
        return None;
    }
    let dead = states
        .iter()
        .position(|s| dfa.is_dead_state(*s))
        .unwrap_or(states.len());
    Some(Tables {
        classes,
        next,
        matched,
        matched_at_end,
        start: 0,
        dead,
    })
}

/// `inline bool pattern_N(std::string_view text)`: the DFA's tables and walk
/// when the pattern has one, `std::regex_search` otherwise.
pub fn function(index: usize, pattern: &str, literal: &str) -> String {
    let mut out = String::new();
    let Some(tables) = tables(pattern) else {
        let _ = write!(
            out,
            "inline bool pattern_{index}(std::string_view text) {{\n  static const std::regex compiled({literal}, std::regex::ECMAScript);\n  return std::regex_search(text.begin(), text.end(), compiled);\n}}\n\n"
        );
        return out;
    };
    let list = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(", ");
    let classes = list(&mut tables.classes.iter().map(ToString::to_string));
    let rows = list(
        &mut tables
            .next
            .iter()
            .map(|row| format!("{{{}}}", list(&mut row.iter().map(ToString::to_string)))),
    );
    let flags = |items: &[bool]| list(&mut items.iter().map(|b| b.to_string()));
    let width = tables.next.first().map_or(0, Vec::len);
    let _ = write!(
        out,
        "// {literal} as a DFA (regex-automata, when the bindings were generated):\n\
         // one table lookup per byte.\n\
         inline bool pattern_{index}(std::string_view text) {{\n\
         \x20 static constexpr unsigned char classes[256] = {{{classes}}};\n\
         \x20 static constexpr unsigned char next[{states}][{width}] = {{{rows}}};\n\
         \x20 static constexpr bool matched[{states}] = {{{matched}}};\n\
         \x20 static constexpr bool matched_at_end[{states}] = {{{at_end}}};\n\
         \x20 unsigned state = {start};\n\
         \x20 for (char byte : text) {{\n\
         \x20   state = next[state][classes[static_cast<unsigned char>(byte)]];\n\
         \x20   if (matched[state]) return true;\n\
         \x20   if (state == {dead}) return false;\n\
         \x20 }}\n\
         \x20 return matched_at_end[state];\n\
         }}\n\n",
        states = tables.next.len(),
        matched = flags(&tables.matched),
        at_end = flags(&tables.matched_at_end),
        start = tables.start,
        dead = tables.dead,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::{plain_ascii, tables};
    use serde_json::Value;

    /// Every `pattern` string in `contracts/schema/`, once each.
    fn contract_patterns() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let set = contract::SchemaSet::load(&root.join("contracts/schema")).expect("the schemas");
        let mut found = std::collections::BTreeSet::new();
        let mut stack: Vec<&Value> = set.docs.iter().map(|doc| &doc.value).collect();
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(pattern)) = map.get("pattern") {
                        found.insert(pattern.clone());
                    }
                    stack.extend(map.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        found.into_iter().collect()
    }

    /// The walk over the tables finds a match exactly where the `regex`
    /// crate does, for every pattern of the contract and a few more, on
    /// strings made of the bytes that matter to each (and others).
    #[test]
    fn the_tables_match_where_a_regex_engine_matches() {
        let mut patterns = contract_patterns();
        assert!(patterns.len() >= 4, "the contract's patterns: {patterns:?}");
        patterns.extend(["a{2,3}b?$", "(ab|cd)*e"].map(String::from));
        let alphabet: Vec<&str> = vec![
            "a", "b", "c", "d", "e", "A", "z", "0", "9", "_", "-", ".", "/", ":", "h", "t", "p",
            "s", "H", "T", "P", "S", "f", "F", " ", "\n", "é", "😀", "\u{0}",
        ];
        let mut seed: u64 = 0x9a77;
        let mut compared = 0;
        for pattern in &patterns {
            let dfa = tables(pattern).unwrap_or_else(|| panic!("{pattern} has tables"));
            let engine = regex::Regex::new(pattern).expect("a regex");
            for _ in 0..3000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let len = (seed >> 33) % 12;
                let mut text = String::new();
                if (seed >> 40).is_multiple_of(3) {
                    text.push_str(["http://", "FTP://", "1.2.3", "/"][((seed >> 45) % 4) as usize]);
                }
                for _ in 0..len {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    text.push_str(alphabet[((seed >> 33) as usize) % alphabet.len()]);
                }
                assert_eq!(
                    dfa.test(text.as_bytes()),
                    engine.is_match(&text),
                    "{pattern} on {text:?}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 3000 * patterns.len());
    }

    #[test]
    fn only_plain_ascii_patterns_become_tables() {
        for pattern in ["^.+$", "^[^a]$", "^\\d+$", "^é$", "\\w"] {
            assert!(!plain_ascii(pattern), "{pattern}");
            assert!(tables(pattern).is_none(), "{pattern}");
        }
    }
}

/// Patterns drawn from `lint.pattern`'s vocabulary, and texts of the
/// characters that tell byte from character and one engine's classes from
/// another's, read by every engine that reads a contract pattern.
#[cfg(test)]
mod engines {
    use std::fmt::Write as _;
    use std::process::Command;

    use serde_json::{json, Value};

    use super::tables;
    use crate::codegen::edits::Draw;

    const LITERALS: &[&str] = &[
        "a", "b", "c", "A", "Z", "0", "9", "_", "-", "/", ":", "x", "\\.", "\\+", "\\/", "\\{",
        "\\[", "\\]", "\\\\", "\\$",
    ];
    const MEMBERS: &[&str] = &[
        "a", "b", "x", "0", "_", "/", ":", ".", "a-c", "0-9", "A-Z", "\\-", "\\]", "\\[", "^",
    ];
    const QUANTIFIERS: &[&str] = &[
        "", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?", "{0,1}",
    ];

    fn atom(draw: &mut Draw, depth: usize) -> String {
        match draw.below(if depth > 1 { 2 } else { 4 }) {
            0 => draw.pick(LITERALS).to_string(),
            1 => {
                // `^` first would negate the class.
                let mut class = String::from("[");
                for index in 0..1 + draw.below(3) {
                    let member = draw.pick(MEMBERS);
                    class.push_str(if index == 0 && member == "^" {
                        "a"
                    } else {
                        member
                    });
                }
                class + "]"
            }
            2 => format!("({})", alternation(draw, depth + 1)),
            _ => format!("(?:{})", alternation(draw, depth + 1)),
        }
    }

    fn alternation(draw: &mut Draw, depth: usize) -> String {
        let mut out = String::new();
        for branch in 0..1 + draw.below(2) {
            if branch > 0 {
                out.push('|');
            }
            for _ in 0..1 + draw.below(3) {
                out.push_str(&atom(draw, depth));
                out.push_str(draw.pick(QUANTIFIERS));
            }
        }
        out
    }

    fn pattern(draw: &mut Draw) -> String {
        let start = if draw.below(2) == 0 { "^" } else { "" };
        let end = if draw.below(2) == 0 { "$" } else { "" };
        format!("{start}{}{end}", alternation(draw, 0))
    }

    fn text(draw: &mut Draw) -> String {
        const CHARS: &[&str] = &[
            "a", "b", "c", "x", "A", "Z", "0", "9", "_", "-", "/", ":", ".", "{", "[", "]", "\\",
            "$", "^", " ", "\t", "\n", "\r", "\u{2028}", "\u{a0}", "é", "😀", "ａ",
        ];
        (0..draw.below(8)).map(|_| draw.pick(CHARS)).collect()
    }

    /// What `script` prints: one line of `0`/`1` per pattern, one digit per text.
    fn rows(program: &mut Command, what: &str) -> Vec<String> {
        let output = program.output().unwrap_or_else(|err| {
            panic!("{what} cannot start ({err}); `cargo xtask test` installs it")
        });
        assert!(
            output.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn patterns_of_the_vocabulary_read_alike_in_every_engine() {
        let mut draw = Draw(0x5eed_1e55);
        let patterns: Vec<String> = (0..160).map(|_| pattern(&mut draw)).collect();
        let texts: Vec<String> = (0..120).map(|_| text(&mut draw)).collect();
        let dir = std::env::temp_dir().join(format!("vdm-patterns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");

        // ECMAScript, as the TypeScript bindings build it.
        let cases = dir.join("cases.json");
        std::fs::write(
            &cases,
            json!({"patterns": patterns, "texts": texts}).to_string(),
        )
        .expect("the cases are written");
        let ecmascript = rows(
            Command::new("node").arg("-e").arg(format!(
                "const c = JSON.parse(require('fs').readFileSync({:?}, 'utf8'));\n\
                 for (const p of c.patterns) {{ const r = new RegExp(p, 'u');\n\
                 console.log(c.texts.map((t) => (r.test(t) ? '1' : '0')).join('')); }}",
                cases.display().to_string()
            )),
            "node",
        );

        // C++ std::regex, as the bindings build a pattern without tables.
        let mut source = String::from(
            "#include <iostream>\n#include <regex>\n#include <string>\n\
             static const char* patterns[] = {",
        );
        for pattern in &patterns {
            let _ = write!(source, "{},", super::super::literal(pattern));
        }
        source.push_str("};\nstatic const char* texts[] = {");
        for text in &texts {
            let _ = write!(source, "{},", super::super::literal(text));
        }
        source.push_str(
            "};\nint main() {\n  for (const char* p : patterns) {\n\
             \x20   std::regex r(p, std::regex::ECMAScript);\n\
             \x20   for (const char* t : texts) std::cout << (std::regex_search(std::string(t), r) ? '1' : '0');\n\
             \x20   std::cout << '\\n';\n  }\n}\n",
        );
        std::fs::write(dir.join("patterns.cpp"), source).expect("the source is written");
        let built = Command::new("g++")
            .args(["-std=c++17", "-O1", "-o"])
            .arg(dir.join("patterns"))
            .arg(dir.join("patterns.cpp"))
            .output()
            .unwrap_or_else(|err| {
                panic!("g++ cannot start ({err}); `cargo xtask test` installs it")
            });
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let cpp = rows(&mut Command::new(dir.join("patterns")), "the C++ program");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(ecmascript.len(), patterns.len());
        assert_eq!(cpp.len(), patterns.len());

        let mut with_tables = 0;
        let mut matched = 0;
        for (index, pattern) in patterns.iter().enumerate() {
            assert_eq!(contract::pattern_reads_alike(pattern), Ok(()), "{pattern}");
            let validator = jsonschema::validator_for(&json!({"pattern": pattern}))
                .unwrap_or_else(|err| panic!("{pattern}: {err}"));
            let generator =
                regex::Regex::new(pattern).unwrap_or_else(|err| panic!("{pattern}: {err}"));
            let dfa = tables(pattern);
            with_tables += usize::from(dfa.is_some());
            for (at, text) in texts.iter().enumerate() {
                let expected = ecmascript[index].as_bytes().get(at) == Some(&b'1');
                matched += usize::from(expected);
                let seen = [
                    (
                        "jsonschema",
                        validator.is_valid(&Value::from(text.as_str())),
                    ),
                    ("regex", generator.is_match(text)),
                    ("std::regex", cpp[index].as_bytes().get(at) == Some(&b'1')),
                    (
                        "the C++ tables",
                        dfa.as_ref()
                            .map_or(expected, |dfa| dfa.test(text.as_bytes())),
                    ),
                ];
                for (engine, answer) in seen {
                    assert_eq!(
                        answer, expected,
                        "{engine} and ECMAScript differ on {pattern:?} against {text:?}"
                    );
                }
            }
        }
        // The draw covers both answers, and both C++ paths.
        let total = patterns.len() * texts.len();
        assert!(
            matched > total / 20 && matched < total - total / 20,
            "{matched} of {total}"
        );
        assert!(with_tables > patterns.len() / 2, "{with_tables}");
        assert!(with_tables < patterns.len(), "{with_tables}");
    }
}
