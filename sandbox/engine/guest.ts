/**
 * The harness of a shared-worker run, evaluated INSIDE the WebAssembly JavaScript engine (module
 * `guest.js` of a fresh engine context, see runner.ts). It is harness.ts without the
 * Worker parts: sets the operation budget, captures the console, installs the host namespaces,
 * imports the instrumented `user.js`, and answers a `SandboxResponse` as JSON text.
 *
 * The runner hands it native functions as globals (`__cm$host(namespace, name, argsText,
 * logsJson)`, `__cm$timer(ms)`, `__cm$utf8`, `__cm$charge(interrupts)`); they are read and
 * deleted when this module loads, before any user code exists.
 * Code generation from strings (`eval`, the Function constructors) is switched off before the
 * user's module loads, as the platform does in the per-run isolate: the engine could run such
 * code, but it would skip the operation budget the instrumenter compiles in.
 */
import { POLYFILLS } from "./polyfills";
import { blockCodeGeneration, blockNetwork, capProxyKeys, installTimers } from "./lockdown";
import { installCharges } from "../native-charges";
import { createConsoleCapture } from "../console-capture";
import { encodeParts, type Wire } from "../codec";
import { decodeParts, decodeValue } from "../codec-decode";
import {
  calledWhileLoading,
  overLimit,
  fetchRefusal,
  loadExtension,
  resultText,
  toSandboxError,
} from "../harness-shared";
import type { SandboxError, SandboxExtensionRequest, SandboxResponse } from "../protocol";
import { configure, usage } from "../runtime.js";
import { utf8Bytes, writeTree } from "../truncate";

/**
 * The runner's native host call: resolves to the reply's wire text, or to `[text, buffers]` when
 * binary values came beside it (values.ts), or rejects with an Error. The call's own binary
 * values follow its fourth argument, one ArrayBuffer each.
 */
type NativeHostCall = (
  namespace: string,
  name: string,
  argsText: string,
  logsJson: string | undefined,
  ...bytes: ArrayBuffer[]
) => Promise<string | [string, ArrayBuffer[]]>;

/** What the runner sends to `run` (as JSON text). */
interface GuestRequest {
  namespaces: Record<string, string[]>;
  maxOperations: number;
  maxResultBytes: number;
  maxLogBytes: number;
  maxCallBytes: number;
  extensions: { name: SandboxExtensionRequest["name"]; namespace: string }[];
}

// Referenced so the polyfills module (imported first) is evaluated before the other modules.
void POLYFILLS;
const g = globalThis as unknown as Record<string, unknown>;
const hostCall = g["__cm$host"] as NativeHostCall;
const timer = g["__cm$timer"] as (ms: number) => Promise<void>;
const charge = g["__cm$charge"] as (interrupts: number) => void;
delete g["__cm$host"];
delete g["__cm$timer"];
delete g["__cm$charge"];
const { defineProperty, freeze } = Object;
const { apply } = Reflect;
const { isArray } = Array;
const { parse } = JSON;
const reject = Promise.reject.bind(Promise);
const ErrorClass = Error;
const RangeErrorClass = RangeError;
installTimers(timer);

/**
 * A call this harness refuses itself, charged one interrupt (~10,000 steps) as the V8 harness
 * charges REFUSED_CALL_COST: a loop that catches refusals spends its budget on them, not only
 * on its own few steps. The charge throws once the budget is spent.
 * @param error - what the call rejects with
 */
function refuse(error: Error): Promise<never> {
  charge(1);
  return reject(error);
}

/** The console of this run, drained by {@link finish} when the run was interrupted. */
let capture = createConsoleCapture(0);

/**
 * Runs the user's module once.
 * @param requestJson - a {@link GuestRequest} as JSON text
 * @param extensionData - data of each extension in request order (text or bytes)
 * @returns a `SandboxResponse` as JSON text
 */
