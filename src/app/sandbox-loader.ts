/**
 * Where the product's sandboxes load: the Worker Loader binding, or, when the local server runs
 * them in runner processes (docs/local-runtime.md), the runners behind the service bindings
 * `SANDBOX_RUNNER_1` … `SANDBOX_RUNNER_<n>`, `n` given by the `SANDBOX_RUNNERS` var (the last
 * `SANDBOX_SPARE_RUNNERS` of them spare slots), called
 * with the cluster secret the launcher gave the host (`LOCAL_CLUSTER_SECRET`). The local
 * launcher sets them; a deployment sets none.
 */
import { clusterSecretOf } from "../executor/runners/cluster-secret";
import { RunnerLoader } from "../executor/runners/runner-loader";
import { trackHostCalls } from "../executor/runners/tracked-host";
import { forgetAnswer } from "../executor/runners/stale-slot";
import { currentCaller } from "./placement-caller";
import type { RunnerApi } from "../executor/runners/runner-protocol";

/**
 * The most runner bindings read: the launcher's most runners (16) and its spare slot
 * (cli/local-server/runners/runner-pool.mjs).
 */
export const MAX_SANDBOX_RUNNERS = 17;

/**
 * The runner loader made last: the one the endpoints in use send runs through (they are rebuilt,
 * with a new loader, only when the configuration changes). Module state: one per host isolate.
 */
let latest: RunnerLoader | undefined;

/**
 * The loader the executors should use.
 * @param env - the Worker's bindings
 * @returns `env.LOADER`, or a {@link RunnerLoader} over the runner bindings
 */
export function sandboxLoader(env: Cloudflare.Env): WorkerLoader {
  const bindings = env as unknown as Record<string, unknown>;
  const count = Number(bindings["SANDBOX_RUNNERS"] ?? 0);
  if (!Number.isInteger(count) || count < 1) return env.LOADER;
  const runners: RunnerApi[] = [];
  for (let i = 1; i <= Math.min(count, MAX_SANDBOX_RUNNERS); i++) {
    const runner = bindings[`SANDBOX_RUNNER_${i}`];
    if (runner) runners.push(runner as RunnerApi);
  }
  if (runners.length === 0) return env.LOADER;
  latest = new RunnerLoader(
    runners,
    Date.now,
    trackHostCalls,
    clusterSecretOf(env) ?? "",
    currentCaller,
    // The last bindings are spare slots, for a temporary runner while every other is held.
    Math.min(Number(bindings["SANDBOX_SPARE_RUNNERS"] ?? 0) || 0, runners.length - 1),
    // Runners start on demand there: keep one started ahead of the runs that need it.
    true,
    // A request workerd gives up (its client gone) never settles its run's call: its run's
    // place on its slot lapses instead (run-lease.ts).
    true,
  );
  return latest as unknown as WorkerLoader;
}

/**
 * The answer to the supervisor's `POST /runners/forget` request (stale-slot.ts
 * `forgetAnswer`), from the runner loader made last. 404 when the host has none yet (no run came
 * since it started: nothing to forget).
 * @param url - the request's URL
 */
export function forgetRunner(url: string): Response {
  return forgetAnswer(url, (slot, quietMs) => latest?.forgetStale(slot, quietMs));
}
