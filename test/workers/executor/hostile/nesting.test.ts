/**
 * Nesting depth of what a program sends the host. The codec follows at most 200 levels (deeper
 * values become a marker), so an honest harness never sends deeper text; a program that gets
 * past it (a getter that answers shallow to the encoder's check and deep to JSON.stringify, or
 * a `then` on Object.prototype that replaces the harness's response) must not hand the host,
 * its host functions, or the executor's caller a value that recursive code (JSON.stringify,
 * structuredClone, a tree walk) cannot take.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_WIRE_NESTING } from "../../../../src/executor/wire-nesting";
import type { ExecutionOutcome } from "../../../../src/executor/types";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";

describeExecutors((Executor) => {
  const executor = new Executor({
    loader: env.LOADER,
    limits: { timeoutMs: 10_000, maxResultBytes: 1_000_000, maxCallBytes: 1_000_000 },
  });
  let deepest = 0;
  const namespaces = {
    codemode: {
      echo: (args: unknown[]) => {
        deepest = Math.max(deepest, nesting(args));
        return "received";
      },
    },
  };

  /** Levels of arrays and objects in `value`, counted without recursion. */
  function nesting(value: unknown): number {
    let most = 0;
    const stack: [unknown, number][] = [[value, 0]];
    while (stack.length > 0) {
      const [item, depth] = stack.pop()!;
      if (item === null || typeof item !== "object") continue;
      most = Math.max(most, depth + 1);
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
    }
    return most;
  }

  async function run(code: string): Promise<ExecutionOutcome> {
    const outcome = await executor.execute({ code, namespaces });
    // Whatever came back, the caller can serialize it.
    expect(() => JSON.stringify(outcome)).not.toThrow();
    return outcome;
  }

  describe("nesting the program sends the host", () => {
    it("a result nested past the codec's depth is never handed over", async () => {
      // The harness once read the getter twice (shallow to its check, deep to JSON.stringify) and
      // the shared worker's engine sent its response through this `toJSON`, which put the deep
      // text in place of the result: the host refused it by its nesting. Now the result is read
      // once and written without JSON's walk (sandbox/codec-result.ts, engine/guest.ts), so the
      // getter's first answer is the result. The host's own check is src/executor/wire-nesting.ts
      // (test/unit/executor/wire-nesting.test.ts).
      const outcome = await run(`
      const deep = "[".repeat(300000) + "]".repeat(300000);
      let nested = []; for (let i = 0; i < 3000; i++) nested = [nested];
      const isResponse = (o) => o !== null && typeof o === "object" && Object.hasOwn(o, "budgetExhausted");
      Object.defineProperty(Object.prototype, "toJSON", {
        configurable: true,
        value() { return isResponse(this) ? { ...this, result: deep } : this },
      });
      let reads = 0;
      return { get k() { return reads++ % 2 === 0 ? 1 : nested } };
    `);
      expect(outcome.error).toBeUndefined();
      expect(outcome).toMatchObject({ status: "ok", result: { k: 1 } });
    });

    it("arguments nested deep by a getter's second read never reach the host", async () => {
      deepest = 0;
      // The encoder read the getter once (shallow), JSON.stringify again (deep). It now reads a
      // program's arguments once, writing the tree it made itself: the getter's 1 crosses.
      const outcome = await run(`
      let deep = []; for (let i = 0; i < 3000; i++) deep = [deep];
      let reads = 0;
      const arg = { get k() { return reads++ % 2 === 0 ? 1 : deep } };
      try { return await codemode.echo(arg) } catch (e) { return e.name + ": " + e.message }
    `);
      expect(deepest).toBeLessThanOrEqual(MAX_WIRE_NESTING);
      expect(outcome.result).toBe("received");
      expect(deepest).toBe(2);
    });

    it("an honest value at the codec's depth limit still crosses both ways", async () => {
      deepest = 0;
      const outcome = await run(`
      let deep = { k: 1 };
      for (let i = 0; i < 250; i++) deep = i % 2 ? [deep] : { d: deep };
      await codemode.echo(deep);
      return deep;
    `);
      expect(outcome.status).toBe("ok");
      expect(deepest).toBeGreaterThan(150);
      expect(nesting(outcome.result)).toBeGreaterThan(150);
    });
  });
});
