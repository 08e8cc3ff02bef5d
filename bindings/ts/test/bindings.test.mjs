// The TypeScript bindings' own tests, run with `node --test` (from
// bindings/ts). The fixtures are run by the workspace's `cargo test`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";

import {
  ContractError,
  FrameDecoder,
  FrameError,
  MAX_FRAME,
  Secret,
  TaskStateValues,
  UnknownEvent,
  VersionError,
  decodeFrameBody,
  encodeFrame,
  parseDownloadAddParams,
  parseEnvelope,
  parseEnvelopeText,
  parseToolInvokeParams,
  readJson,
  writeJson,
} from "../index.js";

const auth = (password) => ({
  v: 1,
  kind: "call",
  id: 7,
  body: { method: "download.provideAuth", params: { taskId: "t_01", username: "u", password } },
});

test("a secret is never printed, and still goes on the wire", () => {
  const envelope = parseEnvelope(auth("hunter2"));
  const password = envelope.body.params.password;
  assert.ok(password instanceof Secret);
  assert.equal(String(password), "<redacted>");
  assert.equal(`${password}`, "<redacted>");
  assert.ok(!inspect(envelope, { depth: 10 }).includes("hunter2"), inspect(envelope, { depth: 10 }));
  assert.equal(password.reveal(), "hunter2");
  assert.equal(JSON.parse(JSON.stringify(envelope)).body.params.password, "hunter2");
});

test("an error about a secret names its place, not its value", () => {
  const long = "p".repeat(1025);
  assert.throws(
    () => parseEnvelope(auth(long)),
    (error) => error instanceof ContractError && error.pointer === "/body/params/password" && !error.message.includes("ppp"),
  );
});

// readJson counts member names at their colons and checks the numbers
// that follow them; what that count cannot settle goes to the loop over the
// whole text. Each case here is one the quick count could get wrong.
test("text policy: what the quick count cannot see is still judged", () => {
  const refused = (text, why) => assert.throws(() => readJson(text), (error) => error instanceof ContractError && error.message.includes(why), text);
  // Colons and numbers inside strings are no members and no numbers.
  assert.deepEqual(readJson('{"a":"\\":1","b":"x:9007199254740993"}'), { a: '":1', b: "x:9007199254740993" });
  assert.deepEqual(readJson('{"a" : "\\" : 1.5e999"}'), { a: '" : 1.5e999' });
  // A repeat hidden behind a colon in a string is still a repeat.
  refused('{"a":"\\":","a":1}', 'the member "a" appears twice in one object (byte 11)');
  refused('{"a" :1, "b":{"c":2,"c":3}}', 'the member "c" appears twice in one object (byte 20)');
  // Numbers that are items, or the whole text, not member values.
  refused("[9007199254740993]", "beyond");
  refused('{"a":[1,[2,1e400]]}', "beyond what a double holds");
  refused("1e400", "beyond what a double holds");
  refused('{"a": 12345678901234567890}', "beyond");
  assert.deepEqual(readJson('{"a":[9007199254740991,-9007199254740991,0.5]}'), { a: [9007199254740991, -9007199254740991, 0.5] });
  // Brackets in strings are counted by the quick count, not nested.
  assert.equal(readJson(JSON.stringify({ a: "[".repeat(200) })).a.length, 200);
  refused("[".repeat(128) + "]".repeat(128), "nest more than 127");
  // An integer written with a fraction, where the contract wants one.
  assert.throws(() => parseEnvelopeText('{"v":1,"kind":"call","id":7.0,"body":{"method":"download.list","params":{}}}'), /written with a fraction/);
  assert.throws(() => parseEnvelopeText('{"v":1e0,"kind":"call","id":7,"body":{"method":"download.list","params":{}}}'), /fraction, an exponent/);
  // -0 is refused too, and the message says why in its words.
  assert.throws(() => parseEnvelopeText('{"v":-0,"kind":"call","id":7,"body":{"method":"download.list","params":{}}}'), /as -0/);
  assert.throws(() => parseEnvelopeText('{"v":1,"kind":"call","id":-0,"body":{"method":"download.list","params":{}}}'), /as -0/);
});

test("errors name the JSON pointer", () => {
  const call = { v: 1, kind: "call", id: 1, body: { method: "download.add", params: { spec: { url: "https://a/b", segments: 33 } } } };
  assert.throws(() => parseEnvelope(call), { name: "ContractError", pointer: "/body/params/spec/segments" });
  assert.throws(() => parseDownloadAddParams({ spec: { url: "https://a/b", headers: { "a/b": 7 } } }), {
    pointer: "/spec/headers/a~1b",
  });
});

