/**
 * Values crossing between the shared worker (V8) and a run's engine (QuickJS handles): the
 * run's extension data copied in, host-call arguments read out, host replies handed back, and
 * engine bytes decoded as UTF-8 by V8.
 *
 * Kept apart from run.ts because none of this holds run state: each function converts
 * values with the context it is given, and the run (which owns every handle's lifetime, the
 * budget and the stop) decides when to call it.
 */
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
} from "quickjs-emscripten-core";
import { readLogBatch } from "./log-batch";
import { BESIDE_MIN_BYTES } from "../codec";
import type { HostBridgeApi, HostBytesReply, HostRefusal, HostReply } from "../protocol";

/** V8's decoder, for the engine's large `TextDecoder` inputs (see polyfills.ts). */
const UTF8 = new TextDecoder();

/**
 * A new engine array holding a copy of each extension's data: text as a string, bytes as an
 * ArrayBuffer. Each run's engine gets its own copy (the worker's stored copy is never reachable
 * from the engine): a run can change its copy, never the next run's.
 * @param ctx - the run's engine context
 * @param data - the run's extension data, in request order
 * @returns the array's handle; the caller owns it
 */
export function newDataArray(
  ctx: QuickJSContext,
  data: readonly (string | Uint8Array)[],
): QuickJSHandle {
  const array = ctx.newArray();
  data.forEach((value, i) => {
    const item =
      typeof value === "string"
        ? ctx.newString(value)
        : ctx.newArrayBuffer(
            value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
              ? value.buffer
              : value.slice().buffer,
          );
    ctx.setProp(array, i, item);
    item.dispose();
  });
  return array;
}

/**
 * The arguments of the guest's `__cm$host(namespace, name, argsText, logsJson)`, read out of
 * the engine as the host bridge's call takes them; the console lines within `logsRoom` (see
 * log-batch.ts).
 * @param ctx - the run's engine context
 * @param logsRoom - console lines the run may still have parsed
 * @returns the call's arguments, and the console lines parsed for it
 */
export function readHostCall(
  ctx: QuickJSContext,
  ns: QuickJSHandle,
  name: QuickJSHandle,
  args: QuickJSHandle,
  logs: QuickJSHandle | undefined,
  logsRoom: number,
  buffers: ArrayBuffer[] | undefined,
): { call: Parameters<HostBridgeApi["call"]>; logsParsed: number } {
  const logsText = logs && ctx.typeof(logs) === "string" ? ctx.getString(logs) : undefined;
  const batch = logsText === undefined ? undefined : readLogBatch(logsText, logsRoom);
  const call = [ctx.getString(ns), ctx.getString(name), ctx.getString(args), batch?.logs];
  // The binary values only when sent: a call without them stays the four arguments it was.
  if (buffers) call.push(buffers);
  return { call: call as Parameters<HostBridgeApi["call"]>, logsParsed: batch?.parsed ?? 0 };
}

/**
 * The binary values the guest's host call carries beside its text (`__cm$host`'s arguments past
 * the fourth, each a fresh ArrayBuffer the guest made: sandbox/codec.ts `encodeParts`), copied
 * out of the engine's memory. Read natively (`getArrayBuffer`: the buffer's own slots, no
 * property of it), so nothing the program put on a prototype runs or answers here.
 * @param ctx - the run's engine context
 * @param handles - the call's arguments past the fourth
 * @param maxBytes - the call's byte limit: their bytes in all, and their number at most this
 *   over {@link BESIDE_MIN_BYTES}
 * @returns the copies (undefined when none were sent), or why they are refused
 */
