/**
 * The runner side of local sandbox runners: a `WorkerEntrypoint` in its own workerd process
 * (src/runner.ts is its Worker) holding the Worker Loader binding. It loads what the host sends
 * and hands the host bridge stub to the loaded worker untouched, so the sandbox's host calls go
 * straight back to the host; the runner itself holds no secret and no host function.
 *
 * Security defaults: the runner adds nothing to the loaded worker's code (the host built it with
 * `globalOutbound: null` and an empty env: src/executor/sandbox-worker-code.ts); it keeps only
 * the code of stable workers by id (at most {@link MAX_STABLE_WORKERS}).
 *
 * Does not do: stop a run that blocks its thread. The supervisor replaces a runner that stops
 * answering (docs/local-runtime.md), and every run in flight on it then fails on the host at once.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";

/** The bindings a runner Worker has. */
export interface RunnerEnv {
  /** The Worker Loader binding the runs are loaded through. */
  LOADER: WorkerLoader;
}

/** Stable worker codes kept (one per executor setting; more means a misconfigured host). */
export const MAX_STABLE_WORKERS = 8;

const stableCodes = new Map<string, WorkerLoaderWorkerCode>();

interface RunEntrypoint {
  run(request: unknown, host: unknown): Promise<unknown>;
}

/** Runs sandbox workers for the host runtime. See the module comment. */
export class SandboxRunner extends WorkerEntrypoint<RunnerEnv> implements RunnerApi {
  /** Loads `code` and runs it (see {@link RunnerApi.load}). */
  async load(code: WorkerLoaderWorkerCode, request: unknown, host: unknown): Promise<RunnerAnswer> {
    return runOn(() => this.env.LOADER.load(code), request, host);
  }

  /** Runs on the stable worker `id` (see {@link RunnerApi.get}). */
  async get(
    id: string,
    code: WorkerLoaderWorkerCode | null,
    request: unknown,
    host: unknown,
  ): Promise<RunnerAnswer> {
    if (code) {
      if (!stableCodes.has(id) && stableCodes.size >= MAX_STABLE_WORKERS)
        stableCodes.delete(stableCodes.keys().next().value!);
      stableCodes.set(id, code);
    }
    const known = stableCodes.get(id);
    if (!known) return { missingCode: true };
    return runOn(() => this.env.LOADER.get(id, () => known), request, host);
  }
}

/**
 * Calls `run` on the worker's entrypoint and frees both stubs after: left to the garbage
 * collector, a worker is torn down at some later moment in the middle of another run. A failure
 * of the load or the run is answered as data, so the host tells it from a lost runner.
 */
async function runOn(
  load: () => WorkerStub,
  request: unknown,
  host: unknown,
): Promise<RunnerAnswer> {
  let worker: (WorkerStub & Partial<Disposable>) | undefined;
  let entry: (RunEntrypoint & Partial<Disposable>) | undefined;
  try {
    worker = load();
    entry = worker.getEntrypoint() as unknown as RunEntrypoint & Partial<Disposable>;
    return { answer: await entry.run(request, host) };
  } catch (error) {
    return { thrown: error instanceof Error ? error.message : String(error) };
  } finally {
    entry?.[Symbol.dispose]?.();
    worker?.[Symbol.dispose]?.();
  }
}
