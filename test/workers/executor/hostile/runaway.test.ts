/**
 * Runaway probes. A synchronous infinite loop that escapes the operation budget would hang the
 * whole local workerd (no timer can fire), so every probe first proves, with an independent
 * parser, that its code comes out of the instrumenter with a budget tick in every loop and
 * function. Only then does it run — behind the protection it tests.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ExecutionOutcome } from "../../../../src/executor/types";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { guardProbe } from "../../../helpers/executor/instrumentation-check";

describeExecutors((Executor) => {
  const executor = new Executor({
    loader: env.LOADER,
    limits: { timeoutMs: 10_000, maxOperations: 2_000_000 },
  });
  const namespaces = { codemode: { echo: (args: unknown[]) => args[0] } };

  const guard = (code: string): void => void guardProbe(code);

  /**
   * Runs `probe` (on the executor's limits, or `timeoutMs` for it alone) and, at the same time, a
   * normal run that must still complete.
   */
  async function probeBesideNormalRun(
    probe: string,
    timeoutMs?: number,
  ): Promise<ExecutionOutcome> {
    guard(probe);
    const [outcome, normal] = await Promise.all([
      executor.execute({ code: probe, namespaces, ...(timeoutMs && { limits: { timeoutMs } }) }),
      executor.execute({
        code: "let s = 0; for (let i = 0; i < 1000; i++) s += i; return await codemode.echo(s)",
        namespaces,
      }),
    ]);
    expect(normal).toMatchObject({ status: "ok", result: 499_500 });
    return outcome;
  }

  describe("runaway code ends with a definite outcome while other runs complete", () => {
    it.each([
      ["while (true) {}", "while (true) {}"],
      ["for (;;) {}", "for (;;) {}"],
      ["do {} while (true)", "do {} while (true)"],
      ["a loop hidden in a callback", "[1].forEach(function spin() { for (;;) {} })"],
      [
        "a loop that swallows the limit error",
        "while (true) { try { while (true) {} } catch (e) {} }",
      ],
      ["an async loop", "while (true) { await null }"],
      ["a loop in a getter while the result is encoded", "return { get x() { for (;;) {} } }"],
    ])("stops %s with status limit", async (_label, probe) => {
      const outcome = await probeBesideNormalRun(probe);
      expect(outcome).toMatchObject({
        status: "limit",
        error: {
          name: "LimitError",
          message: expect.stringMatching(/Operation budget of 2000000 exceeded/),
        },
      });
    });

    it("ends unbounded recursion (stack overflow or budget), never hangs", async () => {
      const outcome = await probeBesideNormalRun("const f = (n) => f(n + 1) + 1; return f(0)");
      expect(["error", "limit"]).toContain(outcome.status);
      expect(outcome.error?.name).toMatch(/RangeError|LimitError/);
    });

    it("ends code waiting forever", async () => {
      guard("await new Promise(() => {})");
      // Its own timeout, not the executor's 10 s (set long so the loops above end by their
      // budget however loaded the machine is): any timeout shows the wait ends, and 10 s of
      // waiting on each executor was a fifth of this project's serial time in CI.
      const outcome = await probeBesideNormalRun("await new Promise(() => {})", 1_000);
      expect(outcome.status).toBe("timeout");
    });

    it("stops a runaway loop within the default budget too", async () => {
      const defaults = new Executor({ loader: env.LOADER });
      guard("let i = 0; while (true) { i++ }");
      const outcome = await defaults.execute({ code: "let i = 0; while (true) { i++ }" });
      expect(outcome).toMatchObject({ status: "limit", operations: 20_000_000 });
    });

    it("still serves normal runs after all the probes", async () => {
      const outcome = await executor.execute({ code: "return 'alive'" });
      expect(outcome).toMatchObject({ status: "ok", result: "alive" });
    });
  });
});