export function readHostBytes(
  ctx: QuickJSContext,
  handles: readonly QuickJSHandle[],
  maxBytes: number,
): ArrayBuffer[] | string | undefined {
  if (handles.length === 0) return undefined;
  if (handles.length > Math.max(1, Math.floor(maxBytes / BESIDE_MIN_BYTES)))
    return `A host call carries ${handles.length} binary values; the limit of ${maxBytes} bytes allows fewer.`;
  const buffers: ArrayBuffer[] = [];
  let bytes = 0;
  for (const handle of handles) {
    if (ctx.typeof(handle) !== "object") return NOT_BUFFERS;
    let copy: ReturnType<QuickJSContext["getArrayBuffer"]>;
    try {
      copy = ctx.getArrayBuffer(handle);
    } catch {
      return NOT_BUFFERS;
    }
    try {
      bytes += copy.value.byteLength;
      if (bytes > maxBytes)
        return `A host call's binary values are over the limit of ${maxBytes} bytes.`;
      buffers.push(copy.value.slice().buffer);
    } finally {
      copy.dispose();
    }
  }
  return buffers;
}

const NOT_BUFFERS = "A host call's binary values must be ArrayBuffers.";

/**
 * Settles the guest's promise of a host call with the host's reply: its wire text, or an
 * Error carrying the host's name and message.
 * @param ctx - the run's engine context
 * @param deferred - the promise handed to the guest; the caller still disposes of it
 * @param reply - what the host answered
 */
export function settleWithReply(
  ctx: QuickJSContext,
  deferred: QuickJSDeferredPromise,
  reply: HostReply,
): void {
  if (typeof reply === "string") {
    const value = ctx.newString(reply);
    deferred.resolve(value);
    value.dispose();
  } else if (isBytesReply(reply)) {
    const value = newBytesReply(ctx, reply);
    deferred.resolve(value);
    value.dispose();
  } else {
    const refusal = reply as HostRefusal | undefined;
    const error = ctx.newError({
      name: String(refusal?.error?.name ?? "Error"),
      message: String(refusal?.error?.message ?? "The host call failed."),
    });
    deferred.reject(error);
    error.dispose();
  }
}

/** Whether the host's reply carries binary values beside its text. */
function isBytesReply(reply: HostReply): reply is HostBytesReply {
  return (
    typeof reply === "object" &&
    reply !== null &&
    Object.hasOwn(reply, "bytes") &&
    typeof (reply as HostBytesReply).text === "string" &&
    Array.isArray((reply as HostBytesReply).bytes)
  );
}

/**
 * The guest's value of a reply with binary values: `[text, [buffer, …]]`, each buffer copied
 * into the engine. Every element is defined, never set: setting an index looks for a setter up
 * the prototype chain, which the program may have put there.
 */
function newBytesReply(ctx: QuickJSContext, reply: HostBytesReply): QuickJSHandle {
  const buffers = ctx.newArray();
  reply.bytes.forEach((buffer, i) => {
    const item = ctx.newArrayBuffer(buffer);
    ctx.defineProp(buffers, i, { value: item, configurable: true, enumerable: true });
    item.dispose();
  });
  const pair = ctx.newArray();
  const text = ctx.newString(reply.text);
  ctx.defineProp(pair, 0, { value: text, configurable: true, enumerable: true });
  ctx.defineProp(pair, 1, { value: buffers, configurable: true, enumerable: true });
  text.dispose();
  buffers.dispose();
  return pair;
}

/**
 * UTF-8 text of `length` bytes at `offset` of an engine ArrayBuffer, decoded by V8 (the
 * guest's `__cm$utf8`). Offsets are clamped to the buffer.
 * @param ctx - the run's engine context
 * @returns a new engine string; the engine owns it once returned from a native function
 */
export function decodeUtf8(
  ctx: QuickJSContext,
  buffer: QuickJSHandle,
  offset: QuickJSHandle,
  length: QuickJSHandle,
): QuickJSHandle {
  const copy = ctx.getArrayBuffer(buffer);
  try {
    const bytes = copy.value;
    const start = Math.max(0, Math.min(ctx.getNumber(offset) || 0, bytes.byteLength));
    const end = Math.max(start, Math.min(start + (ctx.getNumber(length) || 0), bytes.byteLength));
    return ctx.newString(UTF8.decode(bytes.subarray(start, end)));
  } finally {
    copy.dispose();
  }
}
