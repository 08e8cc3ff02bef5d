// The hand-written part of index.js: errors, the secret, unknown names, the
// checks the generated readers call, and the frame codec. No eval, no
// `new Function`: usable on a Manifest V3 extension page.

// An error's own `name`, defined rather than assigned: where an application
// froze Error.prototype (hardened JavaScript), assigning a member the frozen
// prototype has throws a TypeError instead of setting it.
function named(error, name) {
  Object.defineProperty(error, "name", { value: name, writable: true, enumerable: true, configurable: true });
}

/** A value that is not what the contract says, at `pointer` inside what was read. */
export class ContractError extends Error {
  constructor(pointer, why) {
    // The pointer is exact; the message shows it with control characters
    // escaped and its middle left out past 1,024 characters (a member name
    // may be as long as a frame).
    super(`at ${pointer === "" ? "/" : printable(shortened(pointer))}: ${why}`);
    named(this, "ContractError");
    this.pointer = pointer;
  }
}

/** An envelope whose `v` is another protocol version; nothing after `v` was read. */
export class VersionError extends ContractError {
  constructor(version) {
    super("/v", `protocol version ${version} is not ${PROTOCOL_VERSION}`);
    named(this, "VersionError");
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

/** `text` with its middle left out past 1,024 characters: the first 512 and the last 256 kept. */
function shortened(text) {
  if (text.length <= 1024) return text;
  // Not between the two halves of a surrogate pair.
  const head = /[\ud800-\udbff]/.test(text[511]) ? 511 : 512;
  const tail = /[\udc00-\udfff]/.test(text[text.length - 256]) ? text.length - 255 : text.length - 256;
  return `${text.slice(0, head)}... (${tail - head} characters left out) ...${text.slice(tail)}`;
}

/**
 * Text from the input with what would break or reorder its line escaped:
 * C0 and C1 controls and DEL, U+2028 and U+2029, and the bidirectional
 * marks, embeddings, overrides and isolates. A message stays one line and
 * says only what it says.
 */
function printable(text) {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const MAX_DEPTH = 127;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Where the string opening at `i` ends (just past its closing quote); the text is JSON. */
function skipString(text, i) {
  let j = i + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j === -1) return text.length;
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    for (let k = j - 1; k > i && text.charCodeAt(k) === 92; k--) slashes++;
    if (slashes % 2 === 0) return j + 1;
    j++;
  }
}

/**
 * Where the number starting at `i` ends, and whether it is written as no
 * integer is: with a fraction, an exponent, or as `-0` (which serde reads as
 * a double).
 */
function skipNumber(text, i) {
  let j = i;
  let fraction = false;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 46 || c === 101 || c === 69) fraction = true;
    else if (!((c >= 48 && c <= 57) || c === 45 || c === 43)) break;
  }
  if (!fraction && j === i + 2 && text.charCodeAt(i) === 45 && text.charCodeAt(i + 1) === 48) fraction = true;
  return [j, fraction];
}

function isSpace(c) {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

// For a value read by readJson: the pointers of the numbers written with a
// fraction or an exponent (only when there are any), so a reader can refuse
// `1.0` where the contract wants an integer.
const fractions = new WeakMap();
let fractionsNow = null;

/**
 * `value` once it is known to nest no deeper than a reader of the wire
 * takes, as readJson holds text: a value from JSON.parse, or built by a
 * program, may nest 100,000 deep (or round a cycle), and would exhaust the
 * stack of whatever copies or writes it by recursion later. Walked with a
 * stack of its own, an array's items and an object's own enumerable
 * members, as the readers read them.
 */
function withinDepth(value) {
  // Two slots an entry (the value, its depth): no array allocated per value.
  const stack = [value, 0];
  while (stack.length > 0) {
    const depth = stack.pop();
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_DEPTH) throw new ContractError("", `the value nests more than ${MAX_DEPTH} deep, which no reader of the wire takes`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (typeof item === "object" && item !== null) stack.push(item, depth + 1);
      }
    } else {
      for (const k of Object.keys(v)) {
        const item = v[k];
        if (typeof item === "object" && item !== null) stack.push(item, depth + 1);
      }
    }
  }
  return value;
}

/** Runs `read` with what readJson learnt of `value`'s text in force. */
function withText(value, read) {
  const outer = fractionsNow;
  fractionsNow = (typeof value === "object" && value !== null && fractions.get(value)) || null;
  try {
    return read();
  } finally {
    fractionsNow = outer;
  }
}

