//! The four readers of the wire side by side: the Rust bindings (`proto`),
//! `vdm-conform`'s checker, and the C++ and TypeScript bindings held open as
//! processes (`tests/cpp/reader_server.cpp`, `tests/ts/reader-server.mjs`)
//! that read frames on stdin and answer one line each. The same bytes go to
//! all four and [`disagreement`] says where their answers cannot all be right.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use conformance::{Checker, Rule};
use serde_json::Value;

/// What one reader did with one message.
#[derive(Clone, Debug, PartialEq)]
pub enum Read {
    /// Read, and written back as this value.
    Ok(Value),
    /// Refused by the JSON text policy (`docs/wire.md`, "JSON text"); where
    /// the refusal names its place, the rule and the place
    /// (`not JSON at byte N: expected X`, ...), which the three readers must
    /// word alike.
    Text(Option<String>),
    /// Refused as not what the contract says, at this pointer.
    Contract(String),
    /// Another protocol version.
    Version(u64),
    /// A frame error (the input was no frame body: empty, or too large).
    Frame(String),
    /// The reader failed in a way none of the above covers.
    Crash(String),
}

impl Read {
    fn parse(line: &str) -> Read {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "ok" => {
                // The policy bounds the depth; serde's own limit is one short of it.
                let mut json = serde_json::Deserializer::from_str(rest);
                json.disable_recursion_limit();
                serde::Deserialize::deserialize(&mut json)
                    .map_or_else(|_| Read::Crash(line.into()), Read::Ok)
            }
            "text" => Read::Text(syntax_fault(
                &serde_json::from_str::<String>(rest).unwrap_or_default(),
            )),
            "contract" => {
                Read::Contract(serde_json::from_str(rest).unwrap_or_else(|_| rest.to_string()))
            }
            "version" => rest
                .parse()
                .map_or_else(|_| Read::Crash(line.into()), Read::Version),
            "frame" => Read::Frame(rest.to_string()),
            _ => Read::Crash(line.into()),
        }
    }

    /// Read and written back (not refused, not crashed).
    pub fn accepted(&self) -> bool {
        matches!(self, Read::Ok(_))
    }
}

/// What the Rust bindings do with one frame's body.
pub fn rust(body: &[u8]) -> Read {
    rust_read(proto::wire::decode::<proto::Envelope>(body))
}

/// [`rust`] with the content read from its text by serde_json, not from the
/// scan's tokens: the two must read every input alike.
pub fn rust_from_text(body: &[u8]) -> Read {
    rust_read(proto::wire::decode_from_text::<proto::Envelope>(body))
}

/// What was read is written back by the frame writer (which holds the
/// text policy as it writes): a value read must be writable again.
fn rust_read(decoded: Result<proto::Envelope, proto::DecodeError>) -> Read {
    match decoded {
        Ok(envelope) => {
            let mut frame = Vec::new();
            if let Err(err) = proto::write_frame(&mut frame, &envelope) {
                return Read::Crash(format!("write_frame refused it: {err}"));
            }
            let mut json = serde_json::Deserializer::from_slice(frame.get(4..).unwrap_or_default());
            json.disable_recursion_limit();
            serde::Deserialize::deserialize(&mut json)
                .map_or_else(|err| Read::Crash(err.to_string()), Read::Ok)
        }
        Err(err) => match err.problem {
            proto::Problem::NotJson(text) => Read::Text(syntax_fault(&text.to_string())),
            proto::Problem::BadVersion(v) => Read::Version(v),
            _ => Read::Contract(err.pointer),
        },
    }
}

/// From a text refusal's message, the part that names the rule and its
/// place (`not JSON at byte N: expected ...`, `the member "a" appears twice
/// in one object (byte N)`, ...), which every reader words alike; `None`
/// for a refusal that names no byte.
fn syntax_fault(message: &str) -> Option<String> {
    const SAID: &str = "not JSON as the wire takes it: ";
    let fault = message
        .find(SAID)
        .and_then(|at| message.get(at + SAID.len()..))
        .unwrap_or(message);
    fault.contains("byte ").then(|| fault.to_string())
}

