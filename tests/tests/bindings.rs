//! The C++ and TypeScript bindings held to the fixtures the Rust ones are:
//! every valid fixture read and written back to the same JSON value, every
//! invalid one refused at its place (or below it) or listed (with its
//! reason) in that language's known-divergences, every frame stream read into its sidecar's outcomes.
//!
//! The programs under test are the bindings' own examples: `g++` compiles
//! them with `-Werror`, `node` runs the TypeScript ones, and `tsc --strict`
//! type-checks the declarations. A missing compiler or `bindings/ts`'s
//! `npm ci` not having run is a failure that says so, not a skip.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use conformance::fixtures::{load_divergences, load_fixtures, Fixture};
use contract_tests::run;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Cpp,
    Ts,
}

impl Lang {
    fn divergences(self) -> &'static str {
        match self {
            Lang::Cpp => "known-divergences-cpp",
            Lang::Ts => "known-divergences-ts",
        }
    }

    fn roundtrip(self, type_name: &str) -> Command {
        match self {
            Lang::Cpp => {
                let mut command = Command::new(cpp_programs().join("roundtrip"));
                command.args(["--type", type_name]);
                command
            }
            Lang::Ts => {
                let mut command = Command::new("node");
                command
                    .arg(root().join("bindings/ts/examples/roundtrip.mjs"))
                    .args(["--type", type_name]);
                command
            }
        }
    }

    /// The frame reader on a stream, or with `chunk` a decoder fed that
    /// many bytes at a time.
    fn frame_outcomes(self, chunk: Option<usize>) -> Command {
        let mut command = match self {
            Lang::Cpp => Command::new(cpp_programs().join("frame_outcomes")),
            Lang::Ts => {
                let mut command = Command::new("node");
                command.arg(root().join("bindings/ts/examples/frame-outcomes.mjs"));
                command
            }
        };
        command.args(chunk.map(|chunk| chunk.to_string()));
        command
    }
}

/// The C++ programs the tests run: the examples and the test programs.
const CPP_PROGRAMS: &[(&str, &str)] = &[
    ("roundtrip", "bindings/cpp/examples/roundtrip.cpp"),
    ("frame_outcomes", "bindings/cpp/examples/frame_outcomes.cpp"),
    ("secret", "tests/cpp/secret.cpp"),
    ("frames", "tests/cpp/frames.cpp"),
    ("limits", "tests/cpp/limits.cpp"),
];

/// Runs `compiler` with the strict warnings of `cxx_flags` and `args` on
/// each source (its path relative to the root) in parallel, `out(name)`
/// naming the program each writes; fails with the compiler's errors.
fn compile_each(
    compiler: &str,
    args: &[&str],
    sources: &[(&str, &str)],
    out: impl Fn(&str) -> Option<PathBuf>,
) {
    let children: Vec<_> = sources
        .iter()
        .map(|(name, source)| {
            let mut command = Command::new(compiler);
            command
                .args(contract_tests::cxx_flags())
                .args(args)
                .arg("-I")
                .arg(root().join("bindings/cpp/include"))
                .arg(root().join(source));
            if let Some(program) = out(name) {
                command.arg("-o").arg(program);
            }
            let child = command
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|err| {
                    panic!("{compiler} cannot start ({err}); `cargo xtask test` installs it")
                });
            (source, child)
        })
        .collect();
    for (source, child) in children {
        let output = child.wait_with_output().unwrap();
        let errors = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "{compiler} -Werror refuses {source}:\n{errors}{}",
            if errors.contains("nlohmann/json.hpp") {
                "\nnlohmann::json is missing: `cargo xtask test` installs it"
            } else {
                ""
            }
        );
    }
}

/// The C++ examples (and the test programs), compiled once per test run
/// with the strict warnings of `cxx_flags` (the README's are a subset).
fn cpp_programs() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp-bindings");
        std::fs::create_dir_all(&out).unwrap();
        compile_each("g++", &["-O2", "-pthread"], CPP_PROGRAMS, |name| {
            Some(out.join(name))
        });
        out
    })
}

fn fixtures(folder: &str) -> Vec<Fixture> {
    load_fixtures(&root().join("conformance"), folder).unwrap()
}

/// Each fixture's outcome in `lang`: the value written back, or the error line.
/// Every frame fixture (`conformance/frames/*.bin`): its path and bytes.
fn frame_fixture_files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(root().join("conformance/frames"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "bin"))
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    assert!(files.len() > 20, "{} frame fixtures", files.len());
    files
}

/// Every `Envelope` message fixture, valid and invalid, as one line of JSON.
fn envelope_fixture_lines() -> Vec<String> {
    ["valid", "invalid"]
        .iter()
        .flat_map(|folder| fixtures(folder))
        .filter(|f| f.type_name == "Envelope")
        .map(|f| f.value.to_string())
        .collect()
}

fn outcomes(lang: Lang, fixtures: &[Fixture]) -> Vec<Result<Value, String>> {
    outcomes_with(
        &|type_name| lang.roundtrip(type_name),
        &format!("{lang:?}"),
        fixtures,
    )
}

/// Each fixture's outcome from a roundtrip program, run once per type.
fn outcomes_with(
    roundtrip: &dyn Fn(&str) -> Command,
    lang: &str,
    fixtures: &[Fixture],
) -> Vec<Result<Value, String>> {
    let mut by_type: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, fixture) in fixtures.iter().enumerate() {
        by_type.entry(&fixture.type_name).or_default().push(index);
    }
    let mut out = vec![Err(String::new()); fixtures.len()];
    for (type_name, indices) in by_type {
        let input: String = indices
            .iter()
            .map(|&index| format!("{}\n", fixtures[index].value))
            .collect();
        let output = run(roundtrip(type_name), input.as_bytes());
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(
            lines.len(),
            indices.len(),
            "{lang} {type_name}: one line per input line:\n{output}"
        );
        for (&index, line) in indices.iter().zip(lines) {
            out[index] = match line.strip_prefix("error: ") {
                Some(error) => Err(error.to_string()),
                None => Ok(serde_json::from_str(line)
                    .unwrap_or_else(|err| panic!("{lang:?}: {line}: {err}"))),
            };
        }
    }
    out
}

fn valid_fixtures_read_and_write_back(lang: Lang) {
    let valid = fixtures("valid");
    assert!(valid.len() > 50, "the valid fixtures were found");
    let mut failures = Vec::new();
    for (fixture, outcome) in valid.iter().zip(outcomes(lang, &valid)) {
        match outcome {
            Ok(again) if again == fixture.value => {}
            Ok(again) => failures.push(format!("{}: written back as {again}", fixture.path)),
            Err(error) => failures.push(format!("{}: refused: {error}", fixture.path)),
        }
    }
    assert!(failures.is_empty(), "{lang:?}:\n{}", failures.join("\n"));
}

