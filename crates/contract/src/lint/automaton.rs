//! A contract `pattern` as the automaton every binding runs.
//!
//! ECMAScript's `RegExp` and `std::regex` backtrack: on a pattern as common
//! as `^([a-z0-9]+-?)*$` they take time exponential in the length of a
//! string that almost matches (node: 0.5 s at 26 characters, four times as
//! long for every two more). A peer choosing the string would stall the
//! reader. So the C++ and TypeScript bindings run no regex engine: each
//! pattern becomes, when the bindings are generated, a deterministic
//! automaton over bytes (regex-automata), written out as tables and walked
//! one step per byte or UTF-16 unit. The Rust readers (`jsonschema`, which
//! hands a pattern with no lookaround or back-reference to the `regex`
//! crate) are linear already. `lint.pattern` refuses a pattern whose
//! automaton is larger than [`MAX_PATTERN_STATES`] or cannot be built
//! within a bounded size, so every pattern the lint passes has one.

use std::collections::{HashMap, HashSet};

use regex_automata::dfa::{dense, Automaton as _, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

use super::pattern::{pattern_reads_alike, quoted};

/// The most states a pattern's automaton may have: a state's number fits a
/// byte in the generated tables, and a pattern that needs more is a counted
/// repetition a length bound says better.
pub const MAX_PATTERN_STATES: usize = 256;

/// How large the automaton may grow while it is built (bytes), so that a
/// pattern whose automaton explodes (`(a|b)*a(a|b){30}`) is refused quickly
/// instead of built.
const BUILD_LIMIT: usize = 1 << 20;

/// The automaton of a pattern, as tables over byte classes. State 0 is the
/// start; a search is unanchored, as JSON Schema's `pattern` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Automaton {
    /// The class of each byte. Every byte past ASCII is in one class, since
    /// no atom of a pattern the lint passes matches one.
    pub classes: [u8; 256],
    /// `next[state][class]`.
    pub next: Vec<Vec<usize>>,
    /// A match ends before the byte that led here.
    pub matched: Vec<bool>,
    /// A match ends at the end of the text, from this state.
    pub matched_at_end: Vec<bool>,
    /// The state no match can follow: the walk stops there. Past the last
    /// state when there is none.
    pub dead: usize,
}

impl Automaton {
    /// The class of every character past ASCII: a UTF-16 unit walks the
    /// tables as one such byte, and the bytes of a character are all of it.
    pub fn non_ascii_class(&self) -> u8 {
        self.classes[0x80]
    }

