//! Properties of the frame codec over generated inputs: envelopes round-trip,
//! and arbitrary bytes neither panic the reader nor make it allocate what the
//! peer merely claims.

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proto::{read_frame, write_frame, Envelope, FrameReader, RpcErrorCode, MAX_FRAME};
use serde_json::{json, Value};

/// Records the largest single allocation, to bound what a peer can make us hold.
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Largest = Largest;

/// The allocation properties take turns: `LARGEST` is one for the process.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

const MAX_ID: u64 = 9_007_199_254_740_991;

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-9_007_199_254_740_991i64..=9_007_199_254_740_991).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn task_state() -> impl Strategy<Value = String> {
    prop::sample::select(proto::TaskState::ALL.to_vec()).prop_map(|state| state.to_string())
}

/// Envelopes of every kind, with arbitrary ids, strings and values.
fn envelope() -> impl Strategy<Value = Envelope> {
    let id = 0..=MAX_ID;
    let call_add = (id.clone(), any::<String>(), prop::option::of(1u8..=32), any::<bool>()).prop_map(|(id, url, segments, paused)| {
        let mut spec = json!({"url": url, "startPaused": paused});
        if let Some(segments) = segments {
            spec["segments"] = json!(segments);
        }
        json!({"v": 1, "kind": "call", "id": id, "body": {"method": "download.add", "params": {"spec": spec}}})
    });
    let call_tool = (id.clone(), any::<String>(), json_value()).prop_map(|(id, tool, input)| {
        json!({"v": 1, "kind": "call", "id": id, "body": {"method": "tool.invoke", "params": {"tool": tool, "input": input}}})
    });
    let reply = (id.clone(), any::<i32>(), any::<String>(), any::<String>()).prop_map(|(id, code, out, err)| {
        json!({"v": 1, "kind": "reply", "id": id, "body": {"method": "tool.invoke", "result": {"exitCode": code, "stdout": out, "stderr": err}}})
    });
    let error = (
        prop::option::of(id),
        prop::sample::select(RpcErrorCode::ALL.to_vec()),
        any::<String>(),
        prop::option::of(json_value()),
    )
        .prop_map(|(id, code, message, data)| {
            let mut body = json!({"code": code.code(), "message": message});
            if let Some(data) = data {
                body["data"] = data;
            }
            json!({"v": 1, "kind": "error", "id": id, "body": body})
        });
    let event = ("[A-Za-z0-9_-]{1,64}", task_state(), task_state(), 0..=MAX_ID).prop_map(|(task, state, previous, bytes)| {
        if bytes % 2 == 0 {
            json!({"v": 1, "kind": "event", "body": {"name": "event.task.state", "params": {"taskId": task, "state": state, "previousState": previous}}})
        } else {
            json!({"v": 1, "kind": "event", "body": {"name": "event.task.progress", "params": {"taskId": task, "downloadedBytes": bytes, "speedBytesPerSec": 0, "segments": [{"index": 0, "downloadedBytes": bytes, "state": "downloading"}]}}})
        }
    });
    prop_oneof![call_add, call_tool, reply, error, event].prop_map(|wire| {
        serde_json::from_value::<Envelope>(wire).expect("the strategy writes envelopes")
    })
}

proptest! {
    #[test]
    fn every_envelope_round_trips_through_a_frame(envelope in envelope()) {
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &envelope).expect("small envelopes fit a frame");
        let read = read_frame(&mut &bytes[..]).expect("a written frame reads");
        prop_assert_eq!(read, envelope);
    }

    #[test]
    fn any_bytes_return_without_panicking_or_allocating_past_the_limit(
        claimed in prop_oneof![any::<u32>(), Just(u32::MAX), 0u32..64, Just(1_048_576u32)],
        body in prop::collection::vec(any::<u8>(), 0..4096),
    ) {
        let mut bytes = claimed.to_be_bytes().to_vec();
        bytes.extend_from_slice(&body);
        let _turn = MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        LARGEST.store(0, Ordering::Relaxed);
        // Read until the reader stops; every error is a value, never a panic.
        for result in FrameReader::new(&bytes[..]) {
            if result.as_ref().is_err_and(|err| !err.is_recoverable()) {
                break;
            }
        }
        let largest = LARGEST.load(Ordering::Relaxed);
        prop_assert!(largest <= MAX_FRAME + 4096, "a {largest}-byte allocation");
        // What the peer claims does not matter; what it sends does (with slack
        // for the test harness's own allocations on other threads).
        prop_assert!(largest <= 64 * 1024 + 16 * bytes.len(), "{largest} bytes held for {} sent", bytes.len());
    }
}

/// The same property through the tokio codec, fed the way `FramedRead` feeds
/// it: whatever has arrived, in small reads.
#[cfg(feature = "tokio")]
mod codec {
    use super::*;
    use tokio_util::codec::Decoder;

    proptest! {
        #[test]
        fn any_bytes_through_the_codec_return_without_panicking_or_allocating_past_the_limit(
            claimed in prop_oneof![any::<u32>(), Just(u32::MAX), 0u32..64, Just(1_048_576u32)],
            body in prop::collection::vec(any::<u8>(), 0..4096),
            step in 1usize..600,
        ) {
            let mut bytes = claimed.to_be_bytes().to_vec();
            bytes.extend_from_slice(&body);
            let _turn = MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            LARGEST.store(0, Ordering::Relaxed);
            let mut codec = proto::FrameCodec::new();
            let mut buf = bytes::BytesMut::new();
            'feed: for chunk in bytes.chunks(step) {
                buf.extend_from_slice(chunk);
                loop {
                    match codec.decode(&mut buf) {
                        Ok(Some(_)) => {}
                        Ok(None) => break,
                        Err(err) if err.is_recoverable() => {}
                        Err(_) => break 'feed,
                    }
                }
            }
            let largest = LARGEST.load(Ordering::Relaxed);
            prop_assert!(largest <= MAX_FRAME + 4096, "a {largest}-byte allocation");
            prop_assert!(largest <= 64 * 1024 + 16 * bytes.len(), "{largest} bytes held for {} sent", bytes.len());
        }
    }
}
