//! Lint-clean edits of the real contract, drawn at random: properties,
//! enum values and error-code names spelled as the three languages' keywords,
//! globals and macros, and descriptions that can end a comment or a line. Whatever the lint passes, the model either refuses
//! with a place, or the C++ headers compile (GNU dialect, every strict
//! warning an error) and the TypeScript declarations type-check and the
//! module loads. A bounded run is part of `cargo test`; `CODEGEN_EDITS=N`
//! and `CODEGEN_EDITS_SEED=S` run more.

use std::path::{Path, PathBuf};
use std::process::Command;

use contract::{lint, LintRule, SchemaSet};
use serde_json::json;

use super::model::model;
use super::model::tests::{a_string_enum, doc};

const NAMES: &[&str] = &[
    "for",
    "while",
    "new",
    "delete",
    "default",
    "register",
    "signed",
    "unsigned",
    "union",
    "auto",
    "typeof",
    "void",
    "yield",
    "await",
    "async",
    "enum",
    "export",
    "import",
    "package",
    "private",
    "static",
    "super",
    "with",
    "let",
    "var",
    "function",
    "catch",
    "finally",
    "instanceof",
    "in",
    "of",
    "get",
    "set",
    "prototype",
    "length",
    "name",
    "caller",
    "apply",
    "bind",
    "call",
    "then",
    "toJSON",
    "items",
    "keys",
    "values",
    "size",
    "at",
    "ok",
    "err",
    "result",
    "params",
    "method",
    "kind",
    "body",
    "v",
    "id",
    "map",
    "vec",
    "box",
    "crate",
    "mod",
    "fn",
    "impl",
    "trait",
    "ref",
    "move",
    "mut",
    "pub",
    "use",
    "where",
    "dyn",
    "abstract",
    "become",
    "final",
    "macro",
    "override",
    "virtual",
    "try",
    "match",
    "loop",
    "type",
    "struct",
    "string",
    "int",
    "char",
    "float",
    "double",
    "long",
    "short",
    "bool",
    "true",
    "false",
    "null",
    "nullptr",
    "and",
    "or",
    "not",
    "xor",
    "compl",
    "errno",
    "stdin",
    "linux",
    "unix",
    "major",
    "minor",
    "interface",
    "small",
    "near",
    "far",
    "pascal",
    "cdecl",
    "hyper",
    "self",
    "std",
    "json",
    "detail",
    "out",
    "value",
    "text",
    "size_t",
    "int8_t",
    "eof",
    "some",
    "none",
    "bitor",
    "char8_t",
    "concept",
    "requires",
    "co_await",
    "decltype",
    "static_assert",
    "wchar_t",
    "module",
    "import",
];

/// A seeded draw (an LCG): the same seed, the same edits.
pub(super) struct Draw(pub(super) u64);

impl Draw {
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }

    pub(super) fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    fn name(&mut self) -> &'static str {
        self.pick(NAMES)
    }
}

fn edit(set: &mut SchemaSet, draw: &mut Draw) -> String {
    let shapes = [
        json!({"type": "string", "maxLength": 3}),
        json!({"type": "integer", "minimum": 0, "maximum": 5}),
        json!({"type": "boolean"}),
        json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}),
        json!({"$ref": "TaskId.json"}),
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 5}),
    ];
    // Descriptions go into comments and, for rules, string literals.
    let texts = [
        "C:\\",
        "ends in a backslash \\ ",
        "no end */ here /* nor here",
        "what??/",
        "trigraphs ??= ??( ??) ??' ??! ??< ??> ??- and ???/",
        "two\nlines\\\nand a tab\t",
        "a line separator \u{2028} and a paragraph one \u{2029}",
        "quotes \" ' ` and ${x}",
    ];
    let mut said = Vec::new();
    let text = texts[draw.below(texts.len())];
    doc(set, "Checksum")["allOf"][0]["description"] = json!(text);
    said.push(format!("a rule described {text:?}"));
    for _ in 0..4 {
        let name = draw.name();
        let mut shape = shapes[draw.below(shapes.len())].clone();
        shape["description"] = json!(match draw.below(2) {
            0 => format!("The {name}."),
            _ => texts[draw.below(texts.len())].to_string(),
        });
        doc(set, "Checksum")["properties"][name] = shape;
        said.push(format!("Checksum.{name}"));
    }
    let enum_name = a_string_enum(set);
    for _ in 0..3 {
        let value = draw.name();
        if let Some(values) = doc(set, &enum_name)["enum"].as_array_mut() {
            values.push(json!(value));
        }
        said.push(format!("{enum_name} {value}"));
    }
    // The one code name no method's `x-errors` uses.
    let code = draw.name();
    doc(set, "RpcErrorCode")["x-enum-varnames"][7] = json!(code);
    said.push(format!("RpcErrorCode {code}"));
    said.join(", ")
}

