/**
 * Measures (logs, never asserts on time) the p50 latency of a trivial run and of a run calling
 * one host function, for both executors, in local workerd, and checks that both executors give
 * the same outcome for those programs. The figures feed the executor docs (issue #19); local
 * workerd charges nothing, so wall time of sequential runs is an upper bound of their CPU.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker/shared-worker-executor";
import type { Executor } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";

const RUNS = 40;
const namespaces = { codemode: { echo: (args: unknown[]) => args[0] } };
const programs = {
  trivial: "return 1 + 1",
  "one host call": "return await codemode.echo({ a: 1 })",
  "1e5-iteration loop": "let s = 0; for (let i = 0; i < 1e5; i++) s += i; return s",
};

async function p50(executor: Executor, code: string): Promise<{ ms: number; result: unknown }> {
  const times: number[] = [];
  let result: unknown;
  await executor.execute({ code, namespaces });
  for (let i = 0; i < RUNS; i++) {
    const started = Date.now();
    const outcome = await executor.execute({ code, namespaces });
    times.push(Date.now() - started);
    expect(outcome.status).toBe("ok");
    result = outcome.result;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? 0, result };
}

describe("executor latency (logged)", () => {
  it("measures p50 for both executors, which agree on every result", async () => {
    const executors: Record<string, Executor> = {
      "isolate-per-run": new WorkerLoaderExecutor({ loader: env.LOADER }),
      "shared-worker": new SharedWorkerExecutor({ loader: env.LOADER }),
    };
    const lines: string[] = [];
    for (const [program, code] of Object.entries(programs)) {
      const results: unknown[] = [];
      for (const [name, executor] of Object.entries(executors)) {
        const { ms, result } = await p50(executor, code);
        results.push(result);
        lines.push(`${name.padEnd(16)} ${program.padEnd(20)} p50 ${ms} ms (${RUNS} runs)`);
      }
      expect(results[1]).toEqual(results[0]);
    }
    console.log(`executor latency, local workerd:\n${lines.join("\n")}`);
  });
});
