// A reader held open for the differential tests: frames on stdin, one line
// per frame on stdout, in the words tests/src/readers.rs reads (see
// tests/cpp/reader_server.cpp); what is read is written back by encodeFrame.
import { ContractError, FrameDecoder, FrameError, VersionError, encodeFrame } from "../../bindings/ts/index.js";

const decoder = new FrameDecoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });
let stopped = false;

function outcome() {
  try {
    const envelope = decoder.next();
    if (envelope === undefined) return undefined;
    // Written back by the frame writer, which reads its text back with the
    // whole reader: what was read must be writable again.
    let frame;
    try {
      frame = encodeFrame(envelope);
    } catch (error) {
      return `crash ${JSON.stringify(`encodeFrame refused it: ${String(error)}`)}`;
    }
    return `ok ${utf8.decode(frame.subarray(4))}`;
  } catch (error) {
    if (error instanceof VersionError) return `version ${error.version}`;
    if (error instanceof ContractError) {
      return error.pointer === "" && error.message.startsWith("at /: not JSON as the wire takes it")
        ? `text ${JSON.stringify(error.message)}`
        : `contract ${JSON.stringify(error.pointer)}`;
    }
    if (error instanceof FrameError) {
      if (!error.recoverable) stopped = true;
      return `frame ${error.kind}`;
    }
    return `crash ${JSON.stringify(String(error))}`;
  }
}

for await (const chunk of process.stdin) {
  if (stopped) break;
  decoder.push(chunk);
  const lines = [];
  for (let line = outcome(); line !== undefined && !stopped; line = outcome()) lines.push(line);
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}