/**
 * The member names of JSON text (valid: JSON.parse read it), counted at
 * their colons, with each member's number checked where its value starts;
 * -1 when that cannot settle the text: a number written with a fraction, an
 * exponent, as `-0` or with 16 digits or more, or more brackets than the
 * nesting allows. A colon inside a string may be counted too, so a count
 * that equals the names JSON.parse kept proves no name repeats, and any
 * other is settled by the full loop. Numbers that are items, not member
 * values, are the caller's to send to the full loop.
 */
function quickNames(text) {
  let open = 0;
  for (let i = text.indexOf("{"); i !== -1 && open <= MAX_DEPTH; i = text.indexOf("{", i + 1)) open++;
  for (let i = text.indexOf("["); i !== -1 && open <= MAX_DEPTH; i = text.indexOf("[", i + 1)) open++;
  if (open > MAX_DEPTH) return -1;
  let names = 0;
  for (let i = text.indexOf(":"); i !== -1; i = text.indexOf(":", i + 1)) {
    let j = i - 1;
    while (j > 0 && isSpace(text.charCodeAt(j))) j--;
    if (text.charCodeAt(j) !== 34) continue;
    names++;
    let k = i + 1;
    while (k < text.length && isSpace(text.charCodeAt(k))) k++;
    const c = text.charCodeAt(k);
    if (c === 45 || (c >= 48 && c <= 57)) {
      const [end, fraction] = skipNumber(text, k);
      if (fraction || end - k >= 16) return -1;
    }
  }
  return names;
}

/**
 * The member names of JSON text (valid), counted in one loop over it, and
 * whether a number is written with a fraction or an exponent; refuses
 * nesting past the limit and numbers past what the wire holds. Strings are
 * skipped with indexOf (no regular expression: a long string would exhaust
 * its backtracking stack).
 */
function namesAsWritten(text, refuse) {
  let names = 0;
  let depth = 0;
  let fractional = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = skipString(text, i);
      let j = i;
      while (j < text.length && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 58) names++;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const [end, fraction] = skipNumber(text, i);
      if (fraction) {
        fractional = true;
        if (!Number.isFinite(Number(text.slice(i, end)))) refuse("a number is beyond what a double holds");
      } else if (end - i >= 16 && !Number.isSafeInteger(Number(text.slice(i, end)))) {
        // A literal may be as long as a frame: its start, and how long it is.
        const shown = end - i <= 40 ? text.slice(i, end) : `${text.slice(i, i + 20)}... (${end - i} characters)`;
        refuse(`the integer ${shown} is beyond ±${MAX_SAFE}, which not every reader holds exactly`);
      }
      i = end;
    } else {
      if (c === 123 || c === 91) {
        if (++depth > MAX_DEPTH) refuse(`arrays and objects nest more than ${MAX_DEPTH} deep`);
      } else if (c === 125 || c === 93) {
        depth--;
      }
      i++;
    }
  }
  return [names, fractional];
}

/**
 * The first place where `text` breaks the JSON text policy, and which rule,
 * in the Rust reader's words and at its byte of the UTF-8 text (a test
 * holds the three readers to one answer): what was expected where it stops
 * being JSON, nesting past the limit, a member named twice, half a
 * surrogate pair written as escapes, an integer literal beyond ±(2^53 − 1),
 * a number no double holds. V8's own message quotes the text around the
 * fault, which may be a credential, and the checks after JSON.parse do not
 * go in text order: this walks the text again, once it has been refused.
 * `null` when it finds no fault of these (a half pair written raw).
 */
