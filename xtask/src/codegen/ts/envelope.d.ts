// The hand-written envelope of index.d.ts, copied in after the generated bodies.

/** A call of a method; answered by a reply or an error with the same id. */
export interface CallEnvelope {
  v: 1;
  kind: "call";
  id: number;
  body: CallBody;
}

/** The successful answer to a call. */
export interface ReplyEnvelope {
  v: 1;
  kind: "reply";
  id: number;
  body: ReplyBody;
}

/** The answer to a call that failed, or to something that could not be read as a call (then `id` is null). */
export interface ErrorEnvelope {
  v: 1;
  kind: "error";
  id: number | null;
  body: RpcError;
}

/** A one-way notice from the daemon. */
export interface EventEnvelope {
  v: 1;
  kind: "event";
  body: EventBody;
}

/** The one JSON value a frame carries, told apart by `kind`. */
export type Envelope = CallEnvelope | ReplyEnvelope | ErrorEnvelope | EventEnvelope;

/**
 * Reads an envelope from a JSON value. `v` decides first (VersionError for
 * another version), then `kind`, then the body. Throws ContractError naming
 * the JSON pointer; fields the contract does not know are ignored. A value
 * nested deeper than the wire takes (127) is refused before it is read. A
 * value from readJson is held to the text rules too (`1.0` is no integer).
 */
export declare function parseEnvelope(value: unknown): Envelope;

/** Reads an envelope from JSON text: readJson, then parseEnvelope. */
export declare function parseEnvelopeText(text: string): Envelope;

