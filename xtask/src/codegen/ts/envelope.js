// The hand-written envelope reader of index.js, copied in after the generated
// readers it calls.

function readArray(v, max, unique, item, at, key) {
  expectArray(v, max, at, key);
  const p = here(at, key);
  const out = [];
  for (let i = 0; i < v.length; i++) out.push(item(v[i], p, i));
  if (unique) checkUnique(out, at, key);
  return out;
}

function readMap(v, max, item, at, key) {
  expectObject(v, at, key);
  const p = here(at, key);
  const entries = Object.entries(v);
  if (entries.length > max) fail(at, key, `${entries.length} entries, more than the ${max} allowed`);
  // fromEntries defines own properties: a key such as "__proto__" stays data.
  return Object.fromEntries(entries.map(([name, value]) => [name, item(value, p, escapeToken(name))]));
}

const MAX_ID = 9007199254740991;

function r_Envelope(v, at, key) {
  expectObject(v, at, key);
  const p = here(at, key);
  const version = own(v, "v");
  missing(version, p, "v");
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0) {
    fail(p, "v", `expected a non-negative integer, found ${typeName(version)}`);
  }
  if (fractionsNow !== null && fractionsNow.has(`${p}/v`)) fail(p, "v", "the version is written with a fraction, an exponent or as -0");
  if (version !== PROTOCOL_VERSION) throw new VersionError(version);
  const kind = own(v, "kind");
  const id = own(v, "id");
  const body = own(v, "body");
  switch (kind) {
    case "call":
      missing(id, p, "id");
      missing(body, p, "body");
      return { v: PROTOCOL_VERSION, kind, id: readInt(id, 0, MAX_ID, p, "id"), body: r_CallBody(body, p, "body") };
    case "reply":
      missing(id, p, "id");
      missing(body, p, "body");
      return { v: PROTOCOL_VERSION, kind, id: readInt(id, 0, MAX_ID, p, "id"), body: r_ReplyBody(body, p, "body") };
    case "error":
      missing(id, p, "id");
      missing(body, p, "body");
      return {
        v: PROTOCOL_VERSION,
        kind,
        id: id === null ? null : readInt(id, 0, MAX_ID, p, "id"),
        body: r_RpcError(body, p, "body"),
      };
    case "event":
      missing(body, p, "body");
      return { v: PROTOCOL_VERSION, kind, body: r_EventBody(body, p, "body") };
    default:
      if (typeof kind !== "string") fail(p, "kind", `expected a string, found ${typeName(kind)}`);
      fail(p, "kind", `${quoted(kind)} is not one of call, reply, error, event`);
  }
}

/**
 * Reads an envelope from a JSON value. `v` decides first (VersionError for
 * another version), then `kind`, then the body. Throws ContractError naming
 * the JSON pointer; fields the contract does not know are ignored. A value
 * nested deeper than the wire takes is refused before it is read. A value
 * from readJson is held to the text rules too (`1.0` is no integer); one
 * from JSON.parse cannot be, since its text is gone: read text with
 * readJson, parseEnvelopeText or decodeFrameBody.
 */
export function parseEnvelope(value) {
  return envelopeOfText(withinDepth(value));
}

/** An envelope from a value readJson read (its depth already held). */
function envelopeOfText(value) {
  return withText(value, () => r_Envelope(value, "", undefined));
}

/** Reads an envelope from JSON text: readJson, then parseEnvelope. */
export function parseEnvelopeText(text) {
  asText(text, "parseEnvelopeText");
  return envelopeOfText(readJson(text));
}

