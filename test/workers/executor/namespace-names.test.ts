// Namespace names become globals of the sandbox (sandbox/harness.ts defines each one on
// globalThis, non-configurable): a name that shadows a global (`Promise`, `console`, …) or is
// not a usable identifier is refused before any isolate starts, with an error naming it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HostNamespaces } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";

const executor = new WorkerLoaderExecutor({
  loader: env.LOADER,
  limits: { timeoutMs: 5_000 },
});

function withNamespace(name: string, calls: string[]): HostNamespaces {
  return { [name]: { ping: () => (calls.push(name), "pong") } };
}

describe("namespace names that would shadow sandbox globals are refused", () => {
  it.each([
    "Promise",
    "console",
    "setTimeout",
    "Error",
    "Object",
    "JSON",
    "globalThis",
    "fetch",
    "Response",
    "crypto",
    "undefined",
    "eval",
  ])("refuses %s", async (name) => {
    const calls: string[] = [];
    const outcome = await executor.execute({
      code: `async () => { await globalThis[${JSON.stringify(name)}].ping(); return "ran"; }`,
      namespaces: withNamespace(name, calls),
    });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("CodeModeError");
    expect(outcome.error?.message).toContain(`"${name}"`);
    expect(outcome.error?.message).toMatch(/shadow.*global.*[Rr]ename/);
    expect(outcome.result).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it.each(["class", "await", "1st", "my-api", "", "a b", "__cm$x"])(
    "refuses %j, which code cannot name as a namespace",
    async (name) => {
      const outcome = await executor.execute({
        code: "async () => 1",
        namespaces: withNamespace(name, []),
      });
      expect(outcome.status).toBe("error");
      expect(outcome.error?.name).toBe("CodeModeError");
      expect(outcome.error?.message).toContain(JSON.stringify(name));
      expect(outcome.error?.message).toMatch(/[Rr]ename/);
    },
  );

  it("still serves ordinary names, several at once", async () => {
    const calls: string[] = [];
    const outcome = await executor.execute({
      code: "async () => [await codemode.ping(), await api.ping(), await $tools.ping()]",
      namespaces: {
        ...withNamespace("codemode", calls),
        ...withNamespace("api", calls),
        ...withNamespace("$tools", calls),
      },
    });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe("ok");
    expect(outcome.result).toEqual(["pong", "pong", "pong"]);
    expect(calls).toEqual(["codemode", "api", "$tools"]);
  });
});
