/**
 * When the sandbox's answer is a failure instead of a response (its `run()` rejected, or the
 * shared worker's guest harness threw), the failure's message is the program's own text: a
 * program that makes the harness fail with a 20 MB message (a `then` on Object.prototype that
 * rejects the harness's response; a `toJSON` that throws while the guest encodes it) must still
 * leave an outcome whose error fits the bounds every other error is cut to.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_ERROR_MESSAGE } from "../../../src/executor/sandbox-response";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

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
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("SandboxError");
    expect(outcome.error!.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE + 100);
    const after = await executor.execute({ code: "return 'alive'" });
    expect(after).toMatchObject({ status: "ok", result: "alive" });
  });
});
