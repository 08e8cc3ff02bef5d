//! Contract patterns as every engine reads them: ECMAScript's `RegExp` (the
//! meaning JSON Schema gives a `pattern`), the Rust readers (`jsonschema`,
//! and the `regex` crate `generate` draws strings with), and the automaton
//! the generated C++ and TypeScript walk instead of a regex engine.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use contract::{pattern_automaton, SchemaSet};
use serde_json::{json, Value};

use super::edits::Draw;
use super::model::tests::doc;
use super::model::{model, Pattern};

/// Patterns drawn from `lint.pattern`'s vocabulary, and texts of the
/// characters that tell byte from character and one engine's classes from
/// another's.
const LITERALS: &[&str] = &[
    "a", "b", "c", "A", "Z", "0", "9", "_", "-", "/", ":", "x", "\\.", "\\+", "\\/", "\\{", "\\[",
    "\\]", "\\\\", "\\$",
];
const MEMBERS: &[&str] = &[
    "a", "b", "x", "0", "_", "/", ":", ".", "a-c", "0-9", "A-Z", "\\-", "\\]", "\\[", "^",
];
const QUANTIFIERS: &[&str] = &[
    "", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?", "{0,1}",
];

fn atom(draw: &mut Draw, depth: usize) -> String {
    match draw.below(if depth > 1 { 2 } else { 4 }) {
        0 => draw.pick(LITERALS).to_string(),
        1 => {
            // `^` first would negate the class.
            let mut class = String::from("[");
            for index in 0..1 + draw.below(3) {
                let member = draw.pick(MEMBERS);
                class.push_str(if index == 0 && member == "^" {
                    "a"
                } else {
                    member
                });
            }
            class + "]"
        }
        2 => format!("({})", alternation(draw, depth + 1)),
        _ => format!("(?:{})", alternation(draw, depth + 1)),
    }
}

fn alternation(draw: &mut Draw, depth: usize) -> String {
    let mut out = String::new();
    for branch in 0..1 + draw.below(2) {
        if branch > 0 {
            out.push('|');
        }
        for _ in 0..1 + draw.below(3) {
            out.push_str(&atom(draw, depth));
            out.push_str(draw.pick(QUANTIFIERS));
        }
    }
    out
}

fn pattern(draw: &mut Draw) -> String {
    let start = if draw.below(2) == 0 { "^" } else { "" };
    let end = if draw.below(2) == 0 { "$" } else { "" };
    format!("{start}{}{end}", alternation(draw, 0))
}

fn text(draw: &mut Draw) -> String {
    const CHARS: &[&str] = &[
        "a", "b", "c", "x", "A", "Z", "0", "9", "_", "-", "/", ":", ".", "{", "[", "]", "\\", "$",
        "^", " ", "\t", "\n", "\r", "\u{2028}", "\u{a0}", "é", "😀", "ａ",
    ];
    (0..draw.below(8)).map(|_| draw.pick(CHARS)).collect()
}

