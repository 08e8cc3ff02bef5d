//! `vdm-conform`: does a lane's traffic conform to the vdm contract?
//!
//! Exit status: 0 when everything conforms, 1 on any violation, 2 on a usage
//! or I/O error. The schemas are compiled in; nothing else is needed.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use conformance::generate::GenerateError;
use conformance::pipeline::{check_file, check_frames, check_trace, check_trace_pair, open, Sink};
use conformance::report::{render, render_at, Format, Level, Violation};
use conformance::{mirror, Checker, Rule};

// `trace` reads records on some threads and follows them on another, which
// frees what the readers allocated; under glibc's allocator each such free
// contends for the reading thread's arena. With mimalloc, trace / check on
// the bench conversation went from 1.30 to 0.97 (medians of 16 alternating
// runs), and check itself from 0.393 s to 0.333 s (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "vdm-conform",
    version,
    about = "Check messages and frame captures against the vdm contract"
)]
struct Cli {
    /// What to do; none only with `--contract list`.
    #[command(subcommand)]
    command: Option<Command>,
    /// How to print violations.
    #[arg(long, value_enum, default_value = "human", global = true)]
    format: Shown,
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
    /// messages of a connection. Or one connection's two frame captures,
    /// `--client FILE --server FILE`.
    Trace(TraceArgs),
    /// Compare TaskErrorCode with the engine's C++ enum class.
    Mirror {
        #[arg(long, value_name = "FILE")]
        cpp_header: String,
        /// The enum class to compare (default: `TaskErrorCode`, or else the only one whose first value is `ok`).
        #[arg(long = "enum", value_name = "NAME")]
        enum_name: Option<String>,
    },
    /// List every rule id with what it asks: the conformance rules, then the
    /// schema lint rules; a tab between them, or with `--format json` one
    /// object a line (`rule`, `asks`, `of`: `message` or `lint`).
    Rules,
    /// Drive a live peer: start CMD, speak frames on its stdin/stdout as its
    /// client (or its server), judge what it sends; per rule, exercised,
    /// held, broken.
    Drive(DriveArgs),
    /// Write N values of a contract type as JSON Lines on stdout, each one
    /// that `check` passes (schema and semantic rules); same seed, same values.
    Generate(GenerateArgs),
}

/// `vdm-conform trace`'s arguments.
#[derive(clap::Args)]
struct TraceArgs {
    /// A table of allowed state transitions: {"state": ["next", ...], ...}.
    #[arg(long, value_name = "FILE")]
    transitions: Option<String>,
    /// The capture ended cleanly: calls left unanswered are violations,
    /// not warnings.
    #[arg(long)]
    closed: bool,
    /// The frames the client sent on one unix-socket connection (with
    /// --server). Each answer is placed after the call it answers: the
    /// order between the two captures is inferred, not recorded.
    #[arg(long, value_name = "FILE", requires = "server")]
    client: Option<String>,
    /// The frames the server sent on the same connection (with --client).
    #[arg(long, value_name = "FILE", requires = "client")]
    server: Option<String>,
    #[arg(required_unless_present = "client")]
    files: Vec<String>,
}

/// `vdm-conform drive`'s arguments.
#[derive(clap::Args)]
struct DriveArgs {
    /// The side the driver plays: `client` drives a server, `server`
    /// answers a client.
    #[arg(long = "as", value_enum, value_name = "SIDE", default_value = "client")]
    role: Side,
    /// The methods to call, comma-separated (default: those the peer's
    /// session.hello reply lists, else every method); as the server, the
    /// methods offered.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    methods: Option<Vec<String>>,
    /// Seconds to wait for each answer (as the server: for each call, and
    /// for a started client to exit), above 0 and at most 86400.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = seconds)]
    timeout: std::time::Duration,
    /// The seed the calls are drawn from.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Write the conversation as trace records to FILE. Messages are kept
    /// whole, credentials included (`trace` checks them as sent): keep the
    /// file as you would a capture.
    #[arg(long, value_name = "FILE")]
    record: Option<String>,
    /// Drive the peer listening on this unix socket instead of starting one.
    #[arg(long, value_name = "PATH", conflicts_with = "command")]
    connect: Option<String>,
    /// The peer's command and arguments, after `--`.
    #[arg(last = true, required_unless_present = "connect", value_name = "CMD")]
    command: Vec<String>,
}

