/**
 * Hostile programs against the executor (issue #13, hole 1): every program here tries to reach
 * the host bridge's RPC stub or to push unbounded data past the limits. Each must end in a
 * definite outcome whose size stays within the limits, and the executor must keep serving.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ExecutionOutcome } from "../../../../src/executor/types";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { HOOK_PROTOTYPES, PROTOTYPE_NAMES, TAKE_OVER_LOG_BUFFER } from "./snippets";

describeExecutors((Executor, kind) => {
  const LIMITS = {
    timeoutMs: 10_000,
    maxLogBytes: 2_000,
    maxResultBytes: 4_000,
    maxCallBytes: 10_000,
    maxHostCalls: 50,
  };
  const executor = new Executor({ loader: env.LOADER, limits: LIMITS });
  const echo = { codemode: { echo: (args: unknown[]) => args[0] } };

  function run(code: string, limits: Partial<typeof LIMITS> = {}): Promise<ExecutionOutcome> {
    return executor.execute({ code, namespaces: echo, limits });
  }

  /** Bytes of console text the outcome carries. */
  function logBytes(outcome: ExecutionOutcome): number {
    return outcome.logs.reduce((n, l) => n + new TextEncoder().encode(l.message).byteLength, 0);
  }

  /** The outcome stays within every size limit, whatever the program did. */
  function expectBounded(outcome: ExecutionOutcome, limits = LIMITS): void {
    expect(logBytes(outcome)).toBeLessThanOrEqual(limits.maxLogBytes);
    expect(outcome.logs.length).toBeLessThanOrEqual(limits.maxLogBytes);
    if (outcome.result !== undefined) {
      expect(JSON.stringify(outcome.result).length).toBeLessThanOrEqual(limits.maxResultBytes);
    }
    expect(outcome.error?.message.length ?? 0).toBeLessThanOrEqual(10_000);
    expect(outcome.calls).toBeLessThanOrEqual(limits.maxHostCalls);
  }

  /** A normal run right after: the executor still serves. */
  async function expectStillServing(): Promise<void> {
    const outcome = await run(
      "const v = await codemode.echo({ ok: 1 }); console.log('fine'); return v",
    );
    expect(outcome).toMatchObject({ status: "ok", result: { ok: 1 }, calls: 1 });
    expect(outcome.logs).toEqual([{ level: "log", message: "fine" }]);
  }

  describe("prototype hooks cannot reach the host stub", () => {
    it("getters and setters on every name the harness touches see no stub, and the caps hold", async () => {
      const outcome = await run(`
      ${HOOK_PROTOTYPES}
      const hooks = hookPrototypes(${JSON.stringify(PROTOTYPE_NAMES)});
      let first, second, failure;
      try {
        first = await codemode.echo({ a: [1, "two"] });
        console.log("between calls", { nested: [1] });
        second = await codemode.echo(new Map([["k", 1]]));
      } catch (e) { failure = String(e && e.message) }
      hooks.restore();
      const stubs = hooks.stubs();
      // With a stub in hand, skip every sandbox-side cap: huge logs, huge arguments, a flood.
      const flood = [];
      for (const stub of stubs) {
        for (let i = 0; i < 5; i++) {
          try {
            flood.push(await stub.call("codemode", "echo", JSON.stringify(["x".repeat(200000)]),
              [{ level: "log", message: "L".repeat(200000) }]));
          } catch (e) { flood.push(String(e)) }
        }
      }
      return { stubs: stubs.length, first, second: second instanceof Map ? [...second] : String(second), failure, flood: flood.length };
    `);

      expect(outcome.result ?? outcome.error).toEqual({
        stubs: 0,
        first: { a: [1, "two"] },
        second: [["k", 1]],
        flood: 0,
      });
      expect(outcome.status).toBe("ok");
      expectBounded(outcome);
      await expectStillServing();
    });
  });

  describe("module-scope hooks", () => {
    it("hooks installed when the module loads see no stub either", async () => {
      const outcome = await run(`
      ${HOOK_PROTOTYPES}
      const hooks = hookPrototypes(${JSON.stringify(PROTOTYPE_NAMES)});
      export default async () => {
        const value = await codemode.echo("through");
        hooks.restore();
        return { value, stubs: hooks.stubs().length };
      };
    `);
      expect(outcome).toMatchObject({ status: "ok", result: { value: "through", stubs: 0 } });
      await expectStillServing();
    });
  });

  describe("host-side caps hold when the sandbox-side ones are bypassed", () => {
    it("a program that takes over the log buffer cannot push more than maxLogBytes to the host", async () => {
      const outcome = await run(`
      ${TAKE_OVER_LOG_BUFFER}
      for (let i = 0; i < 20; i++) push.call(buffer, { level: "log", message: "A".repeat(100000) });
      await codemode.echo(1);
      for (let i = 0; i < 20; i++) push.call(buffer, { level: "error", message: "B".repeat(100000) });
      for (let i = 0; i < 20000; i++) push.call(buffer, { level: "log", message: "" });
      return buffer === undefined ? "no buffer" : "flooded";
    `);
      expect(outcome.result).toBe("flooded");
      expectBounded(outcome);
      expect(outcome.logs[0]).toEqual({ level: "log", message: "first" });
      expect(outcome.droppedLogs).toBeGreaterThan(0);
      await expectStillServing();
    });

    // A lone high surrogate encodes as U+FFFD (3 bytes); the byte counters took it and the unit
    // after it for one 4-byte pair, so "\ud800€" counted 4 bytes where 6 are kept.
    it("lone surrogates count as the bytes they encode to, in the console and on the host", async () => {
      const outcome = await run(`
      const line = "\\ud800€".repeat(20000);
      ${TAKE_OVER_LOG_BUFFER}
      console.log(line); // clipped by the sandbox's own budget
      for (let i = 0; i < 5; i++) push.call(buffer, { level: "log", message: line }); // by the host's
      return buffer === undefined ? "no buffer" : "flooded";
    `);
      // Only numbers and well-formed text leave this test: the pool's WebSocket refuses lone
      // surrogates in a failure message.
      const wellFormed = (text = "") => text.replace(/[\ud800-\udfff]/g, "?");
      expect(wellFormed(outcome.error?.message)).toBe("");
      expect(outcome.result).toBe("flooded");
      expect(logBytes(outcome)).toBeLessThanOrEqual(LIMITS.maxLogBytes);
      expect(outcome.logs.length).toBeGreaterThan(0);
      await expectStillServing();
    });

    // The flood: 60 batches of 30 MB on the isolate-per-run executor, where it was
    // reported (~2 s alone). The shared worker's engine spends ~0.85 s of a core per 30 MB batch
    // (51 s alone, 27 s of CI's critical path), and what the test guards does not need that
    // size there: the host kept every batch it was sent, so any 60 batches larger than
    // maxLogBytes (2,000 bytes) fail `expectBounded` without the host-side budget. 1 MB a batch
    // is 500 times that.
    const batchMb = kind === "shared-worker" ? 1 : 30;
    it(`the issue's flood, 60 batches of ${batchMb} MB of console text, leaves the host with maxLogBytes`, async () => {
      // Before the host-side budget, the host appended every batch: the run exhausted the
      // host heap and workerd aborted; the shared worker's 1 MB batches, with the host's budget
      // turned off (2026-12-07), failed here with 62,914,970 bytes of logs kept.
      // Its own timeout: the shared worker's 1.8 GB took 20-50 s alone on a 2-core machine and
      // over a minute under load; room is left for a slow machine.
      const outcome = await run(
        `const push = Array.prototype.push, apply = Reflect.apply;
      let buffer;
      Array.prototype.push = function (...items) {
        const item = items[0];
        if (item && typeof item === "object" && typeof item.level === "string") buffer = this;
        return apply(push, this, items);
      };
      const big = "A".repeat(${batchMb} * 1024 * 1024);
      for (let i = 0; i < 60; i++) {
        console.log("tick " + i);
        apply(push, buffer, [{ level: "log", message: big }]);
        await codemode.echo(i);
      }
      return "survived";`,
        { maxHostCalls: 100 },
      );
      expect(outcome).toMatchObject({ status: "ok", result: "survived" });
      expectBounded(outcome, { ...LIMITS, maxHostCalls: 100 });
      expect(outcome.logs.length + outcome.droppedLogs).toBe(120);
      await expectStillServing();
    }, 240_000);

    it("200,000 empty console lines are counted, not kept", async () => {
      const outcome = await run("for (let i = 0; i < 200000; i++) console.log(); return 'done'");
      expect(outcome).toMatchObject({ status: "ok", result: "done" });
      expectBounded(outcome);
      expect(outcome.logs.length + outcome.droppedLogs).toBe(200_000);
      await expectStillServing();
    });

    it("a program that defeats the sandbox's byte counting still cannot return more than maxResultBytes", async () => {
      const outcome = await run(`
      TextEncoder.prototype.encode = function () { return { byteLength: 1 } };
      Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), "byteLength", { get: () => 1 });
      String.prototype.charCodeAt = function () { return 65 };
      return "R".repeat(3000) + "é".repeat(3000);
    `);
      // The harness counts with the engine's own methods now (sandbox/truncate.ts): the result
      // comes back cut. Where the engine's TextEncoder is a polyfill of the program's methods
      // (the shared worker), the host's own count is what holds: the result is refused.
      if (outcome.status === "limit") {
        expect(outcome.error?.message).toMatch(/maxResultBytes/);
        expect(outcome.result).toBeUndefined();
      } else {
        expect(outcome).toMatchObject({ status: "ok", truncated: true });
        expect(outcome.result).toMatch(/^R+…\[\+\d+ chars\]$/);
      }
      expectBounded(outcome);
      await expectStillServing();
    });
  });

  describe("arguments that fight the encoder", () => {
    it.each([
      ["a Proxy whose traps throw", "new Proxy({}, { ownKeys() { throw new Error('trap') } })"],
      ["a getter that throws", "{ get boom() { throw new Error('getter') } }"],
      ["a toJSON that throws", "{ toJSON() { throw new Error('toJSON') } }"],
      [
        "a Symbol.toPrimitive that throws",
        "{ [Symbol.toPrimitive]() { throw new Error('prim') } }",
      ],
      ["a thenable", "{ then(resolve) { resolve('x'.repeat(1e6)) } }"],
      ["a huge string", "'z'.repeat(5e6)"],
    ])("%s ends in a definite outcome", async (_label, arg) => {
      const outcome = await run(`
      try { return { value: await codemode.echo(${arg}) } } catch (e) { return { caught: e.name + ": " + e.message } }
    `);
      expect(outcome.status).toBe("ok");
      expectBounded(outcome);
      await expectStillServing();
    });
  });

  describe("floods and huge values", () => {
    it("a flood of concurrent calls stops at maxHostCalls", async () => {
      const outcome = await run(
        "await Promise.allSettled(Array.from({ length: 2000 }, (_, i) => codemode.echo(i))); return 'after'",
      );
      expect(outcome).toMatchObject({ status: "limit", calls: 50, result: "after" });
      expect(outcome.error?.message).toMatch(/Host call limit of 50/);
      expectBounded(outcome);
      await expectStillServing();
    });

    it("an error with a 20 MB message arrives cut to a bounded size", async () => {
      const outcome = await run("throw new RangeError('m'.repeat(20 * 1024 * 1024))");

      expect(outcome).toMatchObject({ status: "error", error: { name: "RangeError" } });
      expect(outcome.error!.message).toMatch(/…\[\+\d+ chars\]$/);
      expectBounded(outcome);
      await expectStillServing();
    });

    it("an error with a 1 MB name arrives cut to a bounded size", async () => {
      const outcome = await run(
        "const e = new Error('x'); e.name = 'N'.repeat(1024 * 1024); throw e",
      );
      expect(outcome.status).toBe("error");
      expect(outcome.error!.name.length).toBeLessThanOrEqual(200);
      await expectStillServing();
    });

    it("a result whose getters and toJSON throw ends in an error naming it", async () => {
      const outcome = await run("return { get boom() { throw new Error('getter in result') } }");
      expect(outcome).toMatchObject({ status: "error", error: { message: "getter in result" } });
      await expectStillServing();
    });

    it.each([
      [
        "a Proxy whose traps throw",
        "new Proxy({}, { ownKeys() { throw new Error('trap in result') } })",
      ],
      [
        "a Proxy claiming endless keys",
        "new Proxy({}, { ownKeys: () => Array.from({ length: 1e6 }, (_, i) => 'k' + i), getOwnPropertyDescriptor: () => ({ value: 'v'.repeat(100), enumerable: true, configurable: true }) })",
      ],
      ["a huge toJSON", "{ toJSON: () => 'j'.repeat(5e6), data: 'd'.repeat(5e6) }"],
      [
        "a throwing Symbol.toPrimitive",
        "{ [Symbol.toPrimitive]() { throw new Error('prim in result') } }",
      ],
      ["a thenable resolving to a huge value", "{ then(resolve) { resolve(['t'.repeat(5e6)]) } }"],
      [
        "a 10,000-deep nesting",
        "(() => { let v = {}; for (let i = 0; i < 10000; i++) v = { v }; return v })()",
      ],
    ])("a result that is %s ends in a definite, bounded outcome", async (_label, value) => {
      const outcome = await run(`return ${value}`);
      expect(["ok", "error", "limit"]).toContain(outcome.status);
      if (outcome.status !== "ok") expect(outcome.error?.message).toBeTruthy();
      expectBounded(outcome);
      await expectStillServing();
    });

    it("a result that is a never-settling thenable times out", async () => {
      const outcome = await run("return { then() {} }", { timeoutMs: 300 });
      expect(outcome.status).toBe("timeout");
      await expectStillServing();
    });
  });

  describe("globals the harness uses, replaced by the program", () => {
    it.each([
      ["JSON.stringify", "JSON.stringify = () => 'x'.repeat(5e6);"],
      [
        "JSON",
        "globalThis.JSON = { stringify() { throw new Error('no JSON') }, parse() { throw new Error('no JSON') } };",
      ],
      [
        "Object.keys/entries/hasOwn",
        "Object.keys = Object.entries = Object.hasOwn = () => { throw new Error('no keys') };",
      ],
      ["Array.isArray", "Array.isArray = () => { throw new Error('no isArray') };"],
      [
        "Promise and then",
        "Promise.prototype.then = function () { throw new Error('no then') }; globalThis.Promise = function () {};",
      ],
      ["console", "globalThis.console = { log() { throw new Error('no console') } };"],
      [
        "Object.prototype.toJSON",
        "Object.prototype.toJSON = () => 'y'.repeat(5e6); Array.prototype.toJSON = Object.prototype.toJSON;",
      ],
      [
        "String.prototype.slice",
        "String.prototype.slice = function () { return String(this) + 'x'.repeat(1e6) };",
      ],
    ])("replacing %s gives a definite, bounded outcome", async (_label, tamper) => {
      const outcome = await run(`
      console.log("before");
      ${tamper}
      return { big: "q".repeat(50000), list: [1, 2, 3] };
    `);
      expect(["ok", "error", "limit"]).toContain(outcome.status);
      if (outcome.status !== "ok") expect(outcome.error?.message).toBeTruthy();
      expectBounded(outcome);
      await expectStillServing();
    });

    // The error report (sandbox/harness-shared.ts) captures Error and JSON.stringify when the
    // harness loads: replacing them afterwards must not turn a thrown Error into a "non-error".
    it("a thrown error is still reported by name and message after Error and JSON are replaced", async () => {
      const outcome = await run(`
      const e = new Error("kept");
      Object.defineProperty(e, "name", { get() { throw new TypeError("name getter") } });
      Object.defineProperty(e, "stack", { get() { return 42 } });
      globalThis.Error = function () { return {} };
      JSON.stringify = () => { throw new TypeError("no stringify") };
      throw e;
    `);
      expect(outcome).toMatchObject({ status: "error", error: { name: "Error", message: "kept" } });
      const thrown = await run(`
      JSON.stringify = () => { throw new TypeError("no stringify") };
      throw { code: 7 };
    `);
      expect(thrown).toMatchObject({
        status: "error",
        error: { name: "Error", message: 'Non-error thrown: {"code":7}' },
      });
      await expectStillServing();
    });
  });

  // A module's top level is the program's own code: it must not run before the harness has
  // captured its intrinsics and set the budget, so the harness imports it only when the run
  // starts. Both tests fail when user.js is imported statically with the harness.
  describe("a module's top level runs only once the harness is ready", () => {
    it("replacing JSON.stringify at the top level does not reach the harness's encoder", async () => {
      const outcome = await run(`
      JSON.stringify = () => '"poisoned"';
      export default async () => ({ a: 1 });
    `);
      expect(outcome).toMatchObject({ status: "ok", result: { a: 1 } });
      await expectStillServing();
    });
    it("a loop at the top level is counted against the operation budget", async () => {
      const outcome = await executor.execute({
        code: `
        let n = 0;
        for (let i = 0; i < 1e6; i++) n++;
        export default async () => n;
      `,
        namespaces: echo,
        limits: { maxOperations: 10_000 },
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      await expectStillServing();
    });
  });

  // A host call the harness refuses itself is answered without I/O, so a loop that catches the
  // refusal never lets a timer fire: only the operation budget can end it, and it charged two
  // operations an iteration while each refusal cost microseconds (~200 s of a busy runner thread
  // on the default budget; on `npm start` the runner's watchdog replaced the runner after 10 s,
  // ending the runs of other clients on it). Each refusal now costs its share of the budget.
  // The default budget on purpose: that is where the time went.
  describe("a loop that catches refused host calls ends by the budget at once", () => {
    // Not a speed target: before the fix these took 67–224 s; now well under a second idle and a
    // few seconds on a loaded machine, so this bound only tells "ended by its limits" from "ran
    // until the budget was spent two operations at a time".
    const HANG_GUARD_MS = 20_000;
    it("calls from a module's top level (refused while the module loads)", async () => {
      const started = Date.now();
      const outcome = await executor.execute({
        code: `
        let refusal = "";
        for (;;) { try { await codemode.echo(1) } catch (e) { refusal = String(e) } }
        export default async () => refusal;
      `,
        namespaces: echo,
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      // The V8 harness's budget message says where the budget went (the engine has its own).
      if (kind === "isolate-per-run")
        expect(outcome.error?.message).toMatch(/\d+ refused host calls included/);
      expect(Date.now() - started).toBeLessThan(HANG_GUARD_MS);
      await expectStillServing();
    });
    it("a single call from a module's top level is refused with a message saying where to call", async () => {
      const outcome = await executor.execute({
        code: `
        let refusal = "none";
        try { await codemode.echo(1) } catch (e) { refusal = e.message }
        export default async () => refusal;
      `,
        namespaces: echo,
      });
      expect(outcome).toMatchObject({ status: "ok", calls: 0 });
      expect(outcome.result).toMatch(/codemode\.echo\(\).*top level.*default export/s);
    });
    it("calls over maxCallBytes (refused before they cross)", async () => {
      const started = Date.now();
      const outcome = await run(`
        const big = "z".repeat(20_000);
        for (;;) { try { await codemode.echo(big) } catch {} }
      `);
      expect(outcome).toMatchObject({ status: "limit", calls: 0, error: { name: "LimitError" } });
      expect(Date.now() - started).toBeLessThan(HANG_GUARD_MS);
      await expectStillServing();
    });
    // The host answers these at once; workerd advances timers only when the event loop idles,
    // so before the harness answered them itself the run's 1 s was never up (224 s measured).
    it("calls past maxHostCalls (the host's refusal, answered at once)", async () => {
      const started = Date.now();
      const outcome = await run(`for (;;) { try { await codemode.echo(1) } catch {} }`, {
        timeoutMs: 1_000,
      });
      expect(outcome).toMatchObject({
        status: "limit",
        calls: LIMITS.maxHostCalls,
        error: { name: "LimitError" },
      });
      expect(Date.now() - started).toBeLessThan(HANG_GUARD_MS);
      await expectStillServing();
    });
    it("calls after the run ended, from a loop the program left running", async () => {
      const started = Date.now();
      const outcome = await run(`
        (async () => { for (;;) { try { await codemode.echo(1) } catch {} } })();
        return "answered";
      `);
      expect(outcome).toMatchObject({ status: "ok", result: "answered" });
      expect(Date.now() - started).toBeLessThan(HANG_GUARD_MS);
      await expectStillServing();
    });
  });
});
