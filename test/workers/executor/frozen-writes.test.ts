/**
 * A write into a frozen object the program made itself is reported in the engine's own words,
 * in both executors: the read-only hint about codemode.spec()'s shared `$ref` views belongs to
 * those views alone (src/openapi/lazy-view.ts throws it), not to every frozen-object TypeError
 * (issue #42: a `code` run with no spec in sight was told to copy a `$ref`).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import type { Executor } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";

const executors: [string, Executor][] = [
  ["isolate-per-run", new WorkerLoaderExecutor({ loader: env.LOADER })],
  ["shared-worker", new SharedWorkerExecutor({ loader: env.LOADER })],
];

describe.each(executors)("frozen objects of the program's own, %s executor", (_name, executor) => {
  it.each([
    ["assigning", "const o = Object.freeze({ a: 1 }); o.a = 2;"],
    ["adding", "const o = Object.freeze({ a: 1 }); o.b = 2;"],
    ["deleting", "const o = Object.freeze({ a: 1 }); delete o.a;"],
  ])("%s: the engine's TypeError, with no hint about codemode.spec()", async (_what, code) => {
    const outcome = await executor.execute({ code: `${code} return "written";` });
    expect(outcome).toMatchObject({ status: "error", error: { name: "TypeError" } });
    expect(outcome.error?.message).not.toMatch(/codemode\.spec|\$ref|Copy what you change/);
  });
});
