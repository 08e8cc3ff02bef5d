//! `vdm-conform drive`: a live peer, driven over frames.
//!
//! As the peer's client ([`Role::Client`], the default) the driver sends a
//! generated valid call of every method the peer offers (`session.hello`
//! first, then what its reply lists) or it is told to (`--methods`), then
//! what a newer peer
//! may send (an unknown method, a known method with bad params, an unknown
//! event, an event with a field this version lacks, a body that is not
//! JSON), then a last call to see the peer still answers, and last a length
//! past the frame limit, which ends the session. Each answer is judged by
//! the answer table of `docs/wire.md` (`drive.*` rules) and by every message
//! rule; every wait is bounded, in time and in the frames it passes over.
//! One exchange at a time: the next frame the peer writes that is not an
//! event of its own is the answer to the last thing sent, so an answered
//! event shows as the wrong answer to the call after it.
//!
//! As the peer's server ([`Role::Server`]) the driver answers every call the
//! client makes with a generated valid reply (the hello offering every
//! method), or the error the answer table gives; once the first call is
//! answered it sends what a newer server may send (an unknown event, an
//! event with a field this version lacks, a body that is not JSON) and
//! from then on replies carry a field this version lacks too. The client
//! must send calls only and carry on; the session ends when it closes its
//! stream or stays silent for the timeout.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use proto::wire::{printable, shortened, SENTENCE_CHARS};

use crate::generate::GenerateError;
use crate::report::Format;
use crate::{Checker, Rule};

/// How one rule fared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// How often the rule was put to the peer.
    pub exercised: usize,
    /// How often the peer kept it.
    pub held: usize,
    /// What broke it, a sentence each: the first [`KEPT_PER_RULE`].
    pub broken: Vec<String>,
    /// How many more times it broke, past the sentences kept.
    pub more_broken: usize,
}

impl Tally {
    /// How often the peer broke the rule.
    pub fn broken_count(&self) -> usize {
        self.broken.len().saturating_add(self.more_broken)
    }
}

/// The most sentences kept per rule: a peer that breaks one rule in every
/// frame it floods the driver with is counted, not quoted, past these.
pub const KEPT_PER_RULE: usize = 100;

/// What a drive found: per rule, and the conversation as trace records.
#[derive(Clone, Debug, Default)]
pub struct Driven {
    /// Each rule exercised, with how it fared.
    pub rules: BTreeMap<Rule, Tally>,
    /// The conversation as trace records, one JSON text each.
    pub records: Vec<String>,
}

impl Driven {
    /// Whether every rule exercised held.
    pub fn held(&self) -> bool {
        self.rules.values().all(|tally| tally.broken.is_empty())
    }

    /// The report, per rule in `format`. `human`: a line of counts per
    /// rule, then each break kept, indented. `json`: one object per rule
    /// (`rule`, `exercised`, `held`, `broken`, and `why`, the sentences
    /// kept). `github`: the lines of counts, and a workflow annotation per
    /// break kept, titled with its rule.
    pub fn render(&self, format: Format) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for (rule, tally) in &self.rules {
            let id = rule.id();
            // Strings and numbers: writing to a String cannot fail.
            if format == Format::Json {
                let line = json!({
                    "rule": id,
                    "exercised": tally.exercised,
                    "held": tally.held,
                    "broken": tally.broken_count(),
                    "why": tally.broken,
                });
                let _ = writeln!(out, "{line}");
                continue;
            }
            let _ = writeln!(
                out,
                "{id}\texercised {}\theld {}\tbroken {}",
                tally.exercised,
                tally.held,
                tally.broken_count()
            );
            for why in &tally.broken {
                if format == Format::Github {
                    let _ = writeln!(
                        out,
                        "::error title={}::{}",
                        contract::github_property(id),
                        contract::github_data(why)
                    );
                } else {
                    // What the peer wrote cannot start a line of its own here.
                    let _ = writeln!(out, "  {id}: {}", printable(why));
                }
            }
            if tally.more_broken > 0 {
                let _ = writeln!(out, "  {id}: … and {} more", tally.more_broken);
            }
        }
        out
    }

    /// Judges `drive.carries_on` by how a started client ended: its exit
    /// status, or why none came.
    pub fn judge_exit(&mut self, exit: Result<(), String>) {
        self.judge(Rule::DriveCarriesOn, exit.err());
    }

    fn judge(&mut self, rule: Rule, broken: Option<String>) {
        let tally = self.rules.entry(rule).or_default();
        tally.exercised += 1;
        match broken {
            None => tally.held += 1,
            Some(why) if tally.broken.len() < KEPT_PER_RULE => tally.broken.push(why),
            Some(_) => tally.more_broken = tally.more_broken.saturating_add(1),
        }
    }
}

/// How to drive.
#[derive(Clone, Debug)]
pub struct Options {
    /// The methods to call (default: those the peer's hello offers, else
    /// every method of the contract).
    pub methods: Option<Vec<String>>,
    /// How long to wait for each answer; at most [`MAX_TIMEOUT`], which a
    /// longer one is taken as.
    pub timeout: Duration,
    /// The seed the calls are drawn from.
    pub seed: u64,
    /// The side the driver plays.
    pub role: Role,
}

impl Options {
    /// The timeout, at most [`MAX_TIMEOUT`].
    fn wait(&self) -> Duration {
        self.timeout.min(MAX_TIMEOUT)
    }
}

