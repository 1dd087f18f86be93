/**
 * The opt-in shared-worker executor: every run reuses ONE stable Dynamic Worker, loaded with
 * `LOADER.get(id, …)` (id per deployment name and engine version, see shared-worker-code.ts),
 * and the program runs as data inside QuickJS compiled to WebAssembly (sandbox/engine/runner.ts).
 * Cloudflare bills a Dynamic Worker per unique id per day, so a million runs cost one Dynamic
 * Worker instead of a million; the price is an interpreter instead of V8's JIT.
 *
 * Guarantees, as the per-run isolate (WorkerLoaderExecutor) gives them: a fresh global
 * environment per run (globals, prototypes and heap are new: a fresh engine runtime and
 * context, or the engine's template with its memory written back to the bytes it had before
 * any run, sandbox/engine/warm-engine.ts), outbound network blocked (`globalOutbound: null`, no bindings; the engine has no
 * `fetch` at all), code generation from strings refused, the same host functions through the
 * same HostBridge, the same limits and outcome shape, the same error positions (QuickJS stacks
 * carry line and column of `user.js`). Beyond it: every synchronous runaway ends, native ones
 * included (catastrophic regular expressions, giant loops in built-ins): the engine's interrupt
 * handler stops the run after `maxInterrupts` calls, in local workerd too; a memory limit
 * per run (`memoryBytes`); and at most `MAX_PENDING` (10,000) timers and host calls pending per
 * run in the shared worker (sandbox/engine/run.ts), whose heap every run shares.
 *
 * Does not give: isolation by V8 isolate between concurrent runs (runs share one isolate and one
 * WebAssembly memory; the engine's runtimes are separate, and a run that breaks the engine
 * itself makes the next run load a fresh one); V8's speed (the engine interprets: compute-heavy code is slower);
 * Web APIs the engine lacks (no `Intl`, `TextEncoder`, `URL`, `crypto`, `structuredClone`).
 */
import type {
  EngineExtension,
  EngineRunRequest,
  EngineStop,
} from "../../../sandbox/engine/protocol";
import { engineErrorLikeV8 } from "./shared-error-position";
import { originalTextOf } from "../original-text";
import { HostBridge } from "../host-bridge";
import { loaderSettings, type LoaderSettings } from "../loader-settings";
import { RunEnd } from "../run-end";
import { sandboxRequestBase, startRun } from "../run-start";
import { responseToOutcome } from "../sandbox-response";
import { sharedWorkerCode, sharedWorkerId } from "./shared-worker-code";
import { dataKey } from "./shared-data-key";
import { endRun, newEndKey, type EndableEntrypoint } from "../runners/run-end-key";
import type { ExecuteRequest, ExecutionOutcome, Executor, ExecutorLimits } from "../types";
import { CodeModeError } from "../../errors";

/** Options of {@link SharedWorkerExecutor}. */
export interface SharedWorkerExecutorOptions {
  /** The Worker Loader binding (`worker_loaders` in wrangler config). */
  loader: WorkerLoader;
  /**
   * Defaults for every run; each run may override. A run's `cpuMs` becomes its engine step budget
   * (see `INTERRUPTS_PER_CPU_MS`); the default `cpuMs` is also the shared worker's platform limit.
   */
  limits?: Partial<ExecutorLimits>;
  /** Compatibility date of the shared worker. */
  compatibilityDate?: string;
  /** Name of this deployment's shared worker, part of its id (default `default`). */
  name?: string;
  /** Bytes one run's engine may allocate (default 64 MiB). */
  memoryBytes?: number;
}

/**
 * Engine steps (about) between two interrupt-handler calls: the engine calls it once its step
 * counter (loop back-edges, calls) runs down from 10,000, and during regex backtracking.
 */
const STEPS_PER_INTERRUPT = 10_000;
/** Engine steps allowed per instrumented operation before the engine itself stops the run. */
const STEPS_PER_OPERATION = 4;
/**
 * Interrupt-handler calls per millisecond of CPU, for the cheapest engine steps: `while (true) {}`
 * reaches one call per ~0.17 ms in this engine (Node 22 and workerd, measured 2026-12-03), so a
 * step budget of `cpuMs × 6` stops a tight loop at about `cpuMs`. Steps doing more work (string
 * building, property writes) take longer per call, up to ~10 ms measured: the budget is an upper
 * bound for tight loops and an estimate otherwise; Cloudflare's own `cpuMs` on the shared worker
 * (the executor's default) stays the hard ceiling.
 */
const INTERRUPTS_PER_CPU_MS = 6;
const STACK_BYTES = 192 * 1024;

interface EngineEntrypoint extends EndableEntrypoint {
  run(request: EngineRunRequest, host: HostBridge, endKey?: string): Promise<unknown>;
}

/**
 * How long a run given up on (timeout, cancel) waits for the shared worker to confirm it ended
 * the run (it does within ~0.1 s) before the run's answer goes out.
 */
const END_CONFIRM_MS = 500;

/** Runs code in a WebAssembly engine inside one stable Dynamic Worker. See the module comment. */
export class SharedWorkerExecutor implements Executor {
  /** Large extension data is kept in the shared worker by content key (shared-data-key.ts). */
  readonly keepsExtensionData = true;
  private readonly settings: LoaderSettings;
  private readonly name: string;
  private readonly memoryBytes: number;

