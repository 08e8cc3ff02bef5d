//! A schema `pattern` as C++ code: the tables of its automaton
//! (`contract::pattern_automaton`) and a walk over them, one lookup per
//! byte. No regex engine runs in the reader: `std::regex` backtracks (time
//! exponential in the input on some patterns, and recursion as deep as the
//! input), and cost about a quarter of the reader's time. On a pattern
//! `lint.pattern` passes, a walk over UTF-8 bytes and ECMAScript's
//! code-point regex agree, since no atom of it can match a byte of a
//! non-ASCII character.

use std::fmt::Write as _;

use contract::Automaton;

/// `inline bool pattern_N(std::string_view text)`: the automaton's tables
/// and the walk over them.
pub fn function(index: usize, tables: &Automaton, literal: &str) -> String {
    let mut out = String::new();
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
        "// {literal} as an automaton (regex-automata, when the bindings were generated):\n\
         // one table lookup per byte.\n\
         inline bool pattern_{index}(std::string_view text) {{\n\
         \x20 static constexpr unsigned char classes[256] = {{{classes}}};\n\
         \x20 static constexpr unsigned char next[{states}][{width}] = {{{rows}}};\n\
         \x20 static constexpr bool matched[{states}] = {{{matched}}};\n\
         \x20 static constexpr bool matched_at_end[{states}] = {{{at_end}}};\n\
         \x20 unsigned state = 0;\n\
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
        dead = tables.dead,
    );
    out
}
