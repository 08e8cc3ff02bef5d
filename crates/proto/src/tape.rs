//! Typed values read from the tokens the policy scan recorded, not from the
//! text again.
//!
//! A decode first scans the text (`text::scan_recording`): the policy is
//! held and every token is noted with where it stands (up to a limit; a
//! larger message is read from its text). The body's content is then
//! deserialized from those tokens. serde_json cannot be handed tokens,
//! and reading the content's text through it lexed every string and number
//! a second time; this deserializer gives every `Deserialize` impl the same
//! calls serde_json would (numbers as serde_json types them, strings
//! borrowed where they hold no escape), but for a struct and an enum value,
//! taken in the schemas' shapes only (`crate::strict`, which holds the text
//! path to the same), so a type reads the same from either.
//! A differential test holds the two to the same answers on generated input.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::Error;

use crate::strict::{ObjectOnly, StringEnum};
use crate::text::{Token, TokenKind};

/// Deserializes the value whose token is `tokens[first]`, from a text the
/// scan that recorded `tokens` has checked.
pub(crate) fn from_tokens<T: DeserializeOwned>(
    text: &str,
    tokens: &[Token],
    first: usize,
) -> Result<T, Error> {
    let mut reader = Tokens {
        text,
        tokens,
        at: first,
    };
    T::deserialize(&mut reader)
}

/// Where [`from_tokens`] fails, read again keeping the path to the place, and the error there
/// (only on failure: tracking it costs every value a wrapper).
pub(crate) fn misfit_path<T: DeserializeOwned>(
    text: &str,
    tokens: &[Token],
    first: usize,
) -> Option<serde_path_to_error::Error<Error>> {
    let mut reader = Tokens {
        text,
        tokens,
        at: first,
    };
    serde_path_to_error::deserialize::<_, T>(&mut reader).err()
}

/// The index of the token that starts at byte `start`, when one does.
pub(crate) fn token_at(tokens: &[Token], start: usize) -> Option<usize> {
    let start = u32::try_from(start).ok()?;
    tokens
        .binary_search_by_key(&start, |token| token.start)
        .ok()
}

struct Tokens<'t> {
    text: &'t str,
    tokens: &'t [Token],
    /// The next token to read.
    at: usize,
}

impl<'t> Tokens<'t> {
    fn next(&mut self) -> Result<Token, Error> {
        let token = self
            .tokens
            .get(self.at)
            .copied()
            .ok_or_else(|| de::Error::custom("a value ends before it is complete"))?;
        self.at += 1;
        Ok(token)
    }

    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn slice(&self, start: u32, end: u32) -> Result<&'t str, Error> {
        let (start, end) = (start as usize, end as usize);
        self.text
            .get(start..end)
            .ok_or_else(|| de::Error::custom("a token outside its text"))
    }

    /// A number as serde_json types it: a non-negative integer as `u64`, a
    /// negative one as `i64`, `-0` and anything with a fraction or an
    /// exponent as `f64` (parsed by serde_json itself, so the double is the
    /// one it would give).
    fn number<V: Visitor<'t>>(&self, token: Token, visitor: V) -> Result<V::Value, Error> {
        let text = self.slice(token.start, token.end)?;
        if token.kind == TokenKind::Integer {
            // The policy keeps an integer literal within ±(2^53 − 1).
            let (negative, digits) = match text.strip_prefix('-') {
                Some(digits) => (true, digits),
                None => (false, text),
            };
            if let Ok(magnitude) = digits.parse::<u64>() {
                return match (negative, i64::try_from(magnitude)) {
                    (false, _) => visitor.visit_u64(magnitude),
                    (true, Ok(0)) => visitor.visit_f64(-0.0),
                    (true, Ok(small)) => visitor.visit_i64(-small),
                    (true, Err(_)) => visitor.visit_f64(serde_json::from_str(text)?),
                };
            }
        }
        visitor.visit_f64(serde_json::from_str(text)?)
    }

    /// A number where any value may stand (a `serde_json::Value`): given
    /// by serde_json itself from the number's text, so it is the value
    /// serde_json gives under whatever features a lane's graph turns on
    /// (under `arbitrary_precision` a `Number` keeps its text, `1e2` and
    /// `-0` as written, where [`Self::number`] would give doubles).
    fn any_number<V: Visitor<'t>>(&self, token: Token, visitor: V) -> Result<V::Value, Error> {
        let mut json = serde_json::Deserializer::from_str(self.slice(token.start, token.end)?);
        let value = de::Deserializer::deserialize_any(&mut json, visitor)?;
        json.end()?;
        Ok(value)
    }

    /// A string: borrowed from the text when it holds no escape.
    fn string<V: Visitor<'t>>(&self, token: Token, visitor: V) -> Result<V::Value, Error> {
        match token.kind {
            TokenKind::String { escaped: false } => visitor
                .visit_borrowed_str(self.slice(token.start + 1, token.end.saturating_sub(1))?),
            _ => visitor.visit_string(serde_json::from_str(self.slice(token.start, token.end)?)?),
        }
    }

    /// Goes on after the container `token` once its contents were read,
    /// refusing contents its reader left unread (as serde_json does).
    fn close(&mut self, token: Token) -> Result<(), Error> {
        if self.at != token.after as usize {
            return Err(de::Error::custom("trailing characters"));
        }
        Ok(())
    }
}

