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
    const calls = new PendingCalls();
    const namespaces = new Map<string, Record<string, unknown>>();
    for (const [namespace, names] of Object.entries(request.namespaces)) {
      namespaces.set(
        namespace,
        makeNamespace(namespace, names, host, capture, calls, request.maxCallBytes),
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
      calls.endRun();
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

/** Tracks host calls in flight so none is left dangling when the run ends. */
class PendingCalls {
  private readonly rejects = new Set<(reason: Error) => void>();
  private ended = false;

  /** Whether the run has ended; calls made after that fail at once. */
  get isEnded(): boolean {
    return this.ended;
  }

  /** Wraps a host call so it can be rejected when the run ends first. */
  track<T>(label: string, work: Promise<T>): Promise<T> {
    const settled = new Promise<T>((resolve, reject) => {
      const onEnd = (reason: Error) => reject(reason);
      this.rejects.add(onEnd);
      work.then(
        (value) => (this.rejects.delete(onEnd), resolve(value)),
        (reason: unknown) => (this.rejects.delete(onEnd), reject(reason)),
      );
    });
    // Code that never awaits a call must not produce an unhandled rejection in the isolate.
    settled.catch(() => {});
    void label;
    return settled;
  }

  /** Rejects every call still pending and refuses new ones. */
  endRun(): void {
    this.ended = true;
    for (const reject of this.rejects)
      reject(new Error("The run ended before this host call settled (was it awaited?)."));
    this.rejects.clear();
  }
}

function makeNamespace(
  namespace: string,
  names: readonly string[],
  host: HostBridgeApi,
  capture: ConsoleCapture,
  calls: PendingCalls,
  maxCallBytes: number,
): Record<string, unknown> {
  const api: Record<string, unknown> = {};
  for (const name of names) {
    const label = `${namespace}.${name}`;
    api[name] = async (...args: unknown[]) => {
      if (calls.isEnded) throw new Error(`${label}() was called after the run ended.`);
      const argsText = encodeValue(args);
      // Counting UTF-8 bytes is needed only when the text could be over (≤ 3 bytes per unit).
      const size = argsText.length * 3 > maxCallBytes ? utf8Bytes(argsText) : 0;
      if (size > maxCallBytes) {
        throw new RangeError(
          `${label}() arguments are ${size} bytes; the limit is ${maxCallBytes}. Send less data per call.`,
        );
      }
      // Console lines ride along when there are any (an empty array still costs serialization).
      const logs = capture.drain();
      const reply = await calls.track(
        label,
        // Over RPC every call is a promise, whatever the host method returned.
        host.call(
          namespace,
          name,
          argsText,
          logs.length > 0 ? logs : undefined,
        ) as Promise<HostReply>,
      );
      if (typeof reply === "string") return decodeValue(reply);
      const error = new Error(reply.error.message);
      error.name = reply.error.name;
      throw error;
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
