/**
 * The host side of sandbox → host calls: an `RpcTarget` passed to the sandbox as an RPC
 * argument (an RpcTarget placed in a loaded worker's env fails to clone). It decodes arguments,
 * enforces the host-call limit, runs the host function with an AbortSignal, and encodes the
 * answer. Once closed (run finished, timed out or cancelled) it aborts calls in flight and
 * refuses new ones, so no host work outlives its run.
 *
 * Trusts nothing from the sandbox: a program that reaches this stub directly (past the harness)
 * can send any values, so every limit is enforced here again, where it cannot be skipped:
 * argument types, size (checked by length before any decoding) and nesting (wire-nesting.ts),
 * the call count, the bytes of argument text held by calls still running, and the console
 * budget across every piggybacked batch and the final response (excess lines are counted,
 * never kept).
 */
import { RpcTarget } from "cloudflare:workers";
import { encodeParts } from "../../sandbox/codec";
import { decodeParts, decodeValue } from "../../sandbox/codec-decode";
import { LOG_LEVELS } from "../../sandbox/console-capture";
import { createLogBudget, type LogBudget } from "../../sandbox/log-budget";
import type { HostBridgeApi, HostReply, LogEntry } from "../../sandbox/protocol";
import { utf8Bytes } from "../../sandbox/truncate";
import { argsBuffers } from "./args-buffers";
import { flatCopy } from "./flat-copy";
import type { ExecutorLimits, HostNamespaces } from "./types";
import { MAX_WIRE_NESTING, nestedDeeperThan } from "./wire-nesting";
import { isRecord } from "../is-record";

/** The limits the bridge enforces. */
export type HostBridgeLimits = Pick<
  ExecutorLimits,
  "maxHostCalls" | "maxCallBytes" | "maxLogBytes"
>;

/**
 * Argument text (UTF-16 units) that calls still running may hold at once, at least one
 * largest call: bounds what a flood of concurrent calls keeps alive on the host.
 */
export const MAX_IN_FLIGHT_CHARS = 16 * 1_048_576;

const LEVELS: ReadonlySet<unknown> = new Set(LOG_LEVELS);

/**
 * The reason every run's signal is aborted with at its end: one frozen error per isolate. A new
 * `Error` per run captured a stack trace at the end of every run that had called a host function
 * (~4.6 % of the host isolate's CPU samples per `code` call, issue #43), and nobody reads it:
 * host functions and the replies built from their failures see only its name and message, the
 * same for every run. Frozen, so no run's host code can change what the next run's sees.
 */
export const RUN_ENDED: Error = Object.freeze(new Error("The run ended."));

/** Per-run host bridge. */
export class HostBridge extends RpcTarget implements HostBridgeApi {
  /** Host calls that reached the host so far (refused ones included: they cost host work). */
  calls = 0;
  /** Message of the limit that was hit, if any. */
  limitHit: string | undefined;
  /** Console lines kept within the run's budget, in arrival order. */
  readonly logs: LogEntry[] = [];
  /**
   * Made at the first host call that reaches a host function (its signal goes to them): a run
   * that calls none (a trivial `execute`) makes no controller and, at its end, no abort reason,
   * whose stack capture was ~2.7 % of the host's CPU per such run (issue #43).
   */
  private controller: AbortController | undefined;
  /** Whether the run ended ({@link close}): calls are refused from then on. */
  private ended = false;
  private readonly budget: LogBudget;
  private inFlightChars = 0;
  /**
   * Calls whose host function's promise has not settled: only those are aborted at the run's
   * end. Aborting a signal nobody waits on still cost ~2 % of the host isolate's CPU samples per
   * `code` call (workerd's `abort()`, issue #43), and a run's calls have almost always settled
   * by its end (the program awaited them).
   */
  private running = 0;
  private readonly maxInFlightChars: number;

  /**
   * @param namespaces - the run's host functions
   * @param limits - what the bridge enforces
   * @param originalText - maps module text back to the program's (see `HostCallContext`)
   */
  constructor(
    private readonly namespaces: HostNamespaces,
    private readonly limits: HostBridgeLimits,
    private readonly originalText?: (generated: string) => string | undefined,
  ) {
    super();
    this.budget = createLogBudget(limits.maxLogBytes);
    this.maxInFlightChars = Math.max(MAX_IN_FLIGHT_CHARS, limits.maxCallBytes);
  }