function textFault(text) {
  const n = text.length;
  let i = 0;
  // Named as a byte of the UTF-8 text, as the Rust and C++ readers name it.
  const byte = (at) => encoder.encode(text.slice(0, at)).length;
  const expected = (what) => `not JSON at byte ${byte(i)}: expected ${what}`;
  const half = (at) => `a \\u escape at byte ${byte(at)} leaves half a surrogate pair`;
  if (text.charCodeAt(0) === 0xfeff) return "the text starts with a byte-order mark";
  const digits = () => {
    const from = i;
    while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    return i > from;
  };
  // Past one string from its opening quote, or why it cannot be passed.
  const string = () => {
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return null;
      }
      if (c < 0x20) return expected("an escape, not a raw control character, inside a string");
      if (c === 92) {
        i++;
        if (i < n && '"\\/bfnrt'.includes(text[i])) continue;
        if (text[i] !== "u") return expected("one of \" \\ / b f n r t u after a backslash");
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
          i++;
          return expected("four hex digits after \\u");
        }
        const start = i - 1;
        const first = parseInt(text.slice(i + 1, i + 5), 16);
        i += 4;
        if (first >= 0xdc00 && first <= 0xdfff) return half(start);
        if (first >= 0xd800 && first <= 0xdbff) {
          if (text[i + 1] !== "\\" || text[i + 2] !== "u") return half(start);
          i += 2;
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
            i++;
            return expected("four hex digits after \\u");
          }
          const second = parseInt(text.slice(i + 1, i + 5), 16);
          i += 4;
          if (second < 0xdc00 || second > 0xdfff) return half(start);
        }
      }
    }
    return expected("the end of a string");
  };
  const number = () => {
    const start = i;
    if (text[i] === "-") i++;
    const intStart = i;
    if (text[i] === "0") i++;
    else if (!digits()) return expected("a digit");
    const intDigits = i - intStart;
    let integer = true;
    let exponent = false;
    if (text[i] === ".") {
      integer = false;
      i++;
      if (!digits()) return expected("a digit after the decimal point");
    }
    if (text[i] === "e" || text[i] === "E") {
      integer = false;
      exponent = true;
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!digits()) return expected("a digit in the exponent");
    }
    const literal = text.slice(start, i);
    if (integer && (intDigits > 16 || Math.abs(Number(literal)) > MAX_SAFE)) {
      return `the integer at byte ${byte(start)} is beyond ±${MAX_SAFE}, which not every reader holds exactly`;
    }
    if (!integer && (exponent || i - start > 300) && !Number.isFinite(Number(literal))) {
      return `the number at byte ${byte(start)} is beyond what a double holds`;
    }
    return null;
  };
  const space = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  const open = []; // the containers open, innermost last: a Set of the names so far, or "["
  // A member's name and its colon, from where the name should start.
  const name = () => {
    if (text[i] !== '"') return expected("a member name in quotes");
    const start = i;
    const fault = string();
    if (fault !== null) return fault;
    const names = open[open.length - 1];
    const spelled = JSON.parse(text.slice(start, i));
    if (names instanceof Set) {
      if (names.has(spelled)) return `the member ${quoted(spelled)} appears twice in one object (byte ${byte(start)})`;
      names.add(spelled);
    }
    space();
    if (text[i] !== ":") return expected("`:` after a member name");
    i++;
    return null;
  };
  let wantValue = true;
  for (;;) {
    space();
    let fault = null;
    if (wantValue) {
      const c = text[i];
      wantValue = false;
      if (c === "{" || c === "[") {
        // Deeper is refused whatever follows (and keeps this stack small).
        if (open.length >= MAX_DEPTH) return `arrays and objects nest more than ${MAX_DEPTH} deep at byte ${byte(i)}`;
        i++;
        space();
        if (text[i] === (c === "{" ? "}" : "]")) i++;
        else {
          open.push(c === "{" ? new Set() : "[");
          wantValue = true;
          if (c === "{") fault = name();
        }
      } else if (c === '"') fault = string();
      else if (c === "-" || (c >= "0" && c <= "9")) fault = number();
      else if (["true", "false", "null"].some((word) => text.startsWith(word, i))) i += text[i] === "f" ? 5 : 4;
      else if (c === undefined) fault = expected("more JSON, not the end of the text");
      else fault = expected(c === "t" || c === "f" || c === "n" ? "true, false or null" : "a value");
    } else if (open.length === 0) {
      return i < n ? expected("the end of the text after the value") : null;
    } else {
      const inObject = open[open.length - 1] !== "[";
      if (i >= n) {
        fault = expected("more JSON, not the end of the text");
      } else if (text[i] === (inObject ? "}" : "]")) {
        i++;
        open.pop();
      } else if (text[i] !== ",") {
        fault = expected(inObject ? "`,` or `}` after a member" : "`,` or `]` after an item");
      } else {
        i++;
        wantValue = true;
        if (inObject) {
          space();
          fault = name();
        }
      }
    }
    if (fault !== null) return fault;
  }
}

/**
 * A TypeError unless `text` is a string: JSON.parse would turn anything
 * else into text first (`null` reads as null, a Uint8Array of digits as a
 * list of numbers).
 */