/// `vdm-conform generate`'s arguments.
#[derive(clap::Args)]
struct GenerateArgs {
    /// The type to generate (e.g. TaskDetail); default: whole messages.
    #[arg(
        long = "type",
        value_name = "NAME",
        default_value = "Envelope",
        conflicts_with = "conversation"
    )]
    type_name: String,
    /// How many values.
    #[arg(short = 'n', long = "count", value_name = "N", default_value_t = 100)]
    count: usize,
    /// The seed the values are drawn from.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Write single-fault mutants instead, one {"rule": ID, "at": POINTER, "msg": VALUE}
    /// per line: `check` finds exactly the rule named in each msg. With
    /// --conversation: conversations that each break one trace rule,
    /// named in every record as "mutant".
    #[arg(long)]
    mutants: bool,
    /// Write N whole conversations instead, as trace records, each one
    /// that `trace --closed` passes.
    #[arg(long)]
    conversation: bool,
    /// With --conversation: state changes follow this table, as in
    /// `trace --transitions`.
    #[arg(long, value_name = "FILE", requires = "conversation")]
    transitions: Option<String>,
}

/// `--format`: the library's [`Format`], as the command line spells it.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Shown {
    Human,
    Json,
    Github,
}

impl From<Shown> for Format {
    fn from(shown: Shown) -> Format {
        match shown {
            Shown::Human => Format::Human,
            Shown::Json => Format::Json,
            Shown::Github => Format::Github,
        }
    }
}

/// The side `drive` plays.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Side {
    Client,
    Server,
}

/// Refuses standard input named twice: the second would read nothing and
/// be told as an input that holds no message.
fn stdin_once<'a>(inputs: impl IntoIterator<Item = &'a String>) -> Result<(), String> {
    if inputs.into_iter().filter(|name| *name == "-").count() > 1 {
        return Err("standard input (`-`) is named more than once; it can be read once".into());
    }
    Ok(())
}

/// `vdm-conform trace`: each file as a stream of records, then the two
/// captures of one connection; counts what each input held into `checked`.
fn trace(
    checker: &Checker,
    args: TraceArgs,
    out: &mut Output,
    checked: &mut Vec<(String, usize)>,
) -> Result<(), String> {
    let TraceArgs {
        transitions,
        closed,
        client,
        server,
        files,
    } = args;
    stdin_once(files.iter().chain(&client).chain(&server))?;
    let table = match &transitions {
        Some(path) => Some(
            conformance::trace::Transitions::parse_for(checker, &read_text(path)?)
                .map_err(|why| format!("{path}: {why}"))?
                .read_from(path.as_str()),
        ),
        None => None,
    };
    for file in &files {
        let count = check_trace(checker, file, table.clone(), closed, out)?;
        checked.push((file.clone(), count));
    }
    if let (Some(client), Some(server)) = (&client, &server) {
        let count = check_trace_pair(checker, [client, server], table, closed, out)?;
        checked.push((format!("the capture pair {client}, {server}"), count));
    }
    Ok(())
}