fn invalid_fixtures_are_refused_or_listed(lang: Lang) {
    let invalid = fixtures("invalid");
    let mut failures = Vec::new();
    let listed = load_divergences(
        &root().join("conformance").join(lang.divergences()),
        &mut failures,
    );
    let mut seen = BTreeSet::new();
    for (fixture, outcome) in invalid.iter().zip(outcomes(lang, &invalid)) {
        let is_listed = listed.contains_key(&fixture.path);
        seen.insert(fixture.path.clone());
        match (outcome, is_listed) {
            (Err(error), false) => {
                // Refused where the fault is: at the fixture's place or
                // below it (a missing member is named itself), not for
                // something else. A refusal of the text (an integer past
                // 2^53) has a byte offset for a place, not a pointer.
                let at = error
                    .strip_prefix("at ")
                    .and_then(|rest| rest.split_once(": "))
                    .filter(|(_, why)| !why.starts_with("not JSON as the wire takes it"))
                    .map(|(at, _)| at);
                if let (Some(place), Some(at)) = (&fixture.pointer, at) {
                    let within = at == place
                        || at
                            .strip_prefix(place.as_str())
                            .is_some_and(|rest| rest.starts_with('/'));
                    if !within {
                        failures.push(format!(
                            "{}: refused at {at}, outside {place}, where its fault is: {error}",
                            fixture.path
                        ));
                    }
                }
            }
            (Ok(_), true) => {}
            (Ok(_), false) => failures.push(format!(
                "{}: accepted; refuse it, or list it in conformance/{} with the reason",
                fixture.path,
                lang.divergences()
            )),
            (Err(error), true) => failures.push(format!(
                "{}: listed in conformance/{}, but refused now ({error}); remove the entry",
                fixture.path,
                lang.divergences()
            )),
        }
    }
    for path in listed.keys().filter(|path| !seen.contains(*path)) {
        failures.push(format!(
            "conformance/{} names {path}, which is not an invalid fixture",
            lang.divergences()
        ));
    }
    assert!(failures.is_empty(), "{lang:?}:\n{}", failures.join("\n"));
}

/// Where the Rust bindings and `lang` both read a fixture, they write the
/// same value back (unknown names kept, unknown fields dropped).
fn agrees_with_rust(lang: Lang) {
    let mut all = fixtures("valid");
    all.extend(fixtures("invalid"));
    all.extend(load_fixtures(&root().join("tests/fixtures"), "newer-peer").unwrap());
    let mut failures = Vec::new();
    let mut compared = 0;
    for (fixture, outcome) in all.iter().zip(outcomes(lang, &all)) {
        let rust = proto::reserialize(&fixture.type_name, &fixture.value);
        if let (Some(Ok(rust)), Ok(again)) = (rust, outcome) {
            compared += 1;
            if rust != again {
                failures.push(format!(
                    "{}: Rust writes {rust}, {lang:?} writes {again}",
                    fixture.path
                ));
            }
        }
    }
    assert!(compared > 80, "{compared} fixtures were read by both");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn newer_peers_messages_decode(lang: Lang) {
    let newer = load_fixtures(&root().join("tests/fixtures"), "newer-peer").unwrap();
    let outcomes = outcomes(lang, &newer);
    for (fixture, outcome) in newer.iter().zip(outcomes) {
        let name = fixture.path.as_str();
        match name {
            // An unknown name is kept and written back unchanged.
            "newer-peer/event_from_the_future.json"
            | "newer-peer/call_of_unknown_method.json"
            | "newer-peer/reply_of_unknown_method.json" => {
                assert_eq!(
                    outcome.as_ref().ok(),
                    Some(&fixture.value),
                    "{lang:?} {name}"
                )
            }
            "newer-peer/known_method_bad_params.json" => {
                let error = outcome.expect_err(name);
                assert!(
                    error.starts_with("at /body/params/"),
                    "{lang:?} {name}: {error}"
                );
            }
            "newer-peer/known_event_extra_fields.json" => {
                assert!(outcome.is_ok(), "{lang:?} {name}: {outcome:?}")
            }
            other => panic!("{other}: say what every language does with it"),
        }
    }
}

fn frame_fixtures_give_their_outcomes(lang: Lang) {
    let dir = root().join("conformance/frames");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|ext| ext.to_str()) != Some("bin") {
            continue;
        }
        let sidecar: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expect.json")).unwrap(),
        )
        .unwrap();
        let want: Vec<&str> = sidecar["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        let bytes = std::fs::read(&path).unwrap();
        // A byte at a time, and in pieces that split headers and bodies
        // alike: however the bytes arrive, the outcomes are the stream's.
        for chunk in [None, Some(1), Some(3), Some(4093)] {
            let output = run(lang.frame_outcomes(chunk), &bytes);
            let got: Vec<&str> = output.lines().collect();
            assert_eq!(
                got,
                want,
                "{lang:?} reads {} (pieces of {chunk:?} bytes)",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 14, "{checked} frame fixtures");
}

/// A lane's process that honours the user's locale (`setlocale(LC_ALL,
/// "")`, as the roundtrip example does) may write a decimal comma, or a
/// decimal point of two bytes (Pashto's U+066B, which nlohmann's lexer
/// cannot take): the C++ reader reads and writes every number as under the
/// C locale. The locales are built here (`localedef`, from the `locales`
/// package .ci/setup installs), since a machine may have none but C.
#[test]
fn cpp_reads_and_writes_numbers_alike_under_any_decimal_point() {
    let locales = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locales");
    std::fs::create_dir_all(&locales).unwrap();
    let mut lines: Vec<String> = ["valid", "invalid"]
        .iter()
        .flat_map(|folder| fixtures(folder))
        .filter(|f| f.type_name == "Envelope")
        .map(|f| f.value.to_string())
        .collect();
    for number in [
        "0.5",
        "12345.678",
        "-2.5e-3",
        "1.25E2",
        "1e400",
        "1.5e400",
        "-1.5e400",
        "1e-400",
        "1.0",
        "-0.0",
        "1e3",
        "9007199254740993.0",
        "18446744073709551616",
        "123456789012345678901",
    ] {
        lines.push(format!(
            r#"{{"v":1,"kind":"error","id":1,"body":{{"code":-32603,"message":"m","data":{number}}}}}"#
        ));
        lines.push(format!(
            r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"tool.invoke","params":{{"tool":"t","input":[{number}]}}}}}}"#
        ));
    }
    let input = lines.join("\n") + "\n";
    let mut c = Command::new(cpp_programs().join("roundtrip"));
    c.env("LC_ALL", "C");
    let under_c = run(c, input.as_bytes());
    assert_eq!(under_c.lines().count(), lines.len());

    for (locale, point) in [("de_DE", ","), ("ps_AF", "\u{66b}")] {
        let name = format!("{locale}.UTF-8");
        let status = Command::new("localedef")
            .args(["-i", locale, "-f", "UTF-8"])
            .arg(locales.join(&name))
            .status()
            .unwrap();
        assert!(status.success(), "localedef {locale}: {status}");
        let within = |mut command: Command| {
            command.env("LOCPATH", &locales).env("LC_ALL", &name);
            command
        };
        let mut locale_point = Command::new("locale");
        locale_point.arg("decimal_point");
        let said = run(within(locale_point), b"");
        assert_eq!(said.trim(), point, "the decimal point of {name}");
        let under_locale = run(
            within(Command::new(cpp_programs().join("roundtrip"))),
            input.as_bytes(),
        );
        for ((line, c), got) in lines.iter().zip(under_c.lines()).zip(under_locale.lines()) {
            assert_eq!(got, c, "read under {name} and C: {line}");
        }
    }
}

