/**
 * The binary values a host call carries beside its argument text (sandbox/codec.ts
 * `encodeParts`), checked by the host bridge before anything decodes them.
 *
 * The harness sends a list of fresh, fixed-size ArrayBuffers of at least {@link BESIDE_MIN_BYTES},
 * each the copy of one value (the codec places them with a `defineProperty` captured before the
 * program runs, so no `push` or index setter of the program's chooses them). A program that
 * reached the bridge past the harness could still send anything RPC carries: a list of typed arrays, shared memory, a resizable buffer,
 * thousands of empty buffers, one buffer twice. Each is refused here with the call's own
 * message. The buffers' lengths are read with the
 * engine's own accessor, never through a property the value could hold itself.
 */
import { BESIDE_MIN_BYTES } from "../../sandbox/codec";

const { apply } = Reflect;
const { getOwnPropertyDescriptor } = Object;
const { isArray } = Array;
const bufferPrototype = ArrayBuffer.prototype;
// Throws for anything but an ArrayBuffer: shared memory, a view, a Proxy, a plain object.
const bufferLength = getOwnPropertyDescriptor(bufferPrototype, "byteLength")?.get;
const bufferDetached = getOwnPropertyDescriptor(bufferPrototype, "detached")?.get;
const bufferResizable = getOwnPropertyDescriptor(bufferPrototype, "resizable")?.get;

/** A call's binary values, checked: `buffers` absent when it sent none. */
export interface ArgsBuffers {
  buffers: ArrayBuffer[] | undefined;
  /** Their bytes in all. */
  bytes: number;
}

/** Why a call's binary values were refused: the error's name and the message's end. */
export interface ArgsBuffersRefusal {
  name: "TypeError" | "RangeError";
  /** Follows `namespace.name()` in the message. */
  message: string;
}

const NONE: ArgsBuffers = { buffers: undefined, bytes: 0 };

/**
 * Checks what a call sent beside its argument text.
 * @param argsBytes - the call's binary values as received (anything, from a hostile program)
 * @param maxBytes - the call's byte limit (`maxCallBytes`): their bytes in all must fit, and
 *   their number is at most this over {@link BESIDE_MIN_BYTES} (the harness sends none smaller)
 * @returns the buffers and their bytes, or why they are refused
 */
export function argsBuffers(
  argsBytes: unknown,
  maxBytes: number,
): ArgsBuffers | ArgsBuffersRefusal {
  if (argsBytes === undefined) return NONE;
  if (!isArray(argsBytes) || !bufferLength) return NOT_BUFFERS;
  const count = argsBytes.length;
  const maxCount = Math.max(1, Math.floor(maxBytes / BESIDE_MIN_BYTES));
  if (count > maxCount) {
    return {
      name: "RangeError",
      message: `arguments carry ${count} binary values; the limit of ${maxBytes} bytes allows at most ${maxCount}. Send fewer, larger values per call.`,
    };
  }
  const buffers: ArrayBuffer[] = [];
  const seen = new Set<unknown>();
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const item: unknown = argsBytes[i];
    let length: number;
    try {
      length = apply(bufferLength, item, []) as number;
    } catch {
      return NOT_BUFFERS;
    }
    if (bufferDetached && apply(bufferDetached, item, []) === true) {
      return { name: "TypeError", message: "arguments hold a detached ArrayBuffer." };
    }
    if (bufferResizable && apply(bufferResizable, item, []) === true) {
      return { name: "TypeError", message: "arguments hold a resizable ArrayBuffer." };
    }
    // The harness sends none smaller. Without this, empty buffers cost a call nothing against
    // its byte limit or the in-flight bound: 1,000 calls could hold 4 million of them on the host.
    if (length < BESIDE_MIN_BYTES) {
      return {
        name: "TypeError",
        message: `arguments hold an ArrayBuffer of ${length} bytes beside the text, smaller than ${BESIDE_MIN_BYTES} bytes; call host functions through their namespace object.`,
      };
    }
    if (seen.has(item)) {
      return { name: "TypeError", message: "arguments hold the same ArrayBuffer twice." };
    }
    seen.add(item);
    bytes += length;
    if (bytes > maxBytes) {
      return {
        name: "RangeError",
        message: `arguments are over the limit of ${maxBytes} bytes. Send less data per call.`,
      };
    }
    buffers.push(item as ArrayBuffer);
  }
  return { buffers, bytes };
}

const NOT_BUFFERS: ArgsBuffersRefusal = {
  name: "TypeError",
  message:
    "received binary arguments that are not a list of ArrayBuffers (shared memory, typed arrays and other objects are refused); call host functions through their namespace object.",
};
