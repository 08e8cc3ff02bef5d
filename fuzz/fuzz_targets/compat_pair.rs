//! Two schemas from arbitrary bytes, compared both ways: the checker must
//! return a verdict (or refuse the input as not a schema), never panic,
//! overflow its stack or run away. The bytes are split at the first NUL:
//! the old schema before it, the new one after.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut halves = data.splitn(2, |byte| *byte == 0);
    let (Some(old), Some(new)) = (halves.next(), halves.next()) else {
        return;
    };
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return;
    };
    let load = |text: &str| {
        contract::SchemaSet::from_texts(Path::new("fuzz"), [("types/Case.json", text)]).ok()
    };
    let (Some(old), Some(new)) = (load(old), load(new)) else {
        return;
    };
    for strict_readers in [false, true] {
        let options = compat::Options { strict_readers, ..Default::default() };
        let comparison = compat::compare_documents(&old, &new, options);
        let _ = compat::report::human(&comparison, None);
    }
});