/// The side the driver plays; the peer plays the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// The driver calls; the peer is a server.
    #[default]
    Client,
    /// The driver answers; the peer is a client.
    Server,
}

/// A peer to drive.
#[derive(Clone, Debug)]
pub enum Peer {
    /// A command (program and arguments) started with frames on its
    /// stdin/stdout.
    Command(Vec<String>),
    /// A peer listening on a unix socket.
    Socket(PathBuf),
}

/// Why a drive could not run.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    /// No message could be drawn.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// `--methods` names a method the contract does not have.
    #[error("no method called {0:?} in this contract")]
    UnknownMethod(String),
    /// The peer could not be started or reached.
    #[error("{0}")]
    Start(String),
    /// The checker failed.
    #[error(transparent)]
    Checker(#[from] crate::Error),
}

/// What has come of a frame not yet whole: its bytes so far, the length
/// prefix among them. A wait that ends on one says so: a peer whose prefix
/// counts characters, not bytes, has answered, and waits as the driver does.
#[derive(Default)]
struct Pending {
    bytes: usize,
    prefix: [u8; 4],
}

impl Pending {
    /// What came of the frame, in words; `None` when nothing did.
    fn said(&self) -> Option<String> {
        match self.bytes {
            0 => None,
            n @ 1..=3 => Some(format!("{n} of the 4 bytes of a length prefix came")),
            n => Some(format!(
                "a length prefix announced a body of {} bytes and {} came",
                u32::from_be_bytes(self.prefix),
                n - 4
            )),
        }
    }
}

/// The peer's stream, noting what has come of the frame being read.
struct Counted<R> {
    inner: R,
    pending: Arc<Mutex<Pending>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let before = pending.bytes;
        // A frame's first four bytes are its length prefix.
        let read = buf.get(..n).unwrap_or_default();
        for (slot, byte) in pending.prefix.iter_mut().skip(before).zip(read) {
            *slot = *byte;
        }
        pending.bytes = before.saturating_add(n);
        Ok(n)
    }
}

/// What arrived from the peer, or why nothing did.
enum Heard {
    Frame(Vec<u8>),
    Closed,
    Broken(String),
}

/// The longest wait [`Options::timeout`] asks for: a day. Deadlines are
/// the clock plus the timeout, which a longer one (`Duration::MAX`) could
/// carry past what the clock holds.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// Starts (or connects to) `peer`, drives it, and ends it: a started peer
/// is given the timeout to exit once its stdin is closed, then killed. As
/// the server, a started client's exit status is judged (`drive.carries_on`).
pub fn drive_peer(checker: &Checker, peer: &Peer, options: &Options) -> Result<Driven, DriveError> {
    match peer {
        #[cfg(not(unix))]
        Peer::Socket(_) => Err(DriveError::Start(
            "--connect needs unix sockets, which this platform lacks: start the peer instead \
             (`vdm-conform drive -- COMMAND`)"
                .into(),
        )),
        #[cfg(unix)]
        Peer::Socket(path) => {
            let shown = path.display();
            let stream = std::os::unix::net::UnixStream::connect(path).map_err(|err| {
                // A file that is there but no socket refuses as a socket
                // nobody listens on would: say which it is.
                use std::os::unix::fs::FileTypeExt;
                let socket = std::fs::metadata(path).map(|m| m.file_type().is_socket());
                DriveError::Start(match socket {
                    Ok(false) => format!(
                        "connecting to {shown}: it is not a unix socket; give the path the peer listens on"
                    ),
                    Ok(true) => format!(
                        "connecting to {shown}: {err} (a socket file that no process listens on: is the peer running?)"
                    ),
                    Err(_) => format!("connecting to {shown}: {err}"),
                })
            })?;
            let reading = stream
                .try_clone()
                .map_err(|err| DriveError::Start(format!("{shown}: {err}")))?;
            let writing = stream
                .try_clone()
                .map_err(|err| DriveError::Start(format!("{shown}: {err}")))?;
            let driven = drive(checker, reading, writing, options);
            // Already closed by the peer, if it fails: nothing more to say.
            let _ = stream.shutdown(std::net::Shutdown::Both);
            driven
        }
        Peer::Command(command) => {
            let (program, args) = command
                .split_first()
                .ok_or_else(|| DriveError::Start("no command to start".into()))?;
            // The peer leads a process group, so what it starts (`sh -c`,
            // `cargo run`, `npm start`) ends with it: a child left behind
            // holds the driver's stderr, and a pipeline reading it
            // (`drive … | tee`) would wait for that child's end.
            // Elsewhere there are no process groups: the peer alone is ended.
            let mut start = std::process::Command::new(program);
            start
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut start, 0);
            let mut child = {
                let mut started = STARTED.lock().unwrap_or_else(PoisonError::into_inner);
                let child = start
                    .spawn()
                    .map_err(|err| DriveError::Start(format!("starting {program}: {err}")))?;
                started.push(child.id());
                child
            };
            let (Some(to_peer), Some(from_peer)) = (child.stdin.take(), child.stdout.take()) else {
                end_group(child.id());
                return Err(DriveError::Start(format!("{program}: no pipes to it")));
            };
            let child = Mutex::new(child);
            let ended = || {
                // The peer's stream closes as it exits; its status follows
                // a moment later (longer on a busy machine). A peer that
                // closed its stream and runs on costs this wait once.
                let deadline = Instant::now() + Duration::from_secs(1);
                loop {
                    let status = child
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .try_wait();
                    match status {
                        Ok(Some(status)) => return Some(status.to_string()),
                        Ok(None) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(10));
                        }
                        Ok(None) | Err(_) => return None,
                    }
                }
            };
            let driven = drive_told(checker, from_peer, to_peer, options, &ended);
            let mut child = child.into_inner().unwrap_or_else(PoisonError::into_inner);
            let exit = wait_for(&mut child, options.wait());
            end_group(child.id());
            let mut driven = driven?;
            if options.role == Role::Server {
                driven.judge_exit(exit.map_err(|why| format!("{program} {why}")));
            }
            Ok(driven)
        }
    }
}