function asText(text, where) {
  if (typeof text === "string") return;
  const hint = ArrayBuffer.isView(text) || text instanceof ArrayBuffer ? ": bytes from the wire go to decodeFrameBody" : "";
  throw new TypeError(`${where} takes JSON text as a string, not ${typeName(text)}${hint}`);
}

// Whether a string holds no half of a surrogate pair. isWellFormed is
// ES2024 (Firefox 119, Safari 16.4); where it is missing, a `u` regex does the
// same, reading a whole pair as one code point outside the class. It is only
// the fallback: on V8 it made parseEnvelopeText about a sixth slower.
// tests/ts/engines.mjs runs both, in three engines.
const HALF_PAIR = /[\uD800-\uDFFF]/u;
const wellFormed =
  typeof String.prototype.isWellFormed === "function" ? (s) => s.isWellFormed() : (s) => !HALF_PAIR.test(s);

/**
 * JSON text read as the wire takes it (docs/wire.md, "JSON text"): one
 * value and whitespace, nested at most 127 deep, no member named twice, no
 * half surrogate pair, integer literals within ±(2^53 − 1), no number past a
 * double's range. (UTF-8 and the byte-order mark are the frame decoder's,
 * which reads bytes.) Throws ContractError (pointer "") naming the rule.
 */
export function readJson(text) {
  asText(text, "readJson");
  // Named where the text first breaks the policy, as the other readers name it.
  const refuse = (why) => {
    throw new ContractError("", `not JSON as the wire takes it: ${printable(textFault(text) ?? why)}`);
  };
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    refuse("not JSON");
  }
  // A half surrogate pair written raw (a JS string can hold one) is refused
  // here; one written as a `\u` escape only by the walk below, which looks
  // at strings only when the text has an escape of that kind at all.
  if (!wellFormed(text)) refuse("a string holds half of a surrogate pair");
  const escapes = text.includes("\\u");
  // Member names, brackets and numbers as written: first the quick count
  // (`quickNames`), which the full loop over the text (`namesAsWritten`)
  // confirms whenever the quick one cannot.
  let names = quickNames(text);
  let fractional = false;
  const quick = names >= 0;
  if (!quick) [names, fractional] = namesAsWritten(text, refuse);
  // JSON.parse keeps the last of a repeated member: fewer names parsed than
  // written is a repeat. Only containers are walked (and strings, when an
  // escape could have made half a surrogate pair); a number as an item (or
  // the whole text) is one the quick count did not see.
  let parsed = 0;
  let loose = typeof value === "number";
  let halfPair = null;
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") {
      if (halfPair === null && !wellFormed(node)) halfPair = "a string holds half of a surrogate pair";
    } else if (Array.isArray(node)) {
      for (const item of node) {
        if (typeof item === "object" && item !== null) stack.push(item);
        else if (typeof item === "number") loose = true;
        else if (escapes && typeof item === "string") stack.push(item);
      }
    } else if (typeof node === "object" && node !== null) {
      for (const name of Object.keys(node)) {
        parsed++;
        if (escapes && halfPair === null && !wellFormed(name)) halfPair = "a member name holds half of a surrogate pair";
        const item = node[name];
        if ((typeof item === "object" && item !== null) || (escapes && typeof item === "string")) stack.push(item);
      }
    }
  }
  if (quick && (parsed !== names || loose)) [names, fractional] = namesAsWritten(text, refuse);
  if (halfPair !== null) refuse(halfPair);
  if (parsed !== names) refuse("an object names a member twice");
  if (fractional && typeof value === "object" && value !== null) fractions.set(value, fractionalPointers(text));
  return value;
}

/** The pointers of the numbers written with a fraction or an exponent (text already checked). */
function fractionalPointers(text) {
  const found = new Set();
  const path = []; // per open container: [isObject, the member name or item index now]
  let name = null;
  const here = () => path.map(([, token]) => `/${token}`).join("");
  const enter = () => {
    const top = path[path.length - 1];
    if (top !== undefined && top[0] && name !== null) top[1] = name;
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '"') {
      const end = skipString(text, i);
      let j = end;
      while (j < text.length && isSpace(text.charCodeAt(j))) j++;
      if (text[j] === ":") name = escapeToken(JSON.parse(text.slice(i, end)));
      i = end;
    } else if (c === "{" || c === "[") {
      enter();
      path.push([c === "{", c === "[" ? 0 : ""]);
      i++;
    } else if (c === "}" || c === "]") {
      path.pop();
      i++;
    } else if (c === ",") {
      const top = path[path.length - 1];
      if (top !== undefined && !top[0]) top[1]++;
      i++;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      enter();
      const [end, fraction] = skipNumber(text, i);
      if (fraction) found.add(here());
      i = end;
    } else {
      i++;
    }
  }
  return found;
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
  if (fractionsNow !== null && fractionsNow.has(here(at, key))) {
    fail(at, key, "an integer written with a fraction, an exponent or as -0; the wire writes integers as integers");
  }
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