test("v decides before anything else", () => {
  assert.throws(() => parseEnvelope({ v: 2, kind: "nonsense" }), (error) => error instanceof VersionError && error.version === 2);
  assert.throws(() => parseEnvelope({ kind: "call" }), { pointer: "/v" });
});

test("an unknown event decodes, is told apart, and is written back unchanged", () => {
  const value = { v: 1, kind: "event", body: { name: "event.from.the.future", params: { a: [1, 2] } } };
  const envelope = parseEnvelope(value);
  assert.equal(envelope.kind, "event");
  assert.ok(envelope.kind === "event" && envelope.body instanceof UnknownEvent);
  assert.deepEqual(JSON.parse(JSON.stringify(envelope)), value);
});

test("unknown fields are ignored and dropped", () => {
  const params = parseDownloadAddParams({ spec: { url: "https://a/b", later: true }, extra: 1 });
  assert.deepEqual(params, { spec: { url: "https://a/b" } });
});

test("a map key such as __proto__ stays data", () => {
  const params = parseDownloadAddParams(JSON.parse('{"spec": {"url": "https://a/b", "headers": {"__proto__": "x"}}}'));
  assert.equal(Object.getPrototypeOf(params.spec.headers), Object.prototype);
  assert.deepEqual(Object.keys(params.spec.headers), ["__proto__"]);
});

test("lengths count code points, not UTF-16 units", () => {
  // 255 astral characters are 510 UTF-16 units and within fileName's 255.
  const name = "😀".repeat(255);
  assert.equal(parseDownloadAddParams({ spec: { url: "https://a/b", fileName: name } }).spec.fileName, name);
  assert.throws(() => parseDownloadAddParams({ spec: { url: "https://a/b", fileName: name + "😀" } }), {
    pointer: "/spec/fileName",
  });
});

test("enums carry their values", () => {
  assert.ok(TaskStateValues.includes("paused"));
  assert.ok(Object.isFrozen(TaskStateValues));
});

test("frames: byte by byte gives what one chunk gives", () => {
  const a = { v: 1, kind: "call", id: 1, body: { method: "download.pause", params: { taskId: "t_01" } } };
  const b = { v: 1, kind: "event", body: { name: "event.task.removed", params: { taskId: "t_01" } } };
  const bytes = new Uint8Array([...encodeFrame(parseEnvelope(a)), ...encodeFrame(parseEnvelope(b))]);
  const decoder = new FrameDecoder();
  const read = [];
  for (const byte of bytes) {
    decoder.push(Uint8Array.of(byte));
    for (let envelope = decoder.next(); envelope !== undefined; envelope = decoder.next()) read.push(envelope);
  }
  decoder.finish();
  assert.deepEqual(JSON.parse(JSON.stringify(read)), [a, b]);
});

test("frames: bytes come as any view of memory; a string is a TypeError, not zero bytes", () => {
  const a = { v: 1, kind: "call", id: 1, body: { method: "download.pause", params: { taskId: "t_01" } } };
  const frame = encodeFrame(parseEnvelope(a));
  const body = frame.subarray(4);
  const copy = () => new Uint8Array(frame).buffer;
  for (const bytes of [frame, Buffer.from(frame), copy(), new DataView(copy())]) {
    const decoder = new FrameDecoder();
    decoder.push(bytes);
    assert.deepEqual(JSON.parse(JSON.stringify(decoder.next())), a);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(decodeFrameBody(body.slice().buffer))), a);
  const text = new TextDecoder().decode(frame);
  for (const wrong of [text, [...frame], null, undefined]) {
    const decoder = new FrameDecoder();
    assert.throws(() => decoder.push(wrong), TypeError);
    assert.throws(() => decodeFrameBody(wrong), TypeError);
  }
  assert.throws(() => new FrameDecoder().push(text), /not a string: read the stream as bytes/);
  assert.throws(() => decodeFrameBody(text.slice(4)), /not a string: a message that is text already .* is read with parseEnvelopeText/);
  assert.throws(() => decodeFrameBody(new Blob([body])), /a Blob, whose bytes come from `await blob.arrayBuffer\(\)`/);
  for (const wrong of [body, null, 7, { v: 1 }]) {
    assert.throws(() => parseEnvelopeText(wrong), /parseEnvelopeText takes JSON text as a string/);
    assert.throws(() => readJson(wrong), /readJson takes JSON text as a string/);
  }
  assert.throws(() => readJson(body), /bytes from the wire go to decodeFrameBody/);
  for (const nothing of [undefined, () => 1]) {
    assert.throws(() => encodeFrame(nothing), { kind: "unreadable", message: /has no JSON text/ });
  }
});