    /// Whether the pattern finds a match in `text` (ECMAScript's `test`), as
    /// the C++ bindings walk the tables: one step per byte.
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.walk(text.iter().map(|&byte| self.class(byte)))
    }

    /// The same, as the TypeScript bindings walk the tables: one step per
    /// UTF-16 unit, every unit past ASCII in the class of the bytes past it.
    /// A run of such steps ends where a run of any length would (no atom
    /// matches them), so units and bytes count alike.
    pub fn is_match_utf16(&self, text: &str) -> bool {
        self.walk(text.encode_utf16().map(|unit| match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii() => self.class(byte),
            _ => self.non_ascii_class(),
        }))
    }

    /// Whether every text this pattern finds a match in, `other` finds one
    /// in too: a walk of both automata side by side over every byte string
    /// (so over every string), exact, at most one visit per pair of states.
    pub fn within(&self, other: &Automaton) -> bool {
        // The classes of both at once: one representative byte per pair.
        let mut seen = HashSet::new();
        let bytes: Vec<u8> = (0..=255u8)
            .filter(|&byte| seen.insert((self.class(byte), other.class(byte))))
            .collect();
        // `None`: this pattern has found its match, and takes every
        // continuation; `other` must then take every one too.
        let start = if self.matched.first() == Some(&true) {
            None
        } else {
            Some(0)
        };
        if other.matched.first() == Some(&true) {
            return true;
        }
        let mut visited = HashSet::from([(start, 0usize)]);
        let mut stack = vec![(start, 0usize)];
        while let Some((mine, theirs)) = stack.pop() {
            // The text ends here.
            let mine_ends = mine.is_none_or(|w| self.matched_at_end.get(w) == Some(&true));
            if mine_ends && other.matched_at_end.get(theirs) != Some(&true) {
                return false;
            }
            for &byte in &bytes {
                let theirs = other.step(theirs, other.class(byte));
                if other.matched.get(theirs) == Some(&true) {
                    continue; // `other` takes this text and every continuation
                }
                let mine = match mine {
                    None => None,
                    Some(w) => {
                        let w = self.step(w, self.class(byte));
                        if self.matched.get(w) == Some(&true) {
                            None
                        } else if w == self.dead {
                            continue; // no text from here is this pattern's
                        } else {
                            Some(w)
                        }
                    }
                };
                if visited.insert((mine, theirs)) {
                    stack.push((mine, theirs));
                }
            }
        }
        true
    }

    /// The state after `state` on a byte of `class`.
    fn step(&self, state: usize, class: u8) -> usize {
        self.next
            .get(state)
            .and_then(|row| row.get(usize::from(class)))
            .copied()
            .unwrap_or(self.dead)
    }

    fn class(&self, byte: u8) -> u8 {
        // A table of 256 has every byte.
        self.classes.get(usize::from(byte)).copied().unwrap_or(0)
    }

    fn walk(&self, classes: impl Iterator<Item = u8>) -> bool {
        let mut state = 0;
        for class in classes {
            state = self.step(state, class);
            if self.matched.get(state) == Some(&true) {
                return true;
            }
            if state == self.dead {
                return false;
            }
        }
        self.matched_at_end.get(state) == Some(&true)
    }
}

