/** A value that is not what the contract says, at `pointer` inside what was read. */
export declare class ContractError extends Error {
  constructor(pointer: string, why: string);
  /** The JSON pointer of the offending value ("" for the whole). */
  readonly pointer: string;
}

/** An envelope whose `v` is another protocol version; nothing after `v` was read. */
export declare class VersionError extends ContractError {
  constructor(version: number);
  readonly version: number;
}

/** A credential (`x-secret`): printed as `<redacted>`; `reveal()` reads it. */
export declare class Secret {
  #private;
  constructor(value: string);
  reveal(): string;
  toJSON(): string;
  toString(): string;
}

/** A call of a method this version does not know: kept as it came. */
export declare class UnknownCall {
  #private;
  constructor(method: string, params: unknown);
  readonly method: string;
  readonly params: unknown;
  toJSON(): { method: string; params: unknown };
}

/** A reply naming a method this version does not know. */
export declare class UnknownReply {
  #private;
  constructor(method: string, result: unknown);
  readonly method: string;
  readonly result: unknown;
  toJSON(): { method: string; result: unknown };
}

/** An event this version does not know: a reader skips it. */
export declare class UnknownEvent {
  #private;
  constructor(name: string, params: unknown);
  readonly name: string;
  readonly params: unknown;
  toJSON(): { name: string; params: unknown };
}

/**
 * Why a frame could not be read or written. `unreadable` is the writer's:
 * the envelope's text is one every reader would refuse.
 */
export declare class FrameError extends Error {
  constructor(kind: "empty" | "too_large" | "unexpected_eof" | "unreadable", length: number, why: string);
  readonly kind: "empty" | "too_large" | "unexpected_eof" | "unreadable";
  /** For `too_large`: the length claimed or written. */
  readonly length: number;
  /** Only after `empty` can the decoder go on. */
  readonly recoverable: boolean;
}

/**
 * JSON text read as the wire takes it (docs/wire.md, "JSON text"); throws
 * ContractError naming the rule it breaks.
 */
export declare function readJson(text: string): unknown;
/**
 * JSON text of a value as the wire takes it: `JSON.stringify`'s, except
 * that a whole number past ±(2^53 − 1) is written with an exponent
 * (`9.007199254740992e+15`), where `JSON.stringify` would spell it as an
 * integer literal no reader takes. `undefined` where `JSON.stringify`
 * gives no text; throws where it throws (a BigInt), and throws
 * TypeError, naming the place, where it would write something the value
 * does not hold: a number that is not finite (`null`), a Map, a Set or
 * another object whose contents are no own properties (`{}`), a typed
 * array, or nothing, a function or a symbol in an array (`null`); and
 * where arrays and objects nest deeper than a reader takes (127), or
 * round a cycle, which JSON.stringify would write by recursion. For
 * writing JSON Lines; `encodeFrame` writes with it.
 */
export declare function writeJson(value: unknown): string | undefined;
/**
 * One envelope as a frame: 4 bytes of big-endian length, then the JSON.
 * Throws FrameError `too_large` past MAX_FRAME, and `unreadable` for an
 * envelope a reader would refuse (its text read back with
 * `parseEnvelopeText`: the JSON text policy and every rule the schemas
 * state), a value `JSON.stringify` cannot write (a BigInt, a cycle), or one
 * it would write as something the value does not hold (`writeJson`).
 */
export declare function encodeFrame(envelope: Envelope): Uint8Array;

/**
 * Decodes one frame's body: UTF-8 JSON, then the envelope. Takes bytes as
 * `TextDecoder` does; anything else (a string) is a TypeError.
 */
export declare function decodeFrameBody(bytes: ArrayBuffer | ArrayBufferView): Envelope;

/** Frames from bytes as they arrive; holds only the bytes pushed and not yet read. */
export declare class FrameDecoder {
  /** Adds bytes that arrived (as `TextDecoder` takes them; a string is a TypeError). */
  push(chunk: ArrayBuffer | ArrayBufferView): void;
  /** The next envelope, or `undefined` until more bytes arrive. */
  next(): Envelope | undefined;
  /** The bytes have ended: throws FrameError `unexpected_eof` inside a frame. */
  finish(): void;
}