/**
 * A contract pattern as the tables of its automaton, built when the
 * bindings were generated: `test` takes one step per UTF-16 unit, however
 * the string is made. (`RegExp` backtracks: on some patterns a string that
 * almost matches costs time exponential in its length.) `ascii` is the class
 * of each ASCII unit, `other` the class of every other unit (no atom of a
 * contract pattern matches one), `next` the next state by state and class,
 * `matched` and `atEnd` the states where a match has ended, `dead` the state
 * no match follows. State 0 is the start.
 */
function automaton(ascii, other, next, matched, atEnd, dead) {
  const classes = Uint8Array.from(ascii);
  const width = next.length / matched.length;
  const table = Uint8Array.from(next);
  const ends = Uint8Array.from(matched);
  const endsAtEnd = Uint8Array.from(atEnd);
  return {
    test(text) {
      let state = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        state = table[state * width + (unit < 128 ? classes[unit] : other)];
        if (ends[state] === 1) return true;
        if (state === dead) return false;
      }
      return endsAtEnd[state] === 1;
    },
  };
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

/**
 * A value from the input as JSON, a string cut after its first 200 characters (code points) and then its length
 * in characters, as the Rust and C++ readers show it: a message stays short however long the value was.
 */
function quoted(v) {
  if (typeof v !== "string") return JSON.stringify(v) ?? "nothing";
  if (v.length <= 200) return JSON.stringify(v);
  const characters = Array.from(v);
  if (characters.length <= 200) return JSON.stringify(v);
  return `${JSON.stringify(characters.slice(0, 200).join(""))}... (${characters.length} characters)`;
}

function readEnum(v, values, type, at, key) {
  // Only a string is quoted: an object or array here may hold a credential.
  if (typeof v !== "string") fail(at, key, `expected a string, found ${typeName(v)}`);
  if (!values.has(v)) fail(at, key, `${quoted(v)} is not a ${type}`);
  return v;
}

function checkUnique(items, at, key) {
  if (new Set(items).size !== items.length) fail(at, key, "items must be unique, and one repeats");
}

function here(at, key) {
  return key === undefined ? at : `${at}/${key}`;
}

// A member of the object itself, never one it inherits: were
// Object.prototype given a `kind` or a `params` (a prototype pollution
// elsewhere in the application, an old polyfill), `v.kind` would read that
// for a message that has none.
function own(v, name) {
  return Object.hasOwn(v, name) ? v[name] : undefined;
}

/** The body of a call, reply or event: its tag, checked, and the content. */
function bodyTag(v, tag, at) {
  expectObject(v, at, undefined);
  const name = own(v, tag);
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
    named(this, "FrameError");
    this.kind = kind;
    this.length = length;
  }
  get recoverable() {
    return this.kind === "empty";
  }
}

const HEADER = 4;
// `ignoreBOM` keeps a byte-order mark in the text, where readJson refuses it
// (the default would drop it silently).
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

// Objects whose contents are no own enumerable properties: JSON.stringify
// writes each as `{}`.
const CONTENTS_HIDDEN = [Map, Set, WeakMap, WeakSet, RegExp, Error, Promise, ArrayBuffer];

/**
 * The first place where JSON.stringify would write `value` as something it
 * does not hold: `[pointer, what is there, what would be written]`, or
 * `null`. A number that is not finite, and an undefined, a function or a
 * symbol in an array, are written `null`; a Map, a Set or another object
 * whose contents are no own properties, `{}`; a typed array, an object of
 * its indexes; an array or an object nested deeper than the wire takes
 * (or round a cycle), `what` null. It walks what JSON.stringify walks (a
 * value's `toJSON` first), with a stack of its own and no deeper than the
 * wire takes: JSON.stringify writes by recursion, and a value 100,000 deep
 * would exhaust the stack there. With `placed` false it spells no pointer,
 * and is cheaper.
 */
