//! `cargo xtask`: the repository's own tools. Every check the gate runs lives
//! here (and is also reachable from `cargo test`), so CI and a developer run
//! exactly the same code.

/// `print!` that a closed stdout does not turn into a panic: a report piped
/// to a reader that stops early (`cargo xtask compat | head`) ends quietly,
/// and the exit code still says what was found.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        contract::stdout::kept(write!(std::io::stdout().lock(), $($arg)*));
    }};
}

/// [`say`] with a line break, as `println!` is `print!` with one.
macro_rules! sayln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        contract::stdout::kept(writeln!(std::io::stdout().lock(), $($arg)*));
    }};
}

/// [`sayln`] on stderr: `cargo xtask gate 2>&1 | head` closes both.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod bench;
mod bench_bindings;
mod codegen;
mod compat;
mod conformance;
mod contracts;
mod frozen;
mod lint;
mod release;
#[cfg(test)]
mod scratch;
mod test;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  lint                 check every schema under contracts/schema/ against the rules in schema/
  codegen              regenerate everything derived from the schemas
  codegen --check      write nothing; fail naming every stale or missing file
  conformance          the conformance gate over conformance/ (fixtures, rules, coverage, agreement,
                       frames, trace fixtures)
  bench conformance [--count N] [--peer-sample N] [--no-peers] [--capture-gb GB]
                       time vdm-conform check against the bare jsonschema crate, ajv-cli and
                       check-jsonschema, trace against check, generate against check, and
                       check and trace's peak memory on a
                       generated capture (2 GB unless given; 0 for none)
  bench bindings [--count N] [--runs N]
                       time C++ and TypeScript decoding against nlohmann::json::parse and JSON.parse alone
  release              freeze contracts/schema, the valid fixtures and their Rust, C++ and TypeScript
                       bindings under contracts/released/<VERSION>
  release --backfill-bindings
                       give releases frozen without some language's bindings that folder
  compat [--from V|DIR|FILE | --against-all-releases] [--to V|DIR|FILE] [--readers tolerant|strict]
         [--formats assertion|annotation] [--format human|json|markdown|github|sarif] [--search N]
                       the changes since the latest release, W/R/API verdicts, and the bump they need;
                       `cargo xtask compat --help` says more
  gate                 the full contract gate: lint, codegen --check, every release as frozen, conformance,
                       compat (with its search)
  test [ARGS...]       every test, Rust, C++ and TypeScript: installs what the C++ and TypeScript tests
                       need when it is missing (.ci/setup), then cargo test --workspace --all-features
                       --locked ARGS
  peak CMD ARGS...     run CMD; report its wall time and peak resident memory on stderr
";

fn main() -> ExitCode {
    say_caught_panics_in_one_line();
    let code = run();
    match contract::stdout::lost() {
        Some(err) => {
            tell!("error: writing to stdout: {err}");
            ExitCode::from(2)
        }
        None => code,
    }
}

/// A panic inside the schema validator, which the compatibility checker
/// catches and reads as "cannot decide", is said in one line on stderr: the
/// default message and its backtrace hint read as a crash, and the run goes
/// on. A panic inside typify, which codegen catches and refuses with what
/// it said, is not printed twice. Any other panic keeps the default message.
fn say_caught_panics_in_one_line() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if codegen::bundle::typify_panic_is_caught() {
            return;
        }
        if !::compat::panic_is_caught() {
            return default(info);
        }
        let at = info.location().map(|at| (at.file(), at.line()));
        tell!("{}", caught_panic_note(info.payload_as_str(), at));
    }));
}

/// The line that says a caught panic: what it said (escaped, so one line
/// whatever it holds) and where.
fn caught_panic_note(said: Option<&str>, at: Option<(&str, u32)>) -> String {
    let at = at
        .map(|(file, line)| format!(" at {}:{line}", file.escape_debug()))
        .unwrap_or_default();
    format!(
        "note: the schema validator failed (\"{}\"{at}); compat reads the comparison it was part of as \"cannot decide\"",
        said.unwrap_or("no message").escape_debug()
    )
}

