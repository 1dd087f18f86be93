/**
 * Programs that grow the shared worker's WebAssembly memory (one big allocation is enough) ran
 * into quickjs-emscripten's detached-view bug (sandbox/engine/ffi.ts): freeing their runtime
 * failed QuickJS's leak assertion, emscripten aborted, and the runner replaced the engine
 * instance every run shares. These are the three hostile programs that did it in the suites.
 * Each must end on its own while a run that waits on a host call meanwhile finishes normally,
 * and the worker keeps serving. (The waiting run already survived the abort before the fix:
 * the aborted instance stays usable for the runs that hold it; this guards that no memory
 * growth, abort or instance replacement ever ends or disturbs another caller's run.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

const executor = new SharedWorkerExecutor({
  loader: env.LOADER,
  limits: { timeoutMs: 10_000 },
});

/** Programs that each ended with the engine's `JS_FreeRuntime` assertion before the fix. */
const GROWING = [
  ["a 20 MB error message", "throw new RangeError('m'.repeat(20 * 1024 * 1024))"],
  [
    "a toJSON on every object that returns 5 MB",
    "Object.prototype.toJSON = () => 'y'.repeat(5e6); Array.prototype.toJSON = Object.prototype.toJSON; return { big: 'q'.repeat(50000), list: [1, 2, 3] }",
  ],
  [
    "a Proxy result claiming a million keys",
    "return new Proxy({}, { ownKeys: () => Array.from({ length: 1e6 }, (_, i) => 'k' + i), getOwnPropertyDescriptor: () => ({ value: 'v'.repeat(100), enumerable: true, configurable: true }) })",
  ],
] as const;

describe("shared worker: a run that grows the engine's memory", () => {
  it.each(GROWING)("(%s) does not end another run in flight", async (_label, code) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => (entered = resolve));
    const wait = async () => {
      entered();
      await gate;
      return "released";
    };
    const first = executor.execute({
      code: "const x = await codemode.wait(); let s = 0; for (let i = 0; i < 1000; i++) s += i; return [x, s]",
      namespaces: { codemode: { wait } },
    });
    await waiting;
    const hostile = await executor.execute({ code });
    // The harness no longer calls a program's toJSON (sandbox/codec-result.ts, engine/guest.ts):
    // that run now answers its value, cut to the limit, without growing the engine.
    if (code.includes("toJSON")) expect(hostile).toMatchObject({ status: "ok", truncated: false });
    else expect(hostile.status).not.toBe("ok");
    release();
    expect(await first).toMatchObject({
      status: "ok",
      result: ["released", 499500],
    });
    expect(await executor.execute({ code: "return 'alive'" })).toMatchObject({
      result: "alive",
    });
  });
});
