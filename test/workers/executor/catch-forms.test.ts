/**
 * Every catch form keeps its meaning and its error positions after instrumentation, in both
 * executors: a catch block's tick charges the caught value (a caught stack overflow costs more,
 * sandbox/runtime.ts), so a catch without a binding gets one and a destructuring catch binds
 * the value, then destructures it (instrument.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import type { Executor } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";

const executors: [string, Executor][] = [
  ["isolate-per-run", new WorkerLoaderExecutor({ loader: env.LOADER })],
  ["shared-worker", new SharedWorkerExecutor({ loader: env.LOADER })],
];

describe.each(executors)("catch forms in the %s executor", (_name, executor) => {
  it("binds, omits and destructures the caught value as written", async () => {
    const outcome = await executor.execute({
      code: [
        "const out = [];",
        "try { throw new TypeError('a') } catch (e) { out.push(e.message) }",
        "try { throw 1 } catch { out.push('none') }",
        "try { throw { x: 2, y: [3] } } catch ({ x, y: [z], w = 4 }) { out.push(x, z, w); x = 5; out.push(x) }",
        "try { throw [6] } catch ([v]) { out.push(v) } finally { out.push('f') }",
        "for (const n of [7]) try { throw n } catch ({ constructor: C }) { out.push(C.name) }",
        "return out",
      ].join("\n"),
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: ["a", "none", 2, 3, 4, 5, 6, "f", "Number"],
    });
  });

  it("reports an error thrown inside a destructuring catch at its own line and column", async () => {
    const outcome = await executor.execute({
      code: "try { throw { a: 1 } } catch ({ a }) {\n  null.x\n}",
    });
    expect(outcome).toMatchObject({ status: "error", error: { name: "TypeError", line: 2 } });
    expect(outcome.error?.column).toBeGreaterThanOrEqual(3);
    expect(outcome.error?.column).toBeLessThanOrEqual(8);
  });

  it("lets a program catch a few stack overflows, at a price", async () => {
    const outcome = await executor.execute({
      code: "const f = () => f(); let n = 0; for (let i = 0; i < 3; i++) try { f() } catch (e) { n++ } return n",
    });
    expect(outcome).toMatchObject({ status: "ok", result: 3 });
    expect(outcome.operations).toBeGreaterThan(150_000);
  });
});
