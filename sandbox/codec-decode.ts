/**
 * The wire codec's decoder: wire JSON text (codec.ts) back into values, with the binary values
 * that came beside it. Tolerant: a malformed tag decodes to itself. Runs on both sides, like the
 * encoder.
 */

import { TAG, type Wire } from "./codec-tree";
import { fromBase64 } from "./codec-base64";

// Captured when the module loads (in the sandbox: before any user code): see codec.ts.
const { parse } = JSON;
const { keys, defineProperty } = Object;
const { isArray } = Array;
const { floor } = Math;
// Captured before any program runs: the sandbox charges a program's own typed-array
// constructions (native-charges.ts), not the codec's decoding of what the host sent.
const Bytes = Uint8Array;

/**
 * Turns a wire tree back into values. Unknown or malformed tags decode to themselves.
 * @param wire - a tree produced by {@link toWire} (possibly truncated)
 */
export function fromWire(wire: Wire): unknown {
  return decodeWire(wire, undefined);
}

/**
 * The buffers a wire tree's binary tags may take ({@link decodeParts}): each at most once, so two
 * values never share one (a tag naming one taken already, or none, decodes to itself).
 */
interface BesideReader {
  buffers: readonly ArrayBuffer[];
  /**
   * 1 where taken. A typed array: its elements are never looked up on a prototype, where a
   * program could answer "taken" for every index of its own answers.
   */
  taken: Uint8Array;
}

function decodeWire(wire: Wire, beside: BesideReader | undefined): unknown {
  if (wire === null || typeof wire !== "object") return wire;
  if (isArray(wire)) return wire.map((item) => decodeWire(item, beside));
  const tag = wire[TAG];
  if (typeof tag !== "string") return decodePlain(wire, beside);
  const v = wire["v"];
  switch (tag) {
    case "undefined":
      return undefined;
    case "bigint":
      return typeof v === "string" && /^-?\d+$/.test(v) ? BigInt(v) : wire;
    case "number":
      return typeof v === "string" ? Number(v) : wire;
    case "date":
      return typeof v === "string" ? new Date(v) : wire;
    case "bytes": {
      if (typeof v === "string") return fromBase64(v);
      const buffer = takeBeside(wire["i"], beside);
      return buffer ? new Bytes(buffer) : wire;
    }
    case "arraybuffer":
      return typeof v === "string" ? fromBase64(v).buffer : (takeBeside(wire["i"], beside) ?? wire);
    case "map":
      return isArray(v)
        ? new Map(
            v.map((e) =>
              isArray(e)
                ? [decodeWire(e[0] ?? null, beside), decodeWire(e[1] ?? null, beside)]
                : [e, e],
            ),
          )
        : wire;
    case "set":
      return isArray(v) ? new Set(v.map((item) => decodeWire(item, beside))) : wire;
    case "error": {
      const error = new Error(String(wire["message"] ?? ""));
      error.name = String(wire["name"] ?? "Error");
      return error;
    }
    case "object":
      return v && typeof v === "object" && !isArray(v) ? decodePlain(v, beside) : wire;
    case "circular":
      return "[Circular]";
    case "depth":
      return "[Too deep]";
    case "function":
      return `[Function ${String(wire["name"] ?? "anonymous")}]`;
    case "symbol":
      return `Symbol(${String(wire["description"] ?? "")})`;
    default:
      return decodePlain(wire, beside);
  }
}

/** The beside buffer a tag's `i` names, taken; undefined when there is none to take. */
function takeBeside(
  i: Wire | undefined,
  beside: BesideReader | undefined,
): ArrayBuffer | undefined {
  if (!beside || typeof i !== "number" || !(i >= 0 && i < beside.buffers.length)) return undefined;
  if (floor(i) !== i || beside.taken[i] === 1) return undefined;
  beside.taken[i] = 1;
  return beside.buffers[i];
}

function decodePlain(
  wire: { [key: string]: Wire },
  beside: BesideReader | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys(wire)) {
    const value = decodeWire(wire[key] ?? null, beside);
    // Assignment keeps V8's fast properties (defineProperty on every key measured several times
    // slower), but a "__proto__" key must stay a plain own property, not set the prototype.
    if (key === "__proto__")
      defineProperty(out, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = value;
  }
  return out;
}

/**
 * Decodes wire JSON text with the buffers that came beside it ({@link encodeParts}). Each
 * decoded binary value owns its buffer: the caller hands over buffers nobody else holds.
 * @param text - wire JSON text
 * @param bytes - the buffers its tags index
 */
export function decodeParts(text: string, bytes: readonly ArrayBuffer[]): unknown {
  return decodeWire(parse(text) as Wire, { buffers: bytes, taken: new Bytes(bytes.length) });
}

/**
 * Decodes wire JSON text produced by {@link encodeValue}.
 * @param text - wire JSON text
 */
export function decodeValue(text: string): unknown {
  // Without a tag anywhere, the wire tree is the value: JSON.parse already makes plain own
  // properties (a "__proto__" key included), so the decoding walk would only copy it.
  // The program's own `includes` (charged in the sandbox by the text's length; a 4 MiB binary
  // answer still costs < 1 M operations: host-functions.test.ts). Not the module's captured one: with it the shared worker's
  // engine ran a loop of host calls refused past maxHostCalls for 138 s instead of ~0.3 s
  // (test/workers/executor/hostile/programs.test.ts, session 28; why is not yet understood).
  if (!text.includes(`"${TAG}"`)) return parse(text) as unknown;
  return decodeWire(parse(text) as Wire, undefined);
}
