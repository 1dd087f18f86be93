/**
 * The platform floor of one `codemode.request()`: the same timed loop as the P4 program, but the
 * sandbox calls a host `RpcTarget` that answers a constant string, with no code-mode machinery on
 * either side (no codec, no validation, no upstream). Both implementations pay at least this per
 * request: it is workerd's cross-isolate RPC round trip, measured in the same workerd and run.
 */
import { RpcTarget } from "cloudflare:workers";

/** A reply the size of the mock's DNS answer, so serialization costs what a real one does. */
const REPLY = JSON.stringify({
  status: 200,
  ok: true,
  headers: {},
  body: {
    success: true,
    result: [{ id: "zone1-a", type: "A", name: "www.zone1", content: "192.0.2.1" }],
  },
});

class ConstantHost extends RpcTarget {
  /** Answers every call alike; the arguments are serialized by RPC all the same. */
  call(): string {
    return REPLY;
  }
}

/** The sandbox module: one untimed call (workerd's clock only moves across I/O), then `n` timed. */
const SANDBOX = `import { WorkerEntrypoint } from "cloudflare:workers";
export default class Floor extends WorkerEntrypoint {
  async run(host, n) {
    const call = (i) => host.call("codemode", "request", JSON.stringify([{ method: "GET", path: "/zones/zone" + i + "/dns_records" }]));
    JSON.parse(await call(-1));
    const t0 = Date.now();
    for (let i = 0; i < n; i++) JSON.parse(await call(i));
    return { perRequestMs: (Date.now() - t0) / n };
  }
}`;

/**
 * Serves `/floor?n=500`: loads a fresh sandbox (network blocked), runs the loop, answers
 * `{ perRequestMs }` as JSON.
 * @param request - the HTTP request
 * @param env - bindings (the LOADER)
 */
export async function rpcFloor(request: Request, env: Cloudflare.Env): Promise<Response> {
  const n = Math.min(
    10_000,
    Math.max(1, Number(new URL(request.url).searchParams.get("n")) || 500),
  );
  const worker = env.LOADER.load({
    compatibilityDate: "2026-08-01",
    mainModule: "floor.js",
    modules: { "floor.js": SANDBOX },
    globalOutbound: null,
  });
  const entry = worker.getEntrypoint() as unknown as {
    run(host: ConstantHost, n: number): Promise<{ perRequestMs: number }>;
  } & Disposable;
  try {
    return Response.json(await entry.run(new ConstantHost(), n));
  } finally {
    entry[Symbol.dispose]?.();
  }
}