export async function run(
  requestJson: string,
  extensionData: (string | ArrayBuffer)[],
): Promise<string> {
  const request = parse(requestJson) as GuestRequest;
  configure(request.maxOperations);
  capture = createConsoleCapture(request.maxLogBytes);
  defineProperty(g, "console", { value: capture.console, configurable: true, writable: true });
  let ended = false;
  let loading = true;
  const namespaces = new Map<string, Record<string, unknown>>();
  for (const [namespace, names] of Object.entries(request.namespaces)) {
    const api: Record<string, unknown> = {};
    for (const name of names) {
      const label = `${namespace}.${name}`;
      api[name] = (...args: unknown[]): Promise<unknown> => {
        if (ended) return refuse(new ErrorClass(`${label}() was called after the run ended.`));
        if (loading) return refuse(new ErrorClass(calledWhileLoading(label)));
        // Binary values cross beside the text, copied (codec.ts): past the limit only counted.
        const parts = encodeParts(args, request.maxCallBytes);
        // Stopped at the limit while encoding (codec.ts): the text was never made whole.
        if (typeof parts !== "string" && parts.over) {
          return refuse(new RangeErrorClass(overLimit(label, request.maxCallBytes)));
        }
        const argsText = typeof parts === "string" ? parts : parts.text;
        const besideBytes = typeof parts === "string" ? 0 : parts.byteCount;
        const size =
          besideBytes + argsText.length * 3 > request.maxCallBytes
            ? besideBytes + utf8Bytes(argsText)
            : 0;
        if (size > request.maxCallBytes) {
          return refuse(
            new RangeErrorClass(
              `${label}() arguments are ${size} bytes; the limit is ${request.maxCallBytes}. Send less data per call.`,
            ),
          );
        }
        const logs = capture.drain();
        // The engine's async stacks end at the await: the call site's stack is taken now, so a
        // host failure the program does not catch is reported at the calling line.
        const site = new ErrorClass();
        // Not JSON's own walk: it would call a `toJSON` the program put on Array.prototype
        // or Object.prototype, and send what that answers as the console lines.
        const logsJson = logs.length > 0 ? writeTree(logs as unknown as Wire) : undefined;
        return (
          typeof parts === "string"
            ? hostCall(namespace, name, argsText, logsJson)
            : apply(
                hostCall,
                undefined,
                callArguments(namespace, name, argsText, logsJson, parts.bytes),
              )
        ).then(decodeReply, (error: unknown) => {
          if (error instanceof ErrorClass) defineProperty(error, "stack", { value: site.stack });
          throw error;
        });
      };
    }
    namespaces.set(namespace, api);
  }
  let result: string | undefined;
  let error: SandboxError | undefined;
  let truncated = false;
  let resultBytes = 0;
  try {
    for (let i = 0; i < request.extensions.length; i++) {
      const ext = request.extensions[i]!;
      let api = namespaces.get(ext.namespace);
      if (!api) namespaces.set(ext.namespace, (api = {}));
      const data = extensionData[i]!;
      const mod = await loadExtension(ext.name);
      mod.install(api, typeof data === "string" ? data : new Uint8Array(data));
    }
    for (const [namespace, api] of namespaces) {
      defineProperty(g, namespace, { value: freeze(api), configurable: false, writable: false });
    }
    installCharges(charge);
    blockCodeGeneration();
    blockNetwork(fetchRefusal(namespaces));
    // Every error walks the stack in native code the interrupt handler cannot see: a program
    // that overflows the stack in a loop would spend its time there. V8's default depth.
    defineProperty(ErrorClass, "stackTraceLimit", {
      value: 10,
      writable: false,
      configurable: false,
    });
    capProxyKeys();
    const mod = (await import("../user.js")) as { default?: unknown };
    loading = false;
    const entry = mod.default;
    const value: unknown = await (typeof entry === "function" ? (entry as () => unknown)() : entry);
    const shrunk = resultText(value, request.maxResultBytes);
    result = shrunk.text;
    truncated = shrunk.truncated;
    resultBytes = shrunk.originalBytes;
  } catch (thrown) {
    error = toEngineError(thrown);
  } finally {
    ended = true;
  }
  const response = finishResponse();
  response.truncated = truncated;
  response.resultBytes = resultBytes;
  if (result !== undefined) response.result = result;
  if (error !== undefined) response.error = error;
  // Written as truncate.ts writes a result: a `toJSON` on Array.prototype made JSON send its
  // answer in place of the logs (a malformed response), or run the engine out of memory.
  return writeTree(response as unknown as Wire);
}

/**
 * The arguments of a host call with binary values: the four, then each buffer. Defined, never
 * set, and no iterator or array method used: those look through prototypes the program may
 * have changed.
 */
function callArguments(
  namespace: string,
  name: string,
  argsText: string,
  logsJson: string | undefined,
  bytes: ArrayBuffer[],
): unknown[] {
  const list: unknown[] = [namespace, name, argsText, logsJson];
  for (let i = 0; i < bytes.length; i++) {
    defineProperty(list, 4 + i, {
      __proto__: null,
      value: bytes[i],
      writable: true,
      enumerable: true,
      configurable: true,
    } as PropertyDescriptor);
  }
  return list;
}

/** A host call's value: its wire text decoded, with the binary values that came beside it. */
function decodeReply(reply: string | [string, ArrayBuffer[]]): unknown {
  if (typeof reply === "string") return decodeValue(reply);
  return isArray(reply) ? decodeParts(reply[0], reply[1]) : undefined;
}

/**
 * The console lines and budget use so far, as a `SandboxResponse` JSON text without a result:
 * what the runner reports when the engine interrupted the run.
 */
export function finish(): string {
  return writeTree(finishResponse() as unknown as Wire);
}

function finishResponse(): SandboxResponse {
  const { operations, exhausted } = usage();
  return {
    truncated: false,
    resultBytes: 0,
    logs: capture.drain(),
    droppedLogs: capture.dropped(),
    operations,
    budgetExhausted: exhausted,
  };
}

/**
 * The thrown value as bounded data, as harness-shared.ts reports it, with the engine's name for
 * a stack overflow reported as V8 (and the per-run isolate) names it.
 */
function toEngineError(thrown: unknown): SandboxError {
  const out = toSandboxError(thrown);
  if (out.name === "InternalError" && out.message === "stack overflow") {
    out.name = "RangeError";
    out.message = "Maximum call stack size exceeded";
  }
  return out;
}
