/**
 * Issue #40, "a run that is given up on ends everywhere", in the per-run isolate: a program that
 * keeps awaiting and catching after its timeout (`for (;;) { try { await sleep } catch {} }`,
 * no host call, so no refusal of the bridge can stop it) answers TimeoutError on the host at its
 * timeout, and the harness's own end (sandbox/harness.ts, `overtimeOf`) stops it in its isolate
 * OVERTIME_MS later: the sandbox's `run` call then settles. Before, such a program kept its
 * isolate, and the runner it ran on, busy for as long as the isolate lived. The runner's counts
 * are sandbox-runner.test.ts's; the shared worker's engine, shared-worker/given-up.test.ts.
 * Real workerd, the real Worker Loader and harness.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { OVERTIME_MS } from "../../../sandbox/protocol";

interface Entry {
  run(request: unknown, host: unknown): Promise<unknown>;
}

/** A loader that keeps the sandbox's own `run` call: it settles once the program stopped. */
function watchingLoader(suffix: string) {
  const seen: { finished?: Promise<string> } = {};
  const wrap = (worker: WorkerStub) => ({
    getEntrypoint: () => {
      const real = worker.getEntrypoint() as unknown as Entry;
      return {
        run(request: unknown, host: unknown) {
          const running = real.run(request, host);
          seen.finished = running.then(
            () => "finished",
            () => "failed",
          );
          return running;
        },
      };
    },
  });
  const loader = {
    load: (code: WorkerLoaderWorkerCode) => wrap(env.LOADER.load(code)),
    get: (id: string, code: () => WorkerLoaderWorkerCode) =>
      wrap(env.LOADER.get(`${id}:${suffix}`, code)),
  };
  return { loader: loader as unknown as WorkerLoader, seen };
}

const TIMEOUT_MS = 300;
/** Slack for a loaded machine beyond the harness's own end (a guard, not a measurement). */
const SLACK_MS = 4_000;

describe("isolate-per-run: a program that keeps awaiting after its timeout", () => {
  it("answers TimeoutError, and stops in its isolate OVERTIME_MS later", async () => {
    const { loader, seen } = watchingLoader("overtime");
    const executor = new WorkerLoaderExecutor({ loader });
    const outcome = await executor.execute({
      code: `async () => { for (;;) { try { await new Promise((r) => setTimeout(r, 20)); } catch {} } }`,
      namespaces: {},
      limits: { timeoutMs: TIMEOUT_MS },
    });
    expect(outcome).toMatchObject({ status: "timeout", error: { name: "TimeoutError" } });
    expect(seen.finished).toBeDefined();
    const stopped = await Promise.race([
      seen.finished,
      new Promise((r) => setTimeout(r, OVERTIME_MS + SLACK_MS, "still running")),
    ]);
    expect(stopped).not.toBe("still running");
  });
});
