//! No input makes a reader recurse, allocate or work out of proportion to
//! it: 64 MiB texts of the shapes that break readers (nesting, width, one
//! long string, many members, a repeat at the very end) are decoded on a
//! thread with a 256 KiB stack, and each gets an answer.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proto::wire::decode;
use proto::Envelope;

const SIZE: usize = 64 << 20;

/// Each shape, and whether it is an envelope a reader takes.
fn shapes() -> Vec<(&'static str, Vec<u8>, bool)> {
    let open = |unit: &[u8]| unit.repeat(SIZE / unit.len());
    let mut wide = b"{\"v\":1,\"kind\":\"call\",\"id\":1,\"body\":{\"method\":\"tool.invoke\",\"params\":{\"tool\":\"t\",\"input\":[".to_vec();
    while wide.len() < SIZE {
        wide.extend_from_slice(b"1,");
    }
    wide.extend_from_slice(b"1]}}}");
    let mut members = b"{".to_vec();
    let mut n = 0u64;
    while members.len() < SIZE {
        members.extend_from_slice(format!("\"k{n}\":0,").as_bytes());
        n += 1;
    }
    members.extend_from_slice(b"\"k0\":1}");
    let unclosed = wide.get(..wide.len() - 5).unwrap_or_default().to_vec();
    let mut long_id = b"{\"v\":1,\"kind\":\"call\",\"id\":".to_vec();
    long_id.extend(std::iter::repeat_n(b'1', SIZE));
    long_id.extend_from_slice(b",\"body\":{\"method\":\"download.list\",\"params\":{}}}");
    let mut spaced = vec![b' '; SIZE];
    spaced.extend_from_slice(b"{\"v\":1,\"kind\":\"call\",\"id\":1,\"body\":{\"method\":\"download.list\",\"params\":{}}}\n");
    let mut string = b"\"".to_vec();
    string.extend(std::iter::repeat_n(b'a', SIZE));
    string.push(b'"');
    vec![
        ("arrays opened", open(b"["), false),
        ("objects opened", open(b"{\"a\":"), false),
        ("a call whose input is a wide array", wide, true),
        ("many members, one repeated last", members, false),
        ("one long string", string, false),
        ("a wide array left open", unclosed, false),
        ("an id as long as the text", long_id, false),
        ("a call after 64 MiB of spaces", spaced, true),
    ]
}

#[test]
fn sixty_four_mebibytes_of_any_shape_get_an_answer_on_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            shapes()
                .into_iter()
                .map(|(name, text, envelope)| (name, envelope, decode::<Envelope>(&text).is_ok()))
                .collect::<Vec<_>>()
        })
        .expect("a thread");
    let answers = handle
        .join()
        .expect("no reader overflowed its stack or panicked");
    for (name, envelope, accepted) in answers {
        assert_eq!(accepted, envelope, "{name}");
    }
}

/// A refusal reads the content again to find the misfit's place: an unknown
/// member nested as deep as the policy allows, before the misfit, is walked
/// again on that second read, on a small stack too, from the tokens and
/// from the text.
#[test]
fn finding_a_misfits_place_past_deep_nesting_fits_a_small_stack() {
    let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
    let objects = format!("{}1{}", "{\"a\":".repeat(120), "}".repeat(120));
    let texts: Vec<String> = [deep, objects]
        .iter()
        .map(|nested| {
            format!(
                r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"download.add","params":{{"zz":{nested},"spec":{{"zz":{nested},"url":"https://e/a","segments":"x"}}}}}}}}"#
            )
        })
        .collect();
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            texts
                .iter()
                .flat_map(|text| {
                    [
                        decode::<Envelope>(text.as_bytes()),
                        proto::wire::decode_from_text::<Envelope>(text.as_bytes()),
                    ]
                })
                .map(|read| read.map(|_| ()).map_err(|err| err.pointer))
                .collect::<Vec<_>>()
        })
        .expect("a thread");
    let pointers = handle
        .join()
        .expect("no reader overflowed its stack or panicked");
    assert_eq!(pointers.len(), 4);
    for pointer in pointers {
        assert_eq!(pointer, Err("/body/params/spec/segments".to_string()));
    }
}
