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
import type { SandboxExtensionName, SandboxRequest } from "../../../sandbox/protocol";
import { originalTextOf } from "../original-text";
import { HostBridge } from "../host-bridge";
import { LoaderPrestart } from "./loader-prestart";
import { loaderSettings, type LoaderSettings } from "../loader-settings";
import { RunEnd } from "../run-end";
import { sandboxRequestBase, startRun } from "../run-start";
import { responseToOutcome } from "../sandbox-response";
import { sandboxWorkerCode } from "./sandbox-worker-code";
import type {
  ExecuteRequest,
  ExecutionOutcome,
  Executor,
  ExecutorLimits,
  PrestartedRun,
} from "../types";

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

  /** The limits of a run whose request names none (see `Executor.limits`). */
  get limits(): Readonly<ExecutorLimits> {
    return this.settings.limits;
  }

  /**
   * Starts loading the isolate for a run of `request.code` (see `Executor.prestart`): pass the
   * result to `execute` as `prestarted`. Undefined when the code does not prepare (bad limits,
   * a syntax error): `execute` reports that.
   * @param request - the code, limits and extensions the run will have
   */
  prestart(
    request: Pick<ExecuteRequest, "code" | "limits" | "extensions">,
  ): PrestartedRun | undefined {
    const start = startRun(request, this.settings.limits);
    if (!start.ok) return undefined;
    const extensions = (request.extensions ?? []).map((e) => e.name);
    const worker = this.load(start.prepared.module, start.limits, extensions);
    const key = { owner: this, code: request.code, cpuMs: start.limits.cpuMs, extensions };
    return new LoaderPrestart(key, start.prepared, worker);
  }

  /** Runs `request.code`; never throws. */
  async execute(request: ExecuteRequest): Promise<ExecutionOutcome> {
    const ahead =
      request.prestarted instanceof LoaderPrestart &&
      request.prelude === undefined &&
      request.prestarted.preparedFor(this, request.code)
        ? request.prestarted
        : undefined;
    // A prestart for other code (or another executor) is of no use to this run: free it.
    if (!ahead) request.prestarted?.dispose();
    const start = startRun(request, this.settings.limits, ahead?.prepared);
    if (!start.ok) {
      ahead?.dispose();
      return start.outcome;
    }
    const { started, limits, namespaces, prepared } = start;
    const extensions = (request.extensions ?? []).map((e) => ({
      name: e.name,
      namespace: e.namespace ?? "codemode",
      data: e.data,
    }));
    const bridge = new HostBridge(namespaces, limits, originalTextOf(prepared));
    const run = new RunEnd(bridge, started, request.signal);
    try {
      const names = extensions.map((e) => e.name);
      const worker =
        ahead?.take({ owner: this, code: request.code, cpuMs: limits.cpuMs, extensions: names }) ??
        this.load(prepared.module, limits, names);
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

  private load(module: string, limits: ExecutorLimits, extensions: string[]): WorkerStub {
    return this.settings.loader.load(
      sandboxWorkerCode(module, {
        compatibilityDate: this.settings.compatibilityDate,
        cpuMs: limits.cpuMs,
        extensions: extensions as SandboxExtensionName[],
      }),
    );
  }
}