/// The process groups of the peers started and not yet ended.
static STARTED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// How long what a peer left behind has between SIGTERM and SIGKILL.
#[cfg(unix)]
const GRACE: Duration = Duration::from_millis(500);

/// Ends what is left of a started peer's process group (what the peer
/// started and left behind; the peer itself has exited or been killed):
/// SIGTERM, [`GRACE`], then SIGKILL.
fn end_group(group: u32) {
    STARTED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|started| *started != group);
    #[cfg(unix)]
    procgroup::end(&[group], GRACE);
}

/// Ends every started peer's whole process group (SIGTERM, `GRACE`,
/// SIGKILL), for a driver told to stop by a signal: the peers lead groups
/// of their own, which a Ctrl-C at the terminal does not reach. Returns how
/// many peers it ended.
#[cfg(unix)]
pub fn end_started_peers() -> usize {
    let groups = std::mem::take(&mut *STARTED.lock().unwrap_or_else(PoisonError::into_inner));
    procgroup::end(&groups, GRACE);
    groups.len()
}

/// Waits at most `timeout` for `child` to exit, then kills it; `Err` says
/// how it ended when that was not a success.
fn wait_for(child: &mut std::process::Child, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("ended with {status}")),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                // Killing one that exits meanwhile fails harmlessly.
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "was still running {:.1} s after its stdin closed, and was killed",
                    timeout.as_secs_f64()
                ));
            }
            Err(err) => return Err(format!("could not be waited for: {err}")),
        }
    }
}

/// Drives the peer that reads `to_peer` and writes `from_peer`, as
/// `options.role` says.
pub fn drive(
    checker: &Checker,
    from_peer: impl Read + Send + 'static,
    to_peer: impl Write + Send + 'static,
    options: &Options,
) -> Result<Driven, DriveError> {
    drive_told(checker, from_peer, to_peer, options, &|| None)
}

/// [`drive`], with `ended` saying how the peer ended, once it has: a peer
/// that closes its stream or stops reading is told with it (a crash is
/// what a driven peer most often does).
fn drive_told(
    checker: &Checker,
    from_peer: impl Read + Send + 'static,
    to_peer: impl Write + Send + 'static,
    options: &Options,
    ended: &dyn Fn() -> Option<String>,
) -> Result<Driven, DriveError> {
    let mut to_peer = Bounded::new(to_peer, options.wait());
    let pending = Arc::new(Mutex::new(Pending::default()));
    let mut driver = Driver {
        checker,
        ended,
        rx: listen(from_peer, Arc::clone(&pending)),
        pending,
        timeout: options.wait(),
        driven: Driven::default(),
        next_id: 1,
        closed: false,
        gone: None,
        last_heard: Instant::now(),
        silent: None,
        heard_frames: 0,
        heard_bytes: 0,
        unread: None,
        peer_is: match options.role {
            Role::Client => "server",
            Role::Server => "client",
        },
    };
    match options.role {
        Role::Client => as_client(&mut driver, &mut to_peer, options)?,
        Role::Server => as_server(&mut driver, &mut to_peer, options)?,
    }
    Ok(driver.driven)
}

/// The peer's frames, read on a thread of their own so every wait can be
/// bounded; the thread ends with the stream.
fn listen(
    from_peer: impl Read + Send + 'static,
    pending: Arc<Mutex<Pending>>,
) -> mpsc::Receiver<Heard> {
    // Bounded: a peer that writes faster than it is judged waits on its
    // pipe, rather than filling this process's memory.
    let (tx, rx) = mpsc::sync_channel(HEARD_AHEAD);
    std::thread::spawn(move || {
        let mut reader = proto::FrameReader::new(Counted {
            inner: from_peer,
            pending: Arc::clone(&pending),
        });
        loop {
            let heard = match reader.read_raw() {
                Ok(body) => {
                    // Whole: nothing of the next frame is read yet.
                    *pending.lock().unwrap_or_else(PoisonError::into_inner) = Pending::default();
                    Heard::Frame(body.to_vec())
                }
                Err(proto::FrameError::Closed) => Heard::Closed,
                Err(err @ proto::FrameError::TooLarge(len)) => Heard::Broken(
                    match proto::frame::spelled_length(len) {
                        Some(text) => format!(
                            "{err} (the length prefix's four bytes spell {text}: text on the stream \
                             where frames go? a peer writes frames alone on it, and its logs to stderr)"
                        ),
                        None => err.to_string(),
                    },
                ),
                Err(err) => Heard::Broken(err.to_string()),
            };
            let last = !matches!(heard, Heard::Frame(_));
            if tx.send(heard).is_err() || last {
                return;
            }
        }
    });
    rx
}