test("frames: a length past MAX_FRAME is refused before its body arrives", () => {
  const decoder = new FrameDecoder();
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, MAX_FRAME + 1, false);
  decoder.push(header);
  assert.throws(() => decoder.next(), (error) => error instanceof FrameError && error.kind === "too_large" && error.length === MAX_FRAME + 1);
  assert.throws(() => decoder.push(new Uint8Array(1)), { kind: "too_large" });
});

test("frames: an envelope too large to send is refused", () => {
  const big = parseEnvelope({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input: "x".repeat(MAX_FRAME) } } });
  assert.throws(() => encodeFrame(big), { kind: "too_large" });
});

test("frames: an envelope whose text a reader would refuse is not encoded", () => {
  let deep = 1;
  for (let i = 0; i < 200; i++) deep = [deep];
  for (const input of [deep, "caf\ud83d"]) {
    const envelope = parseEnvelope({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input: 1 } } });
    envelope.body.params.input = input;
    assert.throws(() => encodeFrame(envelope), (error) => error instanceof FrameError && error.kind === "unreadable", JSON.stringify(input)?.slice(0, 40));
  }
  // A whole number past 2^53 − 1 where an integer is wanted.
  const progress = parseEnvelope({ v: 1, kind: "event", body: { name: "event.task.progress", params: { taskId: "t_01", downloadedBytes: 1, speedBytesPerSec: 0, segments: [] } } });
  progress.body.params.downloadedBytes = 2 ** 60;
  assert.throws(() => encodeFrame(progress), (error) => error instanceof FrameError && error.kind === "unreadable");
  const cycle = {};
  cycle.self = cycle;
  for (const input of [10n, cycle]) {
    const envelope = parseEnvelope({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input: 1 } } });
    envelope.body.params.input = input;
    assert.throws(() => encodeFrame(envelope), (error) => error instanceof FrameError && error.kind === "unreadable");
  }
});

test("writeJson: what JSON.stringify would write as something else is refused by place", () => {
  const refused = [
    [{ ratio: NaN }, /^NaN at \/ratio would be written as null/],
    [{ list: [1, Infinity] }, /^Infinity at \/list\/1 would be written as null/],
    [-Infinity, /^-Infinity at \(root\) would be written as null/],
    [{ headers: new Map([["k", "v"]]) }, /^a Map at \/headers would be written as \{\}/],
    [{ tags: new Set(["a"]) }, /^a Set at \/tags would be written as \{\}/],
    [{ error: new Error("boom") }, /^an Error at \/error would be written as \{\}/],
    [{ bytes: new Uint8Array([1, 2]) }, /^a Uint8Array at \/bytes would be written as an object of its indexes/],
    [[1, undefined], /^nothing in an array at \/1 would be written as null/],
    [[() => 1], /^a function in an array at \/0 would be written as null/],
    [{ "a/b~\nc": NaN }, /^NaN at \/a~1b~0\\u000ac would be written as null/],
  ];
  for (const [value, said] of refused) {
    assert.throws(() => writeJson(value), (error) => error instanceof TypeError && said.test(error.message), String(said));
  }
  // What it writes as it holds it: a Date by its toJSON, a member that is
  // nothing or a function left out, as JSON.stringify leaves it out.
  assert.equal(writeJson({ when: new Date(0), gone: undefined, f: () => 1, n: [1.5, -0] }), '{"when":"1970-01-01T00:00:00.000Z","n":[1.5,0]}');
  // The frame writer says where, through the envelope's own toJSON.
  const envelope = parseEnvelope({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input: { ratio: 0.5 } } } });
  envelope.body.params.input.ratio = NaN;
  assert.throws(() => encodeFrame(envelope), (error) => error instanceof FrameError && error.kind === "unreadable" && /NaN at \/body\/params\/input\/ratio would be written as null/.test(error.message));
});