#[test]
fn cpp_reads_every_valid_fixture_and_writes_it_back() {
    valid_fixtures_read_and_write_back(Lang::Cpp);
}

#[test]
fn ts_reads_every_valid_fixture_and_writes_it_back() {
    valid_fixtures_read_and_write_back(Lang::Ts);
}

#[test]
fn cpp_refuses_every_invalid_fixture_it_does_not_list() {
    invalid_fixtures_are_refused_or_listed(Lang::Cpp);
}

#[test]
fn ts_refuses_every_invalid_fixture_it_does_not_list() {
    invalid_fixtures_are_refused_or_listed(Lang::Ts);
}

#[test]
fn cpp_writes_back_what_rust_writes_back() {
    agrees_with_rust(Lang::Cpp);
}

#[test]
fn ts_writes_back_what_rust_writes_back() {
    agrees_with_rust(Lang::Ts);
}

#[test]
fn cpp_decodes_a_newer_peers_messages() {
    newer_peers_messages_decode(Lang::Cpp);
}

#[test]
fn ts_decodes_a_newer_peers_messages() {
    newer_peers_messages_decode(Lang::Ts);
}

#[test]
fn cpp_reads_every_frame_fixture_as_its_sidecar_says() {
    frame_fixtures_give_their_outcomes(Lang::Cpp);
}

#[test]
fn ts_reads_every_frame_fixture_as_its_sidecar_says() {
    frame_fixtures_give_their_outcomes(Lang::Ts);
}

#[test]
fn cpp_frames_written_read_back_and_oversize_is_refused_unwritten() {
    run(Command::new(cpp_programs().join("frames")), b"");
}

/// The writer's refusals leave nothing behind: a to_json that throws inside
/// nlohmann's converting constructor leaks what it had built, so the frames
/// test runs again under AddressSanitizer (its leak check on) and
/// UndefinedBehaviorSanitizer.
#[test]
fn cpp_frames_refusals_leak_nothing_under_sanitizers() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp-bindings-sanitized");
    std::fs::create_dir_all(&out).unwrap();
    compile_each(
        "g++",
        &[
            "-O1",
            "-pthread",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
        ],
        &[("frames", "tests/cpp/frames.cpp")],
        |name| Some(out.join(name)),
    );
    let mut command = Command::new(out.join("frames"));
    command.env("ASAN_OPTIONS", "detect_leaks=1");
    run(command, b"");
}

/// The C++ frame reader under libFuzzer (clang, with AddressSanitizer and
/// UndefinedBehaviorSanitizer), seeded with every frame fixture, for a
/// bounded number of inputs: a crash, a sanitizer report, or a trap in the
/// target (a frame read that its writer refuses or writes back otherwise)
/// fails. `tests/cpp/fuzz_read_frame.cpp` says how to run it for longer.
#[test]
fn cpp_frame_reader_survives_a_bounded_fuzz_run() {
    const RUNS: u32 = 100_000;
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp-fuzz");
    // libFuzzer adds what it finds to the corpus: each run starts afresh.
    let corpus = out.join("corpus");
    let _ = std::fs::remove_dir_all(&corpus);
    std::fs::create_dir_all(&corpus).unwrap();
    let mut seeds = 0;
    for entry in std::fs::read_dir(root().join("conformance/frames")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "bin") {
            std::fs::copy(&path, corpus.join(path.file_name().unwrap())).unwrap();
            seeds += 1;
        }
    }
    assert!(seeds > 0, "no frame fixture to start from");
    compile_each(
        "clang++",
        &[
            "-Wno-unknown-warning-option",
            "-O1",
            "-g",
            "-fsanitize=fuzzer,address,undefined",
            "-fno-sanitize-recover=undefined",
        ],
        &[("fuzz_read_frame", "tests/cpp/fuzz_read_frame.cpp")],
        |name| Some(out.join(name)),
    );
    // An input that fails is kept beside the program (not in the crate's
    // folder), named in the report.
    let output = Command::new(out.join("fuzz_read_frame"))
        .arg(format!("-runs={RUNS}"))
        .args(["-seed=1", "-max_len=70000"])
        .arg({
            let mut prefix = std::ffi::OsString::from("-artifact_prefix=");
            prefix.push(out.join(""));
            prefix
        })
        .arg(&corpus)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(said.contains(&format!("Done {RUNS} runs")), "{said}");
}

/// The same sources as `cpp_programs`, the reader server and the fuzz
/// target, read by clang with the same strict warnings (a GCC-only one is
/// passed over): a lane may build its engine with either compiler.
#[test]
fn cpp_headers_compile_clean_under_clang() {
    let mut sources = CPP_PROGRAMS.to_vec();
    sources.push(("reader_server", "tests/cpp/reader_server.cpp"));
    sources.push(("fuzz_read_frame", "tests/cpp/fuzz_read_frame.cpp"));
    compile_each(
        "clang++",
        &["-Wno-unknown-warning-option", "-fsyntax-only"],
        &sources,
        |_| None,
    );
}

/// Built with clang on LLVM's standard library, libc++ (macOS's), the
/// programs give what the GCC builds on libstdc++ give.
#[test]
fn cpp_bindings_read_alike_on_libcxx() {
    programs_read_as_the_plain_build(
        "libcxx",
        "clang++",
        &["-Wno-unknown-warning-option", "-stdlib=libc++", "-O1"],
    );
}

/// Built as a lane's engine may be — C++20, and the options nlohmann::json
/// takes from a build: `JSON_DIAGNOSTICS` (each value keeps its parent,
/// checked by assertions), no implicit conversions, no enum serialization —
/// the programs give what the plain build gives. (With `JSON_DIAGNOSTICS`
/// the reader's values lacked their parents and nlohmann's assertion ended
/// the process on an error with `data`.)
#[test]
fn cpp_bindings_read_alike_in_cxx20_under_nlohmanns_options() {
    programs_read_as_the_plain_build(
        "cxx20-nlohmann-options",
        "g++",
        &[
            "-std=c++20",
            "-O1",
            "-DJSON_DIAGNOSTICS=1",
            "-DJSON_USE_IMPLICIT_CONVERSIONS=0",
            "-DJSON_DISABLE_ENUM_SERIALIZATION=1",
        ],
    );
}