/// Writes to the peer on a thread of their own, so a peer that stops
/// reading (its pipe full) costs the driver the timeout, not the session:
/// a write not done within it fails as a closed stream does.
struct Bounded {
    /// Taken when a write timed out: the thread may be stuck in it.
    bytes: Option<mpsc::SyncSender<Vec<u8>>>,
    done: mpsc::Receiver<std::io::Result<()>>,
    timeout: Duration,
}

impl Bounded {
    fn new(mut to_peer: impl Write + Send + 'static, timeout: Duration) -> Self {
        let (bytes, to_write) = mpsc::sync_channel::<Vec<u8>>(1);
        let (written, done) = mpsc::channel();
        std::thread::spawn(move || {
            for chunk in to_write {
                let result = to_peer.write_all(&chunk).and_then(|()| to_peer.flush());
                let failed = result.is_err();
                if written.send(result).is_err() || failed {
                    return;
                }
            }
        });
        Bounded {
            bytes: Some(bytes),
            done,
            timeout,
        }
    }
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let gone = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let bytes = self.bytes.as_ref().ok_or_else(gone)?;
        bytes.send(buf.to_vec()).map_err(|_| gone())?;
        match self.done.recv_timeout(self.timeout) {
            Ok(result) => result.map(|()| buf.len()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.bytes = None;
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "it read nothing of what was written for {:.1} s",
                        self.timeout.as_secs_f64()
                    ),
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(gone()),
        }
    }

    // Every write is flushed by the thread that does it.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The most frames read from the peer and not yet judged.
const HEARD_AHEAD: usize = 16;

/// The most frames one wait passes over while it waits for a particular
/// one (a probe's answer, the end of the stream): a peer that floods the
/// driver with events ends the wait as the timeout would.
const MAX_PASSED: usize = 10_000;

/// The most frames the driver hears from a peer in one session.
pub const MAX_HEARD: usize = 100_000;

/// The most bytes of frames the driver hears from a peer in one session:
/// what it heard is kept for `--record`, so a peer that floods the driver
/// with large frames ends the session rather than filling this process's
/// memory.
pub const MAX_HEARD_BYTES: usize = 64 << 20;

/// The most frames a client sent where it should have carried on that
/// `drive.event_unanswered` quotes (it counts them all).
const QUOTED_NEWER_ANSWERS: usize = 10;

/// The client's sequence: every method offered, the newer peer's messages, a last
/// call, and the oversize length that ends the session.
fn as_client(
    driver: &mut Driver<'_>,
    to_peer: &mut impl Write,
    options: &Options,
) -> Result<(), DriveError> {
    let mut served: Option<Value> = None;
    let mut messages = crate::generate::Messages::new(driver.checker, options.seed)?;
    let methods = match &options.methods {
        Some(methods) => methods.clone(),
        None => offered(driver, to_peer, &mut messages, &mut served)?,
    };
    for method in &methods {
        let Some(call) = messages.call(method, driver.next_id)? else {
            return Err(DriveError::UnknownMethod(method.clone()));
        };
        if let Some(answer) = driver.call(to_peer, call.clone())? {
            if answer.get("kind").and_then(Value::as_str) == Some("reply") {
                served.get_or_insert(call);
            }
        }
    }
    // What a newer peer may send.
    let id = driver.next_id;
    let unknown = json!({"v": 1, "kind": "call", "id": id, "body": {"method": "vdm.unknownMethod", "params": {}}});
    driver.expect_error(
        to_peer,
        &unknown,
        Some(id),
        -32601,
        Rule::DriveMethodNotFound,
    )?;
    if let Some(call) = &served {
        let id = driver.next_id;
        let mut bad = call.clone();
        if let Some(slot) = bad.pointer_mut("/id") {
            *slot = json!(id);
        }
        if let Some(slot) = bad.pointer_mut("/body/params") {
            *slot = json!(42);
        }
        driver.expect_error(to_peer, &bad, Some(id), -32602, Rule::DriveInvalidParams)?;
    }
    for event in newer_events(&mut messages)? {
        driver.send(to_peer, &event)?;
        driver.probe(to_peer, served.as_ref(), Rule::DriveEventUnanswered)?;
    }
    driver.expect_raw(to_peer, NOT_JSON, -32700)?;
    driver.probe(to_peer, served.as_ref(), Rule::DriveStillAnswers)?;
    driver.oversize(to_peer);
    Ok(())
}

/// The methods to call when `--methods` is not given: those the peer
/// offers. `session.hello` is called first (as a client does), and each
/// method its reply lists that this contract has is called after, in the
/// contract's order; when the hello is not answered with such a list,
/// every method of the contract.
fn offered(
    driver: &mut Driver<'_>,
    to_peer: &mut impl Write,
    messages: &mut crate::generate::Messages<'_>,
    served: &mut Option<Value>,
) -> Result<Vec<String>, DriveError> {
    let contract: Vec<String> = driver
        .checker
        .schema_set()
        .of_kind(contract::DocKind::Method)
        .map(|doc| doc.name.clone())
        .collect();
    let Some(hello) = messages.call(HELLO, driver.next_id)? else {
        return Ok(contract);
    };
    let listed: Option<Vec<String>> = match driver.call(to_peer, hello.clone())? {
        Some(answer) if answer.get("kind").and_then(Value::as_str) == Some("reply") => {
            served.get_or_insert(hello);
            answer
                .pointer("/body/result/methods")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
        }
        _ => None,
    };
    Ok(contract
        .into_iter()
        .filter(|method| method != HELLO)
        .filter(|method| listed.as_ref().is_none_or(|listed| listed.contains(method)))
        .collect())
}

