//! How text that came from the input is shown in a message or a log line:
//! shared by the text policy's errors ([`crate::text`]) and the decoder's
//! ([`crate::wire`], which re-exports it).

use std::borrow::Cow;

/// `text` with its control characters and the characters that break or
/// reorder a line where they are shown (U+2028, U+2029, the bidirectional
/// marks, embeddings, overrides and isolates) escaped as a backslash, `u`
/// and four hex digits (`\u000a`, `\u2028`), as the C++ and TypeScript
/// readers escape them: text that came from the input, printed in a message
/// or a log line, cannot start a line of its own, move a terminal's cursor,
/// or show its words in another order than they are read.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unprintable) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unprintable(c) {
            // Every such character is below U+10000: four digits hold it.
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// What [`printable`] escapes: C0 and C1 controls and DEL, the line and
/// paragraph separators, and the bidirectional formatting characters.
pub fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}
