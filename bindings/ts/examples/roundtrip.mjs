// Reads JSON Lines on stdin and prints, per line, the envelope decoded and
// encoded again as one line of JSON, or a line starting `error: `.
//
//   node bindings/ts/examples/roundtrip.mjs < messages.jsonl
//   node bindings/ts/examples/roundtrip.mjs --type TaskError < errors.jsonl
//
// Lines end at a newline only (a carriage return before it is dropped, one
// elsewhere is part of the line), and each line is UTF-8 or an error: the
// bytes are split first and decoded one line at a time, so a bad byte is
// that line's error and not a replacement character.
import { readJson, reserialize, writeJson } from "../index.js";

const args = process.argv.slice(2);
let type = "Envelope";
const [flag, name] = args;
if (args.length === 2 && flag === "--type" && name !== undefined) {
  type = name;
} else if (args.length !== 0) {
  console.error("usage: roundtrip.mjs [--type NAME] < lines.jsonl");
  process.exit(2);
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = Buffer.concat(chunks);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const out = [];
let start = 0;
while (start < input.length) {
  let end = input.indexOf(0x0a, start);
  if (end === -1) end = input.length;
  let line = input.subarray(start, end);
  start = end + 1;
  if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
  try {
    let text;
    try {
      text = utf8.decode(line);
    } catch {
      throw new Error("at /: not JSON as the wire takes it: the line is not UTF-8");
    }
    const again = reserialize(type, readJson(text));
    if (again === undefined) {
      console.error(`roundtrip: no contract type is called ${type}`);
      process.exit(2);
    }
    out.push(writeJson(again));
  } catch (error) {
    out.push(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.stdout.write(out.map((line) => `${line}\n`).join(""));