fn run(program: &mut Command, what: &str) -> Result<(), String> {
    let output = program.output().unwrap_or_else(|err| {
        panic!("{what} cannot start ({err}); `cargo xtask test` installs it")
    });
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// Writes the C++ and TypeScript bindings of `set` into `dir` and builds
/// them: the outer `Err` is the generators' refusal, the inner one a build
/// that failed.
fn build(set: &SchemaSet, dir: &Path, root: &Path) -> Result<Result<(), String>, String> {
    let model = model(set).map_err(|err| format!("{err:#}"))?;
    let origin = super::Origin {
        command: "test",
        schemas: "an edit of the contract".into(),
    };
    std::fs::create_dir_all(dir.join("vdm")).unwrap();
    for (name, text) in super::cpp::files(&model, "0.0.0", &origin).map_err(|e| format!("{e:#}"))? {
        std::fs::write(dir.join("vdm").join(name), text).unwrap();
    }
    for (name, text) in super::ts::files(&model, "0.0.0", &origin).map_err(|e| format!("{e:#}"))? {
        std::fs::write(dir.join(name), text).unwrap();
    }
    Ok(compile(dir, root))
}

fn compile(dir: &Path, root: &Path) -> Result<(), String> {
    let source = dir.join("all.cpp");
    std::fs::write(
        &source,
        // Included after what <windows.h> defines in lowercase, as an
        // engine built for Windows would include it.
        "#define far\n#define near\n#define pascal\n#define cdecl\n#define small char\n\
         #define hyper long long\n#define interface struct\n\
         #include \"vdm/contract.hpp\"\n#include \"vdm/frame.hpp\"\nint main() { return 0; }\n",
    )
    .unwrap();
    let warnings = include_str!("../../../bindings/cpp/strict-warnings.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    run(
        Command::new("g++")
            .args(["-std=gnu++17", "-fsyntax-only", "-Werror"])
            .args(warnings)
            .arg("-I")
            .arg(dir)
            .arg(&source),
        "g++",
    )?;
    run(
        Command::new("node")
            .arg(root.join("bindings/ts/node_modules/typescript/bin/tsc"))
            .args(["--noEmit", "--strict", "--exactOptionalPropertyTypes"])
            .args(["--target", "ES2022", "--lib", "ES2022,DOM"])
            .arg(dir.join("index.d.ts")),
        "tsc",
    )?;
    run(
        Command::new("node")
            .arg("--input-type=module")
            .arg("-e")
            .arg(format!(
                "await import({:?});",
                dir.join("index.js").display().to_string()
            )),
        "node",
    )
}

#[test]
fn lint_clean_edits_generate_bindings_that_build() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let rounds: usize = std::env::var("CODEGEN_EDITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let seed: u64 = std::env::var("CODEGEN_EDITS_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0xed17);
    let mut draw = Draw(seed);
    let base = SchemaSet::load(&root.join("contracts/schema")).unwrap();
    let scratch = std::env::temp_dir().join(format!("vdm-edits-{}", std::process::id()));
    let (mut built, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for round in 0..rounds {
        let mut set = base.clone();
        let what = edit(&mut set, &mut draw);
        // New things want a version bump; that rule has nothing to say here.
        if lint(&set).iter().any(|v| v.rule != LintRule::Since) {
            refused += 1;
            continue;
        }
        match build(&set, &scratch.join(round.to_string()), &root) {
            Ok(Ok(())) => built += 1,
            // The generators refusing with a place is an answer.
            Err(why) if why.contains(".json#") => refused += 1,
            Ok(Err(why)) | Err(why) => failures.push(format!("{what}:\n{why}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    tell!("{rounds} edits: {built} built, {refused} refused by lint or the generators");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(built > 0, "no edit was built ({refused} refused)");
}
