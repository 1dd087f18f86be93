// Executor limits: timeouts, the host call limit, result shrinking and log budgets in the real sandbox.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../../src/executor/limits";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { CodeModeError } from "../../../src/errors";

describeExecutors((Executor, kind) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 5_000 } });
  // The shared worker gives each run 64 MiB of engine memory: too little for the 50 MB result.
  const shared = kind === "shared-worker";
  const echo = { codemode: { echo: (args: unknown[]) => args[0] } };

  describe("limits", () => {
    it("has sane defaults", () => {
      expect(DEFAULT_LIMITS).toMatchObject({
        timeoutMs: 30_000,
        maxOperations: 20_000_000,
        maxHostCalls: 1_000,
        maxResultBytes: 1_048_576,
        maxLogBytes: 65_536,
      });
    });
    it("times out code awaiting a promise that never settles", async () => {
      // The executor's own timeoutMs (not a run's), shorter than the 5 s the others get: a wait
      // that never ends costs this test its whole timeout on each executor.
      const quick = new Executor({ loader: env.LOADER, limits: { timeoutMs: 1_000 } });
      const outcome = await quick.execute({
        code: "console.log('before'); await new Promise(() => {})",
      });
      expect(outcome).toMatchObject({ status: "timeout", error: { name: "TimeoutError" } });
    });
    it("times out code waiting on a slow host call, keeping logs printed before it", async () => {
      const slow = {
        codemode: {
          slow: () => new Promise((resolve) => setTimeout(resolve, 3_000)),
          echo: echo.codemode.echo,
        },
      };
      const outcome = await executor.execute({
        code: "console.log('step 1'); await codemode.echo(1); console.log('step 2'); await codemode.slow();",
        namespaces: slow,
        limits: { timeoutMs: 300 },
      });
      expect(outcome).toMatchObject({
        status: "timeout",
        calls: 2,
        error: { message: expect.stringMatching(/within 300 ms/) },
      });
      expect(outcome.logs.map((l) => l.message)).toEqual(["step 1", "step 2"]);
    });
    it("stops at the host call limit with status limit", async () => {
      const outcome = await executor.execute({
        code: "for (let i = 0; i < 10; i++) await codemode.echo(i);",
        namespaces: echo,
        limits: { maxHostCalls: 3 },
      });
      expect(outcome).toMatchObject({
        status: "limit",
        calls: 3,
        error: { name: "LimitError", message: expect.stringMatching(/Host call limit of 3/) },
      });
    });
    // Past the limit the harness answers calls itself; a line printed before such a call must
    // not be lost with it (the shared worker's guest hands its lines over with each call).
    it("keeps console lines printed before a call made past the host call limit", async () => {
      const outcome = await executor.execute({
        code: "for (let i = 0; i < 3; i++) { try { await codemode.echo(i) } catch {} } console.log('after'); try { await codemode.echo(9) } catch {} return 1",
        namespaces: echo,
        limits: { maxHostCalls: 2 },
      });
      expect(outcome).toMatchObject({ status: "limit", result: 1 });
      expect(outcome.logs.map((l) => l.message)).toEqual(["after"]);
    });
    it("reports status limit even when the code swallows the limit error", async () => {
      const outcome = await executor.execute({
        code: "for (let i = 0; i < 10; i++) { try { await codemode.echo(i) } catch {} } return 'finished anyway'",
        namespaces: echo,
        limits: { maxHostCalls: 2 },
      });
      expect(outcome).toMatchObject({ status: "limit", result: "finished anyway" });
    });
    it.skipIf(shared)(
      "shrinks a 50 MB result inside the sandbox to valid, marked JSON",
      async () => {
        const outcome = await executor.execute({
          code: "return { head: 'ok', big: 'x'.repeat(50 * 1024 * 1024) }",
          limits: { maxResultBytes: 10_000 },
        });
        expect(outcome).toMatchObject({ status: "ok", truncated: true });
        expect(outcome.resultBytes).toBeGreaterThan(50 * 1024 * 1024);
        const result = outcome.result as { head: string; big: string };
        expect(result.head).toBe("ok");
        expect(result.big).toMatch(/…\[\+\d+ chars\]$/);
        expect(JSON.stringify(result).length).toBeLessThanOrEqual(10_000);
      },
    );
    it("caps logs and counts dropped lines", async () => {
      const outcome = await executor.execute({
        code: "for (let i = 0; i < 1000; i++) console.log('line ' + i + ' ' + 'y'.repeat(50));",
        limits: { maxLogBytes: 1_000 },
      });
      expect(outcome.status).toBe("ok");
      const kept = outcome.logs.reduce((n, l) => n + l.message.length, 0);
      expect(kept).toBeLessThanOrEqual(1_100);
      expect(outcome.droppedLogs).toBeGreaterThan(900);
    });
    it("refuses oversized host call arguments before they cross", async () => {
      const outcome = await executor.execute({
        code: "await codemode.echo('z'.repeat(100_000))",
        namespaces: echo,
        limits: { maxCallBytes: 1_000 },
      });
      expect(outcome).toMatchObject({
        status: "error",
        calls: 0,
        error: {
          name: "RangeError",
          message: expect.stringMatching(
            /arguments are more than 1000 bytes \(the limit, maxCallBytes\)/,
          ),
        },
      });
    });
    it("returns invalid per-run limits as an error outcome", async () => {
      const outcome = await executor.execute({ code: "1", limits: { timeoutMs: -1 } });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "CodeModeError", message: expect.stringMatching(/timeoutMs/) },
      });
    });
    it("runs a program of exactly maxCodeChars and refuses one character more", async () => {
      const at = `return "ran";${" ".repeat(DEFAULT_LIMITS.maxCodeChars - 13)}`;
      expect(at.length).toBe(DEFAULT_LIMITS.maxCodeChars);
      expect(await executor.execute({ code: at })).toMatchObject({ status: "ok", result: "ran" });
      const past = await executor.execute({ code: `${at} ` });
      expect(past).toMatchObject({
        status: "error",
        calls: 0,
        error: {
          name: "CodeModeError",
          message: expect.stringMatching(/65537 characters; the limit is 65536 \(maxCodeChars\)/),
        },
      });
      // The executor's own limit, and a run's over it.
      const small = new Executor({ loader: env.LOADER, limits: { maxCodeChars: 20 } });
      expect(await small.execute({ code: `return 1;${" ".repeat(12)}` })).toMatchObject({
        status: "error",
        error: { message: expect.stringMatching(/21 characters; the limit is 20/) },
      });
      expect(
        await small.execute({ code: `return 1;${" ".repeat(12)}`, limits: { maxCodeChars: 21 } }),
      ).toMatchObject({ status: "ok", result: 1 });
    });
    it("refuses invalid executor limits at construction", () => {
      expect(
        () =>
          new Executor({
            loader: env.LOADER,
            limits: { maxResultBytes: 64 * 1024 * 1024 },
          }),
      ).toThrow(CodeModeError);
      expect(() => new Executor({ loader: env.LOADER, limits: { nope: 1 } as never })).toThrow(
        /Unknown executor limit "nope"/,
      );
    });
    it("can be cancelled with an AbortSignal", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const outcome = await executor.execute({
        code: "await new Promise((r) => setTimeout(r, 10_000))",
        signal: controller.signal,
      });
      expect(outcome).toMatchObject({ status: "error", error: { name: "AbortError" } });
    });
  });
});
