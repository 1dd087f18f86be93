/**
 * The start both executors' `execute` share: resolve the run's limits over the executor's
 * defaults, check the host namespaces, and wrap the code as the sandbox module. A failure here
 * is already the run's outcome (an executor never throws), shaped like any other error outcome.
 */
import type { SandboxRequest, SandboxRequestBase } from "../../sandbox/protocol";
import { checkCodeLength } from "./code-length";
import { resolveLimits } from "./limits";
import { checkNamespaces } from "./namespace-names";
import { prepareCode, type PreparedCode } from "./prepare-code";
import type {
  ExecuteRequest,
  ExecutionError,
  ExecutionOutcome,
  ExecutorLimits,
  HostNamespaces,
  LogEntry,
} from "./types";

/** A run that may go ahead, or the error outcome that ends it before anything loads. */
export type RunStart =
  | {
      ok: true;
      /** `Date.now()` when `execute` began, for `durationMs`. */
      started: number;
      /** The run's limits: the request's over the executor's defaults. */
      limits: ExecutorLimits;
      /** The request's host namespaces (`{}` when it gave none), checked. */
      namespaces: HostNamespaces;
      /** The program wrapped as the sandbox's user module, with what maps positions back. */
      prepared: PreparedCode;
    }
  | { ok: false; outcome: ExecutionOutcome };

/**
 * The counters of an outcome before the run has done anything (a fresh object each call, so
 * no two outcomes share a `logs` array).
 *
 * @returns zero calls, no logs, nothing truncated
 */
export function emptyCounters(): Pick<
  ExecutionOutcome,
  "logs" | "droppedLogs" | "calls" | "truncated" | "resultBytes" | "operations"
> {
  return {
    logs: [] as LogEntry[],
    droppedLogs: 0,
    calls: 0,
    truncated: false,
    resultBytes: 0,
    operations: 0,
  };
}

/**
 * Checks a run before an executor loads anything for it.
 *
 * @param request - the run as the caller gave it
 * @param defaults - the executor's resolved default limits
 * @param ready - the same code already prepared (by a prestart), so it is not prepared twice
 * @returns the run's limits, namespaces and prepared module, or the error outcome (invalid limits,
 *   a program over `maxCodeChars`, a bad namespace name, a syntax error with its line and column)
 */
export function startRun(
  request: Pick<ExecuteRequest, "code" | "limits" | "namespaces" | "prelude">,
  defaults: ExecutorLimits,
  ready?: PreparedCode,
): RunStart {
  const started = Date.now();
  const ended = (error: ExecutionError): RunStart => ({
    ok: false,
    outcome: {
      ...emptyCounters(),
      status: "error",
      error,
      durationMs: Date.now() - started,
    },
  });
  const namespaces = request.namespaces ?? {};
  let limits: ExecutorLimits;
  try {
    limits = resolveLimits(defaults, request.limits);
    // Before the code is prepared: preparing costs time linear in its length.
    checkCodeLength(request.code, limits.maxCodeChars);
    // Both executors refuse the same names with the same error.
    checkNamespaces(namespaces);
  } catch (error) {
    const { name, message } = error as Error;
    return ended({ name, message });
  }
  const prepared = ready ?? prepareCode(request.code, request.prelude);
  if (!prepared.ok) {
    const { name, message, line, column } = prepared;
    return ended({ name, message, line, column });
  }
  return { ok: true, started, limits, namespaces, prepared };
}

/**
 * What the sandbox request of either executor starts with: the host function names per
 * namespace (the functions themselves stay on the host) and the limits the sandbox applies.
 *
 * @param namespaces - the run's checked host namespaces
 * @param limits - the run's limits
 * @returns the fields both sandbox protocols share
 */
export function sandboxRequestBase(
  namespaces: HostNamespaces,
  limits: ExecutorLimits,
): SandboxRequestBase & Pick<SandboxRequest, "timeoutMs"> {
  return {
    namespaces: Object.fromEntries(
      Object.entries(namespaces).map(([ns, fns]) => [ns, Object.keys(fns)]),
    ),
    maxOperations: limits.maxOperations,
    maxResultBytes: limits.maxResultBytes,
    maxLogBytes: limits.maxLogBytes,
    maxCallBytes: limits.maxCallBytes,
    maxHostCalls: limits.maxHostCalls,
    timeoutMs: limits.timeoutMs,
  };
}
