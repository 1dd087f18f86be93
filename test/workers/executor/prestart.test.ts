// WorkerLoaderExecutor.prestart: a sandbox loaded before its run's host functions are known
// (the `code` tool overlaps it with a cold upstream's listing) runs exactly as a plain run does.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HostNamespaces } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });
const namespaces: HostNamespaces = { codemode: { double: ([n]) => (n as number) * 2 } };
const PROGRAM = "async () => ({ four: await codemode.double(2), six: await codemode.double(3) })";

describe("WorkerLoaderExecutor.prestart", () => {
  it("runs the prestarted sandbox with the host functions given to execute", async () => {
    const prestarted = executor.prestart({ code: PROGRAM });
    expect(prestarted).toBeDefined();
    const outcome = await executor.execute({ code: PROGRAM, namespaces, prestarted });
    expect(outcome.status).toBe("ok");
    expect(outcome.result).toEqual({ four: 4, six: 6 });
    expect(outcome.calls).toBe(2);
  });

  it("serves one run only: a second run given the same prestart loads its own sandbox", async () => {
    const prestarted = executor.prestart({ code: PROGRAM });
    const [a, b] = await Promise.all([
      executor.execute({ code: PROGRAM, namespaces, prestarted }),
      executor.execute({ code: PROGRAM, namespaces, prestarted }),
    ]);
    expect([a.status, b.status]).toEqual(["ok", "ok"]);
    expect(a.result).toEqual(b.result);
  });

  it("is not used by a run of other code or other limits (that run loads its own)", async () => {
    const other = executor.prestart({ code: "async () => 'not me'" });
    const outcome = await executor.execute({ code: PROGRAM, namespaces, prestarted: other });
    expect(outcome.result).toEqual({ four: 4, six: 6 });
    const slow = executor.prestart({ code: PROGRAM, limits: { cpuMs: 123 } });
    const fast = await executor.execute({ code: PROGRAM, namespaces, prestarted: slow });
    expect(fast.result).toEqual({ four: 4, six: 6 });
  });

  it("starts nothing for code that does not parse; the run reports the syntax error", async () => {
    expect(executor.prestart({ code: "async () => {" })).toBeUndefined();
    const outcome = await executor.execute({ code: "async () => {", namespaces });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("SyntaxError");
  });

  it("frees an unused prestart on dispose (and dispose twice is harmless)", async () => {
    const prestarted = executor.prestart({ code: PROGRAM })!;
    prestarted.dispose();
    prestarted.dispose();
    // A disposed prestart is simply not used: the run loads its own sandbox.
    const outcome = await executor.execute({ code: PROGRAM, namespaces, prestarted });
    expect(outcome.result).toEqual({ four: 4, six: 6 });
  });
});
