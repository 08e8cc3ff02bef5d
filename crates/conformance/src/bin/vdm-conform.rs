//! `vdm-conform`: does a lane's traffic conform to the vdm contract?
//!
//! Exit status: 0 when everything conforms, 1 on any violation, 2 on a usage
//! or I/O error. The schemas are compiled in; nothing else is needed.

use std::io::{Cursor, Read};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use conformance::report::{render, Format, Violation};
use conformance::{input, mirror, Checker, Rule};
use proto::{FrameError, FrameReader};

#[derive(Parser)]
#[command(
    name = "vdm-conform",
    version,
    about = "Check messages and frame captures against the vdm contract"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How to print violations.
    #[arg(long, value_enum, default_value = "human", global = true)]
    format: Format,
    /// The contract version to check against: any release compiled in, or
    /// `list` to print them (default: the newest).
    #[arg(long, value_name = "VERSION", global = true)]
    contract: Option<String>,
    /// Let an input that holds no message pass (by default nothing checked
    /// is a failure: an empty capture usually means a broken capture step).
    #[arg(long, global = true)]
    allow_empty: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check messages: each FILE is one JSON value, a JSON array, or JSON Lines; `-` is stdin.
    Check {
        /// Check bare values of this type instead of envelopes (e.g. TaskDetail).
        #[arg(long = "type", value_name = "NAME", default_value = "Envelope")]
        type_name: String,
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Check captured frame streams: every frame is decoded and checked.
    Frames {
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Check conversations: JSON Lines of {"conn", "from", "transport", "msg"}
    /// records, read as a stream; every message rule, and the rules between
    /// messages of a connection.
    Trace {
        /// A table of allowed state transitions: {"state": ["next", ...], ...}.
        #[arg(long, value_name = "FILE")]
        transitions: Option<String>,
        /// The capture ended cleanly: calls left unanswered are violations,
        /// not warnings.
        #[arg(long)]
        closed: bool,
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Compare TaskErrorCode with the engine's C++ enum class.
    Mirror {
        #[arg(long, value_name = "FILE")]
        cpp_header: String,
        /// The enum class to compare (default: the one whose first value is `ok`).
        #[arg(long = "enum", value_name = "NAME")]
        enum_name: Option<String>,
    },
    /// List every rule id with what it asks.
    Rules,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("vdm-conform: {message}");
            ExitCode::from(2)
        }
    }
}