function misWritten(value, placed) {
  // Four slots an entry (the value, its key, its pointer, its depth): no
  // array allocated per value.
  const stack = [value, "", "", 0];
  while (stack.length > 0) {
    const depth = stack.pop();
    const at = stack.pop();
    const key = stack.pop();
    const held = stack.pop();
    const v = held !== null && typeof held === "object" && typeof held.toJSON === "function" ? held.toJSON(key) : held;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return [at, String(v), "null"];
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_DEPTH) return [at, null, null];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        const kind = typeof item;
        if (kind === "number") {
          if (!Number.isFinite(item)) return [`${at}/${i}`, String(item), "null"];
        } else if (kind === "object") {
          if (item !== null) stack.push(item, String(i), placed ? `${at}/${i}` : "", depth + 1);
        } else if (item === undefined || kind === "function" || kind === "symbol") {
          return [`${at}/${i}`, `${item === undefined ? "nothing" : `a ${kind}`} in an array`, "null"];
        }
      }
      continue;
    }
    const prototype = Object.getPrototypeOf(v);
    if (prototype !== Object.prototype && prototype !== null && (ArrayBuffer.isView(v) || CONTENTS_HIDDEN.some((kind) => v instanceof kind))) {
      const name = v.constructor?.name ?? "an object";
      return [at, /^[AEIO]/.test(name) ? `an ${name}` : `a ${name}`, ArrayBuffer.isView(v) && !(v instanceof DataView) ? "an object of its indexes" : "{}"];
    }
    for (const k in v) {
      const item = v[k];
      const kind = typeof item;
      if (kind === "number") {
        if (!Number.isFinite(item) && Object.hasOwn(v, k)) return [`${at}/${escapeToken(k)}`, String(item), "null"];
      } else if (kind === "object" && item !== null && Object.hasOwn(v, k)) {
        stack.push(item, k, placed ? `${at}/${escapeToken(k)}` : "", depth + 1);
      }
    }
  }
  return null;
}

/**
 * JSON text of `value` as the wire takes it (`undefined` where
 * JSON.stringify gives none): JSON.stringify's text, except that a whole
 * number past ±(2^53 − 1), which it spells as digits (an integer literal no
 * reader takes), is written with an exponent (`9.007199254740992e+15`), as
 * the Rust and C++ writers write a double, and reads back as the same
 * number. Throws TypeError where JSON.stringify would write something the
 * value does not hold (`NaN` as `null`, a Map as `{}`), or arrays and
 * objects nested deeper than a reader takes, naming the place.
 */
export function writeJson(value) {
  if (misWritten(value, false) !== null) {
    const [at, what, written] = misWritten(value, true);
    if (what === null) {
      throw new TypeError(`arrays and objects nest more than ${MAX_DEPTH} deep at ${printable(shortened(at))}, which no reader of the wire takes`);
    }
    throw new TypeError(`${what} at ${printable(at) || "(root)"} would be written as ${written}, which is not what it holds: give a finite number, a plain object or an array of JSON values there`);
  }
  const text = JSON.stringify(value);
  // Such a number has 16 digits or more; from 1e21 on JSON.stringify
  // writes the exponent itself.
  if (typeof text !== "string" || !/\d{16}/.test(text)) return text;
  let out = "";
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = skipString(text, i);
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const [end, fraction] = skipNumber(text, i);
      if (!fraction && end - i >= 16) {
        const number = Number(text.slice(i, end));
        if (!Number.isSafeInteger(number)) {
          out += text.slice(copied, i) + number.toExponential();
          copied = end;
        }
      }
      i = end;
    } else {
      i++;
    }
  }
  return out + text.slice(copied);
}

