//! `cargo xtask bench conformance`: `vdm-conform check` beside what a lane
//! would otherwise use, on one generated corpus, in the same run.
//!
//! The corpus is a daemon's everyday traffic (mostly progress events, with
//! state events, calls, replies carrying summaries and segment details, and
//! errors), written as one JSON Lines file and as one file per message. The
//! peers (`ajv-cli`, `check-jsonschema`) are installed into `target/bench-peers`
//! when missing, and read a single compound schema document (every contract
//! file embedded under its `$id`), since neither resolves our `$id`s offline
//! from a folder. Not part of CI.

// Bench code, exempt from the no-panic rule as tests are: the corpus is
// built here, and an index that misses is a bench bug that should stop it.
#![allow(clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};

/// What `cargo xtask bench conformance` was asked to do.
struct Options {
    count: usize,
    peer_sample: usize,
    peers: bool,
    capture_gb: f64,
}

impl Options {
    fn parse(args: &[&str]) -> anyhow::Result<Self> {
        let mut options = Options {
            count: 100_000,
            peer_sample: 10_000,
            peers: true,
            capture_gb: 2.0,
        };
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            match *arg {
                "--count" => options.count = rest.next().context("--count N")?.parse()?,
                "--peer-sample" => {
                    options.peer_sample = rest.next().context("--peer-sample N")?.parse()?
                }
                "--no-peers" => options.peers = false,
                "--capture-gb" => {
                    options.capture_gb = rest.next().context("--capture-gb GB")?.parse()?
                }
                other => bail!(
                    "unknown argument {other}; use --count N, --peer-sample N, --no-peers, --capture-gb GB (0: no capture)"
                ),
            }
        }
        Ok(options)
    }
}

pub fn run(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let options = Options::parse(args)?;
    let count = options.count;
    let target = crate::target_dir(root)?;
    let dir = target.join("bench-conformance");
    std::fs::create_dir_all(&dir)?;
    sayln!("building release binaries ...");
    cargo(
        root,
        &[
            "build",
            "--release",
            "--quiet",
            "-p",
            "conformance",
            "--bin",
            "vdm-conform",
            "--example",
            "bare_jsonschema",
            "-p",
            "exec",
            "--bin",
            "vdm-exec",
        ],
    )?;
    let conform = target.join("release/vdm-conform");
    let bare = target.join("release/examples/bare_jsonschema");

    let (corpus, jsonl) = write_corpus(&dir, count)?;
    let ours = check_against_bare(&conform, &bare, &jsonl)?;
    let conversation = conversation(&corpus);
    trace_against_check(&conform, &dir, &conversation)?;
    generate_against_check(&conform, &dir, count)?;
    drive_against_replay(root, &conform, &target.join("release/vdm-exec"), &dir)?;
    if options.capture_gb > 0.0 {
        memory_on_a_capture(&conform, &dir, &conversation, options.capture_gb)?;
    }
    if options.peers {
        against_peers(root, &dir, &corpus, &options, ours)?;
    }
    Ok(())
}