/// The C++ programs built by `compiler` with `args` give what the plain
/// GCC build gives: the frame and secret tests pass, every frame fixture
/// reads alike from a stream and a byte at a time, and every message
/// fixture and 2,000 generated envelopes and mutants are written back (or
/// refused) alike.
fn programs_read_as_the_plain_build(label: &str, compiler: &str, args: &[&str]) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cpp-bindings-{label}"));
    std::fs::create_dir_all(&out).unwrap();
    let programs: Vec<(&str, &str)> = CPP_PROGRAMS
        .iter()
        .copied()
        .filter(|(name, _)| *name != "limits")
        .collect();
    compile_each(compiler, args, &programs, |name| Some(out.join(name)));
    for test in ["frames", "secret"] {
        run(Command::new(out.join(test)), b"");
    }
    for chunk in [None, Some("1")] {
        for (path, bytes) in frame_fixture_files() {
            let read = |program: PathBuf| {
                let mut command = Command::new(program);
                command.args(chunk);
                run(command, &bytes)
            };
            assert_eq!(
                read(out.join("frame_outcomes")),
                read(cpp_programs().join("frame_outcomes")),
                "{label}: {} (pieces of {chunk:?} bytes)",
                path.display()
            );
        }
    }
    let mut lines = envelope_fixture_lines();
    let checker = conformance::Checker::embedded().expect("the embedded schemas compile");
    let mut text = Vec::new();
    conformance::generate::generate(&checker, "Envelope", 1000, 0xc0de, &mut text).unwrap();
    conformance::generate::mutants(&checker, "Envelope", 1000, 0xc0de, &mut text).unwrap();
    for line in String::from_utf8(text).unwrap().lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        // A mutant's record holds the message under `msg`.
        lines.push(match value.get("msg") {
            Some(message) if value.get("rule").is_some() => message.to_string(),
            _ => value.to_string(),
        });
    }
    let input = lines.join("\n") + "\n";
    let built = run(Command::new(out.join("roundtrip")), input.as_bytes());
    assert_written_back_as_the_plain_build(label, &lines, &built);
}

/// `built`, what another build of the roundtrip example wrote for `lines`,
/// is what the plain build writes, line by line.
fn assert_written_back_as_the_plain_build(label: &str, lines: &[String], built: &str) {
    let input = lines.join("\n") + "\n";
    let plain = run(
        Command::new(cpp_programs().join("roundtrip")),
        input.as_bytes(),
    );
    assert_eq!(built.lines().count(), lines.len());
    for ((line, got), want) in lines.iter().zip(built.lines()).zip(plain.lines()) {
        assert_eq!(got, want, "the {label} build and the plain one read {line}");
    }
}

#[test]
fn cpp_never_prints_a_secret() {
    run(Command::new(cpp_programs().join("secret")), b"");
}

#[test]
fn cpp_survives_64_mib_of_any_shape_on_a_small_stack() {
    let status = Command::new(cpp_programs().join("limits"))
        .status()
        .unwrap();
    assert!(status.success(), "tests/cpp/limits.cpp: {status}");
}

#[test]
fn ts_survives_64_mib_of_any_shape_on_a_small_stack() {
    let status = Command::new("node")
        .arg("--stack-size=256")
        .arg(root().join("tests/ts/limits.mjs"))
        .status()
        .unwrap();
    assert!(status.success(), "tests/ts/limits.mjs: {status}");
}

/// A member name may hold a newline; an error that quotes its place must not
/// become two lines (the second one forged by the peer).
/// A line separator, a C1 next-line or a right-to-left override in it must
/// not start a line or turn the words around where the log is shown.
fn one_line_each(lang: Lang) {
    for (name, escaped) in [
        (r"X\nerror: forged", r"\u000a"),
        (r"X\u2028error: forged", r"\u2028"),
        (r"X\u0085error: forged", r"\u0085"),
        (r"X\u202edegrof :rorre", r"\u202e"),
    ] {
        let line = format!(
            r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"download.add","params":{{"spec":{{"url":"https://example.org/a","headers":{{"{name}":1}}}}}}}}}}"#
        );
        let out = run(lang.roundtrip("Envelope"), format!("{line}\n").as_bytes());
        assert_eq!(out.lines().count(), 1, "{lang:?}: {out}");
        assert!(
            out.starts_with("error: ") && out.contains(escaped),
            "{lang:?}: {out}"
        );
        assert!(
            !out.contains(['\u{2028}', '\u{85}', '\u{202e}']),
            "{lang:?}: {out:?}"
        );
    }
}

#[test]
fn cpp_errors_escape_what_the_peer_wrote() {
    one_line_each(Lang::Cpp);
}

const MARKER: &str = "hunter2-where-it-does-not-belong";

/// Every valid envelope fixture with a credential put in each place in
/// turn: the marker string where the value is not a string (a password
/// where a count goes; an object sent as its own text), and an object and
/// an array holding it where no array goes. A string where a string goes
/// is left out: an enum's unknown spelling is quoted on purpose.
fn misplaced_credentials() -> Vec<String> {
    fn places(value: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
        if !at.is_empty() {
            out.push(at.clone());
        }
        match value {
            Value::Object(map) => map.iter().for_each(|(name, child)| {
                at.push(Value::String(name.clone()));
                places(child, at, out);
                at.pop();
            }),
            Value::Array(items) => items.iter().enumerate().for_each(|(index, child)| {
                at.push(Value::from(index));
                places(child, at, out);
                at.pop();
            }),
            _ => {}
        }
    }
    fn slot<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
        path.iter().fold(value, |node, step| match step {
            Value::String(name) => node.get_mut(name.as_str()).unwrap(),
            index => node.get_mut(index.as_u64().unwrap() as usize).unwrap(),
        })
    }
    let fixtures = load_fixtures(&root().join("conformance"), "valid").unwrap();
    let mut lines = Vec::new();
    for fixture in fixtures.iter().filter(|f| f.type_name == "Envelope") {
        let mut paths = Vec::new();
        places(&fixture.value, &mut Vec::new(), &mut paths);
        for path in paths {
            let original = slot(&mut fixture.value.clone(), &path).clone();
            let mut misplaced = vec![serde_json::json!({ "p": MARKER })];
            if !original.is_array() {
                misplaced.push(serde_json::json!([MARKER]));
            }
            if !original.is_string() {
                misplaced.push(Value::String(MARKER.into()));
            }
            if original.is_object() {
                let mut text = original.clone();
                text.as_object_mut()
                    .unwrap()
                    .insert("password".into(), MARKER.into());
                misplaced.push(Value::String(text.to_string()));
            }
            for value in misplaced {
                let mut wire = fixture.value.clone();
                *slot(&mut wire, &path) = value;
                lines.push(wire.to_string());
            }
        }
    }
    lines
}

