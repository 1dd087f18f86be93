/**
 * The sandbox isolate's main module. The host loads it through the Worker Loader together with
 * `runtime.js` (the operation budget) and `user.js` (the instrumented model code), then calls
 * `run()` once over RPC with a host bridge. One isolate serves exactly one run.
 *
 * The harness: sets the budget, captures the console, installs the host namespaces as globals,
 * imports and runs the user's code, and returns the outcome as data (never throws), with the
 * result encoded and shrunk to the size limit *before* it crosses RPC.
 *
 * It shares the isolate with the program, so it reads nothing through a prototype chain the
 * program can change once user code may run: the host stub's `call` and the request's fields
 * are read first, and intrinsics used later are captured when the module loads. Its limits are
 * a convenience; the host enforces every one of them again (src/executor/host-bridge.ts).
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { createConsoleCapture, type ConsoleCapture } from "./console-capture";
import { encodeParts } from "./codec";
import { decodeParts, decodeValue } from "./codec-decode";
import {
  calledWhileLoading,
  overLimit,
  fetchRefusal,
  loadExtension,
  resultText,
  toSandboxError,
} from "./harness-shared";
import {
  OVERTIME_MS,
  type HostBridgeApi,
  type HostBytesReply,
  type HostRefusal,
  type HostReply,
  type SandboxError,
  type SandboxExtensionRequest,
  type SandboxRequest,
  type SandboxResponse,
} from "./protocol";
import { OPERATIONS_PER_INTERRUPT, installCharges } from "./native-charges";
import {
  LimitError,
  REFUSED_CALL_COST,
  chargeNative,
  chargeRefusal,
  configure,
  stop,
  usage,
} from "./runtime.js";
import { utf8Bytes } from "./truncate";

// Intrinsics the harness uses after user code started, captured while this module loads (no
// user code has run yet): replacing them later changes nothing here. (harness-shared.ts
// captures its own the same way.)
const { defineProperty, freeze, hasOwn } = Object;
const reject = Promise.reject.bind(Promise);
const PromiseClass = Promise;
const setTimer = setTimeout;
const clearTimer = clearTimeout;
const ErrorClass = Error;
const RangeErrorClass = RangeError;
const TypeErrorClass = TypeError;

/**
 * Whether this isolate's built-ins are wrapped for their native work (sandbox/native-charges.ts):
 * once per isolate, as wrapping twice would charge twice.
 */
let chargesInstalled = false;

/** The host call, as captured before user code ran. */
type HostCall = HostBridgeApi["call"];

