//! A broken schema set is reported by codegen and the gate, naming the
//! file: it never stops the xtask compiling, though the list of schema
//! files compiled into the checker then names a file that is gone.

use crate::scratch::{said, Scratch};

#[test]
fn a_schema_removed_or_not_utf8_is_named_by_codegen_and_the_gate() -> anyhow::Result<()> {
    let copy = Scratch::new("broken-schemas")?;
    let summary = copy.dir.join("contracts/schema/types/TaskSummary.json");
    let text = std::fs::read(&summary)?;
    let mut bad = text.clone();
    // A Latin-1 "é" where UTF-8 wants two bytes, on the file's second line.
    let at = bad.iter().position(|&b| b == b'\n').unwrap_or(0) + 4;
    bad.insert(at, 0xe9);
    std::fs::write(&summary, &bad)?;
    let gate = copy.xtask(&["gate"])?;
    let out = said(&gate);
    assert!(!gate.status.success(), "{out}");
    assert!(
        out.contains("types/TaskSummary.json:2:4: not UTF-8"),
        "the gate names the file and the place:\n{out}"
    );
    std::fs::write(&summary, &text)?;

    // An event's file removed, its union branch left naming it.
    let mut events: Vec<String> = std::fs::read_dir(copy.dir.join("contracts/schema/events"))?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    events.sort();
    let event = events
        .first()
        .ok_or_else(|| anyhow::anyhow!("the contract has no event"))?;
    std::fs::remove_file(copy.dir.join("contracts/schema/events").join(event))?;
    let codegen = copy.xtask(&["codegen"])?;
    let out = said(&codegen);
    assert!(!codegen.status.success(), "{out}");
    assert!(!out.contains("could not compile"), "{out}");
    assert!(
        out.contains(&format!(
            "names events/{event}, which is not in the schema set"
        )),
        "codegen names what is missing:\n{out}"
    );
    Ok(())
}