test("a value nested deeper than the wire takes is refused by every reader of values and by writeJson", () => {
  const nest = (levels) => {
    let value = 1;
    for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
    return value;
  };
  const call = (input) => ({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input } } });
  const cycle = {};
  cycle.self = cycle;
  // The envelope's own three levels, then the input's: 127 in all is read.
  const deepest = call(nest(124));
  assert.deepEqual(parseEnvelope(deepest), deepest);
  assert.equal(writeJson(deepest), JSON.stringify(deepest));
  const refusedRead = (error) => error instanceof ContractError && error.pointer === "" && error.message === "at /: the value nests more than 127 deep, which no reader of the wire takes";
  // 100,000 deep, as JSON.parse builds it, ends nothing: each reader of a
  // value says why, as readJson refuses its text.
  const text = JSON.stringify(call([])).replace("[]", "[".repeat(100000) + "]".repeat(100000));
  // Every type's reader holds the value it is given to the depth.
  assert.deepEqual(parseToolInvokeParams({ tool: "t", input: nest(126) }), { tool: "t", input: nest(126) });
  for (const input of [nest(127), JSON.parse(text).body.params.input, cycle]) {
    assert.throws(() => parseToolInvokeParams({ tool: "t", input }), refusedRead);
  }
  for (const value of [call(nest(125)), JSON.parse(text), call(cycle)]) {
    assert.throws(() => parseEnvelope(value), refusedRead);
    assert.throws(() => writeJson(value), (error) => error instanceof TypeError && /^arrays and objects nest more than 127 deep at \/body\/params\/input\/.*, which no reader of the wire takes$/.test(error.message));
    assert.throws(() => encodeFrame(value), (error) => error instanceof FrameError && error.kind === "unreadable" && error.message.includes("nest more than 127 deep"));
  }
  assert.throws(() => parseEnvelopeText(text), (error) => error instanceof ContractError && error.message.includes("nest more than 127 deep at byte"));
});

test("frames: bytes in shared memory read as the same bytes elsewhere", () => {
  const a = auth("pw");
  const frame = encodeFrame(parseEnvelope(a));
  const shared = new Uint8Array(new SharedArrayBuffer(frame.length));
  shared.set(frame);
  // As browsers' TextDecoder does (Chrome: "must not be shared"); node's
  // takes a shared view.
  const decode = TextDecoder.prototype.decode;
  TextDecoder.prototype.decode = function (input, options) {
    if (ArrayBuffer.isView(input) && Object.prototype.toString.call(input.buffer) === "[object SharedArrayBuffer]") {
      throw new TypeError("The provided ArrayBufferView value must not be shared.");
    }
    return decode.call(this, input, options);
  };
  try {
    assert.deepEqual(JSON.parse(JSON.stringify(decodeFrameBody(shared.subarray(4)))), a);
    for (const bytes of [shared, shared.buffer]) {
      const decoder = new FrameDecoder();
      decoder.push(bytes);
      assert.deepEqual(JSON.parse(JSON.stringify(decoder.next())), a);
    }
  } finally {
    TextDecoder.prototype.decode = decode;
  }
});

test("writeJson: a whole number past 2^53 − 1 is written as a double, and reads back the same", () => {
  const free = (input) => ({ v: 1, kind: "call", id: 1, body: { method: "tool.invoke", params: { tool: "t", input } } });
  for (const number of [2 ** 53, -(2 ** 53), 2 ** 60, 9.1e15, 123456789012345680000, 1e21, 2 ** 53 - 1, 4.5e15, 0.1]) {
    const input = { n: number, list: [number, "9007199254740993", { "12345678901234567": number }] };
    const text = writeJson(input);
    assert.deepEqual(readJson(text), input, text);
    // Digits inside strings and names are left as they are.
    assert.ok(text.includes('"9007199254740993"') && text.includes('"12345678901234567"'), text);
    const again = decodeFrameBody(encodeFrame(parseEnvelope(free(input))).subarray(4));
    assert.deepEqual(again.body.params.input, input);
  }
  // Any finite double, from its bits: read back as the same number.
  const bits = new DataView(new ArrayBuffer(8));
  let seed = 0x9e3779b9;
  const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
  for (let i = 0; i < 20000; i++) {
    bits.setUint32(0, next());
    bits.setUint32(4, next());
    // Every fourth a whole number from 2^53 to about 1e21, the numbers
    // JSON.stringify spells as digits; every eighth of those negative.
    const whole = Math.trunc(2 ** 53 * (1 + (next() / 2 ** 32) * 100000)) * (i % 8 === 0 ? -1 : 1);
    const number = i % 4 === 0 ? whole : bits.getFloat64(0);
    if (!Number.isFinite(number) || Object.is(number, -0)) continue;
    const text = writeJson([number]);
    assert.ok(Object.is(readJson(text)[0], number), `${number} written ${text}`);
  }
  assert.equal(writeJson({ n: 2 ** 53 }), '{"n":9.007199254740992e+15}');
  assert.equal(writeJson({ n: 2 ** 53 - 1 }), '{"n":9007199254740991}');
  assert.equal(writeJson(undefined), undefined);
  assert.throws(() => writeJson(1n), TypeError);
});