/// The method that opens a session and says what the peer serves.
const HELLO: &str = "session.hello";

/// A body that is not JSON.
const NOT_JSON: &[u8] = b"{not json";

/// The events a newer peer may send: one this version does not know, and
/// one of the contract's with a field it lacks.
fn newer_events(messages: &mut crate::generate::Messages<'_>) -> Result<Vec<Value>, DriveError> {
    let mut events = vec![
        json!({"v": 1, "kind": "event", "body": {"name": "event.vdm.unknown", "params": {"x": 1}}}),
    ];
    events.extend(messages.event_with_a_field_added()?);
    Ok(events)
}

/// The server's side: every call answered, the newer server's messages
/// after the first, until the client closes or falls silent.
fn as_server(
    driver: &mut Driver<'_>,
    to_peer: &mut impl Write,
    options: &Options,
) -> Result<(), DriveError> {
    let mut messages = crate::generate::Messages::new(driver.checker, options.seed)?;
    let offered = match &options.methods {
        Some(methods) => methods.clone(),
        None => messages.methods(),
    };
    let mut calls = 0usize;
    // Frames the client sent after the newer messages that were not calls:
    // the first few quoted, all counted.
    let mut answered_newer = Vec::new();
    let mut answered_newer_count = 0usize;
    let mut newer_sent = false;
    let ended = loop {
        let msg = match driver.hear() {
            Ok(msg) => msg,
            Err(silence) => break silence,
        };
        // No kind ("") is not a call, and is judged so.
        let kind = msg.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind != "call" {
            // A frame that is not JSON was heard as null (its `json` finding
            // is already told): said as what it was.
            let sent = if msg.is_null() {
                "a frame that is not a message".to_string()
            } else {
                driver.shown(&msg)
            };
            if newer_sent {
                answered_newer_count = answered_newer_count.saturating_add(1);
                if answered_newer.len() < QUOTED_NEWER_ANSWERS {
                    answered_newer.push(sent);
                }
            } else {
                driver.driven.judge(
                    Rule::DriveClientCalls,
                    Some(format!("the client sent {sent}")),
                );
            }
            continue;
        }
        calls += 1;
        let answer = answer_call(driver, &mut messages, &offered, &msg, newer_sent)?;
        if let Some(answer) = answer {
            driver.send(to_peer, &answer)?;
        }
        if !newer_sent {
            newer_sent = true;
            for event in newer_events(&mut messages)? {
                driver.send(to_peer, &event)?;
            }
            driver.send_raw(to_peer, NOT_JSON)?;
        }
    };
    let no_calls = (calls == 0).then(|| format!("the client sent no call: {}", ended.why()));
    driver.driven.judge(Rule::DriveClientCalls, no_calls);
    if newer_sent {
        let broken = (!answered_newer.is_empty()).then(|| {
            let more = answered_newer_count.saturating_sub(answered_newer.len());
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "after the newer server's messages the client sent {}{more}",
                answered_newer.join(", ")
            )
        });
        driver.driven.judge(Rule::DriveEventUnanswered, broken);
        // A client that reads none of its answers does not carry on, though
        // the session ends as a closed stream does.
        let broken = match &ended {
            Silence::Broken(why) => Some(why.clone()),
            Silence::Closed(_) | Silence::Timeout(_) => driver.unread.clone(),
        };
        driver.driven.judge(Rule::DriveCarriesOn, broken);
    }
    Ok(())
}

/// What the server answers a call: a drawn valid reply to a method it
/// offers (the hello offering `offered`; a field this version lacks added
/// once `newer`), else the error the answer table gives.
fn answer_call(
    driver: &Driver<'_>,
    messages: &mut crate::generate::Messages<'_>,
    offered: &[String],
    call: &Value,
    newer: bool,
) -> Result<Option<Value>, DriveError> {
    let Some(id) = call.get("id").and_then(Value::as_u64) else {
        return Ok(Some(rpc_error(
            Value::Null,
            -32600,
            "a call needs an integer id",
        )));
    };
    // No method ("") is offered by no one: answered -32601.
    let method = call
        .pointer("/body/method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !offered.iter().any(|name| name == method) {
        return Ok(Some(rpc_error(id.into(), -32601, "method not found")));
    }
    let text = call.to_string();
    if !driver
        .checker
        .check_text("Envelope", text.as_bytes())?
        .is_empty()
    {
        return Ok(Some(rpc_error(id.into(), -32602, "invalid params")));
    }
    let methods: Vec<Value> = offered.iter().cloned().map(Value::String).collect();
    let reply = messages.reply(method, id, &mut |result| {
        if let Some(fields) = result.as_object_mut() {
            if method == "session.hello" {
                fields.insert("methods".into(), Value::Array(methods.clone()));
            }
        }
    })?;
    let Some(mut reply) = reply else {
        return Ok(Some(rpc_error(
            id.into(),
            -32603,
            "no reply could be drawn",
        )));
    };
    if newer {
        // Added after the check: a newer server's reply is not this
        // version's, and the client must ignore what it does not know.
        if let Some(fields) = reply
            .pointer_mut("/body/result")
            .and_then(Value::as_object_mut)
        {
            fields.insert("addedLater".into(), Value::Bool(true));
        }
    }
    Ok(Some(reply))
}

fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"v": 1, "kind": "error", "id": id, "body": {"code": code, "message": message}})
}

/// Why nothing came from the peer.
enum Silence {
    Timeout(String),
    Closed(String),
    Broken(String),
}

impl Silence {
    fn why(&self) -> String {
        match self {
            Silence::Timeout(why) | Silence::Closed(why) | Silence::Broken(why) => why.clone(),
        }
    }
}

struct Driver<'c> {
    checker: &'c Checker,
    /// How the peer ended, once it has.
    ended: &'c dyn Fn() -> Option<String>,
    rx: mpsc::Receiver<Heard>,
    timeout: Duration,
    driven: Driven,
    next_id: u64,
    closed: bool,
    /// Why the peer is gone, when it is.
    gone: Option<String>,
    /// When the peer last sent anything (a frame, or the end of its
    /// stream); the start of the session before.
    last_heard: Instant,
    /// Why the peer was taken as gone for its silence, its stream still
    /// open, when it was.
    silent: Option<String>,
    /// What the peer is called in the records: `server` or `client`.
    peer_is: &'static str,
    /// Frames heard from the peer so far, and their bytes.
    heard_frames: usize,
    heard_bytes: usize,
    /// Why a write to the peer was given up, when the peer read nothing of
    /// it within the timeout (its pipe full): a fault of the peer's, where a
    /// stream it closed is not.
    unread: Option<String>,
    /// What has come of the frame the listening thread is reading.
    pending: Arc<Mutex<Pending>>,
}

