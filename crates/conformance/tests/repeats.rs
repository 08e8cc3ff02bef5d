//! Two readers decide whether a text names a member twice: the wire's text
//! policy (`proto::text`) and the schema-file reader (`contract::read_json`,
//! which also reads fixtures and transition tables). Over generated texts,
//! with names that differ only in how they are escaped, both agree with
//! what the generator put in.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use sample::Rng;

/// Names as written, with what they read as: some differ only in escapes.
const NAMES: [(&str, &str); 6] = [
    (r#""a""#, "a"),
    (r#""\u0061""#, "a"),
    (r#""b""#, "b"),
    (r#""\u0062""#, "b"),
    (r#""a\"""#, "a\""),
    (r#""""#, ""),
];

/// A JSON text, and whether some object in it names a member twice.
fn text(rng: &mut Rng, depth: usize, out: &mut String) -> bool {
    let kind = if depth >= 4 { 2 } else { rng.below(4) };
    match kind {
        0 => {
            out.push('{');
            let mut seen: Vec<&str> = Vec::new();
            let mut repeats = false;
            for index in 0..rng.below(5) {
                if index > 0 {
                    out.push_str(", ");
                }
                let (written, read) = NAMES[rng.below(NAMES.len())];
                repeats |= seen.contains(&read);
                seen.push(read);
                out.push_str(written);
                out.push_str(": ");
                repeats |= text(rng, depth + 1, out);
            }
            out.push('}');
            repeats
        }
        1 => {
            out.push('[');
            let mut repeats = false;
            for index in 0..rng.below(4) {
                if index > 0 {
                    out.push(',');
                }
                repeats |= text(rng, depth + 1, out);
            }
            out.push(']');
            repeats
        }
        // A string that looks like a member, to tempt a scan that is not
        // following the structure.
        2 => {
            out.push_str(r#""a\": 1, \"a""#);
            false
        }
        _ => {
            out.push_str(&rng.below(1000).to_string());
            false
        }
    }
}

#[test]
fn both_readers_find_the_repeats_the_generator_put_in() {
    let mut rng = Rng::new(11);
    let mut repeated = 0;
    for _ in 0..20_000 {
        let mut written = String::new();
        // Objects at the top, as schema files and messages are.
        let repeats = loop {
            written.clear();
            let repeats = text(&mut rng, 0, &mut written);
            if written.starts_with('{') {
                break repeats;
            }
        };
        repeated += usize::from(repeats);
        let wire = match proto::text::check(written.as_bytes()) {
            Ok(_) => false,
            Err(err) => match err.problem {
                proto::text::TextProblem::DuplicateKey(_) => true,
                other => panic!("{written}: {other:?}"),
            },
        };
        let file = match contract::read_json(&written) {
            Ok(Ok(_)) => false,
            Err(err) if err.to_string().contains("named twice") => true,
            other => panic!("{written}: {other:?}"),
        };
        assert_eq!((wire, file), (repeats, repeats), "{written}");
    }
    // Both answers were exercised.
    assert!(
        (2_000..18_000).contains(&repeated),
        "{repeated} of 20,000 repeat"
    );
}
