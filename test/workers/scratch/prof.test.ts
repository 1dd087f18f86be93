import { env } from "cloudflare:workers";
import { it } from "vitest";
import { SharedWorkerExecutor } from "../../../src/executor/shared-worker-executor";
import { WorkerLoaderExecutor } from "../../../src/executor/worker-loader-executor";
import { packSpec } from "../../../src/openapi/spec-pack";
import { cloudflare } from "../codemode/cloudflare";

const progs: Record<string, string> = {
  trivial: "return 1",
  specOnly: "await codemode.spec(); return 1",
  keys: "const s = await codemode.spec(); return Object.keys(s.paths).length",
  search: `const spec = await codemode.spec(); const found = [];
  for (const [path, item] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(item))
    if (op && typeof op === "object" && (op.tags ?? []).some((t) => /dns/i.test(t))) found.push(method + path);
  const one = spec.paths["/zones/{zone_id}/dns_records"]?.get; return [found.length, (one?.parameters ?? []).map((p) => p.name)]`,
};
it("prof", async () => {
  const packed = packSpec(cloudflare.compact)!;
  const exs = {
    iso: new WorkerLoaderExecutor({ loader: env.LOADER }),
    shared: new SharedWorkerExecutor({ loader: env.LOADER }),
  };
  for (const [p, code] of Object.entries(progs)) {
    const t: Record<string, number[]> = { iso: [], shared: [] };
    for (let i = 0; i < 15; i++)
      for (const [name, ex] of Object.entries(exs)) {
        const s = Date.now();
        const o = await ex.execute({
          code,
          extensions: [{ name: "openapi", data: packed }],
          limits: { timeoutMs: 30000 },
        });
        t[name]!.push(Date.now() - s);
        if (o.status !== "ok") console.log(o.error);
      }
    for (const [name, v] of Object.entries(t)) {
      v.sort((a, b) => a - b);
      console.log(name, p, "p50", v[7], "min", v[0]);
    }
  }
}, 300000);