test("frames: an envelope a reader refuses by its schema is not encoded", () => {
  const progress = () =>
    parseEnvelope({ v: 1, kind: "event", body: { name: "event.task.progress", params: { taskId: "t_01", downloadedBytes: 10, speedBytesPerSec: 1, segments: [] } } });
  const cases = [
    ["/body/params/downloadedBytes", (p) => { p.downloadedBytes = NaN; }],
    ["/body/params/downloadedBytes", (p) => { p.downloadedBytes = 1.5; }],
    ["/body/params/downloadedBytes", (p) => { p.downloadedBytes = -1; }],
    ["/body/params/taskId", (p) => { p.taskId = "t 01"; }],
    ["/body/params/segments/0/index", (p) => { p.segments = [{ index: 32, downloadedBytes: 0, state: "downloading" }]; }],
  ];
  assert.doesNotThrow(() => encodeFrame(progress()));
  for (const [pointer, spoil] of cases) {
    const envelope = progress();
    spoil(envelope.body.params);
    assert.throws(
      () => encodeFrame(envelope),
      (error) => error instanceof FrameError && error.kind === "unreadable" && error.message.includes(pointer),
      pointer,
    );
  }
});

// V8's own message for text it refuses quotes the text around the fault,
// which may be a password: the reader says where and what was expected.
test("text that is not JSON is refused by place, never quoted", () => {
  const call = '{"v":1,"kind":"call","id":7,"body":{"method":"download.provideAuth","params":{"taskId":"t","username":"u","password":';
  const cases = [
    [`${call}hunter2}}}`, "byte 117: expected a value"],
    [`${call}"hunter2" "save":true}}}`, "byte 127: expected `,` or `}` after a member"],
    [`${call}"hunter2",}}}`, "byte 127: expected a member name in quotes"],
    [`${call}["hunter2" 1]}}}`, "byte 128: expected `,` or `]` after an item"],
    [`${call}"hunter2\\x"}}}`, "byte 126: expected one of"],
    [`${call}"hunter2\\u12"}}}`, "byte 127: expected four hex digits"],
    [`${call}"hunter2\\u0001\u0001"}}}`, "byte 131: expected an escape, not a raw control character"],
    [`${call}"hunter2`, "byte 125: expected the end of a string"],
    [`${call}-hunter2}}}`, "byte 118: expected a digit"],
    [`${call}1.hunter2}}}`, "byte 119: expected a digit after the decimal point"],
    [`${call}1ehunter2}}}`, "byte 119: expected a digit in the exponent"],
    [`${call}truehunter2}}}`, "byte 121: expected `,` or `}` after a member"],
    [`${call}nul}}}`, "byte 117: expected true, false or null"],
    [`${call}"hunter2"}}} hunter2`, "byte 130: expected the end of the text"],
    [`${call}{"a":1`, "byte 123: expected more JSON, not the end of the text"],
    [`${call}"ééé" hunter2}}}`, "byte 126: expected `,` or `}` after a member"],
    [`{"hunter2" 1}`, "byte 11: expected `:` after a member name"],
    ["", "byte 0: expected more JSON, not the end of the text"],
  ];
  for (const [text, why] of cases) {
    assert.throws(
      () => parseEnvelopeText(text),
      (error) => error instanceof ContractError && error.message.includes(why) && !error.message.includes("hunter"),
      text,
    );
  }
});

test("readJson: an integer literal as long as a frame is quoted cut", () => {
  for (const digits of [17, 300000]) {
    const literal = "9".repeat(digits);
    assert.throws(
      () => readJson(`{"n": ${literal}}`),
      (error) => error instanceof ContractError && error.message.includes("beyond") && error.message.length < 200,
    );
  }
});

test("frames: the bytes ending inside a frame is unexpected_eof", () => {
  const frame = encodeFrame(parseEnvelope({ v: 1, kind: "call", id: 1, body: { method: "download.pause", params: { taskId: "t" } } }));
  const decoder = new FrameDecoder();
  decoder.push(frame.subarray(0, frame.length - 1));
  assert.equal(decoder.next(), undefined);
  assert.throws(() => decoder.finish(), { kind: "unexpected_eof" });
});

test("the module runs no generated code: no eval, no Function constructor", async () => {
  const { readFileSync } = await import("node:fs");
  const text = readFileSync(new URL("../index.js", import.meta.url), "utf8");
  assert.ok(!/\beval\s*\(/.test(text), "eval");
  assert.ok(!/\bFunction\s*\(/.test(text), "Function(");
});
