//! Schema text that generated code and pages may not copy: the
//! bidirectional formatting characters (`lint.text`).

use serde_json::Value;

use crate::Pointer;

/// The bidirectional formatting characters: the marks, embeddings,
/// overrides and isolates.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Every string and member name of `value` that holds a bidirectional
/// formatting character: its place, the first such character, and whether
/// it was `the string` or `the member name` there. The bindings and the
/// reference copy schema text into comments, literals and pages, where an
/// unpaired override makes GCC refuse the header (`-Wbidi-chars`), rustc
/// the Rust types (`text_direction_codepoint_in_comment`), and a paired one
/// shows the text in another order than a compiler or a reviewer reads it.
/// An explicit stack: a document's depth is not this function's to trust.
pub fn bidi_controls(value: &Value) -> Vec<(Pointer, char, &'static str)> {
    let mut stack = vec![(value, Pointer::root())];
    let mut found = Vec::new();
    while let Some((value, at)) = stack.pop() {
        match value {
            Value::String(text) => {
                if let Some(c) = text.chars().find(|c| is_bidi_control(*c)) {
                    found.push((at, c, "the string"));
                }
            }
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().map(|(i, item)| (item, at.push(i))));
            }
            Value::Object(map) => {
                for (name, member) in map {
                    let place = at.push(name);
                    if let Some(c) = name.chars().find(|c| is_bidi_control(*c)) {
                        found.push((place.clone(), c, "the member name"));
                    }
                    stack.push((member, place));
                }
            }
            _ => {}
        }
    }
    found
}
