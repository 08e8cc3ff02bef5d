//! Decoding and framing: reading 100k typical envelopes into `Envelope`
//! through `serde_json::from_slice` and through `FrameReader`, against a
//! plain `serde_json::from_slice::<Value>` of the same bodies (the baseline:
//! a typed decode should cost at most 0.6 of it); writing through
//! `FrameWriter` against `serde_json::to_writer` into a reused buffer
//! (target ≤ 1.05). Every side decodes or encodes all 100k (each `expect`s).
//! The policy scan and serde_json's syntax-only pass are timed alone too,
//! to show where a decode's time goes.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::io::Cursor;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use proto::{Envelope, FrameReader, FrameWriter};
use serde_json::json;

const COUNT: usize = 100_000;

/// A daemon's everyday traffic: progress events, state events, calls and replies.
fn corpus() -> Vec<Envelope> {
    (0..COUNT)
        .map(|i| {
            let wire = match i % 4 {
                0 => json!({"v": 1, "kind": "event", "body": {"name": "event.task.progress", "params": {
                    "taskId": format!("t_{i:08}"), "downloadedBytes": i * 65536, "speedBytesPerSec": 1_250_000,
                    "segments": (0..4).map(|s| json!({"index": s, "downloadedBytes": i * 16384, "state": "downloading"})).collect::<Vec<_>>()}}}),
                1 => json!({"v": 1, "kind": "event", "body": {"name": "event.task.state", "params": {
                    "taskId": format!("t_{i:08}"), "state": "paused", "previousState": "downloading"}}}),
                2 => json!({"v": 1, "kind": "call", "id": i, "body": {"method": "download.add", "params": {"spec": {
                    "url": format!("https://mirror.example.org/releases/{i}/image.iso"), "segments": 8, "fileName": "image.iso"}}}}),
                _ => json!({"v": 1, "kind": "reply", "id": i, "body": {"method": "download.add", "result": {"taskId": format!("t_{i:08}")}}}),
            };
            serde_json::from_value(wire).expect("corpus envelopes are valid")
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let envelopes = corpus();
    let bodies: Vec<Vec<u8>> = envelopes
        .iter()
        .map(|e| serde_json::to_vec(e).expect("encodes"))
        .collect();
    let mut stream = Vec::new();
    let mut writer = FrameWriter::new(&mut stream);
    for envelope in &envelopes {
        writer.write(envelope).expect("fits");
    }
    let bytes: u64 = bodies.iter().map(|b| b.len() as u64).sum();

    let mut read = c.benchmark_group("read");
    read.throughput(Throughput::Bytes(bytes)).sample_size(10);
    read.bench_function("serde_json::from_slice::<Value>", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(serde_json::from_slice::<serde_json::Value>(body).expect("parses"));
            }
        })
    });
    read.bench_function("serde_json::from_slice::<Envelope>", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(serde_json::from_slice::<Envelope>(body).expect("decodes"));
            }
        })
    });
    // The same through `from_str`, where the text is already known UTF-8:
    // serde_json checks none, and the serde path's scan still checks it.
    let texts: Vec<&str> = bodies
        .iter()
        .map(|body| std::str::from_utf8(body).expect("UTF-8"))
        .collect();
    read.bench_function("serde_json::from_str::<Value>", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(serde_json::from_str::<serde_json::Value>(text).expect("parses"));
            }
        })
    });
    read.bench_function("serde_json::from_str::<Envelope>", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(serde_json::from_str::<Envelope>(text).expect("decodes"));
            }
        })
    });
    // The parts of a decode, for where the time goes: the JSON text policy
    // alone, and serde_json's own syntax-only pass (what the serde path
    // spends finding the end of the envelope before decoding it).
    read.bench_function("proto::text::scan", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(proto::text::scan(body, proto::text::Layout::Envelope).expect("policy"));
            }
        })
    });
    read.bench_function("serde_json::from_slice::<IgnoredAny>", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(serde_json::from_slice::<serde::de::IgnoredAny>(body).expect("parses"));
            }
        })
    });
    // The decoder FrameReader and the serde path share, on the bodies alone.
    read.bench_function("proto::frame::decode_body", |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(proto::frame::decode_body(body).expect("decodes"));
            }
        })
    });
    read.bench_function("FrameReader", |b| {
        b.iter(|| {
            let mut reader = FrameReader::new(Cursor::new(&stream[..]));
            for _ in 0..COUNT {
                black_box(reader.read().expect("reads"));
            }
        })
    });
    read.finish();

    let mut write = c.benchmark_group("write");
    write.throughput(Throughput::Bytes(bytes)).sample_size(10);
    write.bench_function("serde_json::to_writer", |b| {
        let mut out = Vec::with_capacity(stream.len());
        b.iter(|| {
            out.clear();
            for envelope in &envelopes {
                serde_json::to_writer(&mut out, envelope).expect("encodes");
            }
            black_box(out.len())
        })
    });
    write.bench_function("FrameWriter", |b| {
        let mut out = Vec::with_capacity(stream.len());
        b.iter(|| {
            out.clear();
            let mut writer = FrameWriter::new(&mut out);
            for envelope in &envelopes {
                writer.write(envelope).expect("fits");
            }
            black_box(out.len())
        })
    });
    write.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