/// No reader prints a credential sent where it does not belong: every
/// refusal of [`misplaced_credentials`], in Rust (the error, its sources
/// and the answer), C++ and TypeScript, names the place, never the value.
#[test]
fn no_reader_quotes_a_credential_in_the_wrong_place() {
    let lines = misplaced_credentials();
    assert!(lines.len() > 1000, "{} inputs", lines.len());
    let mut refused = 0;
    for line in &lines {
        let Err(err) = proto::wire::decode::<proto::Envelope>(line.as_bytes()) else {
            continue;
        };
        refused += 1;
        let mut said = err.to_string();
        let mut cause = std::error::Error::source(&err);
        while let Some(next) = cause {
            said.push_str(&format!(": {next}"));
            cause = next.source();
        }
        if let Some(answer) = err.answer() {
            said.push_str(&serde_json::to_string(&answer).unwrap());
        }
        assert!(!said.contains("hunter2"), "Rust: {said}\n  for {line}");
    }
    assert!(
        refused > lines.len() / 2,
        "Rust refused {refused} of {}",
        lines.len()
    );
    let input = lines.join("\n") + "\n";
    for lang in [Lang::Cpp, Lang::Ts] {
        let out = run(lang.roundtrip("Envelope"), input.as_bytes());
        assert_eq!(out.lines().count(), lines.len(), "{lang:?}");
        for (said, line) in out.lines().zip(&lines) {
            assert!(
                !said.starts_with("error: ") || !said.contains("hunter2"),
                "{lang:?}: {said}\n  for {line}"
            );
        }
    }
}

/// A value a message quotes, or a member name in its pointer, may be as
/// long as a frame; the message keeps a part and says how much it left out,
/// so the error stays short enough to log or to answer with.
fn quotes_cut(lang: Lang) {
    let long = "é".repeat(150) + &"x".repeat(300_000);
    for line in [
        format!(
            r#"{{"v":1,"kind":"event","body":{{"name":"event.task.state","params":{{"taskId":"t_01","state":"{long}","previousState":"queued"}}}}}}"#
        ),
        format!(r#"{{"v":1,"kind":"{long}","body":{{}}}}"#),
        // A pointer is made of member names, and a name may be as long.
        format!(
            r#"{{"v":1,"kind":"call","id":1,"body":{{"method":"download.add","params":{{"spec":{{"url":"https://example.org/a","headers":{{"{long}":1}}}}}}}}}}"#
        ),
    ] {
        let out = run(lang.roundtrip("Envelope"), format!("{line}\n").as_bytes());
        assert!(out.starts_with("error: "), "{lang:?}: {out}");
        assert!(
            out.len() < 1024,
            "{lang:?}: {} bytes: {}",
            out.len(),
            out.chars().take(300).collect::<String>()
        );
        assert!(
            out.contains("éééé") && out.contains("..."),
            "{lang:?}: {out}"
        );
    }
}

#[test]
fn cpp_errors_quote_a_long_value_cut() {
    quotes_cut(Lang::Cpp);
}

#[test]
fn ts_errors_quote_a_long_value_cut() {
    quotes_cut(Lang::Ts);
}

#[test]
fn ts_errors_escape_what_the_peer_wrote() {
    one_line_each(Lang::Ts);
}

fn tsc() -> PathBuf {
    let tsc = root().join("bindings/ts/node_modules/typescript/bin/tsc");
    assert!(
        tsc.exists(),
        "{} is missing: `cargo xtask test` installs it (npm ci in bindings/ts)",
        tsc.display()
    );
    tsc
}

#[test]
fn ts_declarations_and_examples_type_check_with_strict() {
    let mut command = Command::new("node");
    command
        .arg(tsc())
        .arg("-p")
        .arg(root().join("bindings/ts/tsconfig.json"));
    run(command, b"");
}

#[test]
fn ts_unit_tests_pass_under_nodes_test_runner() {
    let mut command = Command::new("node");
    command
        .arg("--test")
        .current_dir(root().join("bindings/ts"));
    let output = run(command, b"");
    assert!(output.contains("# fail 0"), "{output}");
    assert!(!output.contains("# pass 0\n"), "no test ran:\n{output}");
}

/// A release's frozen C++ and TypeScript bindings still build, and read and
/// write back that release's own valid fixtures: a lane pinned to it can
/// take them as they are.
#[test]
fn every_releases_frozen_cpp_and_ts_bindings_read_its_own_valid_fixtures() {
    let releases = root().join("contracts/released");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&releases)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("schema").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 2, "{dirs:?}");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpp-releases");
    std::fs::create_dir_all(&out).unwrap();
    // A roundtrip every release's header compiles, reading each line as
    // the wire takes JSON text (every release's readers hold the policy).
    const CPP_ROUNDTRIP: &str = r#"
        #include <iostream>
        #include <string>
        #include "vdm/contract.hpp"
        int main(int argc, char** argv) {
          if (argc != 3) return 2;
          std::string line;
          while (std::getline(std::cin, line)) {
            try {
              auto again = vdm::contract::reserialize(argv[2], vdm::contract::parse_json(line));
              if (!again) return 2;
              std::cout << again->dump() << "\n";
            } catch (const std::exception& error) {
              std::cout << "error: " << error.what() << "\n";
            }
          }
        }"#;
    let source = out.join("roundtrip_frozen.cpp");
    std::fs::write(&source, CPP_ROUNDTRIP).unwrap();
    let builds: Vec<_> = dirs
        .iter()
        .map(|dir| {
            let program = out.join(dir.file_name().unwrap());
            let child = Command::new("g++")
                .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-I"])
                .arg(dir.join("cpp/include"))
                .arg(&source)
                .arg("-o")
                .arg(&program)
                .stderr(Stdio::piped())
                .spawn()
                .expect("g++ starts");
            (dir, program, child)
        })
        .collect();
    // The TypeScript roundtrip, importing the frozen module instead.
    const NODE_ROUNDTRIP: &str = r#"
        const { reserialize, readJson } = await import(process.argv[1]);
        const type = process.argv[2];
        let text = "";
        for await (const chunk of process.stdin) text += chunk;
        for (const line of text.split("\n").filter(Boolean)) {
          try { console.log(JSON.stringify(reserialize(type, readJson(line)))); }
          catch (error) { console.log(`error: ${error.message}`); }
        }"#;
    for (dir, program, child) in builds {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let valid = load_fixtures(dir, "valid").unwrap();
        assert!(!valid.is_empty());
        let cpp = |type_name: &str| {
            let mut command = Command::new(&program);
            command.args(["--type", type_name]);
            command
        };
        let node = |type_name: &str| {
            let mut command = Command::new("node");
            command
                .args(["--input-type=module", "-e", NODE_ROUNDTRIP])
                .arg(dir.join("ts/index.js"))
                .arg(type_name);
            command
        };
        // What a hostile peer sends: 100,000 nested arrays (which crashed
        // readers that copy a value recursively), a repeated member, an
        // integer a double rounds. Every release refuses them as text.
        let valid_call = valid
            .iter()
            .find(|fixture| fixture.type_name == "Envelope")
            .map(|fixture| fixture.value.to_string())
            .unwrap();
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let hostile = [
            valid_call.replacen('{', &format!("{{\"deep\":{deep},"), 1),
            valid_call.replacen('{', "{\"v\":1,", 1),
            valid_call.replacen('{', "{\"big\":9007199254740993,", 1),
        ];
        for (lang, roundtrip) in [
            ("C++", &cpp as &dyn Fn(&str) -> Command),
            ("TypeScript", &node),
        ] {
            let input: String = hostile.iter().map(|line| format!("{line}\n")).collect();
            let output = run(roundtrip("Envelope"), input.as_bytes());
            let lines: Vec<&str> = output.lines().collect();
            assert_eq!(
                lines.len(),
                hostile.len(),
                "{} {lang}: {output}",
                dir.display()
            );
            for line in lines {
                assert!(
                    line.starts_with("error: ") && line.contains("not JSON as the wire takes it"),
                    "{} {lang}: {line}",
                    dir.display()
                );
            }
            for (fixture, outcome) in valid.iter().zip(outcomes_with(roundtrip, lang, &valid)) {
                assert_eq!(
                    outcome.as_ref().ok(),
                    Some(&fixture.value),
                    "{} {lang}: {}",
                    dir.display(),
                    fixture.path
                );
            }
        }
    }
}

