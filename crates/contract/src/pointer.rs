//! JSON pointers (RFC 6901), built up while walking a schema so that every
//! violation can say exactly where it is.

use std::fmt;

/// A JSON pointer under construction; `Display` gives its RFC 6901 text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    /// The pointer to the whole document (the empty string).
    pub fn root() -> Self {
        Self(String::new())
    }

    /// This pointer extended by one reference token.
    pub fn push(&self, token: impl fmt::Display) -> Self {
        let token = token.to_string();
        let mut text = String::with_capacity(self.0.len() + token.len() + 1);
        text.push_str(&self.0);
        text.push('/');
        text.push_str(&escape(&token));
        Self(text)
    }

    /// The pointer's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Takes pointer text as it is (for pointers produced elsewhere, such as a
    /// validator's instance path).
    pub fn from_text(text: impl Into<String>) -> Self {
        Self(text.into())
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // An empty pointer is legal but invisible in a message; say what it means.
        if self.0.is_empty() {
            f.write_str("(root)")
        } else {
            f.write_str(&self.0)
        }
    }
}

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Reads one escaped reference token back (`~1` → `/`, then `~0` → `~`).
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_escaped_reads_back_as_it_was() {
        for token in ["", "a", "a/b", "~", "~1", "~0/~01", "é/~"] {
            assert_eq!(unescape(&escape(token)), token);
        }
        // `~01` is `~` then `1`, never `/`: `~1` is read first.
        assert_eq!(unescape("~01"), "~1");
    }
}