/// A number where a primitive is asked for: typed as serde_json types it
/// there ([`Tokens::number`]), whatever its features (its own primitives
/// never take `arbitrary_precision`'s text form); anything else is
/// refused as [`Deserializer::deserialize_any`] refuses it.
macro_rules! primitive_numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.peek() {
                Some(token) if matches!(token.kind, TokenKind::Integer | TokenKind::Fraction) => {
                    self.at += 1;
                    self.number(token, visitor)
                }
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for &mut Tokens<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let token = self.next()?;
        match token.kind {
            TokenKind::Null => visitor.visit_unit(),
            TokenKind::True => visitor.visit_bool(true),
            TokenKind::False => visitor.visit_bool(false),
            TokenKind::Integer | TokenKind::Fraction => self.any_number(token, visitor),
            TokenKind::String { .. } => self.string(token, visitor),
            TokenKind::Array => {
                let value = visitor.visit_seq(Within {
                    tokens: &mut *self,
                    end: token.after as usize,
                })?;
                self.close(token)?;
                Ok(value)
            }
            TokenKind::Object => {
                let value = visitor.visit_map(Within {
                    tokens: &mut *self,
                    end: token.after as usize,
                })?;
                self.close(token)?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek() {
            Some(Token {
                kind: TokenKind::Null,
                ..
            }) => {
                self.at += 1;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's raw-value protocol (`Box<RawValue>`): a map of one
        // member, its name the protocol's token, its value the text.
        if name == RAW_VALUE {
            let token = self.next()?;
            self.at = token.after as usize;
            let raw = self.slice(token.start, token.end)?;
            return visitor.visit_map(Raw { text: Some(raw) });
        }
        visitor.visit_newtype_struct(self)
    }

    // A struct from an object only, an enum value from a string only, as
    // the schemas write them (`crate::strict`); serde_json takes more.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_any(ObjectOnly(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_any(StringEnum(visitor))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let token = self.next()?;
        self.at = token.after as usize;
        visitor.visit_unit()
    }

    primitive_numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    forward_to_deserialize_any! {
        bool char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        identifier
    }
}

/// serde_json's name for "the raw text of the next value", as a newtype and
/// as the one member name of the map that carries it.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// A value's raw text, handed over as serde_json's raw-value protocol does.
struct Raw<'t> {
    text: Option<&'t str>,
}

impl<'de> MapAccess<'de> for Raw<'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.text.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_VALUE))
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let text = self
            .text
            .take()
            .ok_or_else(|| de::Error::custom("a raw value read twice"))?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(text))
    }
}

/// The contents of an array or object, up to the token after it: items,
/// or members (a name token, then its value's).
struct Within<'a, 't> {
    tokens: &'a mut Tokens<'t>,
    end: usize,
}

impl<'de> Within<'_, 'de> {
    /// The next item or member name, or none at the end.
    fn next<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, Error> {
        if self.tokens.at >= self.end {
            return Ok(None);
        }
        seed.deserialize(&mut *self.tokens).map(Some)
    }
}

