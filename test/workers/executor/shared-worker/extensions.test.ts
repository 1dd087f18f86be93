/**
 * The `openapi` sandbox extension (`codemode.spec()`) in the shared-worker executor: a search
 * program over the real Cloudflare spec (packed, 1,533 operations) gives the same answer in both
 * executors. Latency of that search is logged for the executor docs (never asserted).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";
import type { ExecuteRequest, Executor } from "../../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { packSpec } from "../../../../src/openapi/spec-pack";
import { cloudflare } from "../../codemode/cloudflare";

const SEARCH = `async () => {
  const spec = await codemode.spec();
  const found = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op && typeof op === "object" && (op.tags ?? []).some((t) => /dns/i.test(t))) {
        found.push(method.toUpperCase() + " " + path + " " + op.operationId);
      }
    }
  }
  const one = spec.paths["/zones/{zone_id}/dns_records"]?.get;
  return { count: found.length, first: found.slice(0, 5), params: (one?.parameters ?? []).map((p) => p.name) };
}`;

describe("the openapi extension in the shared-worker executor", () => {
  it("answers a search over the Cloudflare spec as the per-run isolate does", async () => {
    const packed = packSpec(cloudflare.compact);
    expect(packed).toBeInstanceOf(Uint8Array);
    const request: ExecuteRequest = {
      code: SEARCH,
      extensions: [{ name: "openapi", data: packed as Uint8Array }],
      limits: { timeoutMs: 30_000 },
    };
    const executors: Record<string, Executor> = {
      "isolate-per-run": new WorkerLoaderExecutor({ loader: env.LOADER }),
      "shared-worker": new SharedWorkerExecutor({ loader: env.LOADER }),
    };
    const results: unknown[] = [];
    const lines: string[] = [];
    for (const [name, executor] of Object.entries(executors)) {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = Date.now();
        const outcome = await executor.execute(request);
        times.push(Date.now() - started);
        expect(outcome.error).toBeUndefined();
        if (i === 0) results.push(outcome.result);
      }
      times.sort((a, b) => a - b);
      lines.push(
        `${name.padEnd(16)} search (Cloudflare spec) p50 ${times[3]} ms, first ${times[0]}..max ${times[6]}`,
      );
    }
    console.log(`search latency, local workerd:\n${lines.join("\n")}`);
    expect((results[0] as { count: number }).count).toBeGreaterThan(10);
    expect(results[1]).toEqual(results[0]);
  });
});
