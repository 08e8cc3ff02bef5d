//! `vdm-exec`: runs the operator's tools for `tool.invoke` calls.
//!
//! `serve` speaks frames on stdin/stdout (stdout carries nothing else;
//! diagnostics go to stderr). `run` runs one tool with JSON input from stdin
//! and prints the rendered result, exiting with the tool's exit code.

use std::io::{Read, Write};
use std::path::PathBuf;
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
        /// Calls run at once (default: the number of CPUs).
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
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
    /// Print the JSON Schema of the tool-set file.
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { tools, jobs } => {
            let tools = match exec::load(&tools) {
                Ok(tools) => Arc::new(tools),
                Err(err) => {
                    eprintln!("vdm-exec: {err}");
                    return ExitCode::from(2);
                }
            };
            let jobs =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
            let log = |line: &str| eprintln!("vdm-exec: {line}");
            match serve::serve(
                tools,
                std::io::stdin().lock(),
                std::io::stdout(),
                jobs,
                &log,
            ) {
                serve::End::Closed => ExitCode::SUCCESS,
                serve::End::Broken(why) => {
                    eprintln!(
                        "vdm-exec: the input cannot be read on: {}",
                        proto::wire::sentence(&why)
                    );
                    ExitCode::from(2)
                }
                serve::End::WriteFailed(why) => {
                    eprintln!(
                        "vdm-exec: replies cannot be written: {}",
                        proto::wire::sentence(&why)
                    );
                    ExitCode::from(2)
                }
            }
        }
        Command::Run { tools, tool, cwd } => {
            let tools = match exec::load(&tools) {
                Ok(tools) => tools,
                Err(err) => {
                    eprintln!("vdm-exec: {err}");
                    return ExitCode::from(2);
                }
            };
            let mut text = String::new();
            if let Err(err) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("vdm-exec: cannot read the input from stdin: {err}");
                return ExitCode::from(2);
            }
            // An empty stdin is refused, not read as null: it is more often
            // a pipe that lost its producer than a tool that wants nothing.
            if text.trim().is_empty() {
                eprintln!("vdm-exec: stdin holds no input; give the tool's input as JSON (`null` for none)");
                return ExitCode::from(2);
            }
            let input = match serde_json::from_str(&text) {
                Ok(input) => input,
                Err(err) => {
                    eprintln!("vdm-exec: the input on stdin is not JSON: {err}");
                    return ExitCode::from(2);
                }
            };
            let capture = run::execute(&tools, &proto::ToolInvokeParams { tool, input, cwd });
            let content = render::render_capture(&capture);
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(&content)
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return ExitCode::from(2);
            }
            // The process exit status holds 0..=255; the rendered content states the full code.
            ExitCode::from(u8::try_from(capture.exit_code).unwrap_or(1))
        }
        Command::Schema => match serde_json::to_string_pretty(&exec::config::schema()) {
            Ok(text) => {
                println!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("vdm-exec: writing the schema: {e}");
                ExitCode::from(2)
            }
        },
    }
}