/// What `vdm-conform check` says of one message: the rules it finds broken.
pub fn conform(checker: &Checker, body: &[u8]) -> Vec<Rule> {
    match checker.check_text("Envelope", body) {
        Ok(findings) => findings.into_iter().map(|f| f.rule).collect(),
        Err(_) => vec![Rule::Schema],
    }
}

/// A reader in another language, held open.
pub struct Server {
    name: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    /// The C++ bindings' reader, compiled into `out` (once per process).
    pub fn cpp(out: &Path) -> Server {
        let program = cpp_program(out);
        Server::start("C++", Command::new(program))
    }

    /// The TypeScript bindings' reader.
    pub fn ts() -> Server {
        let mut command = Command::new("node");
        command.arg(root().join("tests/ts/reader-server.mjs"));
        Server::start("TypeScript", command)
    }

    fn start(name: &'static str, mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|err| {
                panic!("the {name} reader cannot start ({err}); `cargo xtask test` installs what it needs")
            });
        let stdin = child.stdin.take();
        let stdout = BufReader::new(
            child
                .stdout
                .take()
                .unwrap_or_else(|| panic!("{name}: no stdout")),
        );
        Server {
            name,
            child,
            stdin,
            stdout,
        }
    }

    /// One answer per body, in order. Bodies must be frame bodies (1 byte
    /// to `MAX_FRAME`): a frame error ends a reader.
    pub fn read_all(&mut self, bodies: &[Vec<u8>]) -> Vec<Read> {
        let mut frames = Vec::new();
        for body in bodies {
            let length = u32::try_from(body.len()).unwrap_or(u32::MAX);
            frames.extend_from_slice(&length.to_be_bytes());
            frames.extend_from_slice(body);
        }
        let mut stdin = self
            .stdin
            .take()
            .unwrap_or_else(|| panic!("{}: stdin is gone", self.name));
        let writer = std::thread::spawn(move || {
            let result = stdin.write_all(&frames).and_then(|()| stdin.flush());
            (stdin, result)
        });
        let mut out = Vec::with_capacity(bodies.len());
        let mut line = String::new();
        for _ in bodies {
            line.clear();
            match self.stdout.read_line(&mut line) {
                Ok(0) => {
                    out.push(Read::Crash(format!("{} ended early", self.name)));
                    break;
                }
                Ok(_) => out.push(Read::parse(line.trim_end_matches('\n'))),
                Err(err) => {
                    out.push(Read::Crash(err.to_string()));
                    break;
                }
            }
        }
        let (stdin, written) = writer
            .join()
            .unwrap_or_else(|_| panic!("{}: the writer failed", self.name));
        assert!(
            written.is_ok(),
            "{}: writing failed: {written:?}",
            self.name
        );
        self.stdin = Some(stdin);
        out
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compiles the C++ reader with the strict warnings ([`crate::cxx_flags`]),
/// and whatever `VDM_READER_CXXFLAGS` adds (say
/// `-fsanitize=address,undefined`, for the differential run: a reader that
/// a sanitizer stops answers nothing, which the harness reports).
fn cpp_program(out: &Path) -> PathBuf {
    let program = out.join("reader_server");
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !*built {
        std::fs::create_dir_all(out).unwrap_or_else(|err| panic!("{}: {err}", out.display()));
        let status = Command::new("g++")
            .args(crate::cxx_flags())
            .args(["-O2", "-I"])
            .arg(root().join("bindings/cpp/include"))
            .args(
                std::env::var("VDM_READER_CXXFLAGS")
                    .unwrap_or_default()
                    .split_whitespace(),
            )
            .arg(root().join("tests/cpp/reader_server.cpp"))
            .arg("-o")
            .arg(&program)
            .status()
            .unwrap_or_else(|err| {
                panic!("g++ cannot start ({err}); `cargo xtask test` installs it")
            });
        assert!(status.success(), "g++ refuses tests/cpp/reader_server.cpp");
        *built = true;
    }
    program
}

/// Whether two readers answered alike: the same kind of answer (which
/// member a refusal names first may differ: the readers check in their own
/// order), and the same value written back, numbers compared as numbers
/// (`1e3` written back as `1000.0` or `1000` is the same number).
fn same(a: &Read, b: &Read) -> bool {
    match (a, b) {
        (Read::Ok(x), Read::Ok(y)) => numbers_as_numbers(x) == numbers_as_numbers(y),
        (Read::Contract(_), Read::Contract(_)) | (Read::Text(_), Read::Text(_)) => true,
        _ => a == b,
    }
}

/// `value` with every number as one spelling: an integer where it is one.
fn numbers_as_numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 => {
                Value::from(x as i64)
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), numbers_as_numbers(v)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Where the answers to one input cannot all be right, in words; `None`
/// when they agree as the JSON text policy and the bindings' design say
/// they must:
///
/// - the text policy is one: a text refusal by any reader is one by all;
/// - C++ and TypeScript check the same things and write the same values
///   (see `same`);
/// - Rust checks less of a value (patterns, lengths and bounds beyond its
///   types are the validator's), so it accepts at least what they accept,
///   and writes back the same value where all three accept (what it
///   accepts beyond them must still fit the schemas without those keywords,
///   and what C++ and TypeScript accept must fit them but for formats and
///   unknown members and names: `differential::beyond_the_bindings`);
/// - what `vdm-conform` accepts, every binding accepts; where it finds
///   `json` or `json.integer`, every binding refuses.
pub fn disagreement(rust: &Read, cpp: &Read, ts: &Read, conform: &[Rule]) -> Option<String> {
    let all = [("Rust", rust), ("C++", cpp), ("TypeScript", ts)];
    if let Some((name, read)) = all.iter().find(|(_, r)| matches!(r, Read::Crash(_))) {
        return Some(format!("{name} failed: {read:?}"));
    }
    let text = conform.contains(&Rule::Json);
    let texts: Vec<bool> = all
        .iter()
        .map(|(_, r)| matches!(r, Read::Text(_)))
        .collect();
    if texts.iter().any(|t| *t != text) {
        return Some(format!("the text policy is read differently: vdm-conform {conform:?}, Rust {rust:?}, C++ {cpp:?}, TypeScript {ts:?}"));
    }
    // Two readers that each name a broken rule's place name the same rule
    // at the same place.
    let faults: Vec<(&str, &String)> = all
        .iter()
        .filter_map(|(name, r)| match r {
            Read::Text(Some(fault)) => Some((*name, fault)),
            _ => None,
        })
        .collect();
    if let Some(((a, x), (b, y))) = faults
        .iter()
        .zip(faults.iter().skip(1))
        .find(|((_, x), (_, y))| x != y)
    {
        return Some(format!(
            "the same text is refused at different places: {a} says {x:?}, {b} {y:?}"
        ));
    }
    if !same(cpp, ts) {
        return Some(format!("C++ {cpp:?} and TypeScript {ts:?}"));
    }
    if cpp.accepted() && !same(rust, cpp) {
        return Some(format!("C++ and TypeScript read {cpp:?}, Rust {rust:?}"));
    }
    if conform.is_empty() && all.iter().any(|(_, r)| !r.accepted()) {
        return Some(format!(
            "vdm-conform accepts it, and Rust {rust:?}, C++ {cpp:?}, TypeScript {ts:?}"
        ));
    }
    if conform.contains(&Rule::JsonInteger) && all.iter().any(|(_, r)| r.accepted()) {
        return Some(format!(
            "vdm-conform finds json.integer, and Rust {rust:?}, C++ {cpp:?}, TypeScript {ts:?}"
        ));
    }
    None
}