/** RPC entrypoint of the sandbox isolate. */
export default class SandboxHarness extends WorkerEntrypoint {
  /**
   * Runs the user's module once.
   * @param request - limits and the host namespaces to expose
   * @param host - the host bridge (an RpcTarget on the host side)
   */
  async run(request: SandboxRequest, host: HostBridgeApi): Promise<SandboxResponse> {
    // Everything needed of host objects is read now, before user code exists. An RPC stub
    // resolves names through Object.prototype first, so reading `host.call` later would hand
    // the stub itself to any getter the program installed under that name.
    const hostCall: HostCall = host.call;
    const limits = readRequest(request);
    configure(limits.maxOperations);
    spentReply = undefined;
    const capture = createConsoleCapture(limits.maxLogBytes);
    defineProperty(globalThis, "console", {
      value: capture.console,
      configurable: true,
      writable: true,
    });
    const state: RunState = { loading: true, ended: false };
    const namespaces = new Map<string, Record<string, unknown>>();
    for (const [namespace, names] of limits.namespaces) {
      namespaces.set(
        namespace,
        makeNamespace(namespace, names, hostCall, capture, state, limits.maxCallBytes),
      );
    }
    // Armed once the program's module has loaded (below). Its top level cannot need it: workerd
    // refuses timers and I/O in a module's global scope, so code there can only compute or await
    // microtasks (the operation budget ends it; locally, the runner's watchdog) or await what
    // nothing settles (workerd ends the import: "Top-level await in module is unsettled").
    const overtime = overtimeOf(limits.timeoutMs);
    // An extension's end of the run (ext-openapi: the program read past a spec's index). Once
    // called, the run's outcome is that error: the program may catch it, or collect it with
    // `Promise.allSettled` and go on without a tick, but the run is failed where it cannot reach.
    let failRun: ((thrown: unknown) => void) | undefined;
    let endedBy: LimitError | undefined;
    const end = (message: string): never => {
      stop(message);
      endedBy ??= new LimitError(message);
      failRun?.(endedBy);
      throw endedBy;
    };
    let result: string | undefined;
    let error: SandboxError | undefined;
    let truncated = false;
    let resultBytes = 0;
    try {
      for (const ext of limits.extensions) {
        let api = namespaces.get(ext.namespace);
        if (!api) namespaces.set(ext.namespace, (api = {}));
        (await loadExtension(ext.name)).install(api, ext.data, end);
      }
      for (const [namespace, api] of namespaces) {
        defineProperty(globalThis, namespace, {
          value: freeze(api),
          configurable: false,
          writable: false,
        });
      }
      // The isolate has no network (globalOutbound: null), but workerd's refusal points to
      // "bindings in env", which a program has none of: say what to call instead.
      const refusal = fetchRefusal(namespaces);
      defineProperty(globalThis, "fetch", {
        value: () => reject(new TypeErrorClass(refusal)),
        configurable: true,
        writable: true,
      });
      // Last before the program's module: the extensions' own set-up is not charged.
      if (!chargesInstalled) {
        chargesInstalled = true;
        installCharges((interrupts) => chargeNative(interrupts * OPERATIONS_PER_INTERRUPT));
      }
      const mod = (await import("./user.js")) as { default?: unknown };
      state.loading = false;
      const entry = mod.default;
      const started = typeof entry === "function" ? (entry as () => unknown)() : entry;
      // Not `Promise.race`: it reads `Promise.resolve` and the array iterator when called, after
      // the program could replace them (and never settle). The timer rejects this promise
      // directly; the program's promise reaches it only through `await`, whose machinery is the
      // engine's own. Its own `constructor` keeps `await` from looking one up on
      // Promise.prototype (a replaced one makes `await` go through a replaced `then`).
      const ending = new PromiseClass<Settled>((deliver, fail) => {
        overtime.arm(fail);
        failRun = fail;
        // Ended while the module loaded (its top level read past the index).
        if (endedBy) fail(endedBy);
        void settleWith(started, deliver, fail);
      });
      // A descriptor without a prototype: hooks on Object.prototype (get, set, …) are not read.
      defineProperty(ending, "constructor", {
        __proto__: null,
        value: PromiseClass,
      } as PropertyDescriptor);
      const { value } = await ending;
      const shrunk = resultText(value, limits.maxResultBytes);
      result = shrunk.text;
      truncated = shrunk.truncated;
      resultBytes = shrunk.originalBytes;
    } catch (thrown) {
      error = toSandboxError(thrown);
    } finally {
      state.ended = true;
      overtime.clear();
      // Whatever of the program is still running (a loop it left behind) stops at its next tick:
      // the outcome is built, and a loop of microtasks would hold back the answer.
      stop("The run has ended.");
    }
    const { operations, exhausted } = usage();
    // A literal (its fields are defined, never assigned: no setter up the chain runs) with an
    // own `then`: returning an object from this async method makes its promise look for one,
    // and the program could have put one on Object.prototype to answer in the harness's place.
    // (A prototype-less object would do, but RPC refuses to clone one.)
    const response: SandboxResponse & { then: undefined } = {
      truncated,
      resultBytes,
      logs: capture.drain(),
      droppedLogs: capture.dropped(),
      operations,
      budgetExhausted: exhausted,
      ...(result === undefined ? undefined : { result }),
      ...(error === undefined ? undefined : { error }),
      // oxlint-disable-next-line unicorn/no-thenable -- an own `then` that is not a function
      then: undefined,
    };
    return response;
  }
}

/** The program's value, boxed with an own `then` that is not a function (see the response). */
interface Settled {
  value: unknown;
  then: undefined;
}

/** Awaits the program's promise and hands its outcome on, boxed so no `then` is looked up. */
async function settleWith(
  started: unknown,
  deliver: (settled: Settled) => void,
  fail: (thrown: unknown) => void,
): Promise<void> {
  try {
    // oxlint-disable-next-line unicorn/no-thenable -- an own `then` that is not a function
    deliver({ value: await started, then: undefined });
  } catch (thrown) {
    fail(thrown);
  }
}

/**
 * The harness's own end of a run the host has given up on: {@link OVERTIME_MS} after the host's
 * timeout, the operation budget stops whatever of the program still runs and the run answers
 * (ending the RPC call, which ends the request's timers too). Until now a program that caught
 * every error in a polling loop kept its isolate, and the local runner it ran on, busy forever
 * after the caller got its timeout.
 * @param timeoutMs - the host's timeout (0: none given, no overtime)
 */
function overtimeOf(timeoutMs: number): {
  arm(fail: (thrown: unknown) => void): void;
  clear(): void;
} {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    arm(fail) {
      if (timeoutMs <= 0) return;
      timer = setTimer(() => {
        const message = `The run's time of ${timeoutMs} ms is over; the host has stopped waiting for it.`;
        stop(message);
        fail(new LimitError(message));
      }, timeoutMs + OVERTIME_MS);
    },
    clear: () => clearTimer(timer),
  };
}

