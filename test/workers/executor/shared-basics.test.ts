/**
 * The shared-worker executor's basic behaviours: result, logs, host calls, errors with their
 * position, timeout, limits, and runaways the operation budget cannot see (a catastrophic
 * regular expression, a giant native loop) ending with a definite outcome.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker-executor";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
const namespaces = {
  codemode: {
    add: (args: unknown[]) => (args[0] as number) + (args[1] as number),
    fail: () => {
      throw new TypeError("no such thing");
    },
  },
};

describe("shared-worker executor basics", () => {
  it("returns the result, the logs and the host calls of a run", async () => {
    const outcome = await executor.execute({
      code: "async () => { console.log('hi', { a: 1 }); const s = await codemode.add(2, 3); return { s, when: new Date(0) } }",
      namespaces,
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({
      status: "ok",
      result: { s: 5, when: new Date(0) },
      logs: [{ level: "log", message: "hi { a: 1 }" }],
      calls: 1,
    });
  });
});
