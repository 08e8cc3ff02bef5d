// A TypeScript binding's reader and writer (INDEX, a bindings' index.js) in
// whichever JavaScript engine runs this: node (V8), SpiderMonkey's shell or
// JavaScriptCore's. INPUTS holds {"inputs": [strings], "pollution": {name:
// value}}, written in ASCII so every shell reads it alike; for each input one
// line: what parseEnvelopeText then writeJson gives, or the refusal, then the
// same for readJson; non-ASCII escaped. tests/tests/engines.rs compares the
// lines. With --without-is-well-formed, String.prototype.isWellFormed is
// taken away first, so the fallback for engines that lack it runs too; with
// --with-polluted-prototype, Object.prototype is given every member of
// "pollution" first, as a prototype pollution elsewhere in an application
// would, and nothing read may change; with --with-frozen-intrinsics the
// built-in constructors and prototypes are frozen first, as hardened
// JavaScript does.
//
//   node tests/ts/engines.mjs INPUTS INDEX [MODE]
//   js102 -m tests/ts/engines.mjs -- INPUTS INDEX [MODE]
//   jsc -m tests/ts/engines.mjs -- INPUTS INDEX [MODE]
/* global print, read, scriptArgs */
const node = typeof process === "object" && process.versions !== undefined && process.versions.node !== undefined;
const args = node ? process.argv.slice(2) : typeof scriptArgs === "object" ? scriptArgs : globalThis.arguments;
const [inputs, index, mode] = args;
const MODES = [undefined, "--without-is-well-formed", "--with-polluted-prototype", "--with-frozen-intrinsics"];
if (index === undefined || !MODES.includes(mode)) {
  throw new Error(`usage: engines.mjs INPUTS INDEX [${MODES.slice(1).join(" | ")}]`);
}
const readText = node ? (await import("node:fs")).readFileSync : (path) => read(path);
const write = node ? (text) => process.stdout.write(`${text}\n`) : print;
const given = JSON.parse(readText(inputs, "utf8"));

if (mode === "--without-is-well-formed") delete String.prototype.isWellFormed;
// The shells have no TextEncoder, which every browser and node have; the
// reader uses it only to count a refusal's byte offset. The WHATWG
// encoding, for that: UTF-8, a half surrogate pair as U+FFFD.
if (typeof TextEncoder === "undefined") {
  globalThis.TextEncoder = class {
    encode(text) {
      const bytes = [];
      for (const char of text) {
        let c = char.codePointAt(0);
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) bytes.push(c);
        else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return Uint8Array.from(bytes);
    }
  };
}
// Nor a TextDecoder, which only the frame decoder uses: not run here.
if (typeof TextDecoder === "undefined") {
  globalThis.TextDecoder = class {
    decode() {
      throw new Error("no TextDecoder in this shell");
    }
  };
}
if (mode === "--with-frozen-intrinsics") {
  const typedArray = Object.getPrototypeOf(Uint8Array);
  for (const intrinsic of [Object, Array, Error, TypeError, RangeError, String, Number, Boolean, Symbol, Function, Map, Set, WeakMap, WeakSet, RegExp, Promise, ArrayBuffer, DataView, Uint8Array, typedArray, JSON, Math]) {
    Object.freeze(intrinsic);
    if (intrinsic.prototype !== undefined) Object.freeze(intrinsic.prototype);
  }
}
const { parseEnvelopeText, readJson, writeJson } = await import(index);
// After the bindings are loaded, as an application's own code would run.
if (mode === "--with-polluted-prototype") {
  for (const [name, value] of Object.entries(given.pollution)) Object.prototype[name] = value;
}

const ascii = (text) => text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const outcome = (read) => {
  try {
    return `ok ${writeJson(read())}`;
  } catch (error) {
    // Read as own members: the prototype may be polluted by now.
    const pointer = Object.hasOwn(error, "pointer") ? error.pointer : undefined;
    return `${error.name} ${pointer} ${error.message}`;
  }
};
const lines = [`wellFormed: ${typeof String.prototype.isWellFormed === "function" ? "native" : "regex"}`];
for (const text of given.inputs) {
  lines.push(ascii(`${outcome(() => parseEnvelopeText(text))} | ${outcome(() => readJson(text))}`));
}
write(lines.join("\n"));
