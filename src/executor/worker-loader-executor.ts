/**
 * The production executor: each run gets a fresh isolate from the Worker Loader binding, with
 * outbound network blocked, an operation budget compiled into the code, and a host-side timeout.
 *
 * Security defaults: `globalOutbound: null` (no `fetch`/`connect` to anywhere), no bindings in
 * the isolate's env, code generation from strings disallowed by the platform, imports refused
 * by the instrumenter, one isolate per run (no state shared between runs or with the host).
 *
 * The sandbox is hostile, harness included. Enforced in the sandbox (convenience: early, clear
 * errors, less data over RPC): the harness reads the host stub and the request before user code
 * runs (an RPC stub resolves names through Object.prototype first), captures the intrinsics it
 * uses afterwards, and applies every limit below as the program goes. Enforced again on the host,
 * where the program cannot skip it (host-bridge.ts, sandbox-response.ts): argument types and
 * `maxCallBytes` (by length before decoding), `maxHostCalls` (refused calls count), argument text
 * held by running calls (`MAX_IN_FLIGHT_CHARS`), one `maxLogBytes` budget (bytes + 1 per line)
 * across every piggybacked batch and the final response (excess counted, never kept),
 * `maxResultBytes` (an over-limit result is refused by length, never decoded), the response's
 * shape (malformed → `SandboxError`), and bounded error names, messages and stacks. The host
 * keeps nothing from the sandbox beyond these budgets and the one RPC value in hand (≤ 32 MiB,
 * capped by the platform).
 *
 * Does not do: kill a synchronous runaway in native code (a catastrophic regular expression, a
 * giant `Array.fill`): the operation budget counts only instrumented JavaScript; on Cloudflare
 * the `cpuMs` limit ends those, in local workerd nothing can. Keep a program from spoiling its
 * own output: a program that replaces prototype methods of its own values can garble its result
 * and logs (never past the limits above, and never anyone else's run).
 */
import type { SandboxRequest } from "../../sandbox/protocol";
import { HostBridge } from "./host-bridge";
import { loaderSettings, type LoaderSettings } from "./loader-settings";
import { RunEnd } from "./run-end";
import { sandboxRequestBase, startRun } from "./run-start";
import { responseToOutcome } from "./sandbox-response";
import { sandboxWorkerCode } from "./sandbox-worker-code";
import type { ExecuteRequest, ExecutionOutcome, Executor, ExecutorLimits } from "./types";

/** Options of {@link WorkerLoaderExecutor}. */
export interface WorkerLoaderExecutorOptions {
  /** The Worker Loader binding (`worker_loaders` in wrangler config). */
  loader: WorkerLoader;
  /** Defaults for every run; each run may override. */
  limits?: Partial<ExecutorLimits>;
  /** Compatibility date of the sandbox isolates. */
  compatibilityDate?: string;
}

interface SandboxEntrypoint {
  /** Resolves to a `SandboxResponse` from an honest harness; checked as `unknown`. */
  run(request: SandboxRequest, host: HostBridge): Promise<unknown>;
}

/** workerd's message when it cancels an isolate that can never produce a response. */
const HUNG = /detected that your Worker's code had hung/;

/** Runs code in Worker Loader isolates. See the module comment for guarantees. */
export class WorkerLoaderExecutor implements Executor {
  private readonly settings: LoaderSettings;

  /**
   * @param options - the loader binding, default limits and compatibility date
   * @throws CodeModeError `invalid_limits` when a limit is out of range
   */
  constructor(options: WorkerLoaderExecutorOptions) {
    this.settings = loaderSettings(options);
  }

  /** Runs `request.code`; never throws. */
  async execute(request: ExecuteRequest): Promise<ExecutionOutcome> {
    const start = startRun(request, this.settings.limits);
    if (!start.ok) return start.outcome;
    const { started, limits, namespaces, prepared } = start;
    const extensions = (request.extensions ?? []).map((e) => ({
      name: e.name,
      namespace: e.namespace ?? "codemode",
      data: e.data,
    }));
    const bridge = new HostBridge(namespaces, limits);
    const run = new RunEnd(bridge, started, request.signal);
    try {
      const worker = this.settings.loader.load(
        sandboxWorkerCode(prepared.module, {
          compatibilityDate: this.settings.compatibilityDate,
          cpuMs: limits.cpuMs,
          extensions: extensions.map((e) => e.name),
        }),
      );
      const entry = worker.getEntrypoint() as unknown as SandboxEntrypoint;
      run.hold(entry, worker);
      const sandboxRequest: SandboxRequest = {
        ...sandboxRequestBase(namespaces, limits),
        extensions,
      };
      const stop = run.stop(limits.timeoutMs);
      const running = entry.run(sandboxRequest, bridge);
      // The result of an RPC call is disposable too (it may carry stubs); one that arrives after
      // a timeout is disposed on arrival.
      void running.then(
        (result) => run.hold(result),
        () => {},
      );
      const response = await Promise.race([running, stop]);
      if (response === "timeout" || response === "aborted")
        return run.stopped(response, limits.timeoutMs);
      const common = run.answered();
      return responseToOutcome(response, bridge, prepared, common, limits.maxResultBytes);
    } catch (error) {
      if (HUNG.test(error instanceof Error ? error.message : String(error))) {
        // workerd noticed the sandbox can never produce an answer (e.g. awaiting a promise
        // nothing will settle) before our timer fired: that is a timeout, reported as one.
        return run.ended("timeout", {
          name: "TimeoutError",
          message:
            "The code can never finish: it is waiting on a promise that nothing will settle.",
        });
      }
      // The isolate itself failed (load error, crash, out of memory): still a definite outcome.
      return run.failed(error);
    } finally {
      run.close();
    }
  }
}