impl Driver<'_> {
    /// A message from the peer as a report quotes it: credentials hidden
    /// as `check` hides them, cut at 300 characters (an answer may be a
    /// megabyte).
    fn shown(&self, msg: &Value) -> String {
        // What `hear_by` keeps of a body that is not JSON as the wire takes
        // it: its findings say what is wrong, there is nothing to quote.
        if msg.is_null() {
            return "a body that is not an envelope (see `json` and `schema`)".into();
        }
        let text = self.checker.redacted("Envelope", msg).to_string();
        match text.char_indices().nth(300) {
            // `at` is a character boundary of `text`: the default is never taken.
            Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
            None => text,
        }
    }

    fn record(&mut self, from_peer: bool, msg: &Value) {
        let from = match (from_peer, self.peer_is) {
            (true, peer) => peer,
            (false, "server") => "client",
            (false, _) => "server",
        };
        self.driven
            .records
            .push(json!({"from": from, "transport": "unix", "msg": msg}).to_string());
    }

    /// ` (it had ended: exit status: 3)` once the peer has ended; nothing
    /// while it runs, or when it is not one the driver started.
    fn how_ended(&self) -> String {
        (self.ended)().map_or_else(String::new, |how| format!(" (it had ended: {how})"))
    }

    fn send(&mut self, to_peer: &mut impl Write, msg: &Value) -> Result<(), DriveError> {
        self.record(false, msg);
        let body = msg.to_string();
        self.send_raw(to_peer, body.as_bytes())
    }

    /// Writes one frame; a peer that stopped reading is closed, and what
    /// was to be answered is judged as unanswered.
    fn send_raw(&mut self, to_peer: &mut impl Write, body: &[u8]) -> Result<(), DriveError> {
        let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
        // One write a frame: each is a round trip to the writing thread.
        let mut frame = Vec::with_capacity(body.len() + 4);
        frame.extend_from_slice(&len.to_be_bytes());
        frame.extend_from_slice(body);
        let written = to_peer.write_all(&frame).and_then(|()| to_peer.flush());
        if let Err(err) = written {
            self.closed = true;
            let timed_out = err.kind() == std::io::ErrorKind::TimedOut;
            // Asked once: how the peer ended may take a moment to say.
            if self.gone.is_none() || (timed_out && self.unread.is_none()) {
                let why = format!("the peer stopped reading: {err}{}", self.how_ended());
                if timed_out {
                    self.unread.get_or_insert_with(|| why.clone());
                }
                self.gone.get_or_insert(why);
            }
        }
        Ok(())
    }

    /// The next message from the peer, judged by the message rules; `Err`
    /// with why when none came within the timeout.
    fn hear(&mut self) -> Result<Value, Silence> {
        self.hear_by(Instant::now() + self.timeout)
    }

    /// [`Driver::hear`], waiting until `deadline` at most: a wait that
    /// passes over frames ends when its time is up, however many come.
    fn hear_by(&mut self, deadline: Instant) -> Result<Value, Silence> {
        if self.closed {
            return Err(Silence::Closed(
                self.gone
                    .clone()
                    .unwrap_or_else(|| "the peer had closed its stream".into()),
            ));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        // Only a wait that passed over frames gets here with no time left:
        // one that always finds the next frame ready ends on time too.
        if wait.is_zero() {
            return Err(Silence::Timeout(format!(
                "{:.1} s ran out while the peer sent other frames",
                self.timeout.as_secs_f64()
            )));
        }
        let heard = match self.rx.recv_timeout(wait) {
            Ok(heard) => heard,
            Err(_) => {
                let part = self
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .said();
                let (nothing, part) = match &part {
                    Some(part) => ("no whole frame", format!(" ({part})")),
                    None => ("nothing", String::new()),
                };
                let why = format!(
                    "{nothing} came in {:.1} s{part}",
                    self.timeout.as_secs_f64()
                );
                // A peer silent through two timeouts is taken as gone, so
                // that each exchange left is not one more wait: a silent
                // peer costs two timeouts, not one per exchange.
                if self.last_heard.elapsed() >= self.timeout.saturating_mul(2) {
                    let gone = format!(
                        "the peer had sent {nothing} for {:.1} s{part}, twice the timeout, and was taken as gone",
                        self.last_heard.elapsed().as_secs_f64()
                    );
                    self.closed = true;
                    self.silent = Some(gone.clone());
                    self.gone = Some(gone);
                }
                return Err(Silence::Timeout(why));
            }
        };
        self.last_heard = Instant::now();
        let body = match heard {
            Heard::Frame(body) => {
                self.heard_frames = self.heard_frames.saturating_add(1);
                self.heard_bytes = self.heard_bytes.saturating_add(body.len());
                if self.heard_frames > MAX_HEARD || self.heard_bytes > MAX_HEARD_BYTES {
                    // Taken as gone, its stream still open, as a silent
                    // peer is: what is left is judged at once.
                    let much = if self.heard_frames > MAX_HEARD {
                        format!("{MAX_HEARD} frames")
                    } else {
                        format!("{} MiB", MAX_HEARD_BYTES >> 20)
                    };
                    let gone = format!(
                        "the peer sent more than the {much} one session hears, and was taken as gone"
                    );
                    self.closed = true;
                    self.silent = Some(gone.clone());
                    self.gone = Some(gone.clone());
                    return Err(Silence::Timeout(gone));
                }
                body
            }
            Heard::Closed => {
                self.closed = true;
                let why = format!("the peer closed its stream{}", self.how_ended());
                self.gone = Some(why.clone());
                return Err(Silence::Closed(why));
            }
            Heard::Broken(why) => {
                self.closed = true;
                let why = format!("the peer's frames broke: {why}{}", self.how_ended());
                self.gone = Some(why.clone());
                return Err(Silence::Broken(why));
            }
        };
        // The checker failing is said as a finding, not taken for a pass.
        let findings = self
            .checker
            .check_text("Envelope", &body)
            .unwrap_or_else(|err| {
                vec![crate::Finding {
                    keyword: None,
                    pointer: String::new(),
                    rule: Rule::Schema,
                    message: format!("the checker failed on this message: {err}"),
                }]
            });
        let parsed = crate::parse(&body, proto::text::Layout::Envelope).ok();
        // A body that is not JSON as the wire takes it is not quoted: no
        // place in it can be told to hold a credential.
        let quoted = parsed.as_ref().map_or_else(
            || format!("a body of {} bytes", body.len()),
            |msg| self.shown(msg),
        );
        let msg = parsed.unwrap_or(Value::Null);
        self.record(true, &msg);
        // Each rule a message breaks is one break, told by its first
        // finding there. A message read as JSON of the wire's version is
        // held to the schema, whether or not a semantic rule breaks.
        let schema_held = findings.iter().all(|finding| {
            !matches!(
                finding.rule,
                Rule::Schema | Rule::Json | Rule::JsonInteger | Rule::EnvelopeVersion
            )
        });
        let mut broken: BTreeMap<Rule, (String, usize)> = BTreeMap::new();
        for finding in findings {
            let (_, count) = broken.entry(finding.rule).or_insert_with(|| {
                // As `check` reports: a message may quote a value a frame long.
                let said = format!(
                    "{quoted} at {:?}: {}",
                    shortened(&finding.pointer, SENTENCE_CHARS),
                    shortened(&finding.message, SENTENCE_CHARS)
                );
                (said, 0)
            });
            *count += 1;
        }
        if schema_held {
            self.driven.judge(Rule::Schema, None);
        }
        for (rule, (said, count)) in broken {
            let said = match count {
                1 => said,
                _ => format!("{said} (and {} more in this message)", count - 1),
            };
            self.driven.judge(rule, Some(said));
        }
        Ok(msg)
    }

    /// The next frame from the peer that is not one of its own events
    /// (which may come at any time, and are judged by the message rules as
    /// they pass), waiting until `deadline` at most.
    fn answer_by(&mut self, deadline: Instant) -> Result<Value, Silence> {
        for _ in 0..MAX_PASSED {
            let msg = self.hear_by(deadline)?;
            if msg.get("kind").and_then(Value::as_str) != Some("event") {
                return Ok(msg);
            }
        }
        Err(Silence::Timeout(format!(
            "the peer sent {MAX_PASSED} events and nothing else"
        )))
    }

    /// [`Driver::answer_by`] within the timeout from now.
    fn answer(&mut self) -> Result<Value, Silence> {
        self.answer_by(Instant::now() + self.timeout)
    }

    /// Sends `call` and judges its answer by `drive.answer`.
    fn call(&mut self, to_peer: &mut impl Write, call: Value) -> Result<Option<Value>, DriveError> {
        let id = self.next_id;
        self.next_id += 1;
        // The driver's own calls name their method; "" would match no reply.
        let method = call
            .pointer("/body/method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.send(to_peer, &call)?;
        match self.answer() {
            Ok(answer) => {
                let kind = answer.get("kind").and_then(Value::as_str);
                let answered = answer.get("id").and_then(Value::as_u64) == Some(id);
                let named = match kind {
                    Some("reply") => {
                        answer.pointer("/body/method").and_then(Value::as_str) == Some(&method)
                    }
                    Some("error") => true,
                    _ => false,
                };
                let broken = (!answered || !named).then(|| {
                    format!(
                        "the call {id} of {method} was answered with {}",
                        self.shown(&answer)
                    )
                });
                self.driven.judge(Rule::DriveAnswer, broken);
                Ok(Some(answer))
            }
            Err(silence) => {
                self.driven.judge(
                    Rule::DriveAnswer,
                    Some(format!("the call {id} of {method}: {}", silence.why())),
                );
                Ok(None)
            }
        }
    }

    /// Sends `msg` and expects an error with `code` and `id`.
    fn expect_error(
        &mut self,
        to_peer: &mut impl Write,
        msg: &Value,
        id: Option<u64>,
        code: i64,
        rule: Rule,
    ) -> Result<(), DriveError> {
        self.next_id += 1;
        self.send(to_peer, msg)?;
        let broken = self.error_broken(id, code);
        self.driven.judge(rule, broken);
        Ok(())
    }

    /// Sends a body that is not JSON and expects `code` with id null.
    fn expect_raw(
        &mut self,
        to_peer: &mut impl Write,
        body: &[u8],
        code: i64,
    ) -> Result<(), DriveError> {
        self.send_raw(to_peer, body)?;
        let broken = self.error_broken(None, code);
        self.driven.judge(Rule::DriveParseError, broken);
        Ok(())
    }

    fn error_broken(&mut self, id: Option<u64>, code: i64) -> Option<String> {
        match self.answer() {
            Ok(answer) => {
                let got_code = answer.pointer("/body/code").and_then(Value::as_i64);
                let got_id = answer.get("id").cloned().unwrap_or(Value::Null);
                let want_id = id.map_or(Value::Null, Value::from);
                let ok = answer.get("kind").and_then(Value::as_str) == Some("error")
                    && got_code == Some(code)
                    && got_id == want_id;
                (!ok).then(|| {
                    format!(
                        "expected error {code} with id {want_id}, got {}",
                        self.shown(&answer)
                    )
                })
            }
            Err(silence) => Some(format!("expected error {code}: {}", silence.why())),
        }
    }

    /// A call the peer serves (or an unknown one, answered with an error),
    /// whose answer must be the next frame: judged by `rule`.
    fn probe(
        &mut self,
        to_peer: &mut impl Write,
        served: Option<&Value>,
        rule: Rule,
    ) -> Result<(), DriveError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut probe = served.cloned().unwrap_or_else(|| {
            json!({"v": 1, "kind": "call", "id": id, "body": {"method": "vdm.probe", "params": {}}})
        });
        if let Some(slot) = probe.pointer_mut("/id") {
            *slot = json!(id);
        }
        self.send(to_peer, &probe)?;
        let broken = match self.answer() {
            Ok(answer) if answer.get("id").and_then(Value::as_u64) == Some(id) => None,
            Ok(answer) => {
                // Catch up with the probe's own answer, so one extra frame
                // is not blamed on every exchange after it; within the
                // timeout, whatever else the peer sends meanwhile.
                let deadline = Instant::now() + self.timeout;
                for _ in 0..MAX_PASSED {
                    match self.answer_by(deadline) {
                        Ok(next) if next.get("id").and_then(Value::as_u64) == Some(id) => break,
                        Ok(_) => {}
                        Err(_) => break,
                    }
                }
                Some(format!(
                    "the next frame was {}, not the answer to call {id}",
                    self.shown(&answer)
                ))
            }
            Err(silence) => Some(format!("call {id}: {}", silence.why())),
        };
        self.driven.judge(rule, broken);
        Ok(())
    }

    /// Sends a length past the frame limit and no body: the peer must
    /// close its stream without waiting for the body, an error before
    /// closing allowed. Not judged when the peer closed its stream already;
    /// broken, unsent, when it was taken as gone for its silence.
    fn oversize(&mut self, to_peer: &mut impl Write) {
        if let Some(why) = self.silent.clone() {
            // Its stream is still open, as this rule's failure leaves it.
            self.driven.judge(
                Rule::DriveOversize,
                Some(format!("not sent: {why}, its stream still open")),
            );
            return;
        }
        if self.closed {
            return;
        }
        let len = u32::try_from(proto::MAX_FRAME + 1).unwrap_or(u32::MAX);
        let written = to_peer
            .write_all(&len.to_be_bytes())
            .and_then(|()| to_peer.flush());
        if written.is_err() {
            return;
        }
        let deadline = Instant::now() + self.timeout;
        let mut errors = 0usize;
        let broken = loop {
            match self.answer_by(deadline) {
                Ok(msg) if msg.get("kind").and_then(Value::as_str) == Some("error") => {
                    errors += 1;
                    if errors >= MAX_PASSED {
                        break Some(format!(
                            "after a length of {len} the peer sent {errors} errors and kept its stream open"
                        ));
                    }
                }
                Ok(msg) => {
                    break Some(format!(
                        "after a length of {len} the peer sent {}",
                        self.shown(&msg)
                    ))
                }
                Err(Silence::Closed(_)) => break None,
                Err(Silence::Broken(why)) => break Some(why),
                Err(Silence::Timeout(why)) => {
                    break Some(format!(
                        "after a length of {len} and no body the stream stayed open: {why}"
                    ))
                }
            }
        };
        self.driven.judge(Rule::DriveOversize, broken);
    }
}