/// `vdm-conform generate`: writes to stdout; returns what it wrote, in words,
/// or `None` when the reader closed the output (`generate … | head`): that
/// ends the run as it ends any filter's, quietly.
fn generate(
    checker: &Checker,
    contract: &str,
    args: &GenerateArgs,
) -> Result<Option<String>, String> {
    let table = args.transitions.as_deref().map(read_text).transpose()?;
    if let (Some(path), Some(text)) = (&args.transitions, &table) {
        // Read as `trace --transitions` reads it, so a bad table is named
        // by its file here too.
        conformance::trace::Transitions::parse_for(checker, text)
            .map_err(|why| format!("{path}: {why}"))?;
    }
    match generate_into(checker, contract, args, table.as_deref()) {
        Ok(summary) => Ok(Some(summary)),
        Err(GenerateError::Write(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(None),
        Err(err) => Err(err.to_string()),
    }
}

fn generate_into(
    checker: &Checker,
    contract: &str,
    args: &GenerateArgs,
    table: Option<&str>,
) -> Result<String, GenerateError> {
    let GenerateArgs {
        type_name,
        count,
        seed,
        mutants,
        conversation,
        ..
    } = args;
    let (count, seed) = (*count, *seed);
    let stdout = std::io::stdout();
    let mut sink = std::io::BufWriter::new(stdout.lock());
    let summary = if *conversation && *mutants {
        let done =
            conformance::generate::conversation_mutants(checker, count, seed, table, &mut sink)?;
        format!(
            "wrote {} conversation mutant(s) of contract {contract}, seed {seed}, from {} valid conversation(s){}",
            done.by_rule.values().sum::<usize>(),
            done.bases,
            written_by_rule(&done.by_rule)
        )
    } else if *conversation {
        let done = conformance::generate::conversations(checker, count, seed, table, &mut sink)?;
        let dropped = dropped_by_rule(&done.broken);
        format!(
            "wrote {} conversation(s) of contract {contract}, seed {seed}, {} record(s); {} broke a rule and were dropped{dropped}",
            done.written, done.records, done.dropped
        )
    } else if *mutants {
        let done = conformance::generate::mutants(checker, type_name, count, seed, &mut sink)?;
        format!(
            "wrote {} {type_name} mutant(s) of contract {contract}, seed {seed}, from {} valid value(s){}",
            done.by_rule.values().sum::<usize>(),
            done.bases,
            written_by_rule(&done.by_rule)
        )
    } else {
        let done = conformance::generate::generate(checker, type_name, count, seed, &mut sink)?;
        let dropped = dropped_by_rule(&done.broken);
        format!(
            "wrote {} {type_name} value(s) of contract {contract}, seed {seed}; {} draw(s) broke a rule and were dropped{dropped}",
            done.written, done.dropped
        )
    };
    sink.flush()?;
    Ok(summary)
}

/// `--timeout`: seconds above 0 and at most a day
/// (`conformance::drive::MAX_TIMEOUT`), refused otherwise rather than taken
/// as no wait or as a day.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    let most = conformance::drive::MAX_TIMEOUT;
    text.parse::<f64>()
        .ok()
        .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
        .filter(|wait| !wait.is_zero() && *wait <= most)
        .ok_or_else(|| format!("a number of seconds above 0 and at most {}", most.as_secs()))
}

/// `vdm-conform drive`: drives the peer and prints per rule; `Ok(true)`
/// when every rule held.
fn drive(checker: &Checker, args: DriveArgs, format: Format) -> Result<bool, String> {
    let DriveArgs {
        role,
        methods,
        timeout,
        seed,
        record,
        connect,
        command,
    } = args;
    let options = conformance::drive::Options {
        methods,
        timeout,
        seed,
        role: match role {
            Side::Client => conformance::drive::Role::Client,
            Side::Server => conformance::drive::Role::Server,
        },
    };
    if let Some(path) = &record {
        record_writable(path)?;
    }
    #[cfg(target_os = "linux")]
    let started = connect.is_none();
    let peer = match connect {
        Some(path) => conformance::drive::Peer::Socket(path.into()),
        None => {
            #[cfg(unix)]
            end_peers_on_signals();
            #[cfg(target_os = "linux")]
            procgroup::orphans::adopt();
            conformance::drive::Peer::Command(command)
        }
    };
    let driven = conformance::drive::drive_peer(checker, &peer, &options);
    // A stop signal that ended the peer ends the driver too, by that signal.
    #[cfg(unix)]
    procgroup::wait_if_stopping();
    #[cfg(target_os = "linux")]
    if started {
        let ended = procgroup::orphans::end(LEFT_BEHIND_GRACE);
        if ended > 0 {
            let _ = writeln!(
                std::io::stderr().lock(),
                "vdm-conform: ended {ended} process(es) the peer left running outside its process group"
            );
        }
    }
    report_driven(driven, record.as_deref(), format)
}

/// Ends the started peer (`drive::end_started_peers`) when the driver is
/// told to stop by SIGTERM, SIGINT, SIGHUP or SIGQUIT, then ends as that signal ends
/// a process: the peer leads a process group of its own, which a Ctrl-C at
/// the terminal does not reach.
#[cfg(unix)]
fn end_peers_on_signals() {
    procgroup::end_on_stop_signals(|signal| {
        let ended = conformance::drive::end_started_peers();
        #[cfg(target_os = "linux")]
        procgroup::orphans::end(LEFT_BEHIND_GRACE);
        format!("vdm-conform: stopped by signal {signal}; {ended} started peer(s) ended")
    });
}

/// What the peer left outside its group has between SIGTERM and SIGKILL,
/// as what it left inside has (`drive`'s own grace).
#[cfg(target_os = "linux")]
const LEFT_BEHIND_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// The sibling a record is written to before it is renamed into place.
fn record_sibling(path: &str) -> String {
    format!("{path}.tmp~")
}

/// Whether the record can be written where `--record` says, asked before
/// the peer starts: a session may take minutes, and a wrong folder found
/// at its end would cost them.
fn record_writable(path: &str) -> Result<(), String> {
    if Path::new(path).is_dir() {
        return Err(format!("--record {path}: a folder; give the file to write"));
    }
    let tmp = record_sibling(path);
    std::fs::File::create(&tmp)
        .map(drop)
        .and_then(|()| std::fs::remove_file(&tmp))
        .map_err(|err| format!("--record {path}: {err}"))
}

/// Prints per rule, then writes the record; `Ok(true)` when every rule
/// held. A record that cannot be written is an error after the report,
/// which is not lost with it.
fn report_driven(
    driven: Result<conformance::drive::Driven, conformance::drive::DriveError>,
    record: Option<&str>,
    format: Format,
) -> Result<bool, String> {
    let driven = driven.map_err(|err| err.to_string())?;
    say(&driven.render(format));
    if let Some(path) = record {
        let text: String = driven
            .records
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        // To a sibling first, renamed into place: a failed write (a full
        // disk) leaves no record that `trace` would take for a whole one.
        let tmp = record_sibling(path);
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|err| {
                let _ = std::fs::remove_file(&tmp);
                format!("{path}: {err}")
            })?;
    }
    Ok(driven.held())
}

