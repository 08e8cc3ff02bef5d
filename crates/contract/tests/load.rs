//! A schema file that is not text is an error naming the file and the
//! place of its first bad byte, whether read from a folder or compiled in.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use contract::{Error, SchemaSet};

const BAD: &[u8] = b"{\n  \"title\": \"Count\",\n  \"description\": \"caf\xe9\"\n}\n";

#[test]
fn a_byte_that_is_not_utf8_is_placed_in_its_file() {
    let err = SchemaSet::from_bytes(Path::new("schemas"), [("types/Count.json", BAD)])
        .expect_err("not UTF-8");
    match &err {
        Error::NotUtf8 {
            path,
            line,
            column,
            offset,
            marked,
        } => {
            assert_eq!(*marked, None);
            assert_eq!(path, Path::new("schemas/types/Count.json"));
            assert_eq!((*line, *column, *offset), (3, 22, 43));
        }
        other => panic!("expected NotUtf8, got {other:?}"),
    }
    assert!(
        err.to_string()
            .starts_with("schemas/types/Count.json:3:22: not UTF-8"),
        "{err}"
    );
}

#[test]
fn loading_a_folder_names_the_bad_byte_too() {
    let dir = std::env::temp_dir().join(format!("vdm-contract-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("types")).unwrap();
    std::fs::write(dir.join("types/Count.json"), BAD).unwrap();
    let err = SchemaSet::load(&dir).expect_err("not UTF-8");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(
            err,
            Error::NotUtf8 {
                line: 3,
                column: 22,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("types/Count.json:3:22"), "{err}");
}

/// A schema object that names a member twice is refused with the pointer
/// of the second, compared after unescaping; a text that is not JSON keeps
/// the parser's own account.
#[test]
fn a_member_named_twice_is_refused_with_its_pointer() {
    let said = |text: &str| {
        SchemaSet::from_texts(Path::new("schemas"), [("types/Count.json", text)])
            .map(|_| ())
            .map_err(|err| err.to_string())
    };
    assert_eq!(
        said(r#"{"title": "Count", "properties": {"n": {"maximum": 10, "maximum": 100000}}}"#),
        Err("schemas/types/Count.json: not JSON: the member at /properties/n/maximum is named twice in its object".into())
    );
    assert_eq!(
        said(r#"{"title": "Count", "\u0074itle": "Other"}"#),
        Err(
            "schemas/types/Count.json: not JSON: the member at /title is named twice in its object"
                .into()
        )
    );
    // The same name in two objects is no repeat.
    let two = said(r#"{"$defs": {"a": {"title": "x"}, "b": {"title": "x"}}}"#);
    assert!(
        !two.as_ref().is_err_and(|err| err.contains("twice")),
        "{two:?}"
    );
    // Cut short after a repeat: the parser says what is wrong.
    let cut = said(r#"{"a": 1, "a": "#).expect_err("not JSON");
    assert!(cut.contains("EOF while parsing"), "{cut}");
}

/// A byte-order mark is named as such, not "expected value at line 1
/// column 1".
#[test]
fn a_byte_order_mark_is_named() {
    let err = SchemaSet::from_texts(
        Path::new("schemas"),
        [("types/Count.json", "\u{feff}{\"title\": \"Count\"}")],
    )
    .expect_err("a byte-order mark");
    assert!(
        err.to_string().starts_with(
            "schemas/types/Count.json: not JSON: the text starts with a byte-order mark (U+FEFF)"
        ),
        "{err}"
    );
}

/// A `.json` that is a FIFO (or a device) would block the read forever: it
/// is refused by name before anything reads it.
#[test]
fn a_schema_path_that_is_not_a_regular_file_is_refused() {
    let dir = std::env::temp_dir().join(format!("vdm-contract-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("types")).unwrap();
    let fifo = dir.join("types/Count.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let err = SchemaSet::load(&dir).expect_err("a FIFO");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        err.to_string(),
        format!("{}: not a regular file", fifo.display())
    );
}

/// A schema saved as UTF-16 or UTF-32 is named as such, with or without a
/// byte-order mark, and what to do about it.
#[test]
fn a_schema_saved_as_utf16_or_utf32_is_named_as_such() {
    let text = r#"{"title": "Count"}"#;
    let utf16 = |little: bool| -> Vec<u8> {
        let order = if little {
            u16::to_le_bytes
        } else {
            u16::to_be_bytes
        };
        text.encode_utf16().flat_map(order).collect()
    };
    let utf32 = |little: bool| -> Vec<u8> {
        let order = if little {
            u32::to_le_bytes
        } else {
            u32::to_be_bytes
        };
        text.chars().map(u32::from).flat_map(order).collect()
    };
    let marked = |encoding: &str| {
        format!("types/Count.json:1:1: not UTF-8 text (byte offset 0): it starts with a {encoding} byte-order mark; save the file as UTF-8")
    };
    let nul = "types/Count.json: not JSON: the text has a NUL byte beside its first character, as UTF-16 and UTF-32 have".to_string();
    for (bom, body, said) in [
        (&[0xFF, 0xFE][..], utf16(true), marked("UTF-16")),
        (&[0xFE, 0xFF][..], utf16(false), marked("UTF-16")),
        (&[][..], utf16(true), nul.clone()),
        (&[][..], utf16(false), nul.clone()),
        (&[0xFF, 0xFE, 0, 0][..], utf32(true), marked("UTF-32")),
        // Two NULs are UTF-8: the first byte that is not comes third.
        (
            &[0, 0, 0xFE, 0xFF][..],
            utf32(false),
            "types/Count.json:1:3: not UTF-8 text (byte offset 2): it starts with a UTF-32 byte-order mark".to_string(),
        ),
        (&[][..], utf32(true), nul.clone()),
        (&[][..], utf32(false), nul.clone()),
    ] {
        let mut bytes = bom.to_vec();
        bytes.extend(body);
        let err = SchemaSet::from_bytes(Path::new("schemas"), [("types/Count.json", &bytes[..])])
            .expect_err("UTF-16 and UTF-32 are not a schema file's encoding");
        assert!(err.to_string().contains(&said), "{err}");
    }
}

/// A folder linked in is read like any other; a folder reached a second
/// time through links (two links back up make the walk exponential) is
/// named, and loading ends.
#[cfg(unix)]
#[test]
fn a_folder_reached_twice_through_links_is_named() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("vdm-contract-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (set, shared) = (dir.join("set"), dir.join("shared"));
    std::fs::create_dir_all(&set).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(
        shared.join("Count.json"),
        r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Count"}"#,
    )
    .unwrap();
    symlink(&shared, set.join("types")).unwrap();
    let linked = SchemaSet::load(&set).map(|set| set.docs.len());
    symlink("..", shared.join("up")).unwrap();
    symlink("..", shared.join("up2")).unwrap();
    // Run apart, so a walk that never ends fails the test instead of
    // hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    let looped = set.clone();
    std::thread::spawn(move || {
        let _ = tx.send(
            SchemaSet::load(&looped)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    });
    let answer = rx.recv_timeout(std::time::Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(linked.ok(), Some(1), "the linked-in folder is read");
    let err = answer
        .expect("loading ends")
        .expect_err("a folder met twice");
    assert!(
        err.ends_with(": a folder already read, reached again through a symbolic link"),
        "{err}"
    );
}

/// Every message names its file, so a file or folder whose name holds a
/// line break (or another character that breaks or reorders a line) is
/// refused, shown escaped: it could otherwise print a line of its own.
#[test]
fn a_name_that_would_break_a_line_is_refused() {
    let count = r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Count"}"#;
    for name in [
        "Count\nerror: forged.json",
        "Count\u{202e}nosj.json",
        "types\r",
    ] {
        let dir = std::env::temp_dir().join(format!("vdm-contract-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("types")).unwrap();
        std::fs::write(dir.join("types/Count.json"), count).unwrap();
        let loaded = SchemaSet::load(&dir).map(|set| set.docs.len());
        if name.ends_with(".json") {
            std::fs::write(dir.join("types").join(name), count).unwrap();
        } else {
            std::fs::create_dir_all(dir.join(name)).unwrap();
        }
        let err = SchemaSet::load(&dir).map(|_| ()).map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(loaded.ok(), Some(1), "loads before");
        let err = err.expect_err(name);
        assert!(
            err.contains(&format!(
                "holds \"{}\", a name with a control or line-breaking character",
                contract::plain(name)
            )),
            "{err}"
        );
        assert!(!err.contains(name), "shown as it is: {err}");
    }
}
