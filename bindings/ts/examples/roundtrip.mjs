// Reads JSON Lines on stdin and prints, per line, the envelope decoded and
// encoded again as one line of JSON, or a line starting `error: `.
//
//   node bindings/ts/examples/roundtrip.mjs < messages.jsonl
//   node bindings/ts/examples/roundtrip.mjs --type TaskError < errors.jsonl
import { createInterface } from "node:readline";
import { reserialize } from "../index.js";

const args = process.argv.slice(2);
let type = "Envelope";
if (args.length === 2 && args[0] === "--type") {
  type = args[1];
} else if (args.length !== 0) {
  console.error("usage: roundtrip.mjs [--type NAME] < lines.jsonl");
  process.exit(2);
}

const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  try {
    const again = reserialize(type, JSON.parse(line));
    if (again === undefined) {
      console.error(`roundtrip: no contract type is called ${type}`);
      process.exit(2);
    }
    out.push(JSON.stringify(again));
  } catch (error) {
    out.push(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.stdout.write(out.map((line) => `${line}\n`).join(""));
