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
import type { HostBridgeApi, HostReply } from "../protocol";

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
): { call: Parameters<HostBridgeApi["call"]>; logsParsed: number } {
  const logsText = logs && ctx.typeof(logs) === "string" ? ctx.getString(logs) : undefined;
  const batch = logsText === undefined ? undefined : readLogBatch(logsText, logsRoom);
  const call: [string, string, string, unknown] = [
    ctx.getString(ns),
    ctx.getString(name),
    ctx.getString(args),
    batch?.logs,
  ];
  return { call: call as Parameters<HostBridgeApi["call"]>, logsParsed: batch?.parsed ?? 0 };
}

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
  } else {
    const error = ctx.newError({
      name: String(reply?.error?.name ?? "Error"),
      message: String(reply?.error?.message ?? "The host call failed."),
    });
    deferred.reject(error);
    error.dispose();
  }
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
