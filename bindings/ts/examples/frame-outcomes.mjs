// Reads a frame stream on stdin and prints one outcome per read, in the
// words of conformance/frames/*.expect.json: `envelope:call`, `empty`,
// `json`, `bad_version:2`, `too_large:N`, `io:unexpected_eof`, `closed`.
//
//   node bindings/ts/examples/frame-outcomes.mjs < capture.bin
import { ContractError, FrameDecoder, FrameError, VersionError } from "../index.js";

const decoder = new FrameDecoder();
for await (const chunk of process.stdin) decoder.push(chunk);

const out = [];
for (;;) {
  try {
    const envelope = decoder.next();
    if (envelope === undefined) {
      decoder.finish();
      out.push("closed");
      break;
    }
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
      break;
    } else if (error instanceof FrameError && error.kind === "unexpected_eof") {
      out.push("io:unexpected_eof");
      break;
    } else {
      throw error;
    }
  }
}
process.stdout.write(out.map((line) => `${line}\n`).join(""));
