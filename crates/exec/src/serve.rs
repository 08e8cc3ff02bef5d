//! `vdm-exec serve`: `tool.invoke` calls in frames on one stream, replies in
//! frames on another, calls run concurrently and answered in completion
//! order (each reply carries its call's id).
//!
//! It answers as a JSON-RPC 2.0 server does, with the mapping `proto` gives
//! every server of this contract ([`proto::DecodeError::answer`]): a body
//! that is not JSON gets `parse_error` (id null), JSON that is not an
//! envelope gets `invalid_request`, a call of any method but `tool.invoke`
//! (one this contract knows or one from a newer peer) gets
//! `method_not_found`, and `tool.invoke` with params that do not fit gets
//! `invalid_params`; every answer carries the call's id whenever it was
//! readable. Replies, errors and events are never answered: they are
//! ignored with a log line, as is an empty frame. An answer that cannot be
//! sent as a frame becomes `internal_error` for its call. Only a frame longer than
//! `MAX_FRAME`, or input that ends inside a frame, ends the session early
//! (the stream cannot be resynchronised), and a peer that stops reading:
//! once an answer cannot be written, the calls still queued are dropped
//! unrun and nothing more is read.
//!
//! A client reads answers while it sends: calls and answers queue
//! 32 deep each, and past that serve reads no further until the
//! client has read, as over any stream with back-pressure.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use proto::{
    CallBody, Envelope, FrameError, FrameReader, FrameWriter, ProtocolVersion, ReplyBody, RpcError,
    RpcErrorCode, ToolInvokeParams,
};

use crate::config::Loaded;
use crate::run::execute;

/// The one method an executor serves.
const SERVED: &[&str] = &["tool.invoke"];

/// The most calls waiting for a worker, and the most answers waiting to be
/// written. A peer that sends faster than tools run, or reads nothing of
/// what it is sent, fills these and then waits on its own pipe: what this
/// process holds stays bounded whatever the peer does.
const QUEUED: usize = 32;

/// How a session ended.
#[derive(Debug)]
pub enum End {
    /// The input closed; every call was answered.
    Closed,
    /// A frame was too long, or the input ended inside a frame; calls in
    /// flight were still answered.
    Broken(FrameError),
    /// Replies could not be written (the peer went away); the calls still
    /// queued were not run.
    WriteFailed(FrameError),
    /// No thread to write answers or run calls could be started (the
    /// process or user is at its limit); nothing was read.
    NoThreads(std::io::Error),
}

