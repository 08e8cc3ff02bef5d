//! `vdm-exec`: runs the operator's tools for `tool.invoke` calls.
//!
//! `serve` speaks frames on stdin/stdout (stdout carries nothing else;
//! diagnostics go to stderr). `run` runs one tool with JSON input from stdin
//! and prints the rendered result, exiting with the tool's exit code.
//! `check` loads a tool-set file as both do, and runs nothing.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use exec::{render, run, serve};

#[derive(Parser)]
#[command(
    name = "vdm-exec",
    version,
    about = "Run an operator's tools for tool.invoke calls"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Answer tool.invoke calls: frames on stdin, frames on stdout.
    Serve {
        /// The tool-set file (contracts/schema/config/ToolSet.json).
        #[arg(long, value_name = "FILE")]
        tools: PathBuf,
        /// Calls run at once, 1 to 1024 (default: the number of CPUs).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        jobs: Option<u16>,
    },
    /// Run one tool: input JSON on stdin, the rendered result on stdout.
    Run {
        #[arg(long, value_name = "FILE")]
        tools: PathBuf,
        /// The tool's name in the set.
        tool: String,
        /// A working directory for the call (the tool must allow it).
        #[arg(long, value_name = "DIR")]
        cwd: Option<String>,
    },
    /// Check a tool-set file as `serve` and `run` load it, and run nothing:
    /// for an operator's CI.
    Check {
        #[arg(long, value_name = "FILE")]
        tools: PathBuf,
    },
    /// Print the JSON Schema of the tool-set file.
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ended = match cli.command {
        Command::Serve { tools, jobs } => serve_frames(&tools, jobs),
        Command::Run { tools, tool, cwd } => run_one(&tools, tool, cwd),
        Command::Check { tools } => check(&tools),
        Command::Schema => serde_json::to_string_pretty(&exec::config::schema())
            .map_err(|e| format!("writing the schema: {e}"))
            .and_then(|text| print(&format!("{text}\n"))),
    };
    procgroup::wait_if_stopping();
    ended.unwrap_or_else(|why| {
        if !why.is_empty() {
            // A closed stderr loses the line, and is no reason to panic.
            let _ = writeln!(std::io::stderr().lock(), "vdm-exec: {why}");
        }
        ExitCode::from(2)
    })
}

/// `serve`: frames in, replies out, until the input closes. `Err` says why
/// it stopped otherwise.
fn serve_frames(tools: &Path, jobs: Option<u16>) -> Result<ExitCode, String> {
    stop_tools_on_signals();
    let watcher = stop_tools_when_the_peer_is_gone();
    let tools = Arc::new(exec::load(tools).map_err(|err| err.to_string())?);
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    // A line can quote the input (an event's name): one line stays one.
    let log = |line: &str| {
        let _ = writeln!(
            std::io::stderr().lock(),
            "vdm-exec: {}",
            proto::wire::printable(line)
        );
    };
    let ended = serve::serve(
        tools,
        std::io::stdin().lock(),
        std::io::stdout(),
        jobs,
        &log,
    );
    // Its line comes before the session's last, which its stop caused.
    if PEER_GONE.load(std::sync::atomic::Ordering::SeqCst) {
        if let Some(watcher) = watcher {
            let _ = watcher.join();
        }
    }
    match ended {
        serve::End::Closed => Ok(ExitCode::SUCCESS),
        serve::End::Broken(why) => Err(format!(
            "the input cannot be read on: {}{}",
            proto::wire::sentence(&why),
            match why {
                proto::FrameError::TooLarge(len) => proto::frame::spelled_length(len)
                    .map(|text| format!(
                        " (the length prefix's four bytes spell {text}: text, not frames? \
                         a frame is a 4-byte big-endian length, then that many bytes of JSON)"
                    ))
                    .unwrap_or_default(),
                _ => String::new(),
            }
        )),
        serve::End::NoThreads(why) => Err(format!(
            "the session's threads cannot be started: {why}; try a smaller --jobs"
        )),
        serve::End::WriteFailed(why) => Err(format!(
            "replies cannot be written: {}",
            proto::wire::sentence(&why)
        )),
    }
}

/// `check`: the file loaded as `serve` loads it (its schema, then the rules
/// a schema cannot say: unique names, absolute working directories, an
/// `inputSchema` that compiles), and its tools named.
fn check(tools: &Path) -> Result<ExitCode, String> {
    let loaded = exec::load(tools).map_err(|err| err.to_string())?;
    let names: Vec<&str> = loaded.set.tools.iter().map(|t| t.name.as_str()).collect();
    print(&format!(
        "vdm-exec: {}: {} tool(s), as serve would run them: {}\n",
        proto::wire::printable(&tools.display().to_string()),
        names.len(),
        proto::wire::printable(&names.join(", "))
    ))
}