fn rows(program: &mut Command, what: &str) -> Vec<String> {
    let output = program.output().unwrap_or_else(|err| {
        panic!("{what} cannot start ({err}); `cargo xtask test` installs it")
    });
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The generated walks (`cpp::pattern::function`, `ts::pattern_constant`
/// with the runtime's `automaton`) answer as `RegExp` does for every pattern
/// drawn, and so do `jsonschema` and the `regex` crate. A drawn pattern
/// whose automaton is too large is refused by the lint, and no binding is
/// generated for it.
#[test]
fn patterns_of_the_vocabulary_read_alike_in_every_engine() {
    let mut draw = Draw(0x5eed_1e55);
    let patterns: Vec<String> = (0..160).map(|_| pattern(&mut draw)).collect();
    let texts: Vec<String> = (0..120).map(|_| text(&mut draw)).collect();
    let dir = std::env::temp_dir().join(format!("vdm-patterns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let built: Vec<Option<Pattern>> = patterns
        .iter()
        .map(|source| {
            pattern_automaton(source).ok().map(|automaton| Pattern {
                source: source.clone(),
                automaton: Box::new(automaton),
            })
        })
        .collect();

    // ECMAScript, and the automata as the TypeScript bindings walk them.
    let cases = dir.join("cases.json");
    std::fs::write(
        &cases,
        json!({"patterns": patterns, "texts": texts}).to_string(),
    )
    .expect("the cases are written");
    let (runtime, _) = super::ts::runtime_alone();
    let mut module = runtime;
    let mut walks = Vec::new();
    for (index, pattern) in built.iter().enumerate() {
        match pattern {
            Some(pattern) => {
                module.push_str(&super::ts::pattern_constant(index, pattern));
                walks.push(format!("PATTERN_{index}"));
            }
            None => walks.push("null".into()),
        }
    }
    let _ = write!(
        module,
        "\nconst walks = [{}];\n\
         const c = JSON.parse((await import('node:fs')).readFileSync({:?}, 'utf8'));\n\
         c.patterns.forEach((p, i) => {{ const r = new RegExp(p, 'u');\n\
         \x20 const w = walks[i] ?? r;\n\
         \x20 console.log(c.texts.map((t) => (r.test(t) ? '1' : '0')).join('') + ' ' +\n\
         \x20   c.texts.map((t) => (w.test(t) ? '1' : '0')).join(''));\n}});\n",
        walks.join(", "),
        cases.display().to_string()
    );
    std::fs::write(dir.join("patterns.mjs"), module).expect("the module is written");
    let node = rows(Command::new("node").arg(dir.join("patterns.mjs")), "node");

    // The automata as the C++ bindings walk them.
    let mut source = String::from("#include <iostream>\n#include <string_view>\n");
    let mut calls = Vec::new();
    for (index, pattern) in built.iter().enumerate() {
        if let Some(pattern) = pattern {
            source.push_str(&super::cpp::pattern::function(
                index,
                &pattern.automaton,
                &super::cpp::literal(&pattern.source),
            ));
            calls.push(format!("pattern_{index}"));
        } else {
            calls.push("nullptr".into());
        }
    }
    source.push_str("static bool (*const walks[])(std::string_view) = {");
    source.push_str(&calls.join(", "));
    source.push_str("};\nstatic const char* texts[] = {");
    for text in &texts {
        let _ = write!(source, "{},", super::cpp::literal(text));
    }
    source.push_str(
        "};\nint main() {\n  for (auto walk : walks) {\n\
         \x20   for (const char* t : texts) std::cout << (walk && walk(t) ? '1' : '0');\n\
         \x20   std::cout << '\\n';\n  }\n}\n",
    );
    std::fs::write(dir.join("patterns.cpp"), source).expect("the source is written");
    compile(&dir.join("patterns.cpp"), &dir.join("patterns"), &dir);
    let cpp = rows(&mut Command::new(dir.join("patterns")), "the C++ program");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(node.len(), patterns.len());
    assert_eq!(cpp.len(), patterns.len());

    let mut with_automata = 0;
    let mut matched = 0;
    for (index, pattern) in patterns.iter().enumerate() {
        assert_eq!(contract::pattern_reads_alike(pattern), Ok(()), "{pattern}");
        let (ecmascript, typescript) = node[index].split_once(' ').expect("two rows");
        let validator = jsonschema::validator_for(&json!({"pattern": pattern}))
            .unwrap_or_else(|err| panic!("{pattern}: {err}"));
        let generator = regex::Regex::new(pattern).unwrap_or_else(|err| panic!("{pattern}: {err}"));
        let automaton = built[index].as_ref();
        with_automata += usize::from(automaton.is_some());
        for (at, text) in texts.iter().enumerate() {
            let expected = ecmascript.as_bytes().get(at) == Some(&b'1');
            matched += usize::from(expected);
            let mut seen = vec![
                (
                    "jsonschema",
                    validator.is_valid(&Value::from(text.as_str())),
                ),
                ("regex", generator.is_match(text)),
            ];
            if let Some(pattern) = automaton {
                seen.extend([
                    (
                        "the TypeScript walk",
                        typescript.as_bytes().get(at) == Some(&b'1'),
                    ),
                    ("the C++ walk", cpp[index].as_bytes().get(at) == Some(&b'1')),
                    (
                        "the walk over bytes",
                        pattern.automaton.is_match(text.as_bytes()),
                    ),
                    (
                        "the walk over UTF-16",
                        pattern.automaton.is_match_utf16(text),
                    ),
                ]);
            }
            for (engine, answer) in seen {
                assert_eq!(
                    answer, expected,
                    "{engine} and ECMAScript differ on {pattern:?} against {text:?}"
                );
            }
        }
    }
    // The draw covers both answers; a pattern too large for an automaton is rare.
    let total = patterns.len() * texts.len();
    assert!(
        matched > total / 20 && matched < total - total / 20,
        "{matched} of {total}"
    );
    assert!(with_automata > patterns.len() * 9 / 10, "{with_automata}");
}

/// Builds `program` from `source`, headers looked up in `include`.
fn compile(source: &Path, program: &Path, include: &Path) {
    let compiled = Command::new("g++")
        .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(program)
        .arg("-I")
        .arg(include)
        .arg(source)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
}

/// What a child printed, or `None` when it was still running at the
/// deadline (it is then killed).
fn within(mut child: Child, deadline: Duration) -> Option<String> {
    let started = Instant::now();
    loop {
        match child.try_wait().expect("the child can be waited for") {
            Some(_) => break,
            None if started.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    let output = child.wait_with_output().expect("the output is read");
    Some(format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// A contract whose TaskId pattern is the classic one a backtracking engine
/// takes exponential time on (`RegExp` on 60 characters and a `!` would run
/// for ages): every reader answers a call carrying such a TaskId at once,
/// refusing it by the pattern, and reads a TaskId that matches.
#[test]
fn a_pattern_that_backtracks_elsewhere_is_read_in_linear_time_by_every_reader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut set = SchemaSet::load(&root.join("contracts/schema")).expect("the schemas");
    let pattern = "^([A-Za-z0-9_]+-?)*$";
    doc(&mut set, "TaskId")["pattern"] = json!(pattern);
    let hostile = format!("{}!", "a".repeat(60));
    let call = |task: &str| {
        json!({"v": 1, "kind": "call", "id": 1,
               "body": {"method": "download.pause", "params": {"taskId": task}}})
        .to_string()
    };
    let texts = [call(&hostile), call("abc-def_0")];

    let dir = std::env::temp_dir().join(format!("vdm-backtracks-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("vdm")).expect("a scratch folder");
    let model = model(&set).expect("the edited contract has a model");
    let origin = super::Origin {
        command: "test",
        schemas: "an edit of the contract".into(),
    };
    for (name, text) in super::cpp::files(&model, "0.0.0", &origin).expect("C++ bindings") {
        std::fs::write(dir.join("vdm").join(name), text).expect("written");
    }
    for (name, text) in super::ts::files(&model, "0.0.0", &origin).expect("TypeScript bindings") {
        std::fs::write(dir.join(name), text).expect("written");
    }
    std::fs::write(dir.join("texts.json"), json!(texts).to_string()).expect("written");
    let deadline = Duration::from_secs(120);

    let node = Command::new("node")
        .arg("--input-type=module")
        .arg("-e")
        .arg(format!(
            "const b = await import({:?});\n\
             const texts = JSON.parse((await import('node:fs')).readFileSync({:?}, 'utf8'));\n\
             for (const t of texts) {{ try {{ b.parseEnvelopeText(t); console.log('read'); }}\n\
             catch (e) {{ console.log(e.message); }} }}",
            dir.join("index.js").display().to_string(),
            dir.join("texts.json").display().to_string()
        ))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let typescript = within(node, deadline).expect("the TypeScript reader answers");

    let source = dir.join("read.cpp");
    let mut program =
        String::from("#include <iostream>\n#include \"vdm/contract.hpp\"\nint main() {\n");
    for text in &texts {
        let _ = writeln!(
            program,
            "  try {{ vdm::contract::parse_envelope({}); std::cout << \"read\\n\"; }}\n\
             \x20 catch (const vdm::contract::ContractError& e) {{ std::cout << e.what() << \"\\n\"; }}",
            super::cpp::literal(text)
        );
    }
    program.push_str("}\n");
    std::fs::write(&source, program).expect("written");
    compile(&source, &dir.join("read"), &dir);
    let reader = Command::new(dir.join("read"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the C++ program starts");
    let cpp = within(reader, deadline).expect("the C++ reader answers");
    let _ = std::fs::remove_dir_all(&dir);

    for (reader, said) in [("TypeScript", &typescript), ("C++", &cpp)] {
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(lines.len(), 2, "{reader}: {said}");
        assert!(
            lines[0].contains("/body/params/taskId") && lines[0].contains(pattern),
            "{reader} on the hostile TaskId: {said}"
        );
        assert_eq!(
            lines[1], "read",
            "{reader} on a TaskId that matches: {said}"
        );
    }
    let validator = jsonschema::validator_for(&json!({"pattern": pattern})).expect("a validator");
    assert!(!validator.is_valid(&json!(format!("{}!", "a".repeat(100_000)))));
    assert!(validator.is_valid(&json!("abc-def_0")));
}
