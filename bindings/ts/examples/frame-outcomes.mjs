// Reads a frame stream on stdin and prints one outcome per read, in the
// words of conformance/frames/*.expect.json: `envelope:call`, `empty`,
// `json`, `bad_version:2`, `too_large:N`, `io:unexpected_eof`, `closed`.
// The stream is pushed into a FrameDecoder whole, or with CHUNK, CHUNK bytes
// at a time as a socket's bytes arrive, each push followed by every envelope
// it completed; the outcomes are the same.
//
//   node bindings/ts/examples/frame-outcomes.mjs [CHUNK] < capture.bin
import { ContractError, FrameDecoder, FrameError, VersionError } from "../index.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const bytes = Buffer.concat(chunks);
const chunk = process.argv[2] === undefined ? Math.max(bytes.length, 1) : Number(process.argv[2]);
if (!Number.isSafeInteger(chunk) || chunk < 1) {
  process.stderr.write("CHUNK is a count of bytes, at least 1\n");
  process.exit(2);
}

const out = [];
// The outcome of one read: "go on", "nothing" (more bytes needed, or the
// end for finish) or "stop".
/** @param {() => { kind: string } | undefined | void} read */
function step(read) {
  try {
    const envelope = read();
    if (envelope === undefined) return "nothing";
    out.push(`envelope:${envelope.kind}`);
  } catch (error) {
    if (error instanceof VersionError) {
      out.push(`bad_version:${error.version}`);
    } else if (error instanceof ContractError) {
      out.push("json");
    } else if (error instanceof FrameError && error.kind === "empty") {
      out.push("empty");
    } else if (error instanceof FrameError && error.kind === "too_large") {
      out.push(`too_large:${error.length}`);
      return "stop";
    } else if (error instanceof FrameError && error.kind === "unexpected_eof") {
      out.push("io:unexpected_eof");
      return "stop";
    } else {
      throw error;
    }
  }
  return "go on";
}

const decoder = new FrameDecoder();
let done = "go on";
for (let at = 0; at < bytes.length && done !== "stop"; at += chunk) {
  decoder.push(bytes.subarray(at, at + chunk));
  do done = step(() => decoder.next());
  while (done === "go on");
}
if (done !== "stop" && step(() => decoder.finish()) === "nothing") out.push("closed");
process.stdout.write(out.map((line) => `${line}\n`).join(""));
