// The sandbox has no network, and runs are isolated from each other.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { prepareCode } from "../../../src/executor/prepare-code";
import { sandboxWorkerCode } from "../../../src/executor/loader/sandbox-worker-code";
import { describeExecutors } from "../../helpers/executor/executor-matrix";

describeExecutors((Executor, kind) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  describe("network is blocked", () => {
    it("fails fetch() inside the sandbox", async () => {
      const outcome = await executor.execute({ code: "return await fetch('http://127.0.0.1:1')" });
      expect(outcome).toMatchObject({
        status: "error",
        error: {
          name: "TypeError",
          message: expect.stringMatching(
            /^fetch\(\) is not available here: programs have no network access\./,
          ),
        },
      });
    });
    it("fails the platform's own fetch() too, once the program removed the harness's", async () => {
      // The harness's fetch only words the refusal; the block is the platform's (globalOutbound).
      const outcome = await executor.execute({
        code: "delete globalThis.fetch; const f = globalThis.fetch; if (typeof f !== 'function') return 'no fetch'; try { await f('http://127.0.0.1:1'); return 'sent'; } catch (e) { return String(e.message); }",
      });
      expect(outcome.status).toBe("ok");
      // workerd's refusal in the per-run isolate; the engine has no fetch of its own.
      expect(outcome.result).toMatch(
        kind === "isolate-per-run" ? /not permitted to access the internet/ : /^no fetch$/,
      );
    });
    it("fails connect() in an isolate with the sandbox's loader configuration", async () => {
      // User code cannot import cloudflare:sockets (imports are refused), so probe the platform
      // setting itself: a module with the executor's exact loader options tries to connect.
      const probe = prepareCode("1");
      if (!probe.ok) throw new Error(probe.message);
      const code = sandboxWorkerCode(probe.module, {
        compatibilityDate: "2026-08-01",
        cpuMs: 1_000,
      });
      code.mainModule = "probe.js";
      code.modules["probe.js"] = [
        'import { WorkerEntrypoint } from "cloudflare:workers";',
        'import { connect } from "cloudflare:sockets";',
        "export default class extends WorkerEntrypoint {",
        "  async probe() { try { const s = connect('127.0.0.1:1'); await s.opened; return 'connected'; } catch (e) { return String(e); } }",
        "}",
      ].join("\n");
      const entry = env.LOADER.load(code).getEntrypoint() as unknown as {
        probe(): Promise<string>;
      };
      expect(await entry.probe()).not.toBe("connected");
    });
    it("refuses dynamic import of the sockets module", async () => {
      const outcome = await executor.execute({
        code: "const { connect } = await import('cloudflare:sockets'); return connect('127.0.0.1:1')",
      });
      expect(outcome).toMatchObject({
        status: "error",
        error: { name: "SyntaxError", message: expect.stringMatching(/Dynamic import/) },
      });
    });
    it("gives the sandbox no bindings and no code generation from strings", async () => {
      const outcome = await executor.execute({
        code: "let ev; try { ev = eval('1+1') } catch (e) { ev = e.name } let fn; try { fn = new Function('return 1')() } catch (e) { fn = e.name } return { ev, fn, hasLoader: typeof LOADER }",
      });
      expect(outcome).toMatchObject({
        status: "ok",
        result: { ev: "EvalError", fn: "EvalError", hasLoader: "undefined" },
      });
    });
  });

  describe("runs are isolated", () => {
    it("does not leak Object.prototype pollution or globals to the next run or the host", async () => {
      const first = await executor.execute({
        code: "Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; globalThis.leak = 42; return ({}).polluted",
      });
      expect(first).toMatchObject({ status: "ok", result: "yes" });
      const second = await executor.execute({
        code: "return { polluted: ({}).polluted ?? null, map: [1].map((x) => x * 2), leak: typeof leak }",
      });
      expect(second).toMatchObject({
        status: "ok",
        result: { polluted: null, map: [2], leak: "undefined" },
      });
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      expect([1].map((x) => x + 1)).toEqual([2]);
    });
    it("runs 16 runs in parallel, each with its own result", async () => {
      const fns = { codemode: { id: ([n]: unknown[]) => n } };
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          executor.execute({
            code: `globalThis.mine = ${i}; await new Promise((r) => setTimeout(r, 20)); return { got: await codemode.id(${i}), mine: globalThis.mine }`,
            namespaces: fns,
          }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(Array(16).fill("ok"));
      expect(outcomes.map((o) => o.result)).toEqual(
        Array.from({ length: 16 }, (_, i) => ({ got: i, mine: i })),
      );
    });
  });
});
