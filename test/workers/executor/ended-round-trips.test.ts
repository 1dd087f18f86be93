/**
 * A program that loops on caught host calls after its run ended (cancelled here) on both
 * executors: the host's bridge refuses every such call, and marks the refusal `spent`
 * (host-bridge.ts), so the sandbox answers the later ones itself, charged to its budget, instead
 * of a round trip to the host each. Before, it went on asking the closed bridge until its whole
 * step budget was spent. The shared worker's engine is not told the run ended here (its `end`
 * is dropped, as a lost `end` call would be): the bridge's refusal alone must stop the calls.
 * Real workerd, the real Worker Loader, the real harness and engine.
 */
import { env, RpcTarget } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HostBridge } from "../../../src/executor/host-bridge";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";

/** Calls from the sandbox to the run's bridge, counted, and those after the bridge closed. */
class CountingHost extends RpcTarget {
  calls = 0;
  afterClose = 0;
  constructor(private readonly bridge: HostBridge) {
    super();
  }
  call(namespace: string, name: string, argsText: string, logs: unknown) {
    this.calls++;
    if (this.bridge.closed) this.afterClose++;
    return this.bridge.call(namespace, name, argsText, logs);
  }
}

interface Entry {
  run(request: unknown, host: unknown, key?: string): Promise<unknown>;
}

/**
 * A loader whose entrypoints hand the sandbox a {@link CountingHost} in place of the bridge, and
 * keep the sandbox's own `run` call, which settles once the program stopped there.
 */
function countingLoader(suffix: string) {
  const seen: { host?: CountingHost; finished?: Promise<unknown> } = {};
  const wrap = (worker: WorkerStub) => ({
    getEntrypoint: () => {
      const real = worker.getEntrypoint() as unknown as Entry;
      return {
        run(request: unknown, bridge: HostBridge, key?: string) {
          seen.host = new CountingHost(bridge);
          const running =
            key === undefined ? real.run(request, seen.host) : real.run(request, seen.host, key);
          seen.finished = running.then(
            () => "finished",
            () => "failed",
          );
          return running;
        },
        // Dropped: the engine never hears the run ended, only the bridge's refusals say so.
        end: async () => false,
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

describe.each([
  ["isolate-per-run", WorkerLoaderExecutor],
  ["shared-worker", SharedWorkerExecutor],
] as const)("%s: a run that keeps calling after it was cancelled", (kind, Executor) => {
  it("makes a few round trips to the closed bridge, not one per call until its budget", async () => {
    const { loader, seen } = countingLoader(`ended-round-trips-${kind}`);
    const executor = new Executor({ loader, limits: { timeoutMs: 60_000 } });
    let calls = 0;
    let started!: () => void;
    const going = new Promise<void>((resolve) => (started = resolve));
    const tick = () => {
      if (++calls === 5) started();
      return calls;
    };
    const cancel = new AbortController();
    const outcome = executor.execute({
      code: "for (;;) { try { await codemode.tick(); } catch {} }",
      namespaces: { codemode: { tick } },
      // The budget bounds the program whatever happens (no test timer fires while its calls
      // ping-pong): before, thousands of round trips after the cancel fit in it.
      limits: { maxHostCalls: 1_000_000, maxOperations: 20_000 },
      signal: cancel.signal,
    });
    await going;
    cancel.abort();
    expect(await outcome).toMatchObject({ error: { name: "AbortError" } });
    // The sandbox's own call settles once the program stopped there (its budget spent).
    expect(await seen.finished).toBe("finished");
    expect(calls).toBeGreaterThanOrEqual(5);
    expect(seen.host!.afterClose).toBeGreaterThanOrEqual(1);
    expect(seen.host!.afterClose).toBeLessThanOrEqual(3);
  });
});
