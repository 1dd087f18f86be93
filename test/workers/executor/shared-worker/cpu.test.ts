/**
 * A run's `cpuMs` in the shared-worker executor: the engine's interrupt handler stops the run
 * after the steps that CPU budget allows (no clock advances inside synchronous code, so the
 * budget is counted in engine steps), per run, even when its operation budget is far larger.
 * Elapsed time is never asserted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";

const executor = new SharedWorkerExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

describe("a run's cpuMs in the shared worker", () => {
  it("stops a tight loop at the run's CPU budget, named in the error", async () => {
    const outcome = await executor.execute({
      code: "let i = 0; while (true) { i++ }",
      limits: { cpuMs: 20, maxOperations: 100_000_000 },
    });
    expect(outcome).toMatchObject({
      status: "limit",
      error: {
        name: "LimitError",
        message: expect.stringMatching(/^CPU budget of 20 ms exceeded/),
      },
    });
  });

  it("stops a native runaway (catastrophic regex) at the run's CPU budget", async () => {
    const outcome = await executor.execute({
      code: "return /^(a+)+$/.test('a'.repeat(40) + 'b')",
      limits: { cpuMs: 20, maxOperations: 100_000_000 },
    });
    expect(outcome).toMatchObject({
      status: "limit",
      error: { message: expect.stringMatching(/CPU budget of 20 ms exceeded/) },
    });
  });

  it("leaves the operation budget in charge when it is the smaller one, per run", async () => {
    const [cpu, ops] = await Promise.all([
      executor.execute({ code: "while (true) {}", limits: { cpuMs: 10, maxOperations: 1e8 } }),
      executor.execute({ code: "while (true) {}", limits: { maxOperations: 100_000 } }),
    ]);
    expect(cpu.error?.message).toMatch(/^CPU budget of 10 ms/);
    expect(ops.error?.message).toMatch(/^Operation budget of 100000 exceeded/);
    expect(await executor.execute({ code: "return 6 * 7", limits: { cpuMs: 5 } })).toMatchObject({
      status: "ok",
      result: 42,
    });
  });
});