/// Runs the command the arguments name; the exit status it asks for.
fn run() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["lint"] => lint::run(&root()),
        ["codegen"] => codegen::run(&root(), codegen::Mode::Write),
        ["codegen", "--check"] => codegen::run(&root(), codegen::Mode::Check),
        ["conformance"] => conformance::run(&root()),
        ["gate"] => gate(&root()),
        ["test", rest @ ..] => test::run(&root(), rest),
        ["release"] => release::run(&root()),
        ["release", "--backfill-bindings"] => release::backfill_bindings(&root()),
        ["compat", rest @ ..] => match compat::run(&root(), rest) {
            Ok(outcome) if outcome.ok => Ok(()),
            Ok(_) => return ExitCode::FAILURE,
            Err(err) => {
                tell!("error: {err:#}");
                return ExitCode::from(2);
            }
        },
        ["bench", "conformance", rest @ ..] => bench::run(&root(), rest),
        ["bench", "bindings", rest @ ..] => bench_bindings::run(&root(), rest),
        ["peak", rest @ ..] => bench::peak(rest),
        ["help" | "--help" | "-h"] => {
            say!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            tell!("{}", USAGE.trim_end());
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tell!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask gate`: every check the gate runs, each whatever the others
/// found (a broken file fails the checks that read it, and the rest still
/// report), then one line naming those that failed. Only schemas lint
/// refuses stop the checks of values against them (conformance, compat):
/// what they would meet there is unbounded (a schema may make every
/// validation exponential).
pub fn gate(root: &Path) -> anyhow::Result<()> {
    let compat = || {
        match compat::run(root, &[])? {
            outcome if outcome.ok => Ok(()),
            outcome if outcome.checker_defect => anyhow::bail!(
                "compat: a verdict is contradicted by a fixture or a drawn value, a defect of the checker (see above)"
            ),
            _ => anyhow::bail!(
                "compat: the working tree is not covered by contracts/VERSION (see above)"
            ),
        }
    };
    let mut failed = Vec::new();
    // The checks of values against the schemas stop only when lint refused
    // the schemas themselves, not when it could not read `VERSION` or the
    // latest release: those checks say for themselves what they need.
    let mut schemas_refused = false;
    if let Err(lint::Failed {
        schemas_refused: refused,
        error,
    }) = lint::check(root)
    {
        tell!("error: {error:#}");
        failed.push("lint");
        schemas_refused = refused;
    }
    if let Err(err) = codegen::run(root, codegen::Mode::Check) {
        tell!("error: {err:#}");
        failed.push("codegen --check");
    }
    if let Err(err) = frozen::check(root).and_then(|()| release::notice_lagging(root)) {
        tell!("error: {err:#}");
        failed.push("releases");
    }
    type Check<'a> = (&'a str, &'a dyn Fn() -> anyhow::Result<()>);
    let on_values: [Check; 2] = [
        ("conformance", &|| conformance::run(root)),
        ("compat", &compat),
    ];
    let mut skipped = Vec::new();
    for (name, check) in on_values {
        if schemas_refused {
            skipped.push(name);
            continue;
        }
        if let Err(err) = check() {
            tell!("error: {err:#}");
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        let not_run = if skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({} not run: they check values against schemas lint refuses)",
                skipped.join(", ")
            )
        };
        anyhow::bail!("gate: failed: {}{not_run}", failed.join(", "));
    }
    sayln!("gate: ok");
    Ok(())
}

/// The workspace root, found from this crate's manifest so the xtask works
/// from any directory.
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Where cargo builds this workspace: `target/` unless `CARGO_TARGET_DIR`
/// or a cargo configuration (`build.target-dir`, often set once for all of
/// a developer's projects) puts it elsewhere, as `cargo metadata` says.
pub fn target_dir(root: &Path) -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        anyhow::bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata wrote no JSON")?;
    metadata
        .get("target_directory")
        .and_then(serde_json::Value::as_str)
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

#[cfg(test)]
mod tests {
    /// A caught panic is said on one line, whatever its message holds.
    #[test]
    fn a_caught_panic_is_one_line() {
        let note = super::caught_panic_note(
            Some("lost\nerror: forged"),
            Some(("src/keywords/ref_.rs", 241)),
        );
        assert_eq!(
            note,
            r#"note: the schema validator failed ("lost\nerror: forged" at src/keywords/ref_.rs:241); compat reads the comparison it was part of as "cannot decide""#
        );
        assert!(super::caught_panic_note(None, None).contains("(\"no message\")"));
    }

    /// A fixture cut in half fails the checks that read it, each naming the
    /// file, and the gate still runs the check that does not (lint).
    /// A schema lint refuses: codegen still reports (the embedded schemas
    /// are stale), and the checks of values against the schemas are named
    /// as not run.
    #[test]
    fn a_schema_lint_refuses_stops_only_the_checks_of_values() -> anyhow::Result<()> {
        let copy = crate::scratch::Scratch::new("gate-lint-refuses")?;
        let path = copy.dir.join("contracts/schema/types/TaskId.json");
        let text = std::fs::read_to_string(&path)?;
        std::fs::write(&path, text.replace("\"x-since\"", "\"x-sinse\""))?;
        let Err(gate) = super::gate(&copy.dir) else {
            panic!("the gate passed with a misspelled keyword");
        };
        assert_eq!(
            format!("{gate:#}"),
            "gate: failed: lint, codegen --check (conformance, compat not run: they check values against schemas lint refuses)"
        );
        Ok(())
    }

    /// A byte that is not UTF-8 in the latest release fails lint's
    /// `x-since` judgement, codegen, the release's seal and compat, each naming the file; the
    /// working tree's schemas are not refused, so conformance still runs.
    #[test]
    fn a_bad_byte_in_a_release_does_not_stop_the_conformance_gate() -> anyhow::Result<()> {
        let copy = crate::scratch::Scratch::new("gate-bad-release-byte")?;
        let (version, dir) =
            crate::contracts::latest(&copy.dir)?.ok_or_else(|| anyhow::anyhow!("no release"))?;
        let path = dir.join("schema/types/TaskId.json");
        let mut bytes = std::fs::read(&path)?;
        bytes.insert(1, 0xff);
        std::fs::write(&path, bytes)?;
        let Err(lint) = super::lint::check(&copy.dir) else {
            panic!("lint passed with a release it cannot read");
        };
        assert!(!lint.schemas_refused);
        let said = format!("{:#}", lint.error);
        assert!(
            said.contains(&format!("loading release {version}"))
                && said.contains("schema/types/TaskId.json:1:2: not UTF-8 text (byte offset 1)"),
            "{said}"
        );
        let Err(gate) = super::gate(&copy.dir) else {
            panic!("the gate passed with a release it cannot read");
        };
        assert_eq!(
            format!("{gate:#}"),
            "gate: failed: lint, codegen --check, releases, compat"
        );
        Ok(())
    }

    #[test]
    fn a_broken_fixture_fails_what_reads_it_and_the_gate_runs_the_rest() -> anyhow::Result<()> {
        let copy = crate::scratch::Scratch::new("gate-broken-fixture")?;
        let fixture = copy.dir.join("conformance/valid/download_add_call.json");
        let text = std::fs::read(&fixture)?;
        std::fs::write(&fixture, text.get(..text.len() / 2).unwrap_or_default())?;
        let Err(gate) = super::gate(&copy.dir) else {
            panic!("the gate passed with a broken fixture");
        };
        assert_eq!(
            format!("{gate:#}"),
            "gate: failed: codegen --check, conformance, compat"
        );
        let Err(codegen) = super::codegen::run(&copy.dir, super::codegen::Mode::Check) else {
            panic!("codegen --check passed with a broken fixture");
        };
        let said = format!("{codegen:#}");
        assert!(
            said.contains("conformance/valid/download_add_call.json: not JSON: EOF while parsing"),
            "{said}"
        );
        Ok(())
    }

    /// The README's table names every command the usage lists, so a new
    /// command cannot land undocumented.
    #[test]
    fn the_readme_names_every_xtask_command() {
        let readme = std::fs::read_to_string(super::root().join("README.md")).unwrap();
        let row = readme
            .lines()
            .find(|line| line.starts_with("| `xtask/`"))
            .expect("the README's layout table has a row for xtask/");
        let mut commands = Vec::new();
        for line in super::USAGE.lines() {
            let Some(rest) = line.strip_prefix("  ") else {
                continue;
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            let Some(first) = words.first() else { continue };
            if !first.chars().all(|c| c.is_ascii_lowercase()) || rest.starts_with(' ') {
                continue;
            }
            let command = match (*first, words.get(1)) {
                ("bench", Some(what)) => format!("bench {what}"),
                (first, _) => first.to_string(),
            };
            commands.push(command);
        }
        assert!(commands.len() >= 10, "{commands:?}");
        let missing: Vec<&String> = commands
            .iter()
            .filter(|command| {
                !row.contains(&format!("`{command}`")) && !row.contains(&format!(" {command}`"))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "README's xtask row lacks {missing:?}: {row}"
        );
    }
}