/// `vdm-conform check` against the bare `jsonschema` crate on the corpus;
/// returns check's median time.
fn check_against_bare(conform: &Path, bare: &Path, jsonl: &Path) -> anyhow::Result<Duration> {
    // Alternating runs, so a slow moment of the machine falls on both sides;
    // each side must find the corpus valid (a side that stops early is not fast).
    let (mut ours, mut baseline, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..7 {
        let start = Instant::now();
        let output = Command::new(bare).arg(path(jsonl)?).output()?;
        let bare_time = start.elapsed();
        if String::from_utf8_lossy(&output.stdout).trim() != "0 invalid" {
            bail!(
                "the bare crate did not find the corpus valid: {}",
                String::from_utf8_lossy(&output.stdout)
            );
        }
        let start = Instant::now();
        let output = Command::new(conform)
            .args(["check", path(jsonl)?])
            .output()?;
        let check_time = start.elapsed();
        if !output.status.success() || !output.stdout.is_empty() {
            bail!(
                "vdm-conform check did not find the corpus valid: {}",
                String::from_utf8_lossy(&output.stdout)
            );
        }
        baseline.push(bare_time.as_secs_f64());
        ours.push(check_time.as_secs_f64());
        ratios.push(ratio(check_time, bare_time));
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        // Seven runs were pushed above: the middle one is there.
        values.get(values.len() / 2).copied().unwrap_or_default()
    };
    sayln!(
        "bare jsonschema crate (1 thread, schema only): {:>8.3} s   (median of 7, alternating)",
        median(&mut baseline)
    );
    let (low, high) = low_high(&ratios);
    let ours = Duration::from_secs_f64(median(&mut ours));
    sayln!(
        "vdm-conform check (schema + semantic rules):    {:>8.3} s   ratio {:.2}x the bare crate (median; {low:.2}–{high:.2})",
        ours.as_secs_f64(),
        median(&mut ratios)
    );
    Ok(ours)
}

/// ajv-cli and check-jsonschema on the corpus as files, against `ours`
/// (check's median time on the same messages).
fn against_peers(
    root: &Path,
    dir: &Path,
    corpus: &[Value],
    options: &Options,
    ours: Duration,
) -> anyhow::Result<()> {
    let count = options.count;
    let files = dir.join(format!("files-{count}"));
    if !files
        .join(format!("{:06}.json", count.saturating_sub(1)))
        .exists()
    {
        std::fs::create_dir_all(&files)?;
        for (index, value) in corpus.iter().enumerate() {
            std::fs::write(files.join(format!("{index:06}.json")), value.to_string())?;
        }
    }
    let schema = dir.join("compound-schema.json");
    std::fs::write(&schema, serde_json::to_string(&compound_schema(root)?)?)?;
    let tools = install_peers(root)?;

    let ajv = time(
        Command::new(tools.join("node_modules/.bin/ajv"))
            .args([
                "validate",
                "--spec=draft2020",
                "--strict=false",
                "--all-errors",
                "-c",
                "ajv-formats",
                "-s",
                path(&schema)?,
                "-d",
                &format!("{}/*.json", path(&files)?),
            ])
            .current_dir(&tools),
    )?;
    sayln!(
        "ajv-cli, {count} files:                        {:>8.3} s   vdm-conform is {:.1}x faster",
        ajv.as_secs_f64(),
        ratio(ajv, ours)
    );

    let sample: Vec<String> = (0..options.peer_sample.min(count))
        .map(|i| files.join(format!("{i:06}.json")).display().to_string())
        .collect();
    let check = time(
        Command::new(tools.join("venv/bin/check-jsonschema"))
            .arg("--schemafile")
            .arg(&schema)
            .args(&sample),
    )?;
    let per_message = check.as_secs_f64() / sample.len() as f64;
    sayln!(
        "check-jsonschema, {} files:                    {:>8.3} s   ({:.0} s for {count} at that rate; vdm-conform is {:.0}x faster)",
        sample.len(),
        check.as_secs_f64(),
        per_message * count as f64,
        per_message * count as f64 / ours.as_secs_f64()
    );
    Ok(())
}

fn path(p: &Path) -> anyhow::Result<&str> {
    p.to_str().context("non-UTF-8 path")
}

/// The lowest and highest of `values`.
fn low_high(values: &[f64]) -> (f64, f64) {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(0.0, f64::max);
    (low, high)
}

/// `median M (min A, max B)` of sorted `ratios`, with `digits` decimals.
fn spread(ratios: &[f64], digits: usize) -> String {
    // Called with the rounds' ratios, never none.
    let at = |index: usize| ratios.get(index).copied().unwrap_or_default();
    format!(
        "median {:.digits$} (min {:.digits$}, max {:.digits$})",
        at(ratios.len() / 2),
        at(0),
        at(ratios.len().saturating_sub(1))
    )
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

fn cargo(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(root)
        .status()?;
    if !status.success() {
        bail!("cargo {} failed", args.join(" "));
    }
    Ok(())
}

/// Runs a command to its end, discarding its output; the exit status is not
/// judged (a checker that finds violations exits 1).
fn time(command: &mut Command) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let output = command
        .output()
        .with_context(|| format!("running {command:?}"))?;
    let elapsed = start.elapsed();
    if output.status.code().is_none_or(|code| code > 1) {
        bail!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .chars()
                .take(2000)
                .collect::<String>()
        );
    }
    Ok(elapsed)
}

