//! Strings a regular expression matches, built from its parsed form.
//!
//! `regex-syntax` parses the pattern (its dialect is close to, not the same
//! as, ECMA-262's, which the validator speaks): a string built here is only a
//! candidate, and the validator decides whether the schema accepts it.
//! Patterns it cannot parse (look-around, back-references) give no string.

use regex_syntax::hir::{Class, Hir, HirKind};

use crate::Rng;

/// How many extra repetitions an unbounded `*`, `+` or `{n,}` gets at most.
const EXTRA_REPEATS: u32 = 4;
/// The longest string one pattern is allowed to build.
const MAX_BYTES: usize = 4096;

/// A string `pattern` matches, or `None` when the pattern cannot be parsed
/// here or the string would be too long.
pub fn matching(pattern: &str, rng: &mut Rng) -> Option<String> {
    matching_length(pattern, rng, None)
}

/// [`matching`], aiming at `want` characters: each repetition takes as
/// many turns as the length still missing, within its bounds (exact for
/// the common `[class]{m,n}` and `[class]+`).
pub fn matching_length(pattern: &str, rng: &mut Rng, want: Option<usize>) -> Option<String> {
    matching_parsed(&parse(pattern)?, rng, want)
}

/// `pattern` as the walk below takes it; `None` when it is not a regex.
pub(crate) fn parse(pattern: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(pattern)
        .ok()
}

/// [`matching_length`] of a pattern already parsed.
pub(crate) fn matching_parsed(hir: &Hir, rng: &mut Rng, want: Option<usize>) -> Option<String> {
    let mut out = Vec::new();
    // The HIR is walked with an explicit stack: a pattern nested deeply
    // enough would otherwise overflow the thread's stack.
    let mut stack: Vec<&Hir> = vec![hir];
    while let Some(node) = stack.pop() {
        if out.len() > MAX_BYTES {
            return None;
        }
        match node.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.extend_from_slice(&literal.0),
            HirKind::Class(Class::Unicode(class)) => {
                let range = rng.pick(class.ranges())?;
                let (lo, hi) = (u32::from(range.start()), u32::from(range.end()));
                // Prefer the printable ASCII part of a wide class.
                let (lo, hi) = if lo <= 0x7e && hi >= 0x20 && rng.chance(80) {
                    (lo.max(0x20), hi.min(0x7e))
                } else {
                    (lo, hi)
                };
                let code = u32::try_from(rng.between(i128::from(lo), i128::from(hi))).ok()?;
                let ch = char::from_u32(code).or_else(|| char::from_u32(lo))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            HirKind::Class(Class::Bytes(class)) => {
                let range = rng.pick(class.ranges())?;
                let byte = rng.between(i128::from(range.start()), i128::from(range.end()));
                out.push(u8::try_from(byte).ok()?);
            }
            HirKind::Repetition(repetition) => {
                let near = repetition.min.saturating_add(EXTRA_REPEATS);
                // Mostly short; sometimes anywhere up to a bounded maximum, or at it.
                let max = match repetition.max {
                    Some(max) if rng.chance(15) => max,
                    Some(max) if rng.chance(30) => rng
                        .between(i128::from(repetition.min), i128::from(max))
                        .try_into()
                        .unwrap_or(max),
                    Some(max) => max.min(near),
                    None => near,
                };
                let count = match want {
                    Some(want) => {
                        // Room is left for what the rest of the pattern needs
                        // at least, and each turn counted at its own least
                        // length, so that `\d+\.\d+` can be aimed at exactly.
                        let rest: usize = stack
                            .iter()
                            .filter_map(|rest| rest.properties().minimum_len())
                            .sum();
                        let per_turn = repetition
                            .sub
                            .properties()
                            .minimum_len()
                            .unwrap_or(1)
                            .max(1);
                        let missing = want
                            .saturating_sub(String::from_utf8_lossy(&out).chars().count())
                            .saturating_sub(rest)
                            / per_turn;
                        let missing = u32::try_from(missing).unwrap_or(u32::MAX);
                        i128::from(missing.clamp(
                            repetition.min,
                            repetition.max.unwrap_or(u32::MAX).max(repetition.min),
                        ))
                    }
                    None => rng.between(i128::from(repetition.min.min(max)), i128::from(max)),
                };
                let count = usize::try_from(count).ok()?;
                if count.saturating_mul(1 + out.len()) > MAX_BYTES * 4 {
                    return None;
                }
                stack.extend(std::iter::repeat_n(repetition.sub.as_ref(), count));
            }
            HirKind::Capture(capture) => stack.push(&capture.sub),
            HirKind::Concat(parts) => stack.extend(parts.iter().rev()),
            HirKind::Alternation(branches) => stack.push(rng.pick(branches)?),
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::matching;
    use crate::Rng;

    #[test]
    fn strings_built_from_a_pattern_pass_the_validator() {
        let mut rng = Rng::new(3);
        for pattern in [
            "^[A-Za-z0-9_-]{1,64}$",
            "^(ab|cd)+x?$",
            "^[0-9a-f]{32}$",
            "é+",
            "^a{2,3}b*$",
        ] {
            let schema = serde_json::json!({"type": "string", "pattern": pattern});
            for _ in 0..50 {
                let text = matching(pattern, &mut rng).expect("a string");
                assert!(
                    jsonschema::is_valid(&schema, &serde_json::json!(text)),
                    "{text:?} does not match {pattern}"
                );
            }
        }
    }

    /// Aimed at a length, a pattern of several repetitions reaches it
    /// exactly: the first does not take the room the others need.
    #[test]
    fn a_length_aimed_at_is_reached_across_repetitions() {
        let mut rng = Rng::new(5);
        for want in [5, 6, 17, 32] {
            let text = super::matching_length("^[0-9]+\\.[0-9]+\\.[0-9]+$", &mut rng, Some(want))
                .expect("a string");
            assert_eq!(text.len(), want, "{text:?}");
            let text = super::matching_length("^(ab)+c$", &mut rng, Some(want)).expect("a string");
            assert!(
                text.len() <= want && text.len() + 2 > want,
                "{want}: {text:?}"
            );
        }
    }

    #[test]
    fn look_around_gives_no_string() {
        assert_eq!(matching("^(?!x)", &mut Rng::new(1)), None);
    }
}
