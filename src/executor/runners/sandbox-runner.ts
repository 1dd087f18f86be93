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
import { RpcTarget, WorkerEntrypoint } from "cloudflare:workers";
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";

/** The bindings a runner Worker has. */
export interface RunnerEnv {
  /** The Worker Loader binding the runs are loaded through. */
  LOADER: WorkerLoader;
}

/** Stable worker codes kept (one per executor setting; more means a misconfigured host). */
export const MAX_STABLE_WORKERS = 8;

/**
 * Host calls of one run sent on to the host at once. A program that starts 1,000 requests at
 * once (`Promise.all` over a list) used to land 1,000 RPC messages on the host in one burst,
 * handled back to back in one turn of its event loop: every other client waited behind it
 * (0.6–0.9 s for a `/health`, seconds on a loaded machine). In flights of 32 the host takes them
 * in small turns with other requests between; 32 keeps the host's own I/O (API calls) overlapped.
 */
export const HOST_CALLS_IN_FLIGHT = 32;

interface HostCalls {
  call(namespace: unknown, name: unknown, argsText: unknown, logs: unknown): Promise<unknown>;
}

/**
 * The host bridge as the sandbox sees it through a runner: the same `call`, at most
 * {@link HOST_CALLS_IN_FLIGHT} of one run at the host at a time, in the order they were made.
 * Only pacing: every check stays on the host.
 */
class PacedHost extends RpcTarget {
  #host: HostCalls;
  #running = 0;
  #waiting: (() => void)[] = [];

  constructor(host: HostCalls) {
    super();
    this.#host = host;
  }

  async call(
    namespace: unknown,
    name: unknown,
    argsText: unknown,
    logs: unknown,
  ): Promise<unknown> {
    if (this.#running >= HOST_CALLS_IN_FLIGHT)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await this.#host.call(namespace, name, argsText, logs);
    } finally {
      // The slot passes straight to the next waiting call, if any.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

const stableCodes = new Map<string, WorkerLoaderWorkerCode>();

interface RunEntrypoint {
  run(request: unknown, host: unknown): Promise<unknown>;
}

/** Runs sandbox workers for the host runtime. See the module comment. */
export class SandboxRunner extends WorkerEntrypoint<RunnerEnv> implements RunnerApi {
  /** Loads `code` and runs it (see {@link RunnerApi.load}). */
  async load(code: WorkerLoaderWorkerCode, request: unknown, host: unknown): Promise<RunnerAnswer> {
    if (!(await announce(host))) return CANCELLED;
    return runOn(() => this.env.LOADER.load(code), request, new PacedHost(host as HostCalls));
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
    if (!(await announce(host))) return CANCELLED;
    return runOn(
      () => this.env.LOADER.get(id, () => known),
      request,
      new PacedHost(host as HostCalls),
    );
  }
}

/**
 * Tells the host the run begins here, and waits for its word: the run starts only if the host
 * still wants this copy (it moves a run that a runner did not begin in time, and this runner may
 * have been holding its thread). Awaited on purpose: a message merely queued would not leave
 * before a program that blocks this thread, and the host would move the blocking program too.
 * A host that does not answer `begin` (an older one) counts as yes.
 */
async function announce(host: unknown): Promise<boolean> {
  try {
    // Called as a method of the stub: a method taken off an RPC stub and applied with `.call`
    // would name a remote method "begin.call".
    return (await (host as { begin(): unknown }).begin()) !== false;
  } catch {
    return true;
  }
}

/** The answer of a copy the host no longer wants (it never reads it). */
const CANCELLED: RunnerAnswer = { thrown: "This run was moved to another runner." };

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