/** The request's fields, read as own properties into a record the program never sees. */
interface RunLimits {
  namespaces: [string, string[]][];
  maxOperations: number;
  maxResultBytes: number;
  maxLogBytes: number;
  maxCallBytes: number;
  timeoutMs: number;
  extensions: SandboxExtensionRequest[];
}

function readRequest(request: SandboxRequest): RunLimits {
  const own = <K extends keyof SandboxRequest>(key: K): SandboxRequest[K] | undefined =>
    hasOwn(request, key) ? request[key] : undefined;
  const namespaces = own("namespaces") ?? {};
  return {
    namespaces: Object.entries(namespaces).map(([ns, names]) => [ns, [...names]]),
    maxOperations: own("maxOperations") ?? 0,
    maxResultBytes: own("maxResultBytes") ?? 0,
    maxLogBytes: own("maxLogBytes") ?? 0,
    maxCallBytes: own("maxCallBytes") ?? 0,
    timeoutMs: own("timeoutMs") ?? 0,
    extensions: [...(own("extensions") ?? [])],
  };
}

/** Where the run is: host calls made while the module loads or after the end fail at once. */
interface RunState {
  loading: boolean;
  ended: boolean;
}

/**
 * A call the harness refuses itself: charged to the operation budget (see REFUSED_CALL_COST in
 * runtime.ts), since nothing else can end a loop that catches such refusals.
 * @param error - what the call rejects with
 * @param cost - operations it is worth
 */
function refuse(error: Error, cost: number): Promise<never> {
  chargeRefusal(cost);
  return reject(error);
}

/**
 * The host's refusal every later call of this run gets too (`spent`, see HostRefusal in
 * protocol.ts), once it came: later calls are refused here, charged, without asking the host.
 * Kept here rather than in the run's state so {@link settle} stays one shared function; one
 * isolate serves exactly one run.
 */
let spentReply: HostRefusal | undefined;

/**
 * A host reply turned into the call's outcome: a decoded value, or a thrown error with the
 * host's name and message. One shared function, so a call allocates no closure for it.
 */
function settle(reply: HostReply): unknown {
  if (typeof reply === "string") return decodeValue(reply);
  // Own properties only: the reply is a plain object whose prototype the program can hook.
  if (hasOwn(reply, "bytes")) {
    const parts = reply as HostBytesReply;
    return decodeParts(parts.text, parts.bytes);
  }
  const refusal = reply as HostRefusal;
  if (hasOwn(refusal, "spent")) spentReply = refusal;
  throw refusalError(refusal);
}

/** The error a failed or refused call throws: the host's name and message. */
function refusalError(reply: HostRefusal): Error {
  const error = new ErrorClass(reply.error.message);
  error.name = reply.error.name;
  return error;
}

function makeNamespace(
  namespace: string,
  names: readonly string[],
  hostCall: HostCall,
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
        return refuse(
          new ErrorClass(`${label}() was called after the run ended.`),
          REFUSED_CALL_COST,
        );
      if (state.loading)
        return refuse(new ErrorClass(calledWhileLoading(label)), REFUSED_CALL_COST);
      if (spentReply !== undefined) return refuse(refusalError(spentReply), REFUSED_CALL_COST);
      // Binary values cross beside the text, copied (codec.ts): past the limit only counted.
      const parts = encodeParts(args, maxCallBytes);
      // Stopped at the limit while encoding (codec.ts): the text was never made whole.
      if (typeof parts !== "string" && parts.over) {
        return refuse(
          new RangeErrorClass(overLimit(label, maxCallBytes)),
          REFUSED_CALL_COST + (maxCallBytes >>> 2),
        );
      }
      const argsText = typeof parts === "string" ? parts : parts.text;
      const besideBytes = typeof parts === "string" ? 0 : parts.byteCount;
      // Counting UTF-8 bytes is needed only when the text could be over (≤ 3 bytes per unit).
      const size =
        besideBytes + argsText.length * 3 > maxCallBytes ? besideBytes + utf8Bytes(argsText) : 0;
      if (size > maxCallBytes) {
        // Encoding and counting the text was work too: a unit per 4 characters.
        return refuse(
          new RangeErrorClass(
            `${label}() arguments are ${size} bytes; the limit is ${maxCallBytes}. Send less data per call.`,
          ),
          REFUSED_CALL_COST + (argsText.length >>> 2),
        );
      }
      // Console lines ride along when there are any (an empty array still costs serialization).
      const logs = capture.drain();
      // Over RPC every call is a promise, whatever the host method returned. `then` of an RPC
      // promise is its own class's method, found before anything on Object.prototype.
      const reply = (
        typeof parts === "string"
          ? hostCall(namespace, name, argsText, logs.length > 0 ? logs : undefined)
          : hostCall(namespace, name, argsText, logs.length > 0 ? logs : undefined, parts.bytes)
      ) as Promise<HostReply>;
      return reply.then(settle);
    };
  }
  return api;
}