/// Serves until the input closes. `log` receives one line per diagnostic.
pub fn serve<R, W>(
    tools: Arc<Loaded>,
    input: R,
    output: W,
    jobs: usize,
    log: &(dyn Fn(&str) + Sync),
) -> End
where
    R: Read,
    W: Write + Send,
{
    let (reply_tx, reply_rx) = mpsc::sync_channel::<Envelope>(QUEUED);
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, ToolInvokeParams)>(QUEUED);
    let job_rx = Arc::new(Mutex::new(job_rx));
    // Set when answers can no longer be written (the peer closed its end):
    // the calls still queued are dropped unrun, and the reader stops at the
    // next frame, so a peer that stops reading ends the session instead of
    // leaving the reader blocked on a full queue no worker takes from.
    let gone = AtomicBool::new(false);
    let gone = &gone;
    thread::scope(|scope| {
        let writer = thread::Builder::new().spawn_scoped(scope, move || {
            let mut writer = FrameWriter::new(output);
            let written = reply_rx
                .iter()
                .try_for_each(|envelope| write_answer(&mut writer, &envelope, log));
            if written.is_err() {
                gone.store(true, Ordering::SeqCst);
            }
            written
        });
        let writer = match writer {
            Ok(writer) => writer,
            Err(err) => return End::NoThreads(err),
        };
        let mut workers = 0;
        let mut unstarted = None;
        for _ in 0..jobs.max(1) {
            let job_rx = Arc::clone(&job_rx);
            let reply_tx = reply_tx.clone();
            let tools = Arc::clone(&tools);
            let worker = thread::Builder::new().spawn_scoped(scope, move || loop {
                let next = job_rx.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((id, params)) = next else { return };
                if gone.load(Ordering::SeqCst) {
                    continue;
                }
                let reply = Envelope::Reply {
                    body: ReplyBody::ToolInvoke(execute(&tools, &params)),
                    id: id.into(),
                    v: ProtocolVersion,
                };
                // A failed send means the writer is gone (and `gone` set):
                // the queue is drained, not left full.
                let _ = reply_tx.send(reply);
            });
            match worker {
                Ok(_) => workers += 1,
                Err(err) => {
                    unstarted = Some(err);
                    break;
                }
            }
        }
        if let Some(err) = unstarted {
            if workers == 0 {
                drop(reply_tx);
                let _ = writer.join();
                return End::NoThreads(err);
            }
            log(&format!(
                "vdm-exec: {workers} of {jobs} workers started ({err}); calls run {workers} at once"
            ));
        }
        let read = read_calls(input, &job_tx, &reply_tx, gone, log);
        drop(job_tx);
        drop(reply_tx);
        match writer.join() {
            Ok(Ok(())) => match read {
                Ok(()) => End::Closed,
                Err(err) => End::Broken(err),
            },
            Ok(Err(err)) => End::WriteFailed(err),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Writes one answer. An answer the frame writer refuses (longer than a
/// frame, or JSON the wire does not take) is not sent: the call gets
/// `internal_error` with its id instead, so one call cannot end the session
/// or be left unanswered. Only the stream failing is an error.
fn write_answer<W: Write>(
    writer: &mut FrameWriter<W>,
    answer: &Envelope,
    log: &(dyn Fn(&str) + Sync),
) -> Result<(), FrameError> {
    match writer.write(answer) {
        Err(
            err @ (FrameError::TooLarge(_) | FrameError::Unreadable(_) | FrameError::Encode(_)),
        ) => {
            let id = match answer {
                Envelope::Reply { id, .. } => Some(**id),
                Envelope::Error { id, .. } => *id,
                _ => None,
            };
            let why = proto::wire::sentence(&err);
            log(&format!(
                "the answer to call {} cannot be sent ({why}); answering internal_error instead",
                id.map_or_else(|| "null".to_string(), |id| id.to_string())
            ));
            writer.write(&Envelope::Error {
                body: RpcError::new(
                    RpcErrorCode::InternalError,
                    format!("the executor's answer to this call cannot be sent: {why}"),
                ),
                id,
                v: ProtocolVersion,
            })
        }
        written => written,
    }
}

/// Reads until the input closes (`Ok`), breaks (`Err`), or the replies can
/// no longer be sent (`Ok`: the writer reports its own error).
fn read_calls<R: Read>(
    input: R,
    jobs: &mpsc::SyncSender<(u64, ToolInvokeParams)>,
    replies: &mpsc::SyncSender<Envelope>,
    gone: &AtomicBool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<(), FrameError> {
    let mut reader = FrameReader::new(input);
    loop {
        if gone.load(Ordering::SeqCst) {
            return Ok(());
        }
        let answer = match reader.read() {
            Ok(Envelope::Call {
                body: CallBody::ToolInvoke(params),
                id,
                ..
            }) => {
                if jobs.send((*id, params)).is_err() {
                    return Ok(());
                }
                None
            }
            Ok(Envelope::Call { body, id, .. }) => {
                Some(proto::wire::method_not_found(*id, body.method(), SERVED))
            }
            Ok(Envelope::Event { body, .. }) => {
                let known = if proto::event_info(body.name()).is_some() {
                    ""
                } else {
                    " (a name this contract version does not know)"
                };
                log(&format!(
                    "ignoring the event {}{known}: an executor only answers calls",
                    body.name()
                ));
                None
            }
            Ok(other) => {
                log(&format!(
                    "ignoring an envelope of kind {}: an executor only answers calls",
                    other.kind()
                ));
                None
            }
            Err(FrameError::Decode(err)) => {
                let answer = err.answer();
                if answer.is_none() {
                    log(&format!(
                        "ignoring an envelope of kind {} that cannot be read: {}",
                        err.kind.map_or("?", |kind| kind.name()),
                        proto::wire::sentence(&err)
                    ));
                }
                answer
            }
            Err(FrameError::Empty) => {
                log("skipping an empty frame");
                None
            }
            Err(FrameError::Closed) => return Ok(()),
            Err(err) => return Err(err),
        };
        if let Some(answer) = answer {
            if replies.send(answer).is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::panic)] // Test code: a failed assumption stops the run.
mod tests {
    use super::*;
    use proto::ToolCapture;

    /// An answer longer than a frame is replaced by `internal_error` for its
    /// call, and the writer stays usable.
    #[test]
    fn an_answer_past_a_frame_becomes_internal_error_for_its_call() {
        let mut writer = FrameWriter::new(Vec::new());
        let lines = std::sync::Mutex::new(Vec::new());
        let log = |line: &str| lines.lock().expect("log").push(line.to_string());
        let huge = Envelope::Reply {
            body: ReplyBody::ToolInvoke(ToolCapture::new(
                0,
                String::new(),
                "x".repeat(proto::MAX_FRAME),
            )),
            id: 7.into(),
            v: ProtocolVersion,
        };
        write_answer(&mut writer, &huge, &log).expect("the stream takes it");
        let sent = writer.into_inner();
        let answers: Vec<Envelope> = FrameReader::new(&sent[..])
            .collect::<Result<_, _>>()
            .expect("frames");
        let [Envelope::Error { body, id, .. }] = &answers[..] else {
            panic!("{answers:?}");
        };
        assert_eq!(*id, Some(7));
        assert_eq!(body.code, RpcErrorCode::InternalError);
        assert!(
            body.message.contains("more than the 1048576"),
            "{}",
            body.message
        );
        let lines = lines.into_inner().expect("log");
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("the answer to call 7 cannot be sent")),
            "{lines:?}"
        );
    }
}