/// Mutated fixtures against the validator: where it finds nothing, both
/// languages read the value; where it finds a rule a schema states (not a
/// semantic rule, which no reader checks), both refuse it.
#[test]
fn cpp_and_ts_refuse_what_the_schemas_refuse_in_every_mutated_fixture() {
    use conformance::Rule;
    let checker = conformance::Checker::embedded().unwrap();
    let skip = contract_tests::differential::format_fields();
    let semantic = |rule: Rule| {
        !matches!(
            rule,
            Rule::Schema
                | Rule::ErrorHttpStatus
                | Rule::ErrorCause
                | Rule::SummaryErrorState
                | Rule::ChecksumLength
                | Rule::EnvelopeVersion
        )
    };
    let mut mutants = Vec::new();
    let mut expected = Vec::new();
    for fixture in fixtures("valid") {
        for value in contract_tests::differential::mutations(&fixture.value, &skip) {
            let findings = checker.check(&fixture.type_name, &value).unwrap();
            let expect = if findings.is_empty() {
                Some(true)
            } else if findings.iter().any(|f| !semantic(f.rule)) {
                Some(false)
            } else {
                None
            };
            if let Some(expect) = expect {
                expected.push((
                    expect,
                    findings
                        .first()
                        .map(|f| format!("{} at {}", f.rule.id(), f.pointer)),
                ));
                mutants.push(Fixture {
                    value,
                    ..fixture.clone()
                });
            }
        }
    }
    assert!(mutants.len() > 2000, "{} mutants", mutants.len());
    assert!(
        expected.iter().filter(|(ok, _)| *ok).count() > 100,
        "some mutants conform"
    );
    for lang in [Lang::Cpp, Lang::Ts] {
        let mut failures = Vec::new();
        for ((fixture, outcome), (accept, why)) in
            mutants.iter().zip(outcomes(lang, &mutants)).zip(&expected)
        {
            match (outcome, accept) {
                (Ok(_), true) | (Err(_), false) => {}
                (Ok(_), false) => failures.push(format!(
                    "{}: accepted {}, which breaks {}",
                    fixture.path,
                    fixture.value,
                    why.as_deref().unwrap_or("?")
                )),
                (Err(error), true) => failures.push(format!(
                    "{}: refused {} ({error}), which conforms",
                    fixture.path, fixture.value
                )),
            }
        }
        assert!(
            failures.is_empty(),
            "{lang:?}: {} of {} mutants:\n{}",
            failures.len(),
            mutants.len(),
            failures
                .iter()
                .take(15)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The code blocks of `docs/bindings.md`'s "Open to additions", in `lang`.
fn open_to_additions(lang: &str) -> String {
    let doc = std::fs::read_to_string(root().join("docs/bindings.md")).unwrap();
    let section = doc
        .split("## Open to additions\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/bindings.md has \"Open to additions\"");
    let fence = format!("```{lang}\n");
    let block = section
        .split(fence.as_str())
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("a {lang} block in \"Open to additions\""));
    block.to_string()
}

/// The headers are included by many units of one engine: everything they
/// define at namespace scope is `inline` or a template, so two units that
/// include them (in either order) link into one program, and it runs.
#[test]
fn the_headers_link_into_a_program_of_two_units() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("two-units");
    std::fs::create_dir_all(&out).unwrap();
    let unit = out.join("unit.cpp");
    std::fs::write(
        &unit,
        "#include <vdm/contract.hpp>\n#include <vdm/frame.hpp>\n\n\
         #include <string>\n\n\
         std::string framed(const std::string& line) {\n\
         \x20 return vdm::contract::encode_frame(vdm::contract::parse_envelope(line));\n}\n",
    )
    .unwrap();
    let main = out.join("main.cpp");
    std::fs::write(
        &main,
        "#include <vdm/frame.hpp>\n#include <vdm/contract.hpp>\n\n\
         #include <sstream>\n#include <string>\n\n\
         std::string framed(const std::string& line);\n\n\
         int main() {\n\
         \x20 std::istringstream in(framed(R\"({\"v\":1,\"kind\":\"event\",\"body\":{\"name\":\"x.y\",\"params\":{}}})\"));\n\
         \x20 auto envelope = vdm::contract::read_frame(in);\n\
         \x20 return envelope && envelope->index() == 3 ? 0 : 1;\n}\n",
    )
    .unwrap();
    let program = out.join("two-units");
    let output = Command::new("g++")
        .args(contract_tests::cxx_flags())
        .args(["-O0", "-I"])
        .arg(root().join("bindings/cpp/include"))
        .arg(&unit)
        .arg(&main)
        .arg("-o")
        .arg(&program)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        output.status.success(),
        "two units do not build into one program:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let status = Command::new(&program).status().unwrap();
    assert!(status.success(), "the program of two units: {status}");
}

/// The headers, the examples and the secret test build for Windows (MinGW's
/// g++ on the Windows API, where the reader keeps the process's locale: no
/// POSIX `uselocale`), under the strict warnings as errors (an unused
/// variable there failed `-Wall -Werror`), and run there (under Wine) as
/// here: the secret test passes, every frame fixture reads alike whole and
/// a byte at a time (`frame_outcomes` reads standard input as bytes: in
/// text mode Windows changed `windows_text_mode.bin`'s CR LF and read
/// `json`), and every message fixture is written back alike.
#[test]
fn the_headers_and_examples_build_for_windows_and_read_there_as_here() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("windows");
    // nlohmann::json alone, not the rest of this system's headers.
    let include = out.join("include");
    std::fs::create_dir_all(&include).unwrap();
    let nlohmann = include.join("nlohmann");
    if !nlohmann.exists() {
        std::os::unix::fs::symlink("/usr/include/nlohmann", &nlohmann).unwrap();
    }
    let build = |source: &str| {
        let program = out
            .join(Path::new(source).file_stem().unwrap())
            .with_extension("exe");
        let output = Command::new("x86_64-w64-mingw32-g++")
            .args(contract_tests::cxx_flags())
            .args(["-O1", "-static"])
            .arg("-isystem")
            .arg(&include)
            .arg("-I")
            .arg(root().join("bindings/cpp/include"))
            .arg(root().join(source))
            .arg("-o")
            .arg(&program)
            .output()
            .unwrap_or_else(|err| {
                panic!(
                    "x86_64-w64-mingw32-g++ cannot start ({err}); `cargo xtask test` installs it"
                )
            });
        assert!(
            output.status.success(),
            "{source} for Windows:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        program
    };
    let roundtrip = build("bindings/cpp/examples/roundtrip.cpp");
    let frame_outcomes = build("bindings/cpp/examples/frame_outcomes.cpp");
    let secret = build("tests/cpp/secret.cpp");

    // Wine with a prefix of its own, quiet, and without the .NET and HTML
    // runtimes it would offer to install.
    let wine = |program: &Path| {
        let mut command = Command::new("wine");
        command
            .arg(program)
            .env("WINEPREFIX", out.join("wine-prefix"))
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=");
        command
    };
    // A console program's output in text mode ends its lines with CR LF.
    let unix_lines = |text: String| text.replace("\r\n", "\n");
    run(wine(&secret), b"");
    for (path, bytes) in frame_fixture_files() {
        for chunk in [None, Some("1")] {
            let mut there = wine(&frame_outcomes);
            there.args(chunk);
            let mut here = Command::new(cpp_programs().join("frame_outcomes"));
            here.args(chunk);
            assert_eq!(
                unix_lines(run(there, &bytes)),
                run(here, &bytes),
                "{} (pieces of {chunk:?} bytes) on Windows",
                path.display()
            );
        }
    }
    let lines = envelope_fixture_lines();
    let input = lines.join("\n") + "\n";
    let there = unix_lines(run(wine(&roundtrip), input.as_bytes()));
    assert_written_back_as_the_plain_build("Windows", &lines, &there);
}

/// GCC's and Clang's default dialect (and CMake's), `-std=gnu++17`,
/// predefines `unix` as 1; `Transport::unix` is an enumerator of the
/// contract. A lane that includes the header in that dialect, or with no
/// `-std` at all, compiles and names it.
#[test]
fn the_header_compiles_under_gnu_extensions() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gnu-dialect");
    std::fs::create_dir_all(&out).unwrap();
    let source = out.join("gnu.cpp");
    std::fs::write(
        &source,
        "#include <vdm/contract.hpp>\n#include <vdm/frame.hpp>\n\n\
         int main() {\n  return vdm::contract::Transport::unix == vdm::contract::Transport::websocket ? 1 : 0;\n}\n",
    )
    .unwrap();
    for dialect in [Some("-std=gnu++17"), None] {
        let mut command = Command::new("g++");
        command
            .args(dialect)
            .args(["-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I"]);
        let output = command
            .arg(root().join("bindings/cpp/include"))
            .arg(&source)
            .output()
            .unwrap_or_else(|err| {
                panic!("g++ cannot start ({err}); `cargo xtask test` installs it")
            });
        assert!(
            output.status.success(),
            "{dialect:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// The readers report by throwing, so a unit built with `-fno-exceptions`
/// cannot include the headers; the first error it gets says so, rather
/// than pointing into a `try` deep inside the header.
#[test]
fn a_unit_without_exceptions_is_told_why_first() {
    let (first, said) = first_error("no-exceptions", "frame.hpp", &["-fno-exceptions"], None);
    assert!(
        first.contains("reports errors by throwing: compile this file with exceptions enabled"),
        "{said}"
    );
}

/// Compiles a unit that includes only `vdm/HEADER` with FLAGS (and first
/// the include folder INCLUDE, if any), which must fail; gives the first
/// line that names an error, and all that g++ said.
fn first_error(
    folder: &str,
    header: &str,
    flags: &[&str],
    include: Option<&Path>,
) -> (String, String) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(folder);
    std::fs::create_dir_all(&out).unwrap();
    let source = out.join("unit.cpp");
    std::fs::write(
        &source,
        format!("#include <vdm/{header}>\n\nint main() {{ return 0; }}\n"),
    )
    .unwrap();
    let mut command = Command::new("g++");
    command.args(["-std=c++17", "-fsyntax-only"]).args(flags);
    if let Some(include) = include {
        command.arg("-I").arg(include);
    }
    let output = command
        .arg("-I")
        .arg(root().join("bindings/cpp/include"))
        .arg(&source)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "{flags:?}: {said}");
    let first = said
        .lines()
        .find(|line| line.contains("error"))
        .unwrap_or_default()
        .to_owned();
    (first, said)
}

/// nlohmann::json's `JSON_NOEXCEPTION` makes it end the process where it
/// would throw, as it would for a string that is not UTF-8 in a frame the
/// writer was given; a unit built so is told why first.
#[test]
fn a_unit_with_nlohmanns_noexception_is_told_why_first() {
    let (first, said) = first_error(
        "nlohmann-noexception",
        "frame.hpp",
        &["-DJSON_NOEXCEPTION"],
        None,
    );
    assert!(
        first.contains("where JSON_NOEXCEPTION makes nlohmann::json end the process"),
        "{said}"
    );
}

/// The reader holds the text policy through nlohmann's callbacks as 3.11
/// gives them: a unit that finds an older nlohmann::json first (here a
/// stand-in that says 3.10.5, as Ubuntu 22.04 ships) is told so first.
#[test]
fn a_unit_on_an_older_nlohmann_is_told_why_first() {
    let stand_in = Path::new(env!("CARGO_TARGET_TMPDIR")).join("old-nlohmann/include");
    std::fs::create_dir_all(stand_in.join("nlohmann")).unwrap();
    std::fs::write(
        stand_in.join("nlohmann/json.hpp"),
        "#pragma once\n#define NLOHMANN_JSON_VERSION_MAJOR 3\n\
         #define NLOHMANN_JSON_VERSION_MINOR 10\n#define NLOHMANN_JSON_VERSION_PATCH 5\n",
    )
    .unwrap();
    let (first, said) = first_error("old-nlohmann", "contract.hpp", &[], Some(&stand_in));
    assert!(
        first.contains("needs nlohmann::json 3.11 or newer"),
        "{said}"
    );
}

/// The reader and the writer tell infinities and NaN, which
/// `-ffinite-math-only` (part of `-ffast-math` and `-Ofast`) lets the
/// compiler assume away: a unit built so is told why first, and one built
/// with `-Ofast -fno-finite-math-only` reads and writes numbers as the
/// strict build does.
#[test]
fn a_unit_with_finite_math_only_is_told_why_first_and_fast_math_else_reads_alike() {
    for flag in ["-ffast-math", "-Ofast", "-ffinite-math-only"] {
        let (first, said) = first_error("fast-math", "frame.hpp", &[flag], None);
        assert!(
            first.contains(
                "tells numbers that are not finite: compile this file without -ffinite-math-only"
            ),
            "{flag}: {said}"
        );
    }

    let fast = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fast-math/roundtrip");
    let status = Command::new("g++")
        .args(["-std=c++17", "-Ofast", "-fno-finite-math-only", "-I"])
        .arg(root().join("bindings/cpp/include"))
        .arg(root().join("bindings/cpp/examples/roundtrip.cpp"))
        .arg("-o")
        .arg(&fast)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "g++ -Ofast -fno-finite-math-only: {status}"
    );
    // (-0.0 is left out: -fno-signed-zeros, also in -Ofast, may write it
    // as 0.0, the same number, as JavaScript does.)
    let lines: Vec<String> = ["1e400", "-1e400", "1.7976931348623157e308", "1e-400", "0.5"]
        .iter()
        .map(|number| {
            format!(
                r#"{{"v":1,"kind":"error","id":1,"body":{{"code":-32603,"message":"m","data":{number}}}}}"#
            )
        })
        .collect();
    let input = lines.join("\n") + "\n";
    let strict = run(
        Command::new(cpp_programs().join("roundtrip")),
        input.as_bytes(),
    );
    let fast = run(Command::new(&fast), input.as_bytes());
    assert_eq!(
        fast, strict,
        "read under -Ofast -fno-finite-math-only and strict"
    );
    assert_eq!(
        strict
            .lines()
            .filter(|line| line.starts_with("error: "))
            .count(),
        2,
        "{strict}"
    );
}

