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
        } => {
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
