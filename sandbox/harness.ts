/**
 * The sandbox isolate's main module. The host loads it through the Worker Loader together with
 * `runtime.js` (the operation budget) and `user.js` (the instrumented model code), then calls
 * `run()` once over RPC with a host bridge. One isolate serves exactly one run.
 *
 * The harness: sets the budget, captures the console, installs the host namespaces as globals,
 * imports and runs the user's code, and returns the outcome as data (never throws), with the
 * result encoded and shrunk to the size limit *before* it crosses RPC.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { createConsoleCapture, type ConsoleCapture } from "./console-capture";
import { encodeValue, decodeValue, toWire } from "./codec";
import type {
  HostBridgeApi,
  HostReply,
  SandboxError,
  SandboxExtensionName,
  SandboxRequest,
  SandboxResponse,
} from "./protocol";
import { configure, usage } from "./runtime.js";
import { shrinkToFit, utf8Bytes } from "./truncate";

/** RPC entrypoint of the sandbox isolate. */
export default class SandboxHarness extends WorkerEntrypoint {
  /**
   * Runs the user's module once.
   * @param request - limits and the host namespaces to expose
   * @param host - the host bridge (an RpcTarget on the host side)
   */
  async run(request: SandboxRequest, host: HostBridgeApi): Promise<SandboxResponse> {
    configure(request.maxOperations);
    const capture = createConsoleCapture(request.maxLogBytes);
    Object.defineProperty(globalThis, "console", {
      value: capture.console,
      configurable: true,
      writable: true,
    });
    const state: RunState = { ended: false };
    const namespaces = new Map<string, Record<string, unknown>>();
    for (const [namespace, names] of Object.entries(request.namespaces)) {
      namespaces.set(
        namespace,
        makeNamespace(namespace, names, host, capture, state, request.maxCallBytes),
      );
    }
    let result: string | undefined;
    let error: SandboxError | undefined;
    let truncated = false;
    let resultBytes = 0;
    try {
      for (const ext of request.extensions ?? []) {
        let api = namespaces.get(ext.namespace);
        if (!api) namespaces.set(ext.namespace, (api = {}));
        (await loadExtension(ext.name)).install(api, ext.data);
      }
      for (const [namespace, api] of namespaces) {
        Object.defineProperty(globalThis, namespace, {
          value: Object.freeze(api),
          configurable: false,
          writable: false,
        });
      }
      const mod = (await import("./user.js")) as { default?: unknown };
      const entry = mod.default;
      const value: unknown = await (typeof entry === "function"
        ? (entry as () => unknown)()
        : entry);
      const shrunk = shrinkToFit(toWire(value), request.maxResultBytes);
      result = shrunk.text;
      truncated = shrunk.truncated;
      resultBytes = shrunk.originalBytes;
    } catch (thrown) {
      error = toSandboxError(thrown);
    } finally {
      state.ended = true;
    }
    const { operations, exhausted } = usage();
    return {
      ...(result === undefined ? {} : { result }),
      ...(error === undefined ? {} : { error }),
      truncated,
      resultBytes,
      logs: capture.drain(),
      droppedLogs: capture.dropped(),
      operations,
      budgetExhausted: exhausted,
    };
  }
}

/** Whether the run has ended: host calls made after that fail at once. */
interface RunState {
  ended: boolean;
}

/**
 * A host reply turned into the call's outcome: a decoded value, or a thrown error with the
 * host's name and message. One shared function, so a call allocates no closure for it.
 */
function settle(reply: HostReply): unknown {
  if (typeof reply === "string") return decodeValue(reply);
  const error = new Error(reply.error.message);
  error.name = reply.error.name;
  throw error;
}

function makeNamespace(
  namespace: string,
  names: readonly string[],
  host: HostBridgeApi,
  capture: ConsoleCapture,
  state: RunState,
  maxCallBytes: number,
): Record<string, unknown> {
  const api: Record<string, unknown> = {};
  for (const name of names) {
    const label = `${namespace}.${name}`;
    // Not an `async` function: every call would then allocate a promise for the function and
    // one for awaiting the RPC result (a thenable, not a native promise); chaining `settle` on
    // the RPC result makes one. Measured in the sandbox per call: allocation is what a call
    // costs beyond the RPC itself (an earlier wrapper promise per call cost ~6 µs of ~60).
    api[name] = (...args: unknown[]): Promise<unknown> => {
      if (state.ended)
        return Promise.reject(new Error(`${label}() was called after the run ended.`));
      const argsText = encodeValue(args);
      // Counting UTF-8 bytes is needed only when the text could be over (≤ 3 bytes per unit).
      const size = argsText.length * 3 > maxCallBytes ? utf8Bytes(argsText) : 0;
      if (size > maxCallBytes) {
        return Promise.reject(
          new RangeError(
            `${label}() arguments are ${size} bytes; the limit is ${maxCallBytes}. Send less data per call.`,
          ),
        );
      }
      // Console lines ride along when there are any (an empty array still costs serialization).
      const logs = capture.drain();
      // Over RPC every call is a promise, whatever the host method returned.
      const reply = host.call(
        namespace,
        name,
        argsText,
        logs.length > 0 ? logs : undefined,
      ) as Promise<HostReply>;
      return reply.then(settle);
    };
  }
  return api;
}

/** An extension module: adds functions to a namespace. */
interface SandboxExtension {
  install(api: Record<string, unknown>, data: string | Uint8Array): void;
}

/** Imports an extension module (literal specifiers keep them external to this bundle). */
async function loadExtension(name: SandboxExtensionName): Promise<SandboxExtension> {
  switch (name) {
    case "openapi":
      return (await import("./ext-openapi.js")) as SandboxExtension;
  }
}

function toSandboxError(thrown: unknown): SandboxError {
  if (thrown instanceof Error) {
    const out: SandboxError = { name: thrown.name, message: thrown.message };
    if (typeof thrown.stack === "string") out.stack = thrown.stack;
    return out;
  }
  return {
    name: "Error",
    message: `Non-error thrown: ${JSON.stringify(toWire(thrown)).slice(0, 1_000)}`,
  };
}
