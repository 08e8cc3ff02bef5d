// parseEnvelopeText (the JSON text policy, JSON.parse, then parseEnvelope:
// what a lane reading the wire calls) beside JSON.parse alone, on the same
// lines, in one process, one thread, runs interleaved. Run by `cargo xtask bench bindings`; by hand:
//
//   node bindings/ts/bench/decode.mjs corpus.jsonl 7
//
// Prints one line per run: `parse_ns decode_ns`, then `counts PARSED DECODED
// REFUSED`, as the C++ bench does.
import { readFileSync } from "node:fs";
import { ContractError, parseEnvelopeText } from "../index.js";

const [file, runsText] = process.argv.slice(2);
if (file === undefined || runsText === undefined) {
  console.error("usage: decode.mjs CORPUS.jsonl RUNS");
  process.exit(2);
}
const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0);
const runs = Number(runsText);
let parsed = 0;
let decoded = 0;
let refused = 0;
let sink = 0;
for (let run = 0; run < runs; run++) {
  parsed = decoded = refused = 0;
  const start = process.hrtime.bigint();
  for (const line of lines) {
    const value = JSON.parse(line);
    if (value !== null) parsed++;
    sink += value.kind.length;
  }
  const middle = process.hrtime.bigint();
  for (const line of lines) {
    try {
      const envelope = parseEnvelopeText(line);
      sink += envelope.kind.length;
      decoded++;
    } catch (error) {
      if (!(error instanceof ContractError)) throw error;
      refused++;
    }
  }
  const end = process.hrtime.bigint();
  console.log(`${middle - start} ${end - middle}`);
}
console.log(`counts ${parsed} ${decoded} ${refused}`);
console.error(`(sink ${sink})`);
