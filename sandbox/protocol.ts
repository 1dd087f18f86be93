/**
 * The RPC contract between the host (src/executor) and the sandbox harness. Types only: both
 * sides import it, so a change here is checked on both sides by the typecheck.
 */
import type { LogEntry } from "./console-capture";

export type { LogEntry };

/** What the host sends to start a run. */
export interface SandboxRequest {
  /** Host functions the sandbox exposes, as namespace → function names. */
  namespaces: Record<string, string[]>;
  /** Operation budget: loop iterations + function entries before the run is stopped. */
  maxOperations: number;
  /** Result JSON is shrunk inside the sandbox to at most this many UTF-8 bytes. */
  maxResultBytes: number;
  /** Console budget of the run: UTF-8 bytes of kept lines plus one per line. */
  maxLogBytes: number;
  /** Largest encoded argument list one host call may carry. */
  maxCallBytes: number;
  /**
   * Host calls the run may make (the host counts and refuses them); a local sandbox runner
   * bounds the calls waiting to reach the host by it (src/executor/runners/sandbox-runner.ts).
   */
  maxHostCalls: number;
  /**
   * The run's timeout on the host. The host stops waiting then; the per-run isolate's harness
   * also ends the run itself {@link OVERTIME_MS} later, so a program the host has given up on
   * (a polling loop that catches every error) cannot keep its isolate and its runner busy.
   */
  timeoutMs?: number;
  /** Sandbox-side helpers to install before the code runs (modules `sandbox/ext-<name>.ts`). */
  extensions?: SandboxExtensionRequest[];
}

/**
 * The host function names and the limits that every sandbox's run request carries: the per-run
 * isolate's ({@link SandboxRequest}) and the shared worker engine's (engine/protocol.ts
 * `EngineRunRequest`), both started from src/executor/run-start.ts `sandboxRequestBase`.
 */
export type SandboxRequestBase = Pick<
  SandboxRequest,
  | "namespaces"
  | "maxOperations"
  | "maxResultBytes"
  | "maxLogBytes"
  | "maxCallBytes"
  | "maxHostCalls"
>;

/**
 * How long past the host's timeout the per-run isolate's harness ends a run that is still going:
 * the host's own timeout answers the caller first (its clock started earlier, and this margin
 * covers a busy machine), the harness only frees the isolate.
 */
export const OVERTIME_MS = 1_000;

/**
 * The message of the `LimitError` that ends a search run shipped only the spec's index (see
 * src/openapi/spec-pack.ts, `packedIndex`) once the program reads past it: the host then runs the
 * program again with the whole spec (src/codemode/index-first-search.ts).
 */
export const WHOLE_SPEC_NEEDED =
  "The program read past the spec's index; it runs again with the whole spec.";

/** Names of the sandbox extensions (modules `ext-<name>.js`). */
export type SandboxExtensionName = "openapi" | "request" | "skills";

/** One extension to install: its functions join `namespace`, reading `data`. */
export interface SandboxExtensionRequest {
  name: SandboxExtensionName;
  namespace: string;
  data: string | Uint8Array;
}

/** An error as data. */
export interface SandboxError {
  name: string;
  message: string;
  /** Raw stack, used by the host only to locate the failing line; never shown as is. */
  stack?: string;
}

/** What the harness answers at the end of a run. */
export interface SandboxResponse {
  /** Wire JSON text of the result (see codec.ts), present when the code completed. */
  result?: string;
  /** Present when the code threw (or could not load). */
  error?: SandboxError;
  /** Whether `result` was structurally truncated to fit `maxResultBytes`. */
  truncated: boolean;
  /** UTF-8 size of the untruncated result JSON. */
  resultBytes: number;
  /** Console lines not yet delivered with a host call. */
  logs: LogEntry[];
  /** Console lines dropped because the log budget was spent. */
  droppedLogs: number;
  /** Operations (loop iterations + function entries) the run used. */
  operations: number;
  /** Whether the operation budget ran out. */
  budgetExhausted: boolean;
}

/**
 * A host function's answer: the value as wire JSON text, the text with the binary values it
 * carries beside it ({@link HostBytesReply}), or an error for the sandbox to throw. Success
 * without binary values is a bare string, not an object: it is the common case and crosses RPC
 * cheaper.
 */
export type HostReply = string | HostBytesReply | HostRefusal;

/**
 * A host function's answer whose larger binary values cross as bytes beside its wire JSON text
 * (sandbox/codec.ts `encodeParts`): RPC copies an ArrayBuffer as it is, with no base64 text
 * made, parsed or held on either side.
 */
export interface HostBytesReply {
  text: string;
  /** The buffers the text's binary tags index (`{"$cm":"bytes","i":0}`). */
  bytes: ArrayBuffer[];
}

/**
 * A host function's failure, or the host's refusal of the call. `spent: true` marks the refusal
 * every later call of the run would get too (its `maxHostCalls` are used up, or the run ended
 * on the host: a run given up on whose sandbox did not hear it): the harness then
 * answers later calls itself, charged to the budget, instead of asking again. Such a refusal is
 * answered at once, so a loop that catches it and calls again keeps the sandbox's event loop
 * from ever idling, and workerd's timers (the run's own end among them) advance only then:
 * measured, such a loop outlived a 1 s timeout by minutes and ended only with the budget.
 */
export interface HostRefusal {
  error: { name: string; message: string };
  spent?: true;
}

/** The host object the harness receives as an RPC argument (an `RpcTarget` on the host). */
export interface HostBridgeApi {
  /**
   * Calls `namespace.name` on the host.
   * @param argsText - wire JSON of the argument array
   * @param logs - console lines captured since the previous call, delivered early so a run
   *   that later times out still reports what it printed
   * @param argsBytes - the binary values the argument text's tags index, as fresh ArrayBuffers
   *   (absent when it has none; see {@link HostBytesReply})
   * @returns the reply; across RPC always a promise, on the host side a value when the host
   *   function answered synchronously
   */
  call(
    namespace: string,
    name: string,
    argsText: string,
    logs: LogEntry[] | undefined,
    argsBytes?: ArrayBuffer[],
  ): HostReply | Promise<HostReply>;
}