fn install_peers(root: &Path) -> anyhow::Result<PathBuf> {
    let tools = root.join("target/bench-peers");
    std::fs::create_dir_all(&tools)?;
    if !tools.join("node_modules/.bin/ajv").exists() {
        sayln!("installing ajv-cli and ajv-formats (npm) ...");
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&tools)
            .args(["ajv-cli@5", "ajv-formats@2"])
            .status()?;
        if !status.success() {
            bail!("npm install ajv-cli failed");
        }
    }
    if !tools.join("venv/bin/check-jsonschema").exists() {
        sayln!("installing check-jsonschema (pip) ...");
        let status = Command::new("python3")
            .args(["-m", "venv"])
            .arg(tools.join("venv"))
            .status()?;
        if !status.success() {
            bail!("python3 -m venv failed");
        }
        let status = Command::new(tools.join("venv/bin/pip"))
            .args(["install", "--quiet", "check-jsonschema"])
            .status()?;
        if !status.success() {
            bail!("pip install check-jsonschema failed");
        }
    }
    Ok(tools)
}

/// One document holding every contract file under its own `$id`, with the
/// envelope as its root: a compound schema document any 2020-12 validator
/// resolves without fetching.
fn compound_schema(root: &Path) -> anyhow::Result<Value> {
    let set = contract::SchemaSet::load(&root.join("contracts/schema"))?;
    let mut defs = serde_json::Map::new();
    for doc in &set.docs {
        let mut value = doc.value.clone();
        if let Value::Object(map) = &mut value {
            map.remove("$schema");
        }
        defs.insert(doc.rel.replace('/', "_"), value);
    }
    Ok(json!({
        "$schema": contract::DRAFT_2020_12,
        "$id": format!("{}bench/compound.json", contract::ID_BASE),
        "$ref": format!("{}envelope/Envelope.json", contract::ID_BASE),
        "$defs": defs,
    }))
}

