//! A long-running `serve` leaves no thread behind, even when every call's
//! tool leaves a descendant outside its process group holding the output
//! pipes open. (One test in this binary: it counts the process's threads.)

// Test code: a failed assumption here stops the run, as it should.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use proto::{Envelope, FrameReader, FrameWriter, ProtocolVersion, ReplyBody, ToolInvokeParams};
use serde_json::json;

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

#[test]
fn fifty_calls_whose_helpers_escape_the_group_leave_no_thread_behind() {
    const CALLS: u64 = 50;
    let tools = Arc::new(common::tools(&[(
        "escape",
        &["escape", "60"],
        json!({"deadlineSecs": 30}),
    )]));
    let mut input = FrameWriter::new(Vec::new());
    for id in 0..CALLS {
        input
            .write(&Envelope::Call {
                body: ToolInvokeParams::new(json!(null), "escape".into()).into(),
                id: id.into(),
                v: ProtocolVersion,
            })
            .expect("a call fits a frame");
    }
    let input = input.into_inner();
    let before = thread_count();
    let mut output = Vec::new();
    let end = exec::serve::serve(tools, &input[..], &mut output, 8, &|_| {});
    let replies: Vec<Envelope> = FrameReader::new(&output[..])
        .collect::<Result<_, _>>()
        .expect("only frames come out");
    let sleepers: Vec<u32> = replies
        .iter()
        .filter_map(|reply| match reply {
            Envelope::Reply {
                body: ReplyBody::ToolInvoke(capture),
                ..
            } => capture
                .stdout
                .strip_prefix("started ")
                .and_then(|rest| rest.trim().parse().ok()),
            _ => None,
        })
        .collect();
    // Threads end asynchronously after they hand over their result: wait for
    // the count to settle rather than reading it once.
    let settle = Instant::now() + Duration::from_secs(20);
    while thread_count() > before && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = thread_count();
    for pid in &sleepers {
        if let Ok(pid) = libc::pid_t::try_from(*pid) {
            // SAFETY: kill(2) with plain integers; these are our own sleepers.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    assert!(
        matches!(end, exec::serve::End::Closed),
        "the session ended with {end:?}"
    );
    assert_eq!(replies.len() as u64, CALLS, "every call is answered");
    assert!(
        after <= before,
        "{before} threads before serve, {after} after: pump threads were left behind"
    );
    assert_eq!(
        sleepers.len() as u64,
        CALLS,
        "each capture keeps what arrived before the pipes were given up"
    );
}
