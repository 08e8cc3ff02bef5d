//! `vdm-exec serve`: `tool.invoke` calls in frames on one stream, replies in
//! frames on another, calls run concurrently and answered in completion
//! order (each reply carries its call's id).
//!
//! What arrives that is not a `tool.invoke` call is answered, not fatal: a
//! body that is not JSON gets `parse_error`, JSON that is not an envelope gets
//! `invalid_request` (both with `id: null`), a wrong version gets an error
//! envelope, another method gets `method_not_found`; an empty frame is
//! skipped. Only a frame longer than `MAX_FRAME` ends the session: its body
//! was not read, so the stream cannot be resynchronised.

use std::io::{Read, Write};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use proto::{
    CallBody, Envelope, FrameError, FrameReader, FrameWriter, ProtocolVersion, ReplyBody, RpcError,
    RpcErrorCode,
};

use crate::config::Loaded;
use crate::run::{execute, Invocation};

/// How a session ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The input closed; every call was answered.
    Closed,
    /// A frame was too long, or the input ended inside a frame; calls in
    /// flight were still answered.
    Broken(String),
    /// Replies could not be written (the peer went away).
    WriteFailed(String),
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
    let (reply_tx, reply_rx) = mpsc::channel::<Envelope>();
    let (job_tx, job_rx) = mpsc::channel::<(u64, Invocation)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let mut writer = FrameWriter::new(output);
            for envelope in reply_rx {
                if let Err(err) = writer.write(&envelope) {
                    return Err(err.to_string());
                }
            }
            Ok(())
        });
        for _ in 0..jobs.max(1) {
            let job_rx = Arc::clone(&job_rx);
            let reply_tx = reply_tx.clone();
            let tools = Arc::clone(&tools);
            scope.spawn(move || loop {
                let next = job_rx.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((id, invocation)) = next else { return };
                let capture = execute(&tools, &invocation);
                let reply = Envelope::Reply {
                    body: ReplyBody::ToolInvoke(capture),
                    id: id.into(),
                    v: ProtocolVersion,
                };
                if reply_tx.send(reply).is_err() {
                    return;
                }
            });
        }
        let end = read_calls(input, &job_tx, &reply_tx, log);
        drop(job_tx);
        drop(reply_tx);
        match writer.join() {
            Ok(Ok(())) => end,
            Ok(Err(err)) => End::WriteFailed(err),
            Err(_) => End::WriteFailed("the reply writer failed".into()),
        }
    })
}

fn error(id: Option<u64>, code: RpcErrorCode, message: String) -> Envelope {
    Envelope::Error {
        body: RpcError {
            code,
            message,
            data: None,
        },
        id,
        v: ProtocolVersion,
    }
}

fn read_calls<R: Read>(
    input: R,
    jobs: &mpsc::Sender<(u64, Invocation)>,
    replies: &mpsc::Sender<Envelope>,
    log: &(dyn Fn(&str) + Sync),
) -> End {
    let mut reader = FrameReader::new(input);
    loop {
        let decoded = match reader.read_raw() {
            Ok(body) => proto::frame::decode_body(body),
            Err(err) => Err(err),
        };
        let answer = match decoded {
            Ok(Envelope::Call {
                body: CallBody::ToolInvoke(params),
                id,
                ..
            }) => {
                let invocation = Invocation {
                    tool: params.tool,
                    input: params.input,
                    cwd: params.cwd,
                };
                if jobs.send((*id, invocation)).is_err() {
                    return End::WriteFailed("the workers stopped".into());
                }
                None
            }
            Ok(Envelope::Call { body, id, .. }) => Some(error(
                Some(*id),
                RpcErrorCode::MethodNotFound,
                format!(
                    "this executor serves tool.invoke only, not {}",
                    body.method()
                ),
            )),
            Ok(other) => {
                log(&format!(
                    "ignoring a {} envelope: an executor only answers calls",
                    kind(&other)
                ));
                None
            }
            Err(FrameError::Json(err)) => {
                let code = match err.classify() {
                    serde_json::error::Category::Data => RpcErrorCode::InvalidRequest,
                    _ => RpcErrorCode::ParseError,
                };
                Some(error(
                    None,
                    code,
                    format!("the frame's body is not a valid envelope: {err}"),
                ))
            }
            Err(err @ FrameError::BadVersion(_)) => {
                Some(error(None, RpcErrorCode::InvalidRequest, err.to_string()))
            }
            Err(FrameError::Empty) => {
                log("skipping an empty frame");
                None
            }
            Err(FrameError::Closed) => return End::Closed,
            Err(err) => return End::Broken(err.to_string()),
        };
        if let Some(answer) = answer {
            if replies.send(answer).is_err() {
                return End::WriteFailed("the reply writer stopped".into());
            }
        }
    }
}

fn kind(envelope: &Envelope) -> &'static str {
    match envelope {
        Envelope::Call { .. } => "call",
        Envelope::Reply { .. } => "reply",
        Envelope::Error { .. } => "error",
        Envelope::Event { .. } => "event",
    }
}