/// The automaton of `pattern`, or why it has none the bindings can run
/// (`lint.pattern`'s message): a construct the readers do not all read
/// alike ([`pattern_reads_alike`]), or more than [`MAX_PATTERN_STATES`]
/// states.
pub fn pattern_automaton(pattern: &str) -> Result<Automaton, String> {
    pattern_reads_alike(pattern)?;
    if let Err(err) = regex_syntax::ast::parse::Parser::new().parse(pattern) {
        return Err(format!(
            "pattern {} is not a regular expression: {} (at byte {})",
            quoted(pattern),
            err.kind(),
            err.span().start.offset
        ));
    }
    let too_large = |why: &str| {
        format!(
            "pattern {} {why}: every reader runs a pattern as an automaton of at most \
             {MAX_PATTERN_STATES} states (a backtracking engine can take time exponential in \
             the input); bound a length with minLength and maxLength rather than a counted \
             repetition",
            quoted(pattern)
        )
    };
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Unanchored)
                .minimize(true)
                .determinize_size_limit(Some(BUILD_LIMIT))
                .dfa_size_limit(Some(BUILD_LIMIT)),
        )
        .syntax(
            regex_automata::util::syntax::Config::new()
                .unicode(false)
                .utf8(false),
        )
        .thompson(
            regex_automata::nfa::thompson::Config::new()
                .utf8(false)
                .nfa_size_limit(Some(BUILD_LIMIT)),
        )
        .build(pattern)
        .map_err(|err| too_large(&format!("cannot be built as one ({err})")))?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .map_err(|err| too_large(&format!("has no start ({err})")))?;
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
    if classes[0x80..].iter().any(|&class| class != classes[0x80]) {
        return Err(too_large("tells bytes past ASCII apart"));
    }
    // The states reachable from the start, numbered as found.
    let mut index: HashMap<StateID, usize> = HashMap::new();
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
        if states.len() > MAX_PATTERN_STATES {
            return Err(too_large(&format!(
                "needs more than {MAX_PATTERN_STATES} states"
            )));
        }
    }
    if states.iter().any(|s| dfa.is_quit_state(*s)) {
        return Err(too_large("stops on some byte"));
    }
    Ok(Automaton {
        classes,
        matched: states.iter().map(|s| dfa.is_match_state(*s)).collect(),
        matched_at_end: states
            .iter()
            .map(|s| dfa.is_match_state(dfa.next_eoi_state(*s)))
            .collect(),
        dead: states
            .iter()
            .position(|s| dfa.is_dead_state(*s))
            .unwrap_or(states.len()),
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::{pattern_automaton, MAX_PATTERN_STATES};
    use serde_json::Value;

    /// Every `pattern` string in `contracts/schema/`, once each.
    fn contract_patterns() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let set = crate::SchemaSet::load(&root.join("contracts/schema")).expect("the schemas");
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

    /// Both walks over the tables (bytes, as C++; UTF-16 units, as
    /// TypeScript) find a match exactly where the `regex` crate does, for
    /// every pattern of the contract and a few more (two that backtracking
    /// engines take exponential time on among them), on strings made of the
    /// bytes that matter to each (and others).
    #[test]
    fn the_tables_match_where_a_regex_engine_matches() {
        let mut patterns = contract_patterns();
        assert!(patterns.len() >= 4, "the contract's patterns: {patterns:?}");
        patterns.extend(
            [
                "a{2,3}b?$",
                "(ab|cd)*e",
                "^([a-z0-9]+-?)*$",
                "^(a|ab)*c",
                "^[a-z]{1,63}(\\.[a-z]{1,63})*$",
            ]
            .map(String::from),
        );
        let alphabet: Vec<&str> = vec![
            "a", "b", "c", "d", "e", "A", "z", "0", "9", "_", "-", ".", "/", ":", "h", "t", "p",
            "s", "H", "T", "P", "S", "f", "F", " ", "\n", "é", "😀", "\u{0}", "\u{80}", "\u{ff}",
        ];
        let mut seed: u64 = 0x9a77;
        let mut compared = 0;
        for pattern in &patterns {
            let dfa = pattern_automaton(pattern).unwrap_or_else(|why| panic!("{why}"));
            assert!(dfa.next.len() <= MAX_PATTERN_STATES, "{pattern}");
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
                let expected = engine.is_match(&text);
                assert_eq!(
                    dfa.is_match(text.as_bytes()),
                    expected,
                    "{pattern} on {text:?}"
                );
                assert_eq!(dfa.is_match_utf16(&text), expected, "{pattern} on {text:?}");
                compared += 1;
            }
        }
        assert_eq!(compared, 3000 * patterns.len());
    }

    #[test]
    fn a_pattern_that_is_no_regular_expression_says_what_and_where() {
        for (pattern, at) in [
            ("a{2,1}", "at byte 1"),
            ("(a", "at byte 0"),
            ("[z-a]", "at byte 1"),
        ] {
            let why = pattern_automaton(pattern).expect_err(pattern);
            assert!(
                why.contains("is not a regular expression") && why.contains(at),
                "{why}"
            );
        }
    }

    #[test]
    fn only_plain_ascii_patterns_become_automata() {
        for pattern in ["^.+$", "^[^a]$", "^\\d+$", "^é$", "\\w"] {
            let why = pattern_automaton(pattern).expect_err(pattern);
            assert!(why.contains("do not all read alike"), "{why}");
        }
    }

    /// A pattern whose automaton is too large is refused, and refused
    /// quickly when it would explode (2^30 states for the second), with the
    /// advice to bound the length instead.
    #[test]
    fn a_pattern_too_large_for_an_automaton_is_refused() {
        for pattern in [
            "^[a-z]{1,300}$",
            "(a|b)*a(a|b){30}",
            "^(a{1000}){1000}$",
            "^[a-z]{1,200}[0-9]{1,200}$",
        ] {
            let why = pattern_automaton(pattern).expect_err(pattern);
            assert!(why.contains("minLength and maxLength"), "{why}");
            assert!(why.contains(&format!("{pattern:?}")), "{why}");
        }
        let fits = "^[a-z]{1,60}$";
        assert!(pattern_automaton(fits).is_ok(), "{fits}");
        // A message stays a line however long the pattern.
        for long in ["a".repeat(1_000_000), "(".repeat(100_000)] {
            let why = pattern_automaton(&long).expect_err("too large");
            assert!(why.len() < 1_000, "{} bytes", why.len());
            assert!(
                why.contains(&format!("({} characters)", long.len())),
                "{why}"
            );
        }
    }

    /// `within` is language inclusion: drawn pairs of patterns, and strings
    /// over the bytes that matter to them, never show a text the first
    /// matches and the second does not when `within` says yes, and show one
    /// (among the strings drawn, or by a pattern's own samples) for most
    /// pairs where it says no. Equal languages written differently are
    /// within each other.
    #[test]
    fn within_is_inclusion_of_what_the_patterns_match() {
        let pieces = [
            "a", "b", "[ab]", "[a-c]", "[0-9]", "-", "(a|b)", "(ab)", "a+", "b*", "[a-z]+",
            "[0-9]?", "(a|ab)*", "a{2}", "b{1,2}",
        ];
        let mut seed: u64 = 0x1713;
        let mut draw = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        let mut patterns: Vec<String> = Vec::new();
        for _ in 0..120 {
            let mut pattern = String::new();
            if draw(2) == 0 {
                pattern.push('^');
            }
            for _ in 0..1 + draw(3) {
                pattern.push_str(pieces[draw(pieces.len())]);
            }
            if draw(2) == 0 {
                pattern.push('$');
            }
            patterns.push(pattern);
        }
        patterns.extend(
            [
                "^[a-z]+$",
                "^[a-z][a-z]*$",
                "^[a-z0-9]+$",
                "^([a-z]|[0-9])+$",
                "",
                "^",
                "$",
            ]
            .map(String::from),
        );
        let texts: Vec<String> = (0..400)
            .map(|_| {
                (0..draw(7))
                    .map(|_| ["a", "b", "c", "0", "-", "é"][draw(6)])
                    .collect()
            })
            .collect();
        let built: Vec<(super::Automaton, regex::Regex)> = patterns
            .iter()
            .map(|p| {
                (
                    pattern_automaton(p).unwrap_or_else(|why| panic!("{why}")),
                    regex::Regex::new(p).expect("a regex"),
                )
            })
            .collect();
        let (mut yes, mut no, mut shown) = (0, 0, 0);
        for (w, (wa, wr)) in built.iter().enumerate() {
            for (r, (ra, rr)) in built.iter().enumerate() {
                let counter = texts.iter().find(|t| wr.is_match(t) && !rr.is_match(t));
                if wa.within(ra) {
                    yes += 1;
                    assert_eq!(counter, None, "{:?} within {:?}", patterns[w], patterns[r]);
                } else {
                    no += 1;
                    shown += usize::from(counter.is_some());
                }
            }
        }
        assert!(yes > 1000 && no > 1000, "{yes} within, {no} not");
        // A "no" with no counterexample among short strings is rare (9 in
        // 10 are shown with this draw).
        assert!(shown * 5 > no * 4, "{shown} of {no} shown");
        let automaton = |p: &str| pattern_automaton(p).expect("an automaton");
        assert!(automaton("^[a-z]+$").within(&automaton("^[a-z][a-z]*$")));
        assert!(automaton("^[a-z][a-z]*$").within(&automaton("^[a-z]+$")));
        assert!(automaton("^[a-z]+$").within(&automaton("^[a-z0-9]+$")));
        assert!(!automaton("^[a-z0-9]+$").within(&automaton("^[a-z]+$")));
        assert!(automaton("^abc").within(&automaton("b")));
        assert!(!automaton("b").within(&automaton("^abc")));
    }

    /// A long string that almost matches costs one step per character.
    #[test]
    fn a_pattern_that_backtracks_elsewhere_is_walked_once() {
        let dfa = pattern_automaton("^([a-z0-9]+-?)*$").expect("an automaton");
        let text = format!("{}!", "a".repeat(1 << 20));
        assert!(!dfa.is_match(text.as_bytes()));
        assert!(!dfa.is_match_utf16(&text));
        assert!(dfa.is_match(b"abc-def-0"));
        assert!(dfa.is_match_utf16("abc-def-0"));
    }
}
