/**
 * When the sandbox's answer is a failure instead of a response (its `run()` rejected, or the
 * shared worker's guest harness threw), the failure's message is the program's own text: a
 * program that makes the harness fail with a 20 MB message (a `then` on Object.prototype that
 * rejects the harness's response; a `toJSON` that throws while the guest encodes it) must still
 * leave an outcome whose error fits the bounds every other error is cut to; and the per-run
 * harness's answer cannot be taken over that way at all.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_ERROR_MESSAGE } from "../../../../src/executor/sandbox-response";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  describe("a harness failure carrying the program's text", () => {
    it("arrives with its message cut to the bound", async () => {
      const outcome = await executor.execute({
        code: `
        const huge = "E".repeat(20 * 1024 * 1024);
        const isResponse = (o) => o !== null && typeof o === "object" && Object.hasOwn(o, "budgetExhausted");
        Object.defineProperty(Object.prototype, "then", {
          configurable: true,
          get() {
            if (!isResponse(this)) return undefined;
            delete Object.prototype.then;
            return (_resolve, reject) => reject(new Error(huge));
          },
        });
        Object.defineProperty(Object.prototype, "toJSON", {
          configurable: true,
          value() { if (isResponse(this)) throw new Error(huge); return this },
        });
        return 1;
      `,
      });
      // The per-run harness is no longer taken over this way (see below): it answers normally.
      if (outcome.status !== "ok")
        expect(outcome).toMatchObject({ status: "error", error: { name: "SandboxError" } });
      expect(outcome.error?.message.length ?? 0).toBeLessThanOrEqual(MAX_ERROR_MESSAGE + 100);
      const after = await executor.execute({ code: "return 'alive'" });
      expect(after).toMatchObject({ status: "ok", result: "alive" });
    });

    // Before the harness's answer had its own `then`, its promise adopted this one:
    // the program decided the answer (and workerd logged the rejection, message and all).
    it("a `then` on Object.prototype does not take over the harness's answer", async () => {
      const outcome = await executor.execute({
        code: `
        Object.defineProperty(Object.prototype, "then", {
          configurable: true,
          get() {
            if (this === null || typeof this !== "object" || !Object.hasOwn(this, "budgetExhausted")) return undefined;
            return (resolve) => resolve({ ...this, result: '"forged"' });
          },
        });
        return 1;
      `,
      });
      expect(outcome).toMatchObject({ status: "ok", result: 1 });
    });
  });
});