/// A generated struct is no aggregate: an initializer by position, which a
/// member added by a later contract would shift onto another member (1.1.0
/// added `TaskSummary::effective_buffer_bytes` third of twelve), does not
/// compile; a struct default-constructed, or value-initialized, and set by
/// name does.
#[test]
fn a_struct_is_built_by_name_not_by_position() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("by-position");
    std::fs::create_dir_all(&out).unwrap();
    let compile = |name: &str, body: &str| {
        let source = out.join(format!("{name}.cpp"));
        std::fs::write(
            &source,
            format!("#include <vdm/contract.hpp>\n\nint main() {{\n  using namespace vdm::contract;\n{body}\n}}\n"),
        )
        .unwrap();
        Command::new("g++")
            .args(contract_tests::cxx_flags())
            .args(["-fsyntax-only", "-I"])
            .arg(root().join("bindings/cpp/include"))
            .arg(&source)
            .output()
            .unwrap_or_else(|err| {
                panic!("g++ cannot start ({err}); `cargo xtask test` installs it")
            })
    };
    let by_name = compile(
        "by-name",
        "  Segment s;\n  s.index = 1;\n  s.end_byte = 9;\n  Segment t{};\n  Segment u = {};\n\
         \x20 std::vector<Segment> plan(2);\n  plan.push_back({});\n\
         \x20 return s.index == 1 && t.index == 0 && u.index == 0 && plan.size() == 3 ? 0 : 1;",
    );
    assert!(
        by_name.status.success(),
        "{}",
        String::from_utf8_lossy(&by_name.stderr)
    );
    let by_position = compile(
        "by-position",
        "  Segment s{1u, 2u, 3u, 4u, SegmentState::pending};\n  return s.index == 3u ? 0 : 1;",
    );
    let said = String::from_utf8_lossy(&by_position.stderr);
    assert!(
        !by_position.status.success() && said.contains("Segment"),
        "an initializer by position compiled: {said}"
    );
}

