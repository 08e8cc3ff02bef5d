//! Two schemas compared both ways, with the search as the oracle: the
//! checker must return a verdict (or refuse the input as not a schema), never
//! panic, overflow its stack or run away, and no "compatible" may be refuted
//! by a value the writer accepts and the reader refuses.
//!
//! The first byte chooses the mode. Generated: the next eight bytes seed a
//! document with `$defs` in cycles, `allOf` mixes, big and fractional numbers
//! and non-ASCII patterns, and a one-step change of it (`sample::schemas`).
//! Raw: the rest is split at the first NUL into the old schema and the new.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fn load(text: &str) -> Option<contract::SchemaSet> {
    contract::SchemaSet::from_texts_with(Path::new("fuzz"), [("types/Case.json", text)], contract::DeepDocuments::Keep).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    let (old, new) = if mode % 2 == 0 {
        let mut seed = [0u8; 8];
        for (slot, byte) in seed.iter_mut().zip(rest) {
            *slot = *byte;
        }
        let mut rng = sample::Rng::new(u64::from_le_bytes(seed));
        let old = sample::schemas::document(&mut rng);
        let new = sample::schemas::changed(&old, &mut rng);
        (old.to_string(), new.to_string())
    } else {
        let mut halves = rest.splitn(2, |byte| *byte == 0);
        let (Some(old), Some(new)) = (halves.next(), halves.next()) else {
            return;
        };
        let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
            return;
        };
        (old.to_string(), new.to_string())
    };
    let (Some(old), Some(new)) = (load(&old), load(&new)) else {
        return;
    };
    for readers in [compat::Readers::Tolerant, compat::Readers::Strict] {
        let options = compat::Options { readers, search: 100, ..Default::default() };
        let Ok(comparison) = compat::compare_documents(&old, &new, options) else {
            continue;
        };
        let _ = compat::report::human(&comparison, None);
        assert!(comparison.defects.is_empty(), "a compatible verdict is refuted: {:?}", comparison.defects);
    }
});
