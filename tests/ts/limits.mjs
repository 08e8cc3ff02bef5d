// No input makes the TypeScript reader recurse or work out of proportion to
// it: 64 MiB texts of the shapes that break readers, read under
// `node --stack-size=256` (KiB), each get an answer (exit 0 when all are as
// expected).
import { ContractError, parseEnvelopeText } from "../../bindings/ts/index.js";

const SIZE = 64 << 20;
const repeat = (unit) => unit.repeat(Math.floor(SIZE / unit.length));
let wide = '{"v":1,"kind":"call","id":1,"body":{"method":"tool.invoke","params":{"tool":"t","input":[';
wide += "1,".repeat((SIZE - wide.length) / 2) + "1]}}}";
const members = [];
let length = 1;
for (let n = 0; length < SIZE; n++) {
  const member = `"k${n}":0`;
  members.push(member);
  length += member.length + 1;
}
const call = '{"v":1,"kind":"call","id":1,"body":{"method":"download.list","params":{}}}';
const shapes = [
  ["arrays opened", repeat("["), false],
  ["objects opened", repeat('{"a":'), false],
  ["a call whose input is a wide array", wide, true],
  ["many members, one repeated last", `{${members.join(",")},"k0":1}`, false],
  ["one long string", `"${"a".repeat(SIZE)}"`, false],
  ["a wide array left open", wide.slice(0, -5), false],
  ["an id as long as the text", call.replace('"id":1', `"id":${"1".repeat(SIZE)}`), false],
  ["a call after 64 MiB of spaces", `${" ".repeat(SIZE)}${call}\n`, true],
];

let failures = 0;
for (const [name, text, envelope] of shapes) {
  let read = true;
  try {
    parseEnvelopeText(text);
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    read = false;
  }
  if (read !== envelope) {
    console.error(`${name}: read ${read}, expected ${envelope}`);
    failures++;
  }
}
process.exit(failures === 0 ? 0 : 1);
