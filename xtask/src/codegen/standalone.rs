//! The hand-written parts of the C++ and TypeScript bindings, alone: each is
//! compiled (C++, with every warning an error), loaded (JavaScript) or
//! type-checked (its declarations) with only the head the emitters write
//! before it, and its message escaping run, so a fault in a part shows here
//! and not only in the generated bindings.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vdm-standalone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir.join(name)
}

#[test]
fn the_hand_written_cpp_compiles_and_runs_on_its_own() {
    let header = scratch("support.hpp");
    let source = scratch("support.cpp");
    let program = scratch("support");
    std::fs::write(&header, super::cpp::support_alone()).expect("the header is written");
    std::fs::write(
        &source,
        r#"#include "support.hpp"

int main() {
  // Input text in a message stays one line.
  return vdm::contract::detail::printable("a\nb") == "a\\u000ab" ? 0 : 1;
}
"#,
    )
    .expect("the source is written");
    let output = Command::new("g++")
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        output.status.success(),
        "cpp/support.hpp does not compile alone:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ran = Command::new(&program).status().expect("the program runs");
    assert!(ran.success(), "printable did not escape a newline");
}

#[test]
fn the_hand_written_typescript_loads_and_type_checks_on_its_own() {
    let (js, dts) = super::ts::runtime_alone();
    let module = scratch("runtime.mjs");
    std::fs::write(
        &module,
        js + r#"
if (printable("a\nb") !== "a\\u000ab") throw new Error("printable did not escape a newline");
"#,
    )
    .expect("the module is written");
    let output = Command::new("node")
        .arg(&module)
        .output()
        .unwrap_or_else(|err| panic!("node cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        output.status.success(),
        "ts/runtime.js does not load alone:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let declarations = scratch("runtime.d.ts");
    // The one name the frame codec's declarations take from the generated part.
    let stand_in = "declare type Envelope = { readonly v: number };\n";
    std::fs::write(&declarations, format!("{stand_in}{dts}"))
        .expect("the declarations are written");
    let tsc = crate::root().join("bindings/ts/node_modules/typescript/bin/tsc");
    assert!(
        tsc.exists(),
        "{} is missing: `cargo xtask test` installs it (npm ci in bindings/ts)",
        tsc.display()
    );
    let output = Command::new("node")
        .arg(&tsc)
        .args(["--strict", "--noEmit", "--target", "ES2022"])
        .arg(&declarations)
        .output()
        .expect("node runs tsc");
    assert!(
        output.status.success(),
        "ts/runtime.d.ts does not type-check alone:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}