  // Everything but `call` is an instance property on purpose: an RpcTarget exposes the methods
  // and getters of its prototype over RPC, so these stay out of the sandbox's reach.

  /**
   * Refuses a call past the run's `maxHostCalls` and records the limit, as `call` does for one
   * that reached the host: a local sandbox runner holding more calls of the run than the limit
   * allows refuses the excess itself and tells the host (through its tracked host, never the
   * sandbox), so the run ends as `limit` on both paths.
   */
  readonly refuseOverLimit = (namespace: unknown, name: unknown): HostReply => {
    this.limitHit = `Host call limit of ${this.limits.maxHostCalls} reached at ${label(namespace, name)}(): batch the work into fewer calls or ask the host for a larger maxHostCalls.`;
    return { error: { name: "LimitError", message: this.limitHit }, spent: true };
  };

  /**
   * Refuses a call that a local sandbox runner would have had to keep waiting past its bound of
   * argument text (it holds the run's calls beyond those at the host): counted like a call this
   * bridge refuses for the text of calls still running, so the run's call count and message are
   * the same with or without a runner (the program could otherwise retry such calls without
   * spending any of its `maxHostCalls`).
   */
  readonly refuseWaiting = (namespace: unknown, name: unknown): HostReply => {
    if (this.ended) return endedReply(namespace, name);
    if (this.calls >= this.limits.maxHostCalls) return this.refuseOverLimit(namespace, name);
    this.calls++;
    return fail(
      "LimitError",
      `${label(namespace, name)}() would hold more than ${this.maxInFlightChars} characters of arguments in calls waiting or still running: await some calls before starting more.`,
    );
  };

  /** Console lines dropped by the host's budget (the sandbox reports its own separately). */
  readonly droppedLogs = (): number => this.budget.dropped();

  /**
   * Handles one call from the sandbox. Never throws: failures are replies. Not `async`: a host
   * function that answers synchronously gets its reply encoded at once, without a promise.
   * Parameters are `unknown`: only the harness sends the declared types.
   */
  call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
    argsBytes?: unknown,
  ): HostReply | Promise<HostReply> {
    // After the end the outcome is already built: late lines would only grow it.
    if (logs !== undefined && !this.ended) this.acceptLogs(logs);
    if (this.ended) return endedReply(namespace, name);
    const { maxHostCalls, maxCallBytes } = this.limits;
    if (this.calls >= maxHostCalls) return this.refuseOverLimit(namespace, name);
    this.calls++;
    if (typeof namespace !== "string" || typeof name !== "string" || typeof argsText !== "string") {
      return fail(
        "TypeError",
        "A host call needs a namespace, a name and encoded arguments as strings; call host functions through their namespace object.",
      );
    }
    const fns = Object.hasOwn(this.namespaces, namespace) ? this.namespaces[namespace] : undefined;
    const fn = fns && Object.hasOwn(fns, name) ? fns[name] : undefined;
    if (typeof fn !== "function")
      return fail("TypeError", `${namespace}.${name} is not a function.`);
    // The binary values beside the text: real ArrayBuffers only, at most as many and as large
    // as the limit allows, read by the engine's own accessors (args-buffers.ts).
    const beside = argsBuffers(argsBytes, maxCallBytes);
    if ("name" in beside) return fail(beside.name, `${namespace}.${name}() ${beside.message}`);
    const room = maxCallBytes - beside.bytes;
    // Bytes ≥ UTF-16 units ≥ bytes / 3: only a text in between needs counting, and a text
    // longer than the limit is refused without being read.
    const chars = argsText.length;
    if (room < 0 || (chars * 3 > room && (chars > room || utf8Bytes(argsText) > room))) {
      return fail(
        "RangeError",
        `${namespace}.${name}() arguments are over the limit of ${maxCallBytes} bytes. Send less data per call.`,
      );
    }
    // What calls still running hold: their text and their bytes, a unit each.
    const held = chars + beside.bytes;
    if (this.inFlightChars + held > this.maxInFlightChars) {
      return fail(
        "LimitError",
        `${namespace}.${name}() would hold more than ${this.maxInFlightChars} characters of arguments in calls still running: await some calls before starting more.`,
      );
    }
    if (nestedDeeperThan(argsText)) {
      return fail(
        "TypeError",
        `${namespace}.${name}() arguments are nested deeper than ${MAX_WIRE_NESTING} levels; send flatter data.`,
      );
    }
    let args: unknown;
    try {
      args = beside.buffers ? decodeParts(argsText, beside.buffers) : decodeValue(argsText);
    } catch {
      return fail(
        "TypeError",
        `${namespace}.${name}() received arguments that could not be decoded.`,
      );
    }
    try {
      const value = fn(Array.isArray(args) ? args : [args], {
        namespace,
        name,
        signal: (this.controller ??= new AbortController()).signal,
        originalText: this.originalText,
      });
      if (typeof (value as { then?: unknown } | null)?.then !== "function")
        return reply(value, namespace, name);
      this.inFlightChars += held;
      this.running++;
      return Promise.resolve(value).then(
        (answer) => {
          this.inFlightChars -= held;
          this.running--;
          return reply(answer, namespace, name);
        },
        (error: unknown) => {
          this.inFlightChars -= held;
          this.running--;
          return failure(error, namespace, name);
        },
      );
    } catch (error) {
      return failure(error, namespace, name);
    }
  }

  /**
   * Takes console lines from the sandbox within the run's budget: lines past it are counted
   * without being read, malformed lines are counted as dropped, kept lines are fresh copies.
   * @param logs - whatever the sandbox sent as its console lines
   */
  readonly acceptLogs = (logs: unknown): void => {
    if (!Array.isArray(logs)) return this.budget.drop(1);
    const budget = this.budget;
    for (let i = 0; i < logs.length; i++) {
      if (budget.full()) return budget.drop(logs.length - i);
      const entry: unknown = logs[i];
      const level = isRecord(entry) ? entry["level"] : undefined;
      const message = isRecord(entry) ? entry["message"] : undefined;
      if (!LEVELS.has(level) || typeof message !== "string") {
        budget.drop(1);
        continue;
      }
      const kept = budget.admit(message);
      if (kept === undefined) continue;
      // A cut line is a slice of a possibly huge string: copy it, so the original can go.
      this.logs.push({
        level: level as LogEntry["level"],
        message: kept === message ? message : flatCopy(kept),
      });
    }
  };

  /**
   * Whether the run ended (its answer read, its timeout passed, or it was cancelled): a runner
   * asks this (tracked-host.ts `wanted`) to end a run the host no longer waits for.
   */
  get closed(): boolean {
    return this.ended;
  }

  /**
   * Ends the run: aborts calls in flight and refuses new ones. The signal of calls that all
   * settled is left as it is (`HostCallContext.signal`: aborted when the run ends before the
   * call settles), so a run whose calls are done pays no abort.
   */
  readonly close = (): void => {
    if (this.ended) return;
    this.ended = true;
    if (this.running > 0) this.controller?.abort(RUN_ENDED);
  };
}

