/**
 * The spec shared read-only across runs of the shared-worker executor: the worker keeps a large
 * extension's data once, by content key, and every run's engine gets its own copy. A hostile run
 * that rewrites the spec, its prototypes and the bytes it was given cannot change what the next
 * run reads; a worker that never saw the data (or dropped it) asks for it and the run still
 * answers. Also: the `request` extension (the execute tool's `codemode.request`) is the one a run
 * gets, not the spec's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dataKey } from "../../../../src/executor/shared-worker/shared-data-key";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";
import { packSpec } from "../../../../src/openapi/spec-pack";
import { cloudflare } from "../../codemode/cloudflare";

const packed = packSpec(cloudflare.compact) as Uint8Array;
const openapi = [{ name: "openapi" as const, data: packed }];
const READ = `const spec = await codemode.spec();
  const op = spec.paths["/zones/{zone_id}/dns_records"].get;
  return { title: spec.info.title, id: op.operationId, params: op.parameters.map((p) => p.name).slice(0, 3),
    paths: Object.keys(spec.paths).length, proto: ({}).hacked, arrayMap: [1].map((x) => x + 1) }`;

describe("the shared read-only spec", () => {
  it("cannot be changed by a run: the next run reads the original", async () => {
    const executor = new SharedWorkerExecutor({ loader: env.LOADER, name: `spec-${Date.now()}` });
    const before = await executor.execute({ code: READ, extensions: openapi });
    expect(before.status).toBe("ok");
    const hostile = await executor.execute({
      extensions: openapi,
      code: `const spec = await codemode.spec();
        const op = spec.paths["/zones/{zone_id}/dns_records"].get;
        op.operationId = "forged"; op.parameters.length = 0; op.parameters.push({ name: "evil" });
        spec.info.title = "forged"; delete spec.paths["/zones"];
        for (const k of Object.keys(spec.paths).slice(0, 50)) spec.paths[k] = null;
        Object.prototype.hacked = true; Array.prototype.map = () => ["forged"];
        Object.getPrototypeOf(spec).hacked = "proto";
        const bytes = new Uint8Array(1024); new TextEncoder().encodeInto?.("x", bytes);
        TextDecoder.prototype.decode = () => "{}"; JSON.parse = () => ({ forged: true });
        const again = await codemode.spec();
        return again === spec && again.info.title === "forged"`,
    });
    expect(hostile).toMatchObject({ status: "ok", result: true });
    const after = await executor.execute({ code: READ, extensions: openapi });
    expect(after).toMatchObject({ status: "ok" });
    expect(after.result).toEqual(before.result);
    expect(after.result).toMatchObject({ id: expect.any(String), arrayMap: [2] });
    expect(after.result).not.toHaveProperty("proto");
  });

  it("sends a large spec by key, and the data again when the worker does not hold it", async () => {
    const key = await dataKey(packed);
    expect(key).toMatch(/^b:\d+:[0-9a-f]{64}$/);
    expect(dataKey(new Uint8Array(10))).toBeUndefined();
    const sent: number[] = [];
    // Counts the bytes of each request that reaches the worker, through the real binding.
    const loader = {
      get: (id: string, code: () => WorkerLoaderWorkerCode) => {
        const worker = env.LOADER.get(id, code);
        return {
          getEntrypoint: () => {
            const entry = worker.getEntrypoint() as unknown as {
              run(r: { extensions: { data?: Uint8Array }[] }, h: unknown): Promise<unknown>;
            };
            return {
              run: (r: { extensions: { data?: Uint8Array }[] }, h: unknown) => {
                sent.push(r.extensions.reduce((n, e) => n + (e.data?.byteLength ?? 0), 0));
                return entry.run(r, h);
              },
            };
          },
        };
      },
    } as unknown as WorkerLoader;
    const executor = new SharedWorkerExecutor({ loader, name: `by-key-${Date.now()}` });
    for (let i = 0; i < 3; i++)
      expect(await executor.execute({ code: READ, extensions: openapi })).toMatchObject({
        status: "ok",
      });
    // A fresh worker: asked by key, answered `missing`, sent once with the data; then by key.
    expect(sent).toEqual([0, packed.byteLength, 0, 0]);
  });

  it("installs the request extension as codemode.request, beside the spec", async () => {
    const executor = new SharedWorkerExecutor({ loader: env.LOADER });
    const outcome = await executor.execute({
      code: `const ok = await codemode.request({ method: "GET", path: "/ok" });
        try { await codemode.request({ method: "GET", path: "/missing" }) } catch (e) { return [ok, e.name, e.status, typeof codemode.spec] }`,
      namespaces: {
        codemode: {
          request: (args: unknown[]) => {
            const path = (args[0] as { path: string }).path;
            return path === "/ok"
              ? { status: 200, ok: true, headers: {}, body: { fine: 1 } }
              : { status: 404, ok: false, headers: {}, body: "nope" };
          },
        },
      },
      extensions: [{ name: "request", data: "" }, ...openapi],
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: [{ fine: 1 }, "ApiError", 404, "function"],
    });
  });
});