  /**
   * @param options - the loader binding, default limits, worker name and memory limit
   * @throws CodeModeError `invalid_limits` when a limit is out of range, or when `memoryBytes`
   *   is not an integer from 1 MiB to 1 GiB
   */
  constructor(options: SharedWorkerExecutorOptions) {
    this.settings = loaderSettings(options);
    this.name = options.name ?? "default";
    this.memoryBytes = options.memoryBytes ?? 64 * 1_048_576;
    const memory = this.memoryBytes;
    if (!Number.isInteger(memory) || memory < 1_048_576 || memory > 1_073_741_824)
      throw new CodeModeError(
        "invalid_limits",
        `memoryBytes must be an integer from 1048576 (1 MiB) to 1073741824 (1 GiB); got ${String(memory)}.`,
      );
  }
  /** The limits of a run whose request names none (see `Executor.limits`). */
  get limits(): Readonly<ExecutorLimits> {
    return this.settings.limits;
  }

  /** Runs `request.code`; never throws. */
  async execute(request: ExecuteRequest): Promise<ExecutionOutcome> {
    const start = startRun(request, this.settings.limits);
    if (!start.ok) return start.outcome;
    const { started, limits, namespaces, prepared } = start;
    const bridge = new HostBridge(namespaces, limits, originalTextOf(prepared));
    const run = new RunEnd(bridge, started, request.signal);
    try {
      const settings = {
        compatibilityDate: this.settings.compatibilityDate,
        cpuMs: this.settings.limits.cpuMs,
      };
      const worker = this.settings.loader.get(sharedWorkerId(this.name, settings), () =>
        sharedWorkerCode(settings),
      );
      const entry = worker.getEntrypoint() as unknown as EngineEntrypoint;
      run.hold(entry, worker);
      // The run's step budget: the smaller of what maxOperations allows and what its cpuMs
      // allows (no clock advances inside synchronous code, so CPU time is counted in steps).
      const fromOperations = Math.ceil(
        (limits.maxOperations * STEPS_PER_OPERATION) / STEPS_PER_INTERRUPT,
      );
      const fromCpu = Math.ceil(limits.cpuMs * INTERRUPTS_PER_CPU_MS);
      const maxInterrupts = Math.max(10, Math.min(fromOperations, fromCpu));
      const cpuBound = fromCpu < fromOperations;
      const engineRequest: EngineRunRequest = {
        userModule: prepared.module,
        ...sandboxRequestBase(namespaces, limits),
        extensions: await Promise.all(
          (request.extensions ?? []).map(async (e): Promise<EngineExtension> => {
            const key = await dataKey(e.data);
            const ext = {
              name: e.name,
              namespace: e.namespace ?? "codemode",
            };
            // Large data goes by key: the worker holds it from an earlier run (see below).
            return key === undefined ? { ...ext, data: e.data } : { ...ext, key };
          }),
        ),
        maxInterrupts,
        cpuBound,
        cpuMs: limits.cpuMs,
        memoryBytes: this.memoryBytes,
        stackBytes: STACK_BYTES,
        // The runner frees the run's engine a little after the host gave up on it.
        timeoutMs: limits.timeoutMs + 1_000,
      };
      const stop = run.stop(limits.timeoutMs);
      // With the real Worker Loader this key ends the run in the shared worker once this host
      // gives it up (a runner makes its own: the local loader passes no third argument on).
      const endKey = newEndKey();
      let response = await Promise.race([entry.run(engineRequest, bridge, endKey), stop]);
      if (isStop(response) && response.stop === "missing") {
        // This worker instance has not seen (or has dropped) the data: send it along once.
        const full = request.extensions ?? [];
        engineRequest.extensions = engineRequest.extensions.map((e, i) => ({
          ...e,
          data: full[i]!.data,
        }));
        response = await Promise.race([entry.run(engineRequest, bridge, endKey), stop]);
      }
      if (response === "timeout" || response === "aborted") {
        // Closed first: while this waits for the engine's word, the program given up on still
        // runs there, and its calls reached the host's functions until the answer went out
        // (attack13: a cancelled loop of calls ran host functions all the while).
        bridge.close();
        // Ended there now, not at its deadline: a cancelled run (a task's `tasks/cancel`) would
        // hold its engine memory and the engine's template until its whole timeout (issue #40).
        await endRun(entry, endKey, END_CONFIRM_MS);
        return run.stopped(response, limits.timeoutMs);
      }
      const common = run.answered();
      if (typeof response === "string") {
        return engineErrorLikeV8(
          responseToOutcome(parseJson(response), bridge, prepared, common, limits.maxResultBytes),
          request.code,
        );
      }
      const halt = response as EngineStop;
      if (halt.stop === "interrupted" || halt.stop === "memory") {
        // The engine stopped a runaway the operation budget could not see (native code such as
        // a regex, or code between ticks), or a run holding more than `memoryBytes`
        // (sandbox/engine/run.ts): a limit, reported with what the run printed.
        const partial = parseJson(halt.partial ?? "null");
        const answer = {
          ...(typeof partial === "object" && partial !== null ? partial : { logs: [] }),
          truncated: false,
          resultBytes: 0,
          budgetExhausted: true,
          droppedLogs: 0,
          operations: 0,
          error: { name: "LimitError", message: String(halt.message) },
        };
        return responseToOutcome(answer, bridge, prepared, common, limits.maxResultBytes);
      }
      if (halt.stop === "timeout") {
        return run.ended("timeout", {
          name: "TimeoutError",
          message: String(halt.message),
        });
      }
      return run.failed(String(halt.message));
    } catch (error) {
      return run.failed(error);
    } finally {
      run.close();
    }
  }
}

function isStop(value: unknown): value is EngineStop {
  return typeof value === "object" && value !== null && "stop" in value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
