/**
 * The executor contract: run model-written code in a sandbox with host functions, and always
 * come back with a definite outcome. Swap implementations behind {@link Executor} in tests.
 */
import type { LogEntry, SandboxExtensionName } from "../../sandbox/protocol";

export type { LogEntry, SandboxExtensionName };

/**
 * A sandbox-side helper module installed before the code runs: its functions join `namespace`
 * and answer inside the isolate from `data` (e.g. `openapi` adds `spec()` over a compact spec),
 * for data too large or too chatty to serve by host calls.
 */
export interface SandboxExtension {
  name: SandboxExtensionName;
  /** Namespace the functions join (default `codemode`). */
  namespace?: string;
  /** Data the extension reads (text or bytes); shipped with the run, so keep it well under 32 MiB. */
  data: string | Uint8Array;
}

/** Limits of one run. Every field has a default (see `DEFAULT_LIMITS`). */
export interface ExecutorLimits {
  /** Wall-clock time before the run is abandoned with status `timeout`. */
  timeoutMs: number;
  /**
   * Operations (loop iterations, function entries, catch/finally entries) before the run is
   * stopped with status `limit`. Stops synchronous runaway code, which no timer can.
   */
  maxOperations: number;
  /** Host function calls allowed per run (enforced on the host; refused calls count too). */
  maxHostCalls: number;
  /**
   * The result's JSON is structurally truncated inside the sandbox to this many bytes; the host
   * refuses (status `limit`) a result that arrives larger anyway.
   */
  maxResultBytes: number;
  /**
   * Console output kept per run, counted as UTF-8 bytes plus one per line; further lines are
   * counted as dropped. Enforced in the sandbox and again on the host.
   */
  maxLogBytes: number;
  /** Largest encoded argument list of one host call (checked in the sandbox and on the host). */
  maxCallBytes: number;
  /** CPU time limit handed to the Worker Loader (enforced on Cloudflare, not in local workerd). */
  cpuMs: number;
  /**
   * Longest program (`code.length`, UTF-16 characters) a run takes. Checked on the host before
   * anything is done with the code: a program's start (parse, type strip, instrumentation on the
   * host; compile in the sandbox) grows with its length and holds a runner while it lasts.
   */
  maxCodeChars: number;
}

/** What a host function learns about the call besides its arguments. */
export interface HostCallContext {
  /** Namespace and name the sandbox called, e.g. `codemode` and `request`. */
  namespace: string;
  name: string;
  /** Aborted when the run ends (finished, timed out or cancelled) before the call settles. */
  signal: AbortSignal;
  /**
   * Maps a piece of the run's module (a function's `toString()` in the sandbox, budget ticks
   * included) back to the program's own text; undefined when it is not part of the program.
   */
  originalText?: ((generated: string) => string | undefined) | undefined;
}

/**
 * A function the sandbox may call. Receives the decoded argument list; its return value (or
 * resolved promise) crosses back by the wire codec; a thrown error becomes an exception the
 * sandbox code can catch, with the same name and message (so never put secrets in messages).
 */
export type HostFunction = (args: unknown[], context: HostCallContext) => unknown;

/** Host functions grouped by the global namespace they appear under in the sandbox. */
export type HostNamespaces = Record<string, Record<string, HostFunction>>;

/** One run. */
export interface ExecuteRequest {
  /** An async arrow function, a function body, a fenced block, or a module with `export default`. */
  code: string;
  /** Host functions by namespace (`codemode` is customary). Names must be valid identifiers. */
  namespaces?: HostNamespaces;
  /** Per-run overrides of the executor's limits. */
  limits?: Partial<ExecutorLimits>;
  /** Cancels the run (outcome `error` with name `AbortError`). */
  signal?: AbortSignal;
  /** Sandbox-side helper modules to install. */
  extensions?: SandboxExtension[];
  /**
   * Module text the host trusts, placed before the program in the program's own module and
   * evaluated before any of the program's code runs (saved skills: src/codemode/skills/). Not
   * checked or instrumented here: build each function in it with `preludeFunction`, so it
   * carries the same budget ticks, and name its own bindings with the `__cm$` prefix, which
   * programs may not use. An error inside it is reported at line 1, column 1 of the program.
   * A run with a prelude does not use a prestarted sandbox (that was built without it).
   */
  prelude?: string;
  /**
   * What {@link Executor.prestart} returned for this same code and limits: the run uses the
   * sandbox it already started loading. Ignored when it does not match (or by executors that
   * do not prestart).
   */
  prestarted?: PrestartedRun;
}

/** A sandbox being loaded ahead of its run (see {@link Executor.prestart}). */
export interface PrestartedRun {
  /** Releases the sandbox when its run will not happen; a no-op once a run used it. */
  dispose(): void;
}

/** How a run ended. */
export type ExecutionStatus = "ok" | "error" | "timeout" | "limit";

/** An error as data; `line`/`column` are 1-based positions in the submitted code when known. */
export interface ExecutionError {
  name: string;
  message: string;
  line?: number;
  column?: number;
}

/** The definite outcome of a run. */
export interface ExecutionOutcome {
  status: ExecutionStatus;
  /** The value the code returned (decoded), when it completed. */
  result?: unknown;
  /** Why the run did not complete normally. */
  error?: ExecutionError;
  /** Captured console output, in order. */
  logs: LogEntry[];
  /** Console lines dropped because of `maxLogBytes`. */
  droppedLogs: number;
  /** Host function calls made. */
  calls: number;
  /** Whether `result` was structurally truncated to `maxResultBytes`. */
  truncated: boolean;
  /** Size in bytes of the untruncated result JSON (0 when there is no result). */
  resultBytes: number;
  /** Operations counted against `maxOperations`. */
  operations: number;
  /** Wall-clock duration of the run. */
  durationMs: number;
}

/** Runs code in a sandbox. Implementations never throw: every failure is an outcome. */
export interface Executor {
  /**
   * True when the executor keeps a run's extension data for later runs (the shared worker keeps
   * large data by content key), so shipping less of it per run saves nothing: `search` then ships
   * the whole spec at once instead of its index first (src/codemode/index-first-search.ts).
   */
  readonly keepsExtensionData?: boolean;
  /**
   * The limits of a run whose request names none (the executor's own, over the defaults). A
   * caller that splits one run into several (`search`'s index first, then the whole spec) reads
   * the timeout here, so the runs together stay within it (src/codemode/index-first-search.ts).
   */
  readonly limits?: Readonly<ExecutorLimits>;
  /**
   * Runs one piece of code.
   * @param request - the code, host functions and limits
   */
  execute(request: ExecuteRequest): Promise<ExecutionOutcome>;
  /**
   * Optional: starts loading the sandbox for a run of `request.code` before its host functions
   * are known (a caller still waiting on the network for them passes the result to `execute`
   * as `prestarted`, so the isolate's start-up overlaps that wait). Nothing runs until
   * `execute`. Returns undefined when there is nothing to start (the code does not parse:
   * `execute` reports it).
   * @param request - the code, limits and extensions the run will have
   */
  prestart?(
    request: Pick<ExecuteRequest, "code" | "limits" | "extensions">,
  ): PrestartedRun | undefined;
}
