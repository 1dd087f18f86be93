/**
 * What a sandbox runner holds between calls: stable workers' code (the shared worker's engine)
 * and runs' bases (run-base.ts), each only under the SHA-256 the runner computed of it itself
 * (code-hash.ts), and bounded. Also the warming of a fresh runner with stable code another runner
 * holds (src/runner.ts's `GET /stable` and `POST /warm`, as text: code-wire.ts).
 */
import { codeHash } from "./code-hash";

/** Stable worker codes kept (one per executor setting; more means a misconfigured host). */
export const MAX_STABLE_WORKERS = 8;

const stableCodes = new Map<string, WorkerLoaderWorkerCode>();

/**
 * Keeps `code` under `hash`, dropping the oldest past MAX_STABLE_WORKERS. The caller has computed
 * `hash` of `code` itself (codeHash): a name never stands for other code.
 */
export function keepStable(hash: string, code: WorkerLoaderWorkerCode): void {
  if (!stableCodes.has(hash) && stableCodes.size >= MAX_STABLE_WORKERS)
    stableCodes.delete(stableCodes.keys().next().value!);
  stableCodes.set(hash, code);
}

/** Runs' bases kept (one per executor setting and extension set; more are dropped oldest first). */
export const MAX_RUN_BASES = 16;

const runBases = new Map<string, WorkerLoaderWorkerCode>();

/**
 * Keeps a run's `base` under `hash`, dropping the oldest past MAX_RUN_BASES. The caller has
 * computed `hash` of `base` itself (codeHash).
 */
export function keepBase(hash: string, base: WorkerLoaderWorkerCode): void {
  if (!runBases.has(hash) && runBases.size >= MAX_RUN_BASES)
    runBases.delete(runBases.keys().next().value!);
  runBases.set(hash, base);
}

/** The run base held under `hash`, if any. */
export function runBase(hash: string): WorkerLoaderWorkerCode | undefined {
  return runBases.get(hash);
}

/**
 * `/health` header listing the hashes of the stable workers' code this runner holds
 * (src/runner.ts): the supervisor copies such code to the runners it starts
 * (cli/local-server/runners/stable-warmth.mjs).
 */
export const STABLE_HEADER = "x-runner-stable";

/** The hashes of the stable workers' code this runner holds (its `/health` reports them). */
export function stableHashes(): string[] {
  return [...stableCodes.keys()];
}

/** The stable worker code held under `hash`, if any. */
export function stableCode(hash: string): WorkerLoaderWorkerCode | undefined {
  return stableCodes.get(hash);
}

/**
 * Warms this runner for a stable worker before any run needs it: keeps `code` under its own
 * hash, loads the worker and calls its entrypoint's `warm()` (the shared worker's engine loads
 * its WebAssembly there), so the first run here finds it loaded. The supervisor sends the code
 * of a worker another runner holds to each runner it starts (cli/local-server/runners/stable-warmth.mjs):
 * a fresh runner's first shared-worker run waited 0.8–2.3 s for the engine on a loaded machine.
 * A worker without `warm()` is loaded all the same (the failed call still starts it).
 * @param loader - the runner's Worker Loader
 * @param code - the stable worker's code
 * @returns its hash, the name runs will ask for it by
 */
export async function warmStable(
  loader: WorkerLoader,
  code: WorkerLoaderWorkerCode,
): Promise<string> {
  const hash = await codeHash(code);
  keepStable(hash, code);
  const entry = loader.get(hash, () => code).getEntrypoint() as unknown as {
    warm(): Promise<unknown>;
  };
  try {
    await entry.warm();
  } catch {
    // no warm() there: loaded anyway
  }
  return hash;
}