/// `Ok(true)` when everything conforms.
fn run(cli: Cli) -> Result<bool, String> {
    let contract = cli
        .contract
        .clone()
        .unwrap_or_else(|| conformance::NEWEST_CONTRACT.to_string());
    if contract == "list" {
        for version in conformance::contract_versions() {
            println!("{version}");
        }
        return Ok(true);
    }
    let checker = || Checker::embedded_contract(&contract).map_err(|err| err.to_string());
    // Messages (or frames) looked at, for check and frames.
    let mut checked: Option<usize> = None;
    let violations = match cli.command {
        Command::Check { type_name, files } => {
            let checker = checker()?;
            checker
                .require_type(&type_name)
                .map_err(|err| err.to_string())?;
            let mut all = Vec::new();
            let mut count = 0;
            for file in &files {
                let text = read_text(file)?;
                let messages = input::split(&text);
                count += messages.len();
                for (message, findings) in
                    input::check_all(&checker, &type_name, messages).map_err(|e| e.to_string())?
                {
                    all.extend(findings.into_iter().map(|f| Violation {
                        file: file.clone(),
                        index: Some(message.index),
                        line: message.line,
                        offset: None,
                        pointer: f.pointer,
                        rule: f.rule.id().to_string(),
                        message: f.message,
                    }));
                }
            }
            checked = Some(count);
            all
        }
        Command::Frames { files } => {
            let checker = checker()?;
            let mut all = Vec::new();
            let mut count = 0;
            for file in &files {
                let (violations, frames) = check_frames(&checker, file, read_bytes(file)?);
                all.extend(violations);
                count += frames;
            }
            checked = Some(count);
            all
        }
        Command::Trace {
            transitions,
            closed,
            files,
        } => {
            let checker = checker()?;
            let table = match &transitions {
                Some(path) => Some(
                    conformance::trace::Transitions::parse(&read_text(path)?)
                        .map_err(|why| format!("{path}: {why}"))?,
                ),
                None => None,
            };
            let mut all = Vec::new();
            let mut count = 0;
            for file in &files {
                let (violations, records) =
                    check_trace(&checker, file, table.clone(), closed, cli.format)?;
                all.extend(violations);
                count += records;
            }
            checked = Some(count);
            all
        }
        Command::Mirror {
            cpp_header,
            enum_name,
        } => {
            let text = read_text(&cpp_header)?;
            let (name, header) = mirror::parse_header(&text, enum_name.as_deref())
                .map_err(|e| format!("{cpp_header}: {e}"))?;
            let checker = checker()?;
            let values: Vec<&str> = checker
                .schema_set()
                .get(contract::DocKind::Type, "TaskErrorCode")
                .and_then(|doc| doc.value.get("enum"))
                .and_then(|v| v.as_array())
                .map(|items| items.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            mirror::compare(&cpp_header, &name, &header, &values)
        }
        Command::Rules => {
            for rule in Rule::ALL {
                println!("{}", rule.id());
            }
            for rule in contract::LintRule::ALL {
                println!("{}\t{}", rule.id(), rule.summary());
            }
            return Ok(true);
        }
    };
    print!("{}", render(&violations, cli.format));
    if checked == Some(0) {
        // Nothing checked is not a pass: an empty capture is usually a
        // capture step that failed.
        if cli.allow_empty {
            eprintln!(
                "vdm-conform: the input holds no message; nothing was checked (--allow-empty)"
            );
            return Ok(true);
        }
        eprintln!("vdm-conform: the input holds no message, so nothing was checked; pass --allow-empty if that is expected");
        return Ok(false);
    }
    if violations.is_empty() && cli.format == Format::Human {
        eprintln!("vdm-conform: everything conforms to contract {contract}");
    } else if cli.format == Format::Human {
        eprintln!("vdm-conform: checked against contract {contract}");
    }
    Ok(violations.is_empty())
}

/// The violations in one trace, read line by line, and how many records it
/// held. Calls left open at the end are violations when the capture is
/// `closed`, warnings (on stderr) otherwise.
fn check_trace(
    checker: &Checker,
    file: &str,
    transitions: Option<conformance::trace::Transitions>,
    closed: bool,
    format: Format,
) -> Result<(Vec<Violation>, usize), String> {
    use std::io::BufRead;
    let reader: Box<dyn BufRead> = if file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?,
        ))
    };
    let violation = |f: conformance::trace::TraceFinding| Violation {
        file: file.to_string(),
        index: None,
        line: Some(f.line),
        offset: None,
        pointer: f.pointer,
        rule: f.rule.id().to_string(),
        message: f.message,
    };
    let mut tracer = conformance::trace::Tracer::new(checker, transitions);
    let mut out = Vec::new();
    for (index, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{file}: {e}"))?;
        out.extend(
            tracer
                .feed_line(index + 1, &line)
                .into_iter()
                .map(violation),
        );
    }
    let open: Vec<Violation> = tracer.unanswered().into_iter().map(violation).collect();
    if closed {
        out.extend(open);
    } else if !open.is_empty() {
        eprint!(
            "{}",
            render(&open, format)
                .lines()
                .map(|l| format!("vdm-conform: warning: {l}\n"))
                .collect::<String>()
        );
    }
    Ok((out, tracer.records))
}

/// The violations in one capture, and how many frames it held.
fn check_frames(checker: &Checker, file: &str, bytes: Vec<u8>) -> (Vec<Violation>, usize) {
    let mut out = Vec::new();
    let mut reader = FrameReader::new(Cursor::new(bytes));
    let mut index = 0;
    loop {
        let offset = reader.get_ref().position();
        let violation = |rule: Rule, pointer: String, message: String| Violation {
            file: file.to_string(),
            index: Some(index),
            line: None,
            offset: Some(offset),
            pointer,
            rule: rule.id().to_string(),
            message,
        };
        match reader.read_raw() {
            Ok(body) => match serde_json::from_slice::<serde_json::Value>(body) {
                Ok(value) => match checker.check("Envelope", &value) {
                    Ok(findings) => out.extend(
                        findings
                            .into_iter()
                            .map(|f| violation(f.rule, f.pointer, f.message)),
                    ),
                    Err(err) => out.push(violation(Rule::Schema, String::new(), err.to_string())),
                },
                Err(err) => out.push(violation(
                    Rule::Json,
                    String::new(),
                    format!("the frame's body is not JSON: {err}"),
                )),
            },
            Err(FrameError::Closed) => break,
            Err(FrameError::Empty) => out.push(violation(
                Rule::FrameEmpty,
                String::new(),
                FrameError::Empty.to_string(),
            )),
            Err(err @ FrameError::TooLarge(_)) => {
                out.push(violation(
                    Rule::FrameTooLarge,
                    String::new(),
                    format!("{err}; the rest of the capture cannot be read"),
                ));
                break;
            }
            Err(err) => {
                out.push(violation(
                    Rule::FrameTruncated,
                    String::new(),
                    format!("{err}; the capture ends inside a frame"),
                ));
                break;
            }
        }
        index += 1;
    }
    (out, index)
}

fn read_bytes(file: &str) -> Result<Vec<u8>, String> {
    if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("stdin: {e}"))?;
        Ok(bytes)
    } else {
        std::fs::read(file).map_err(|e| format!("{file}: {e}"))
    }
}

fn read_text(file: &str) -> Result<String, String> {
    String::from_utf8(read_bytes(file)?).map_err(|e| format!("{file}: not UTF-8: {e}"))
}
