//! Tiny tools for the executor's tests and benchmarks, so they run real
//! processes without depending on what a shell or the machine provides.
//!
//! ```text
//! usage: vdm-exec-helper MODE [ARGS]
//!   echo                      copy stdin to stdout
//!   sleep SECS                sleep
//!   chatter BYTES [stderr]    write BYTES bytes to stdout (or stderr)
//!   chatter-first BYTES       write BYTES to stdout before reading stdin, then echo stdin
//!   background SECS PIDFILE   start a sleeper that keeps our stdout open, write its pid, exit
//!   background-quiet SECS PIDFILE   the same, but the sleeper holds no pipe
//!   escape SECS               start a sleeper in a process group of its own that keeps
//!                             stdout and stderr open, print "started PID", exit
//!   pid MODE [ARGS]           print "pid PID" (our own), then act as MODE
//!   abort                     write "aborting" (no newline) to stderr, end by SIGABRT
//!   ignore-term SECS          ignore SIGTERM and sleep
//!   badutf8                   write invalid UTF-8 to stdout
//!   env                       print the environment, one NAME=value per line, sorted
//!   pwd                       print the working directory
//!   exit CODE                 write to stdout and stderr, exit with CODE
//!   args ...                  print each argument on its own line
//! ```

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["pid", rest @ ..] => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "pid {}", std::process::id());
            let _ = out.flush();
            drop(out);
            act(rest)
        }
        _ => act(&args),
    }
}

fn act(args: &[&str]) -> ExitCode {
    let number = |text: &str| text.parse::<u64>().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    match args {
        ["echo"] => {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut out);
        }
        ["sleep", secs] => std::thread::sleep(Duration::from_secs_f64(secs.parse().unwrap_or(0.0))),
        ["chatter", bytes, rest @ ..] => {
            let chunk = vec![b'x'; 64 * 1024];
            let mut left = number(bytes);
            let mut err = std::io::stderr().lock();
            let sink: &mut dyn Write = if rest == ["stderr"] {
                &mut err
            } else {
                &mut out
            };
            while left > 0 {
                let n = left.min(chunk.len() as u64) as usize;
                if sink.write_all(chunk.get(..n).unwrap_or(&chunk)).is_err() {
                    break;
                }
                left -= n as u64;
            }
        }
        ["chatter-first", bytes] => {
            let _ = out.write_all(&vec![b'y'; number(bytes) as usize]);
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut out);
        }
        ["background", secs, pidfile] | ["background-quiet", secs, pidfile] => {
            let quiet = args.first() == Some(&"background-quiet");
            let mut sleeper = Command::new(std::env::current_exe().unwrap_or_default());
            sleeper.args(["sleep", secs]).stdin(Stdio::null());
            if quiet {
                sleeper.stdout(Stdio::null()).stderr(Stdio::null());
            }
            match sleeper.spawn() {
                Ok(child) => {
                    let _ = std::fs::write(pidfile, child.id().to_string());
                    let _ = writeln!(out, "started {}", child.id());
                }
                Err(err) => {
                    eprintln!("cannot start the sleeper: {err}");
                    return ExitCode::from(3);
                }
            }
        }
        ["escape", secs] => {
            use std::os::unix::process::CommandExt;
            let mut sleeper = Command::new(std::env::current_exe().unwrap_or_default());
            // A group of its own: the executor's signals to the tool's group miss it.
            sleeper
                .args(["sleep", secs])
                .stdin(Stdio::null())
                .process_group(0);
            match sleeper.spawn() {
                Ok(child) => {
                    let _ = writeln!(out, "started {}", child.id());
                }
                Err(err) => {
                    eprintln!("cannot start the sleeper: {err}");
                    return ExitCode::from(3);
                }
            }
        }
        ["abort"] => {
            let _ = std::io::stderr().write_all(b"aborting");
            std::process::abort()
        }
        ["ignore-term", secs] => {
            // SAFETY: setting a signal's disposition to "ignore" touches no memory.
            unsafe {
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
            }
            std::thread::sleep(Duration::from_secs(number(secs)));
        }
        ["badutf8"] => {
            let _ = out.write_all(b"ok \xff\xfe end\n");
        }
        ["env"] => {
            let mut vars: Vec<String> = std::env::vars_os()
                .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
                .collect();
            vars.sort();
            for var in vars {
                let _ = writeln!(out, "{var}");
            }
        }
        ["pwd"] => {
            let _ = writeln!(
                out,
                "{}",
                std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            );
        }
        ["args", rest @ ..] => {
            for arg in rest {
                let _ = writeln!(out, "{arg}");
            }
        }
        ["exit", code] => {
            let mut input = String::new();
            let _ = std::io::stdin().read_to_string(&mut input);
            let _ = writeln!(out, "input: {input}");
            eprintln!("exiting with {code}");
            return ExitCode::from(u8::try_from(number(code)).unwrap_or(1));
        }
        _ => {
            eprintln!("usage: vdm-exec-helper MODE [ARGS] (see the source)");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
