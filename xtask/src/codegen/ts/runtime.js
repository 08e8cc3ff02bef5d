// The hand-written part of index.js: errors, the secret, unknown names, the
// checks the generated readers call, and the frame codec. No eval, no
// `new Function`: usable on a Manifest V3 extension page.

/** A value that is not what the contract says, at `pointer` inside what was read. */
export class ContractError extends Error {
  constructor(pointer, why) {
    super(`at ${pointer === "" ? "/" : pointer}: ${why}`);
    this.name = "ContractError";
    this.pointer = pointer;
  }
}

/** An envelope whose `v` is another protocol version; nothing after `v` was read. */
export class VersionError extends ContractError {
  constructor(version) {
    super("/v", `protocol version ${version} is not ${PROTOCOL_VERSION}`);
    this.name = "VersionError";
    this.version = version;
  }
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** A credential (`x-secret`): printed as `<redacted>`; `reveal()` reads it. */
export class Secret {
  #value;
  constructor(value) {
    this.#value = value;
  }
  reveal() {
    return this.#value;
  }
  /** The wire carries the value: JSON.stringify writes it. */
  toJSON() {
    return this.#value;
  }
  toString() {
    return "<redacted>";
  }
  [INSPECT]() {
    return "Secret(<redacted>)";
  }
}

/** A call of a method this version does not know: kept as it came. */
export class UnknownCall {
  #unknown = true;
  constructor(method, params) {
    this.method = method;
    this.params = params;
  }
  toJSON() {
    return { method: this.method, params: this.params };
  }
}

/** A reply naming a method this version does not know. */
export class UnknownReply {
  #unknown = true;
  constructor(method, result) {
    this.method = method;
    this.result = result;
  }
  toJSON() {
    return { method: this.method, result: this.result };
  }
}

/** An event this version does not know: a reader skips it. */
export class UnknownEvent {
  #unknown = true;
  constructor(name, params) {
    this.name = name;
    this.params = params;
  }
  toJSON() {
    return { name: this.name, params: this.params };
  }
}

// Readers pass the parent's pointer and a key that is already a pointer
// token (field names are escaped when generated, array indices need none,
// map keys are escaped as read), so a pointer is joined only for an object
// that has children, or when something fails.
function escapeToken(key) {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function fail(at, key, why) {
  throw new ContractError(key === undefined ? at : `${at}/${key}`, why);
}

function typeName(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (v === undefined) return "nothing";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number with a fraction";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function expectObject(v, at, key) {
  if (!isObject(v)) fail(at, key, `expected an object, found ${typeName(v)}`);
}

function expectArray(v, max, at, key) {
  if (!Array.isArray(v)) fail(at, key, `expected an array, found ${typeName(v)}`);
  if (v.length > max) fail(at, key, `${v.length} items, more than the ${max} allowed`);
}

function missing(v, at, key) {
  if (v === undefined) fail(at, key, "required, and missing");
}

function readBool(v, at, key) {
  if (typeof v !== "boolean") fail(at, key, `expected a boolean, found ${typeName(v)}`);
  return v;
}

function readInt(v, min, max, at, key) {
  if (typeof v !== "number" || !Number.isInteger(v)) fail(at, key, `expected an integer, found ${typeName(v)}`);
  if (v < min) fail(at, key, `${v} is below the minimum ${min}`);
  if (v > max) fail(at, key, `${v} is above the maximum ${max}`);
  return v;
}

// JSON Schema counts code points; a UTF-16 length can only over-count.
function codePoints(s) {
  let count = 0;
  for (const _ of s) count++;
  return count;
}

/** The value itself is never quoted: it may be a credential. */
function readString(v, min, max, pattern, source, at, key) {
  if (typeof v !== "string") fail(at, key, `expected a string, found ${typeName(v)}`);
  if (v.length > max || v.length < 2 * min) {
    const length = codePoints(v);
    if (length < min) fail(at, key, `shorter than ${min} characters`);
    if (length > max) fail(at, key, `longer than ${max} characters`);
  }
  if (pattern !== null && !pattern.test(v)) fail(at, key, `does not match the pattern ${source}`);
  return v;
}

function readEnum(v, values, type, at, key) {
  if (typeof v !== "string" || !values.has(v)) fail(at, key, `${JSON.stringify(v) ?? "nothing"} is not a ${type}`);
  return v;
}

function checkUnique(items, at, key) {
  if (new Set(items).size !== items.length) fail(at, key, "items must be unique, and one repeats");
}

function here(at, key) {
  return key === undefined ? at : `${at}/${key}`;
}

/** The body of a call, reply or event: its tag, checked, and the content. */
function bodyTag(v, tag, at) {
  expectObject(v, at, undefined);
  const name = v[tag];
  if (typeof name !== "string") fail(at, tag, `expected a string, found ${typeName(name)}`);
  return name;
}

/**
 * Why a frame could not be read or written: `empty` (the decoder goes on),
 * `too_large` (it cannot), `unexpected_eof` (the bytes ended inside a frame).
 */
export class FrameError extends Error {
  constructor(kind, length, why) {
    super(why);
    this.name = "FrameError";
    this.kind = kind;
    this.length = length;
  }
  get recoverable() {
    return this.kind === "empty";
  }
}

const HEADER = 4;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** One envelope as a frame: 4 bytes of big-endian length, then the JSON. */
export function encodeFrame(envelope) {
  const body = encoder.encode(JSON.stringify(envelope));
  if (body.length > MAX_FRAME) {
    throw new FrameError("too_large", body.length, `an envelope of ${body.length} bytes, more than the ${MAX_FRAME} a frame may carry`);
  }
  const frame = new Uint8Array(HEADER + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, HEADER);
  return frame;
}

/** Decodes one frame's body: UTF-8 JSON, then the envelope. */
export function decodeFrameBody(bytes) {
  let value;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw new ContractError("", `not UTF-8 JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseEnvelope(value);
}

/**
 * Frames from bytes as they arrive. The length is checked before a body is
 * waited for; nothing is allocated for a length a peer claims, only for the
 * bytes pushed and not yet read.
 */
export class FrameDecoder {
  #buffer = new Uint8Array(0);
  #start = 0;
  #end = 0;
  #broken = null;

  /** Adds bytes that arrived. */
  push(chunk) {
    if (this.#broken !== null) throw this.#broken;
    const held = this.#end - this.#start;
    if (this.#end + chunk.length > this.#buffer.length) {
      const size = Math.max(held + chunk.length, 2 * held, 4096);
      const grown = new Uint8Array(size);
      grown.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = grown;
      this.#start = 0;
      this.#end = held;
    }
    this.#buffer.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /**
   * The next envelope, or `undefined` until more bytes arrive. Throws
   * FrameError, or ContractError for a body that is not a usable envelope
   * (the frame is consumed: the next call reads the one after).
   */
  next() {
    if (this.#broken !== null) throw this.#broken;
    const held = this.#end - this.#start;
    if (held < HEADER) return undefined;
    const length = new DataView(this.#buffer.buffer, this.#buffer.byteOffset + this.#start, HEADER).getUint32(0, false);
    if (length === 0) {
      this.#start += HEADER;
      throw new FrameError("empty", 0, "a frame of length 0");
    }
    if (length > MAX_FRAME) {
      this.#broken = new FrameError("too_large", length, `a frame of ${length} bytes, more than the ${MAX_FRAME} a frame may carry`);
      throw this.#broken;
    }
    if (held < HEADER + length) return undefined;
    const body = this.#buffer.subarray(this.#start + HEADER, this.#start + HEADER + length);
    this.#start += HEADER + length;
    if (this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
    }
    return decodeFrameBody(body);
  }

  /** The bytes have ended: throws FrameError `unexpected_eof` inside a frame. */
  finish() {
    if (this.#broken !== null) throw this.#broken;
    if (this.#end > this.#start) {
      this.#broken = new FrameError("unexpected_eof", 0, "the bytes ended inside a frame");
      throw this.#broken;
    }
  }
}
