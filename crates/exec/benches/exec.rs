//! Executor costs against their floors, measured in the same run:
//! - one invocation vs `std::process::Command` spawn + wait of the same helper
//!   (target: ratio <= 1.3);
//! - capturing a fast chatter vs reading the same bytes from a plain pipe
//!   (target: throughput >= 0.5x).

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;

const HELPER: &str = env!("CARGO_BIN_EXE_vdm-exec-helper");
const CHATTER_BYTES: u64 = 64 << 20;

fn tools() -> exec::Loaded {
    let text = json!({"tools": [
        {"name": "exit", "command": [HELPER, "exit", "0"]},
        {"name": "chatter", "command": [HELPER, "chatter", CHATTER_BYTES.to_string()]},
    ]})
    .to_string();
    exec::config::parse(Path::new("bench.json"), &text).expect("bench tool set")
}

fn bench(c: &mut Criterion) {
    let tools = tools();
    let input = json!({"path": "."});
    let body = serde_json::to_vec(&input).expect("json");

    let mut spawn = c.benchmark_group("invocation");
    spawn.sample_size(50);
    spawn.bench_function("Command spawn+wait", |b| {
        b.iter(|| {
            let mut child = Command::new(HELPER)
                .args(["exit", "0"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            if let Some(mut stdin) = child.stdin.take() {
                std::io::Write::write_all(&mut stdin, &body).expect("input");
            }
            black_box(child.wait_with_output().expect("wait"))
        })
    });
    spawn.bench_function("exec::execute", |b| {
        b.iter(|| {
            black_box(exec::execute(
                &tools,
                &proto::ToolInvokeParams::new(input.clone(), "exit".into()),
            ))
        })
    });
    spawn.finish();

    let mut capture = c.benchmark_group("capture");
    capture
        .throughput(Throughput::Bytes(CHATTER_BYTES))
        .sample_size(10);
    capture.bench_function("plain pipe", |b| {
        b.iter(|| {
            let mut child = Command::new(HELPER)
                .args(["chatter", &CHATTER_BYTES.to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .spawn()
                .expect("spawn");
            let mut stdout = child.stdout.take().expect("stdout");
            let mut buf = vec![0u8; 64 * 1024];
            let mut total = 0u64;
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => total += n as u64,
                }
            }
            let _ = child.wait();
            black_box(total)
        })
    });
    capture.bench_function("exec::execute", |b| {
        b.iter(|| {
            black_box(exec::execute(
                &tools,
                &proto::ToolInvokeParams::new(json!(null), "chatter".into()),
            ))
        })
    });
    capture.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