impl<'de> SeqAccess<'de> for Within<'_, 'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.next(seed)
    }
}

impl<'de> MapAccess<'de> for Within<'_, 'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.next(seed)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(&mut *self.tokens)
    }
}

#[cfg(test)]
mod tests {
    // Test code: a failed assumption here stops the run, as it should.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::text::{scan_recording, Layout};
    use serde_json::value::RawValue;

    /// Reads `text` from its tokens and, as the decoder does past the tape,
    /// from the text through serde_json.
    fn both<T: DeserializeOwned>(text: &str) -> (Result<T, Error>, Result<T, Error>) {
        let mut tape = Vec::new();
        scan_recording(text.as_bytes(), Layout::Contained, &mut tape).expect("policy");
        (from_tokens(text, &tape, 0), crate::strict::from_str(text))
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    enum Algorithm {
        #[serde(rename = "md5")]
        Md5,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Inner {
        algorithm: Algorithm,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Outer {
        items: Option<Vec<Inner>>,
    }

    /// A struct from an object and an enum value from a string, at any
    /// depth, and not in the other forms serde_json takes; the tokens and
    /// the text say the same, word for word.
    #[test]
    fn structs_are_objects_and_enums_strings_only() {
        let (tokens, text) = both::<Outer>(r#"{"items": [{"algorithm": "md5"}]}"#);
        let read = Outer {
            items: Some(vec![Inner {
                algorithm: Algorithm::Md5,
            }]),
        };
        assert_eq!(tokens.expect("tokens"), read);
        assert_eq!(text.expect("text"), read);
        for (refused, said) in [
            (
                r#"[[{"algorithm": "md5"}]]"#,
                "invalid type: sequence, expected struct Outer",
            ),
            (
                r#"{"items": [["md5"]]}"#,
                "invalid type: sequence, expected struct Inner",
            ),
            (
                r#"{"items": [{"algorithm": {"md5": null}}]}"#,
                "invalid type: map, expected enum Algorithm",
            ),
            (
                r#"{"items": [{"algorithm": 5}]}"#,
                "invalid type: integer `5`, expected enum Algorithm",
            ),
            (
                r#"{"items": [{"algorithm": "sha1"}]}"#,
                "unknown variant `sha1`, expected `md5`",
            ),
        ] {
            let (tokens, text) = both::<Outer>(refused);
            let tokens = tokens.expect_err(refused).to_string();
            let text = text.expect_err(refused).to_string();
            assert!(tokens.starts_with(said), "{refused}: {tokens}");
            assert!(text.starts_with(said), "{refused}: {text}");
        }
    }

    #[test]
    fn a_raw_value_is_its_text() {
        #[derive(serde::Deserialize)]
        struct Holder {
            first: Box<RawValue>,
            second: Option<Box<RawValue>>,
        }
        let text = r#"{"first": [1, {"a": "\u00e9"}] , "second": -2.5e3}"#;
        let (tokens, json) = both::<Holder>(text);
        let (tokens, json) = (tokens.expect("tokens"), json.expect("text"));
        assert_eq!(tokens.first.get(), json.first.get());
        assert_eq!(tokens.first.get(), r#"[1, {"a": "\u00e9"}]"#);
        assert_eq!(
            tokens.second.map(|raw| raw.get().to_string()),
            json.second.map(|raw| raw.get().to_string())
        );
    }

    #[test]
    fn numbers_are_typed_as_serde_json_types_them() {
        for text in [
            "0",
            "-0",
            "-7",
            "9007199254740991",
            "-9007199254740991",
            "1.5",
            "1e2",
            "-0.0",
        ] {
            let (tokens, json) = both::<serde_json::Value>(text);
            let (tokens, json) = (tokens.expect("tokens"), json.expect("text"));
            assert_eq!(tokens, json, "{text}");
            assert_eq!(
                (tokens.is_u64(), tokens.is_i64(), tokens.is_f64()),
                (json.is_u64(), json.is_i64(), json.is_f64()),
                "{text}"
            );
        }
    }
}