/**
 * A host function's answer as it crosses: wire text, with its larger binary values beside it as
 * bytes (codec.ts `encodeParts`). A view that is all of its buffer sends that buffer, which RPC
 * copies: the host makes no copy and no base64 text of a body, and holds nothing of the answer
 * once RPC has serialized the reply.
 */
function reply(value: unknown, namespace: string, name: string): HostReply {
  try {
    const parts = encodeParts(value, Infinity, true);
    return typeof parts === "string" ? parts : { text: parts.text, bytes: parts.bytes };
  } catch (error) {
    // A host function's answer holding binary data that cannot cross (a detached buffer).
    return failure(error, namespace, name);
  }
}

/** `namespace.name` for messages; nothing sent is stringified before its type is known. */
function label(namespace: unknown, name: unknown): string {
  return typeof namespace === "string" && typeof name === "string"
    ? `${namespace}.${name}`
    : "a host function";
}

/**
 * The refusal of a call made after the run ended. Marked `spent` (HostRefusal in
 * sandbox/protocol.ts): every later call of the run gets it too, so the sandbox answers them
 * itself, charged to the run's budget, instead of a round trip each. A program looping on caught
 * calls after its end (a run given up on, whose engine did not hear its end) otherwise kept
 * making round trips to this closed bridge until its whole step budget was spent.
 */
function endedReply(namespace: unknown, name: unknown): HostReply {
  return {
    error: {
      name: "Error",
      message: `${label(namespace, name)}() was called after the run ended.`,
    },
    spent: true,
  };
}

function failure(error: unknown, namespace: string, name: string): HostReply {
  if (error instanceof Error) return fail(error.name || "Error", error.message);
  return fail("Error", `${namespace}.${name}() failed: ${String(error)}`);
}

function fail(name: string, message: string): HostReply {
  return { error: { name, message } };
}
