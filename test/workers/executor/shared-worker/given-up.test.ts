/**
 * A run whose caller gives up on it (the host at its timeout, a runner whose run was cancelled)
 * cancels its call into the shared worker, and workerd then drops that call's context with its
 * timers. The engine's run must still end at its own deadline and be freed: before, its
 * runtime stayed in the engine's memory and the engine counted it under way for good, so no
 * later run got the template (sandbox/engine/warm-engine.ts) and every such run leaked up to
 * its memory limit into the instance every client shares (attack11).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

/** The shared worker's entrypoint, as the test reaches it through the wrapper below. */
interface Wrapped {
  start(request: unknown, host: unknown): Promise<unknown>;
  underWay(): Promise<number>;
}

/**
 * A main module around the shared worker's own: `start` begins a run in its call's context and
 * returns before the run ends, so that context goes while the run is still under way, as a
 * cancelled call's does.
 */
const WRAPPER = `import { WorkerEntrypoint } from "cloudflare:workers";
import EngineRunner from "./runner.js";
export default class extends WorkerEntrypoint {
  async start(request, host) {
    const runner = new EngineRunner(this.ctx, this.env);
    // The engine loaded first, so the run has begun before this call's context goes.
    await runner.warm();
    runner.run(request, host).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    return "gave up";
  }
  underWay() { return new EngineRunner(this.ctx, this.env).underWay(); }
}`;

/** A loader that hands the executor the wrapped shared worker, and the wrapper to the test. */
function wrappingLoader(): { loader: WorkerLoader; entry: () => Wrapped } {
  let wrapped: Wrapped | undefined;
  const loader = {
    get(id: string, code: () => WorkerLoaderWorkerCode) {
      const worker = env.LOADER.get(`${id}:given-up`, () => {
        const shared = code();
        return {
          ...shared,
          mainModule: "wrapper.js",
          modules: { ...shared.modules, "wrapper.js": WRAPPER },
        };
      });
      const entry = worker.getEntrypoint() as unknown as Wrapped;
      wrapped = entry;
      return { getEntrypoint: () => ({ run: (r: unknown, h: unknown) => entry.start(r, h) }) };
    },
  };
  return {
    loader: loader as unknown as WorkerLoader,
    entry: () => {
      if (!wrapped) throw new Error("The executor loaded no worker.");
      return wrapped;
    },
  };
}

describe("shared worker: a run its caller gave up on", () => {
  it("still ends at its own deadline, and the engine counts no run under way", async () => {
    const { loader, entry } = wrappingLoader();
    const timeoutMs = 1_000;
    const executor = new SharedWorkerExecutor({ loader, limits: { timeoutMs } });
    await executor.execute({
      code: "for (;;) { try { await new Promise((r) => setTimeout(r, 20)); } catch {} }",
    });
    expect(await entry().underWay()).toBe(1);
    // The engine's deadline is the run's timeout plus 1 s (shared-worker-executor.ts).
    const until = Date.now() + timeoutMs + 1_000 + 4_000;
    while ((await entry().underWay()) > 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    expect(await entry().underWay()).toBe(0);
  });
});