/** One envelope as a frame: 4 bytes of big-endian length, then the JSON. */
export function encodeFrame(envelope) {
  let text;
  try {
    text = writeJson(envelope);
  } catch (error) {
    // A BigInt or a cycle in a free-form value: nothing a reader could read.
    throw new FrameError("unreadable", 0, `the envelope cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  // JSON.stringify gives undefined, not text, for nothing, a function or a symbol.
  if (typeof text !== "string") {
    throw new FrameError("unreadable", 0, `the envelope cannot be written as JSON: ${typeName(envelope)} has no JSON text`);
  }
  const body = encoder.encode(text);
  if (body.length > MAX_FRAME) {
    throw new FrameError("too_large", body.length, `an envelope of ${body.length} bytes, more than the ${MAX_FRAME} a frame may carry`);
  }
  // Read back by the reader's own `parseEnvelopeText`: a string with half a
  // surrogate pair, an integer past 2^53 - 1, nesting past 127, `NaN`
  // (written `null`), `1.5` where an integer is wanted or a value below its
  // minimum would be refused by a reader, so it is not sent.
  try {
    parseEnvelopeText(text);
  } catch (error) {
    throw new FrameError("unreadable", 0, `the envelope is not one a reader takes: ${error instanceof Error ? error.message : String(error)}`);
  }
  const frame = new Uint8Array(HEADER + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, HEADER);
  return frame;
}

/**
 * The first byte of `bytes` that starts no well-formed UTF-8 sequence, as
 * the Rust reader's `str::from_utf8` finds it (read once decoding failed).
 */
function notUtf8At(bytes) {
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let length = 0;
    let [low, high] = [0x80, 0xbf];
    if (c >= 0xc2 && c <= 0xdf) length = 2;
    else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      if (c === 0xe0) low = 0xa0;
      if (c === 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      if (c === 0xf0) low = 0x90;
      if (c === 0xf4) high = 0x8f;
    } else return i;
    let formed = bytes[i + 1] >= low && bytes[i + 1] <= high;
    for (let k = 2; formed && k < length; k++) formed = bytes[i + k] >= 0x80 && bytes[i + k] <= 0xbf;
    if (!formed) return i;
    i += length;
  }
  return bytes.length;
}

/**
 * `bytes` as a Uint8Array over the same memory, taking what TextDecoder
 * takes (an ArrayBuffer, a SharedArrayBuffer or any view of one, from any
 * realm). Anything else
 * is a TypeError: `Uint8Array.prototype.set` would read a string as that
 * many zero bytes, and a socket given an encoding hands out strings.
 * `forText` says what to do with a string instead.
 */
function asBytes(bytes, where, forText) {
  if (ArrayBuffer.isView(bytes)) {
    return bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  if (isBuffer(bytes)) return new Uint8Array(bytes);
  let hint = "";
  if (typeof bytes === "string") hint = `: ${forText}`;
  // A browser WebSocket's binary messages are Blobs unless told otherwise.
  else if (typeof Blob === "function" && bytes instanceof Blob) {
    hint = ': a Blob, whose bytes come from `await blob.arrayBuffer()` (or set the WebSocket\'s binaryType to "arraybuffer")';
  }
  throw new TypeError(`${where} takes bytes (a Uint8Array, a Buffer, an ArrayBuffer or a view of one), not ${typeName(bytes)}${hint}`);
}

/** Whether `value` is an ArrayBuffer or a SharedArrayBuffer, of any realm. */
function isBuffer(value) {
  const tag = Object.prototype.toString.call(value);
  return tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]";
}

/** Decodes one frame's body: UTF-8 text, JSON as the wire takes it, then the envelope. */
export function decodeFrameBody(bytes) {
  bytes = asBytes(bytes, "decodeFrameBody", "a message that is text already (a WebSocket text message) is read with parseEnvelopeText");
  // Bytes in shared memory are read from a copy: another thread may change
  // them while they are checked, and browsers' TextDecoder refuses a shared
  // view (Chrome: "must not be shared"), which was reported as bytes that
  // are not UTF-8.
  if (Object.prototype.toString.call(bytes.buffer) === "[object SharedArrayBuffer]") bytes = bytes.slice();
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ContractError("", `not JSON as the wire takes it: byte ${notUtf8At(bytes)} is not UTF-8`);
  }
  return envelopeOfText(readJson(text));
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
    chunk = asBytes(chunk, "FrameDecoder.push", "read the stream as bytes, with no encoding set");
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
    if (length > MAX_FRAME) this.#fail(new FrameError("too_large", length, `a frame of ${length} bytes, more than the ${MAX_FRAME} a frame may carry`));
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
    if (this.#end > this.#start) this.#fail(new FrameError("unexpected_eof", 0, "the bytes ended inside a frame"));
  }

  /** Ends the stream with `error`: every call throws it from now on, and the bytes held, never to be read, are freed. */
  #fail(error) {
    this.#broken = error;
    this.#buffer = new Uint8Array(0);
    this.#start = 0;
    this.#end = 0;
    throw error;
  }
}
