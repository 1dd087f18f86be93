/**
 * The program's result (and a thrown non-error) encoded for the host, on both executors (issue
 * #40, "Host work bounded by what a program controls"): a value whose wire tree is vastly larger
 * than what the program built (one view a million times, a shared array doubled 40 times), a
 * `toJSON` on Array.prototype, and replaced Array/String/Set methods must neither make the
 * harness build the whole tree or text first nor steer it: the run ends at once with a result
 * cut to maxResultBytes (marked as truncation marks it), or the value the program returned.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { toWire } from "../../../../sandbox/codec";
import type { ExecutionOutcome } from "../../../../src/executor/types";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";

describeExecutors((Executor) => {
  // A short run timeout is the guard: before the fix these runs took 15 s or more, or failed
  // the harness (out of memory); a bounded encoding takes well under a second.
  const LIMITS = { timeoutMs: 8_000, maxResultBytes: 100_000 };
  const executor = new Executor({ loader: env.LOADER, limits: LIMITS });

  function run(code: string): Promise<ExecutionOutcome> {
    return executor.execute({ code, limits: LIMITS });
  }

  /** The result came back cut to the limit, as valid JSON, with the full size counted. */
  function expectCut(outcome: ExecutionOutcome, minBytes: number): void {
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ status: "ok", truncated: true });
    expect(outcome.resultBytes).toBeGreaterThanOrEqual(minBytes);
    // Measured as the sandbox wrote it (a decoded view is a Uint8Array, which JSON would spell
    // out byte by byte).
    const text = JSON.stringify(toWire(outcome.result));
    expect(text.length).toBeLessThanOrEqual(LIMITS.maxResultBytes);
  }

  describe("results vastly larger than what the program built", () => {
    it("one 1,023-byte view a million times comes back cut", async () => {
      const outcome = await run("const v = new Uint8Array(1023); return Array(1e6).fill(v)");
      expectCut(outcome, 1_000_000);
      const items = outcome.result as unknown[];
      expect(items[0]).toBeInstanceOf(Uint8Array);
      expect(String(items.at(-1))).toMatch(/^…\[\+\d+ items\]$/);
    });

    it("one array doubled 40 times (2^40 leaves) comes back cut, or ends by the budget", async () => {
      const outcome = await run(
        "let x = ['leaf']; for (let i = 0; i < 40; i++) x = [x, x]; return x",
      );
      // The shared worker's engine charges the harness's steps to the run: counting 8 MiB of
      // it there is more than the default 20 million operations.
      if (outcome.status === "limit") {
        expect(outcome.error?.message).toMatch(/^Operation budget of \d+ exceeded/);
      } else expectCut(outcome, 1_000_000);
    });

    it("a thrown million-element array is reported as a bounded error", async () => {
      const outcome = await run("const v = new Uint8Array(1023); throw Array(1e6).fill(v)");
      expect(outcome.status).toBe("error");
      expect(outcome.error!.message).toMatch(/^Non-error thrown: \[/);
      expect(outcome.error!.message.length).toBeLessThanOrEqual(1_100);
    });
  });

  describe("the program's prototypes do not steer the encoding", () => {
    it("a toJSON on Array.prototype is not called: the arrays come back as they are", async () => {
      // JSON would write 1,000 × 100 KB: a 100 MB text.
      const outcome = await run(`
        Array.prototype.toJSON = function () { return 'j'.repeat(100_000) };
        console.log('a line');
        return Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => ['k' + i, [i]]))`);
      expect(outcome.error).toBeUndefined();
      expect(outcome).toMatchObject({ status: "ok", truncated: false });
      expect(outcome.result).toEqual(
        Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => ["k" + i, [i]])),
      );
      expect(outcome.logs).toEqual([{ level: "log", message: "a line" }]);
    });

    it("a toJSON on Object.prototype is not called while a big result is cut", async () => {
      const outcome = await run(`
        Object.prototype.toJSON = function () { return 'j'.repeat(100_000) };
        return Array.from({ length: 20_000 }, (_, i) => ({ i, at: new Date(0) }))`);
      expectCut(outcome, 500_000);
      expect((outcome.result as unknown[])[0]).toEqual({ i: 0, at: new Date(0) });
    });

    it("replaced slice, map and push do not change how a big result is cut", async () => {
      const outcome = await run(`
        const big = Array.from({ length: 20_000 }, (_, i) => 'item ' + i);
        const flood = () => Array(1e5).fill('f'.repeat(1_000));
        Array.prototype.slice = flood;
        Array.prototype.map = flood;
        Array.prototype.push = function () { return 0 };
        String.prototype.slice = function () { return 'f'.repeat(1e6) };
        return { big, text: 's'.repeat(300_000) }`);
      expectCut(outcome, 500_000);
      const result = outcome.result as { big: string[]; text: string };
      expect(result.big[0]).toBe("item 0");
      expect(String(result.big.at(-1))).toMatch(/^…\[\+\d+ items\]$/);
      expect(result.text).toMatch(/^s+…\[\+\d+ chars\]$/);
    });

    it("a Set.prototype.has that never finds cycles does not unroll one", async () => {
      const outcome = await run(`
        const a = ['a']; a.push(a, a);
        Set.prototype.has = () => false;
        return a`);
      expect(outcome.error).toBeUndefined();
      expect(outcome).toMatchObject({ status: "ok", result: ["a", "[Circular]", "[Circular]"] });
    });
  });
});