/// ` (rule count, ...)` for what was dropped, or nothing.
fn dropped_by_rule(broken: &std::collections::BTreeMap<Rule, usize>) -> String {
    if broken.is_empty() {
        String::new()
    } else {
        format!(" ({})", by_rule(broken.iter()))
    }
}

/// `rule count, ...`, the most frequent first.
fn by_rule<'a>(counts: impl Iterator<Item = (&'a Rule, &'a usize)>) -> String {
    let mut counts: Vec<(&Rule, &usize)> = counts.collect();
    counts.sort_by(|a, b| b.1.cmp(a.1));
    counts
        .iter()
        .map(|(rule, count)| format!("{} {count}", rule.id()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `: rule count, ...` for the mutants written, or nothing when none was.
fn written_by_rule(counts: &std::collections::BTreeMap<Rule, usize>) -> String {
    if counts.is_empty() {
        String::new()
    } else {
        format!(": {}", by_rule(counts.iter()))
    }
}

/// `eprintln!` that a closed stderr does not turn into a panic
/// (`vdm-conform check … 2>&1 | head` closes both): what is left unsaid is
/// lost, and the exit code still says what was found.
macro_rules! tell {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ran = run(cli);
    match (ran, contract::stdout::lost()) {
        (Err(message), _) => {
            // A message can quote an input file.
            tell!("vdm-conform: {}", proto::wire::printable(&message));
            ExitCode::from(2)
        }
        (Ok(_), Some(err)) => {
            tell!("vdm-conform: writing the report to stdout: {err}");
            ExitCode::from(2)
        }
        (Ok(true), None) => ExitCode::SUCCESS,
        (Ok(false), None) => ExitCode::from(1),
    }
}

/// `Ok(true)` when everything conforms.
fn run(cli: Cli) -> Result<bool, String> {
    let format = Format::from(cli.format);
    let contract = cli
        .contract
        .clone()
        .unwrap_or_else(|| conformance::NEWEST_CONTRACT.to_string());
    if contract == "list" {
        for version in conformance::contract_versions() {
            say(&match format {
                Format::Json => format!("{}\n", serde_json::json!({ "contract": version })),
                Format::Human | Format::Github => format!("{version}\n"),
            });
        }
        return Ok(true);
    }
    // Asked of every command, `rules` too, which reads no schema: a
    // misspelt version is never taken for the newest.
    if !conformance::contract_versions().contains(&contract.as_str()) {
        let known = conformance::contract_versions().join(", ");
        return Err(conformance::Error::UnknownContract(contract, known).to_string());
    }
    let Some(command) = cli.command else {
        return Err(
            "a command is needed (check, frames, trace, generate, mirror, rules); see --help"
                .into(),
        );
    };
    let checker = || Checker::embedded_contract(&contract).map_err(|err| err.to_string());
    // Each input with the messages (or frames, or records) it held.
    let mut checked: Vec<(String, usize)> = Vec::new();
    // check and frames print as they go, so memory does not grow with the input.
    let mut out = Output { format, found: 0 };
    let violations = match command {
        Command::Check { type_name, files } => {
            stdin_once(&files)?;
            let checker = checker()?;
            checker
                .require_type(&type_name)
                .map_err(|err| err.to_string())?;
            for file in &files {
                let count = check_file(&checker, &type_name, file, &mut out)?;
                checked.push((file.clone(), count));
            }
            // The schema is not all the executor holds a tool set to.
            if type_name == "ToolSet" && format == Format::Human {
                tell!("vdm-conform: a tool-set file is checked against its schema here; `vdm-exec check --tools FILE` also holds it to the executor's own rules (unique names, absolute working directories, an inputSchema that compiles)");
            }
            Vec::new()
        }
        Command::Frames { files } => {
            stdin_once(&files)?;
            let checker = checker()?;
            for file in &files {
                let count = check_frames(&checker, file, open(file)?, &mut out);
                checked.push((file.clone(), count));
            }
            Vec::new()
        }
        Command::Trace(args) => {
            trace(&checker()?, args, &mut out, &mut checked)?;
            Vec::new()
        }
        Command::Mirror {
            cpp_header,
            enum_name,
        } => mirror(&checker()?, &cpp_header, enum_name.as_deref())?,
        Command::Generate(args) => {
            let summary = generate(&checker()?, &contract, &args)?;
            if let (Some(summary), Format::Human) = (summary, format) {
                tell!("vdm-conform: {summary}");
            }
            return Ok(true);
        }
        Command::Drive(args) => return drive(&checker()?, args, format),
        Command::Rules => {
            print_rules(format);
            return Ok(true);
        }
    };
    out.emit(violations);
    Ok(conclude(
        &contract,
        format,
        cli.allow_empty,
        &checked,
        out.found,
    ))
}

/// Says how the check ended; `true` when it passed.
fn conclude(
    contract: &str,
    format: Format,
    allow_empty: bool,
    checked: &[(String, usize)],
    violations: usize,
) -> bool {
    // An input that holds nothing is not a pass, even beside others that
    // do: an empty capture is usually a capture step that failed.
    let empty: Vec<&str> = checked
        .iter()
        .filter(|(_, count)| *count == 0)
        .map(|(file, _)| file.as_str())
        .collect();
    for file in &empty {
        if allow_empty {
            tell!(
                "vdm-conform: {file} holds no message; nothing in it was checked (--allow-empty)"
            );
        } else {
            tell!("vdm-conform: {file} holds no message, so nothing in it was checked; pass --allow-empty if that is expected");
        }
    }
    if !empty.is_empty() && !allow_empty {
        return false;
    }
    if violations == 0 && format == Format::Human {
        tell!("vdm-conform: everything conforms to contract {contract}");
    } else if format == Format::Human {
        tell!("vdm-conform: checked against contract {contract}");
    }
    violations == 0
}

/// `mirror`: a C++ header's enum against the contract's `TaskErrorCode`.
fn mirror(
    checker: &Checker,
    cpp_header: &str,
    enum_name: Option<&str>,
) -> Result<Vec<Violation>, String> {
    let text = read_text(cpp_header)?;
    let (name, header) =
        mirror::parse_header(&text, enum_name).map_err(|e| format!("{cpp_header}: {e}"))?;
    let values: Vec<&str> = checker
        .schema_set()
        .get(contract::DocKind::Type, "TaskErrorCode")
        .and_then(|doc| doc.value.get("enum"))
        .and_then(|v| v.as_array())
        .map(|items| items.iter().filter_map(|v| v.as_str()).collect())
        // No enum: every enumerator of the header is reported extra.
        .unwrap_or_default();
    Ok(mirror::compare(cpp_header, &name, &header, &values))
}

/// `rules`: every rule's id and what it asks, conformance and lint.
fn print_rules(format: Format) {
    let rules = Rule::ALL
        .iter()
        .map(|rule| (rule.id(), rule.asks().replace('`', ""), "message"))
        .chain(
            contract::LintRule::ALL
                .iter()
                .map(|rule| (rule.id(), rule.summary().to_string(), "lint")),
        );
    for (id, asks, of) in rules {
        say(&match format {
            Format::Json => format!(
                "{}\n",
                serde_json::json!({"rule": id, "asks": asks, "of": of})
            ),
            Format::Human | Format::Github => format!("{id}\t{asks}\n"),
        });
    }
}

/// Writes to stdout. A closed stdout (`vdm-conform rules | head`) ends what
/// is printed as it ends any filter's, quietly, not with a panic: the exit
/// code still says what was found.
fn say(text: &str) {
    contract::stdout::kept(std::io::stdout().lock().write_all(text.as_bytes()));
}

/// Where violations go: printed as they are found, counted.
struct Output {
    format: Format,
    found: usize,
}

impl Sink for Output {
    fn emit(&mut self, violations: Vec<Violation>) {
        if violations.is_empty() {
            return;
        }
        self.found += violations.len();
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (a pager quit) is not a reason to stop checking.
        contract::stdout::kept(stdout.write_all(render(&violations, self.format).as_bytes()));
    }

    /// Prints warnings where violations go; they do not count as found.
    fn warn(&mut self, warnings: &[Violation]) {
        if warnings.is_empty() {
            return;
        }
        let text = render_at(warnings, self.format, Level::Warning);
        say(&text);
    }
}

/// A file read whole (a transitions table, a header), bounded by
/// [`contract::MAX_FILE`]: a wrong path such as `/dev/zero` is refused,
/// not read until memory runs out.
fn read_bytes(file: &str) -> Result<Vec<u8>, String> {
    if file == "-" {
        contract::read_bounded(std::io::stdin().lock(), Path::new("stdin"))
    } else {
        contract::read_file(Path::new(file))
    }
    .map_err(|e| e.to_string())
}

/// A file's text; a byte that is not UTF-8 is named by line and column.
fn read_text(file: &str) -> Result<String, String> {
    let bytes = read_bytes(file)?;
    contract::utf8(Path::new(file), &bytes)
        .map(str::to_string)
        .map_err(|e| e.to_string())
}