/// Writes `text` to stdout. A closed stdout (`vdm-exec schema | head`) ends
/// the output quietly, as it ends any filter's; any other failure (a full
/// disk under `vdm-exec schema > file`) is an error, not a success with a
/// cut file.
fn print(text: &str) -> Result<ExitCode, String> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("writing to stdout: {err}"))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// `run`: one call, its input read from stdin, the capture written to
/// stdout; exits with the tool's code. An `Err` that is empty has nothing
/// more to say (stdout closed).
fn run_one(tools: &Path, tool: String, cwd: Option<String>) -> Result<ExitCode, String> {
    stop_tools_on_signals();
    let tools = exec::load(tools).map_err(|err| err.to_string())?;
    // At most what a frame carries, one byte more telling a larger input:
    // over `serve` a tool's input could not be larger.
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(proto::MAX_FRAME as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the input from stdin: {err}"))?;
    if bytes.len() > proto::MAX_FRAME {
        return Err(format!(
            "the input on stdin is larger than a frame may carry ({} bytes)",
            proto::MAX_FRAME
        ));
    }
    // An empty stdin is refused, not read as null: it is more often
    // a pipe that lost its producer than a tool that wants nothing.
    if bytes.trim_ascii().is_empty() {
        return Err("stdin holds no input; give the tool's input as JSON (`null` for none)".into());
    }
    // The wire's JSON text policy, as `serve` reads a call: a repeated
    // member, an integer a double rounds or a NUL is refused here too.
    let text = proto::text::check(&bytes)
        .map_err(|err| format!("the input on stdin is not JSON: {err}"))?;
    let input = serde_json::from_str(text)
        .map_err(|err| format!("the input on stdin is not JSON: {err}"))?;
    let mut params = proto::ToolInvokeParams::new(input, tool);
    params.cwd = cwd;
    let capture = run::execute(&tools, &params);
    procgroup::wait_if_stopping();
    let content = render::render_capture(&capture);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&content)
        .and_then(|()| stdout.flush())
        .map_err(|_| String::new())?;
    // The process exit status holds 0..=255; the rendered content states the full code.
    Ok(ExitCode::from(u8::try_from(capture.exit_code).unwrap_or(1)))
}

/// Ends the running tools (`run::stop_all`) once the peer has closed its
/// end of stdout, as a daemon that crashed does: no answer can reach it,
/// and a tool would otherwise run on to its deadline (up to a day). The
/// answers then fail to be written and end the session, as they do for any
/// peer that stops reading. A stdout that is a file never reports this.
fn stop_tools_when_the_peer_is_gone() -> Option<std::thread::JoinHandle<()>> {
    let watcher = std::thread::Builder::new().name("peer".into()).spawn(|| {
        // No events asked: poll reports only the error or hang-up of a
        // pipe or socket whose reader is gone.
        let mut stdout = libc::pollfd {
            fd: libc::STDOUT_FILENO,
            events: 0,
            revents: 0,
        };
        loop {
            // SAFETY: poll reads and writes the one pollfd it is given.
            let ready = unsafe { libc::poll(&mut stdout, 1, -1) };
            if ready < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            if ready > 0 && stdout.revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                PEER_GONE.store(true, std::sync::atomic::Ordering::SeqCst);
                let ended = run::stop_all();
                if ended > 0 {
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "vdm-exec: the peer closed its end of stdout; {ended} running tool(s) ended"
                    );
                }
            }
            return;
        }
    });
    watcher.ok()
}

/// Set by the thread that watches stdout before it ends the tools.
static PEER_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ends the running tools (`run::stop_all`) when the executor is told to
/// stop by SIGTERM, SIGINT, SIGHUP or SIGQUIT, then ends as that signal ends a
/// process. Each tool leads a process group of its own, so the signal (a
/// daemon stopping, Ctrl-C at a terminal) would reach none of them and they
/// would run on as orphans. A handler, not a blocked mask, takes the
/// signals: a tool inherits a mask, while a handler is reset by exec.
fn stop_tools_on_signals() {
    procgroup::end_on_stop_signals(|signal| {
        let ended = run::stop_all();
        format!("vdm-exec: stopped by signal {signal}; {ended} running tool(s) ended")
    });
}