/// `vdm-conform trace` beside `vdm-conform check` on the same messages: the
/// corpus made a conversation (each answer after its call, progress that
/// only grows, each state event naming the state told before), as trace
/// records and as bare messages. Both must find nothing, or the run is an
/// error: a side that stops early is not fast. Eleven runs each, in pairs
/// whose order alternates.
fn trace_against_check(
    conform: &Path,
    dir: &Path,
    conversation: &[(&str, Value)],
) -> anyhow::Result<()> {
    let records = dir.join("conversation.jsonl");
    let messages = dir.join("conversation-messages.jsonl");
    std::fs::write(
        &records,
        conversation
            .iter()
            .map(|(from, msg)| {
                format!(
                    "{}\n",
                    json!({"from": from, "transport": "unix", "msg": msg})
                )
            })
            .collect::<String>(),
    )?;
    std::fs::write(
        &messages,
        conversation
            .iter()
            .map(|(_, msg)| format!("{msg}\n"))
            .collect::<String>(),
    )?;
    let run = |args: &[&str]| -> anyhow::Result<Duration> {
        let start = Instant::now();
        let output = Command::new(conform).args(args).output()?;
        let elapsed = start.elapsed();
        if !output.status.success() || !output.stdout.is_empty() {
            bail!(
                "vdm-conform {} found something in a conforming conversation: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&output.stdout)
                    .chars()
                    .take(1000)
                    .collect::<String>(),
                String::from_utf8_lossy(&output.stderr)
                    .chars()
                    .take(1000)
                    .collect::<String>()
            );
        }
        Ok(elapsed)
    };
    const RUNS: usize = 11;
    let mut ratios = Vec::new();
    let (mut checks, mut traces) = (Vec::new(), Vec::new());
    for round in 0..RUNS {
        // Each goes first in every other round: a slow moment of the machine
        // tends to fall on the first of a pair as often as on the second.
        let (check, trace) = if round % 2 == 0 {
            let check = run(&["check", path(&messages)?])?;
            (check, run(&["trace", "--closed", path(&records)?])?)
        } else {
            let trace = run(&["trace", "--closed", path(&records)?])?;
            (run(&["check", path(&messages)?])?, trace)
        };
        ratios.push(ratio(trace, check));
        checks.push(check.as_secs_f64());
        traces.push(trace.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    let span = |values: &[f64]| {
        let (low, high) = low_high(values);
        format!("{low:.3}–{high:.3} s")
    };
    sayln!(
        "conversation: {} messages; vdm-conform check {} and trace --closed {} ({RUNS} runs each, both cores each)",
        conversation.len(),
        span(&checks),
        span(&traces)
    );
    sayln!("trace / check: {}; target at most 1.3", spread(&ratios, 2));
    Ok(())
}

/// `vdm-conform generate -n COUNT` against `vdm-conform check` of what it
/// wrote, alternating, a new seed each round. Both use every core. Each
/// round checks that `count` messages were written and that `check` read
/// them all and found nothing.
fn generate_against_check(conform: &Path, dir: &Path, count: usize) -> anyhow::Result<()> {
    const RUNS: usize = 5;
    let file = dir.join("generated.jsonl");
    let (mut generates, mut checks, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..RUNS {
        let start = Instant::now();
        let output = Command::new(conform)
            .args([
                "generate",
                "-n",
                &count.to_string(),
                "--seed",
                &round.to_string(),
            ])
            .output()?;
        let generate = start.elapsed();
        let lines = output.stdout.iter().filter(|&&b| b == b'\n').count();
        if !output.status.success() || lines != count {
            bail!(
                "generate wrote {lines} of {count} messages: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::fs::write(&file, &output.stdout)?;
        let start = Instant::now();
        let checked = Command::new(conform)
            .args(["--format", "json", "check", path(&file)?])
            .output()?;
        let check = start.elapsed();
        if !checked.status.success() || !checked.stdout.is_empty() {
            bail!(
                "check found something in generated messages: {}",
                String::from_utf8_lossy(&checked.stdout)
                    .chars()
                    .take(1000)
                    .collect::<String>()
            );
        }
        generates.push(generate.as_secs_f64());
        checks.push(check.as_secs_f64());
        ratios.push(ratio(generate, check));
    }
    ratios.sort_by(f64::total_cmp);
    let span = |values: &[f64]| {
        let (low, high) = low_high(values);
        format!("{low:.2}–{high:.2} s")
    };
    sayln!(
        "generate: {count} messages, {} per run; check of them {} ({RUNS} runs each, every core each; all read, none refused)",
        span(&generates),
        span(&checks)
    );
    sayln!("generate / check: {}; target at most 1", spread(&ratios, 1));
    Ok(())
}

/// `vdm-conform drive` against `vdm-exec serve`, beside a bare client that
/// sends the same client frames to a fresh `serve`, one exchange at a time
/// as drive does, reading each answer without judging it. Every method is
/// called 20 times; both sides start the server, and both must get the
/// same count of answers (drive: every rule held).
fn drive_against_replay(
    root: &Path,
    conform: &Path,
    exec: &Path,
    dir: &Path,
) -> anyhow::Result<()> {
    const RUNS: usize = 5;
    const EACH: usize = 20;
    let tools = dir.join("drive-tools.json");
    std::fs::write(
        &tools,
        json!({"tools": [{"name": "true", "command": ["true"]}]}).to_string(),
    )?;
    let record = dir.join("drive.jsonl");
    let methods = contract_methods(root)?;
    let methods: Vec<&str> = std::iter::repeat_n(methods.iter(), EACH)
        .flatten()
        .map(String::as_str)
        .collect();
    let serve = [
        path(exec)?,
        "serve",
        "--jobs",
        "2",
        "--tools",
        path(&tools)?,
    ];
    let (mut drives, mut replays, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut exchanges = 0usize;
    for round in 0..RUNS {
        let start = Instant::now();
        let output = Command::new(conform)
            .args(["drive", "--seed", &round.to_string(), "--methods"])
            .arg(methods.join(","))
            .args(["--record", path(&record)?, "--"])
            .args(serve)
            .output()?;
        let drive = start.elapsed();
        if !output.status.success() {
            bail!(
                "drive found a rule broken by vdm-exec serve: {}",
                String::from_utf8_lossy(&output.stdout)
                    .chars()
                    .take(2000)
                    .collect::<String>()
            );
        }
        let records: Vec<Value> = std::fs::read_to_string(&record)?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        let answers = records.iter().filter(|r| r["from"] == "server").count();
        let start = Instant::now();
        let replayed = replay(&serve, &records)?;
        let replay = start.elapsed();
        if replayed != answers {
            bail!("the replay read {replayed} answers, drive {answers}");
        }
        exchanges = answers;
        drives.push(drive.as_secs_f64());
        replays.push(replay.as_secs_f64());
        ratios.push(ratio(drive, replay));
    }
    ratios.sort_by(f64::total_cmp);
    let rate = |times: &[f64]| {
        let (low, high) = low_high(times);
        format!(
            "{:.0}–{:.0} answers/s",
            exchanges as f64 / high,
            exchanges as f64 / low
        )
    };
    sayln!(
        "drive against vdm-exec serve: {exchanges} answers per run, {} ({RUNS} runs, server start included); bare replay of the same frames {}",
        rate(&drives),
        rate(&replays)
    );
    sayln!("drive / bare replay: {}", spread(&ratios, 2));
    Ok(())
}

/// The contract's methods: one schema file each, named after it.
fn contract_methods(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut methods: Vec<String> = std::fs::read_dir(root.join("contracts/schema/methods"))?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| name.strip_suffix(".json"))
                .map(str::to_string)
        })
        .collect();
    methods.sort();
    Ok(methods)
}

/// Starts `serve` and plays the client's side of `records` as drive did:
/// each client frame written, and one frame read after each the record shows
/// answered; an answer with no client frame before it answered the body that
/// is not JSON (the record leaves it out), which is sent again; last the
/// oversize length, and the stream read to its end. Returns how many
/// answers it read.
fn replay(serve: &[&str], records: &[Value]) -> anyhow::Result<usize> {
    use std::io::{Read, Write};
    let (program, args) = serve.split_first().context("a command")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        // The server's log is shown on neither side.
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let (mut to, mut from) = (
        child.stdin.take().context("stdin")?,
        child.stdout.take().context("stdout")?,
    );
    let mut frame = |body: &[u8]| -> anyhow::Result<()> {
        to.write_all(&u32::try_from(body.len())?.to_be_bytes())?;
        to.write_all(body)?;
        Ok(to.flush()?)
    };
    let (mut read, mut body, mut last_from_server) = (0, Vec::new(), true);
    for record in records {
        let from_server = record["from"] == "server";
        if !from_server {
            frame(record["msg"].to_string().as_bytes())?;
        } else {
            if last_from_server {
                frame(b"{not json")?;
            }
            let mut len = [0u8; 4];
            from.read_exact(&mut len)?;
            body.resize(u32::from_be_bytes(len) as usize, 0);
            from.read_exact(&mut body)?;
            read += 1;
        }
        last_from_server = from_server;
    }
    to.write_all(&1_048_577u32.to_be_bytes())?;
    to.flush()?;
    let mut rest = Vec::new();
    from.read_to_end(&mut rest)?;
    drop(to);
    child.wait()?;
    Ok(read)
}

/// Peak memory of `trace --closed` and `check` on a generated capture of
/// `gigabytes`: the conversation over and over on one connection, each round
/// with ids and task ids of its own (ids only grow, as on a long-lived
/// connection, and no round speaks of another's tasks), written as trace
/// records and as bare messages. Both must find nothing.
fn memory_on_a_capture(
    conform: &Path,
    dir: &Path,
    conversation: &[(&str, Value)],
    gigabytes: f64,
) -> anyhow::Result<()> {
    use std::io::Write;
    let records = dir.join("capture.jsonl");
    let messages = dir.join("capture-messages.jsonl");
    let target = (gigabytes * 1e9) as u64;
    let mut records_out = std::io::BufWriter::new(std::fs::File::create(&records)?);
    let mut messages_out = std::io::BufWriter::new(std::fs::File::create(&messages)?);
    // Each message is written once as text with a stand-in id; a round puts
    // its own ids in and prefixes its task ids (`"taskId":"` is how every
    // task id is written), which costs a fraction of rebuilding the value.
    const STAND_IN: u64 = u64::MAX;
    let templates: Vec<(String, String, Option<u64>)> = conversation
        .iter()
        .map(|(from, msg)| {
            let id = msg.get("id").and_then(Value::as_u64);
            let mut msg = msg.clone();
            if id.is_some() {
                msg["id"] = json!(STAND_IN);
            }
            let record = json!({"from": from, "transport": "unix", "msg": msg});
            (record.to_string(), msg.to_string(), id)
        })
        .collect();
    let stand_in = STAND_IN.to_string();
    let (mut written, mut count, mut round) = (0u64, 0u64, 0u64);
    // Round r's ids start past every id of the rounds before it.
    let stride = conversation.len() as u64 + 1;
    while written < target {
        let task = format!("\"taskId\":\"r{round}");
        // session.hello opens the connection once.
        let skip = if round == 0 { 0 } else { 2 };
        for (record, message, id) in templates.iter().skip(skip) {
            let fill = |text: &str| {
                let text = text.replace("\"taskId\":\"", &task);
                match id {
                    Some(id) => text.replacen(&stand_in, &(id + round * stride).to_string(), 1),
                    None => text,
                }
            };
            let record = fill(record);
            records_out.write_all(record.as_bytes())?;
            records_out.write_all(b"\n")?;
            messages_out.write_all(fill(message).as_bytes())?;
            messages_out.write_all(b"\n")?;
            written += record.len() as u64 + 1;
            count += 1;
        }
        round += 1;
    }
    records_out.flush()?;
    messages_out.flush()?;
    sayln!(
        "capture: {count} messages in {round} rounds, {:.2} GB of trace records, {:.2} GB of bare messages",
        written as f64 / 1e9,
        std::fs::metadata(&messages)?.len() as f64 / 1e9
    );
    for (what, args) in [
        (
            "trace --closed",
            &["trace", "--closed", path(&records)?][..],
        ),
        ("check", &["check", path(&messages)?][..]),
    ] {
        let (elapsed, peak_kib) = run_with_peak(conform, args, dir)?;
        sayln!(
            "vdm-conform {what:<15} peak resident {:>6.1} MB in {:>6.1} s; target under 200 MB",
            peak_kib as f64 * 1024.0 / 1e6,
            elapsed.as_secs_f64()
        );
    }
    std::fs::remove_file(&records)?;
    std::fs::remove_file(&messages)?;
    Ok(())
}

/// Runs `vdm-conform ARGS`, which must exit 0 and print nothing on stdout;
/// its wall time and its own peak resident memory in KiB, measured by
/// `cargo xtask peak` (see [`peak`]) in a process of its own.
fn run_with_peak(conform: &Path, args: &[&str], dir: &Path) -> anyhow::Result<(Duration, u64)> {
    let out = dir.join("capture.out");
    let output = Command::new(std::env::current_exe()?)
        .arg("peak")
        .arg(conform)
        .args(args)
        .stdout(std::fs::File::create(&out)?)
        .output()?;
    let report = String::from_utf8_lossy(&output.stderr);
    let printed = std::fs::metadata(&out)?.len();
    if !output.status.success() || printed > 0 {
        bail!(
            "vdm-conform {} found something in a conforming capture ({report}; {printed} bytes on stdout, in {})",
            args.join(" "),
            out.display()
        );
    }
    let field = |name: &str| {
        report
            .split_whitespace()
            .find_map(|word| word.strip_prefix(name))
            .with_context(|| format!("no {name} in the peak report: {report}"))
    };
    let elapsed = Duration::from_secs_f64(field("seconds=")?.parse()?);
    Ok((elapsed, field("peak_kib=")?.parse()?))
}

/// `cargo xtask peak CMD ARGS...`: runs CMD (its stdout passed through, its
/// stderr dropped) and reports on stderr `seconds=S peak_kib=K exit=C`,
/// exiting as CMD did. It measures in a process of its own because Linux
/// carries the parent's resident size into a child's peak (fork copies it,
/// exec keeps it): measured from the bench, which holds the corpus, every
/// child would report at least the bench's size. This process is small
/// when it spawns (`cargo xtask peak /bin/true` reports about 8 MB, the floor
/// of every figure it gives). std's `Child::wait` reports no resource use, so the child
/// is reaped with wait4(2), whose rusage is that child's alone.
pub fn peak(args: &[&str]) -> anyhow::Result<()> {
    let (program, rest) = args.split_first().context("peak CMD ARGS...")?;
    let start = Instant::now();
    let child = Command::new(program)
        .args(rest)
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("running {program}"))?;
    let pid = libc::pid_t::try_from(child.id())?;
    let mut status = 0;
    // SAFETY: rusage is plain data; all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is this process's child, not yet reaped; both pointers
    // are valid for the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    if reaped != pid {
        bail!("wait4: {}", std::io::Error::last_os_error());
    }
    let code = match libc::WIFEXITED(status) {
        true => libc::WEXITSTATUS(status),
        false => -1,
    };
    tell!(
        "seconds={:.3} peak_kib={} exit={code}",
        elapsed.as_secs_f64(),
        usage.ru_maxrss
    );
    if code != 0 {
        bail!("{program} exited with wait status {status}");
    }
    Ok(())
}

/// The corpus as one conforming conversation: a `session.hello` first,
/// every answer after a call of its method and id (a call the corpus holds
/// is answered), progress that only grows, state events that name the state
/// told before.
fn conversation(corpus: &[Value]) -> Vec<(&'static str, Value)> {
    let mut out = vec![
        (
            "client",
            json!({"v": 1, "kind": "call", "id": 0, "body": {"method": "session.hello", "params": {"client": "bench", "contractVersion": "1.1.0"}}}),
        ),
        (
            "server",
            json!({"v": 1, "kind": "reply", "id": 0, "body": {"method": "session.hello", "result": {"daemon": "bench", "contractVersion": "1.1.0", "methods": ["session.hello", "download.add", "download.get", "download.pause"]}}}),
        ),
    ];
    let mut bytes: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut states: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for (index, original) in corpus.iter().enumerate() {
        let mut msg = original.clone();
        let id = index as u64 + 1;
        // The corpus is drawn valid: every message has a kind, every call
        // and reply a method (an error or event's empty method is unused).
        let kind = msg["kind"].as_str().unwrap_or_default().to_string();
        let method = msg["body"]["method"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let task = msg
            .pointer("/body/params/taskId")
            .and_then(Value::as_str)
            .unwrap_or("t_000000")
            .to_string();
        if kind != "event" {
            msg["id"] = json!(id);
        }
        match kind.as_str() {
            "call" => {
                out.push(("client", msg));
                out.push(("server", json!({"v": 1, "kind": "reply", "id": id, "body": {"method": method, "result": {"taskId": task}}})));
            }
            "reply" => {
                let params = match method.as_str() {
                    "download.add" => json!({"spec": {"url": "https://example.org/a.iso"}}),
                    _ => json!({"taskId": task}),
                };
                out.push(("client", json!({"v": 1, "kind": "call", "id": id, "body": {"method": method, "params": params}})));
                out.push(("server", msg));
            }
            "error" => {
                out.push(("client", json!({"v": 1, "kind": "call", "id": id, "body": {"method": "download.pause", "params": {"taskId": task}}})));
                out.push(("server", msg));
            }
            _ => {
                if msg["body"]["name"] == "event.task.progress" {
                    let total = bytes.entry(task.clone()).or_insert(0);
                    *total += msg["body"]["params"]["downloadedBytes"]
                        .as_u64()
                        .unwrap_or(0)
                        % 4096;
                    msg["body"]["params"]["downloadedBytes"] = json!(*total);
                } else if msg["body"]["name"] == "event.task.state" {
                    if let Some(last) = states.get(&task) {
                        msg["body"]["params"]["previousState"] = json!(last);
                    }
                    states.insert(
                        task.clone(),
                        // A valid state event has a state.
                        msg["body"]["params"]["state"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                    );
                    bytes.remove(&task);
                }
                out.push(("server", msg));
            }
        }
    }
    out
}

/// Writes the corpus of `count` envelopes as JSON Lines into `dir`, and says so.
pub(crate) fn write_corpus(dir: &Path, count: usize) -> anyhow::Result<(Vec<Value>, PathBuf)> {
    let corpus = corpus(count);
    let jsonl = dir.join(format!("corpus-{count}.jsonl"));
    std::fs::write(
        &jsonl,
        corpus.iter().map(|v| format!("{v}\n")).collect::<String>(),
    )?;
    sayln!(
        "corpus: {count} envelopes, {} bytes of JSON Lines",
        std::fs::metadata(&jsonl)?.len()
    );
    Ok((corpus, jsonl))
}

/// A deterministic corpus (a linear congruential generator, so runs compare).
fn corpus(count: usize) -> Vec<Value> {
    let mut seed: u64 = 0x5eed;
    let mut next = move |bound: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % bound.max(1)
    };
    let states = ["queued", "downloading", "paused", "complete", "cancelled"];
    (0..count)
        .map(|i| {
            let task = format!("t_{:06}", next(5000));
            match next(100) {
                0..=59 => {
                    let segments: Vec<Value> = (0..next(8) + 1)
                        .map(|s| json!({"index": s, "downloadedBytes": next(1 << 30), "state": "downloading"}))
                        .collect();
                    json!({"v": 1, "kind": "event", "body": {"name": "event.task.progress", "params": {
                        "taskId": task, "downloadedBytes": next(1 << 40), "speedBytesPerSec": next(1 << 27), "segments": segments}}})
                }
                60..=74 => json!({"v": 1, "kind": "event", "body": {"name": "event.task.state", "params": {
                    "taskId": task, "state": states[next(5) as usize], "previousState": "downloading"}}}),
                75..=84 => json!({"v": 1, "kind": "call", "id": i, "body": {"method": "download.add", "params": {"spec": {
                    "url": format!("https://mirror{}.example.org/pub/{task}/image.iso", next(9)), "segments": next(16) + 1,
                    "checksum": {"algorithm": "sha256", "value": format!("{:064x}", next(u64::MAX))}}}}}),
                85..=92 => {
                    let size = next(1 << 36) + 1024;
                    let n = next(8) + 1;
                    let per = size / n;
                    let mut done = 0;
                    let segments: Vec<Value> = (0..n)
                        .map(|s| {
                            let start = s * per;
                            let end = if s == n - 1 { size - 1 } else { start + per - 1 };
                            let got = next(end - start + 2);
                            done += got;
                            json!({"index": s, "startByte": start, "endByte": end, "downloadedBytes": got, "state": "downloading"})
                        })
                        .collect();
                    json!({"v": 1, "kind": "reply", "id": i, "body": {"method": "download.get", "result": {"task": {
                        "summary": {"taskId": task, "url": "https://example.org/a.iso", "fileName": "a.iso", "state": "downloading",
                            "sizeBytes": size, "downloadedBytes": done, "segments": n, "speedBytesPerSec": next(1 << 27),
                            "etaSeconds": next(86400), "createdAt": "2026-11-30T10:15:00Z"},
                        "spec": {"url": "https://example.org/a.iso", "segments": n},
                        "segmentDetail": segments}}}})
                }
                93..=97 => json!({"v": 1, "kind": "reply", "id": i, "body": {"method": "download.add", "result": {"taskId": task}}}),
                _ => json!({"v": 1, "kind": "error", "id": i, "body": {"code": -32001, "message": format!("no task {task}")}}),
            }
        })
        .collect()
}