/// The match a lane writes, as `docs/bindings.md` shows it, compiles against
/// the bindings: a C++ visitor and switch with strict warnings as errors, TypeScript with
/// `tsc --strict` and the stricter checks lanes turn on.
#[test]
fn the_documented_open_matches_compile() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("open-to-additions");
    std::fs::create_dir_all(&out).unwrap();
    let cpp = out.join("open.cpp");
    std::fs::write(
        &cpp,
        open_to_additions("cpp") + "\nint main() { return 0; }\n",
    )
    .unwrap();
    // A switch that keeps a default for the values a later contract adds
    // is what -Wswitch-enum refuses by design, as the page says.
    let flags = contract_tests::cxx_flags()
        .into_iter()
        .filter(|flag| *flag != "-Wswitch-enum");
    let output = Command::new("g++")
        .args(flags)
        .args(["-fsyntax-only", "-I"])
        .arg(root().join("bindings/cpp/include"))
        .arg(&cpp)
        .output()
        .unwrap_or_else(|err| panic!("g++ cannot start ({err}); `cargo xtask test` installs it"));
    assert!(
        output.status.success(),
        "the C++ of docs/bindings.md does not compile:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The package as a lane imports it, resolved to the working tree's files.
    let ts = out.join("open.ts");
    let index = root().join("bindings/ts/index.js");
    std::fs::write(
        &ts,
        open_to_additions("ts").replace(
            "\"@vdm/contract\"",
            &format!("{:?}", index.display().to_string()),
        ),
    )
    .unwrap();
    let mut command = Command::new("node");
    command.arg(tsc()).args([
        "--strict",
        "--exactOptionalPropertyTypes",
        "--noUncheckedIndexedAccess",
        "--noPropertyAccessFromIndexSignature",
        "--noImplicitReturns",
        "--noFallthroughCasesInSwitch",
        "--noEmit",
        "--target",
        "ES2022",
        "--module",
        "NodeNext",
        "--moduleResolution",
        "NodeNext",
        "--allowJs",
    ]);
    command.arg(&ts);
    run(command, b"");
}
