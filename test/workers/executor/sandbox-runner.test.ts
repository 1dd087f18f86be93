/**
 * SandboxRunner (src/executor/runners/sandbox-runner.ts), the RPC face of a local sandbox runner,
 * in the real Worker Loader: it serves only callers with this launch's cluster secret (its port is
 * open to every process on the machine), keeps a stable worker's code only under the code's own
 * hash (no caller can place other code under the shared worker's name), and gives up a run the
 * host has given up on, so its count of runs under way (which retirement waits for) comes back to
 * zero within the run's timeout and a margin.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../../src/executor/limits";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { codeHash } from "../../../src/executor/runners/code-hash";
import {
  RUNS_BEGUN_HEADER,
  RUNS_UNDER_WAY_HEADER,
  runnerLife,
} from "../../../src/executor/runners/runner-life";
import { RunnerLoader } from "../../../src/executor/runners/runner-loader";
import { RESERVE_RING } from "../../../src/executor/runners/runner-reserve";
import {
  DEFAULT_RUN_TIMEOUT_MS,
  REFUSED,
  releaseBytes,
  RUN_END_MARGIN_MS,
  runDeadlineFor,
  SandboxRunner,
} from "../../../src/executor/runners/sandbox-runner";
import { RUN_WANTED_POLL_MS } from "../../../src/executor/runners/run-wanted";
import { stableHashes, warmStable } from "../../../src/executor/runners/held-code";
import { decodeCode, encodeCode } from "../../../src/executor/runners/code-wire";
import { sharedWorkerCode } from "../../../src/executor/shared-worker/shared-worker-code";
import { trackHostCalls } from "../../../src/executor/runners/tracked-host";

const SECRET = "sandbox-runner-test-secret";

/** A loaded worker that reports it ran (it needs no host). */
const CODE: WorkerLoaderWorkerCode = {
  compatibilityDate: "2026-08-01",
  mainModule: "main.js",
  modules: {
    "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run() { return "ran"; } }`,
  },
  globalOutbound: null,
  env: {},
};
const OTHER: WorkerLoaderWorkerCode = {
  ...CODE,
  modules: {
    "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run() { return "planted"; } }`,
  },
};

/**
 * A host bridge that counts whether the runner began anything. It waits for its run (`wanted`):
 * a host that cannot answer is a gone one (run-wanted.ts).
 */
function host() {
  const seen = { begun: 0 };
  return {
    seen,
    bridge: { begin: () => (seen.begun++, true), wanted: () => true, call: () => null },
  };
}

const runner = (secret: string | undefined = SECRET) =>
  new SandboxRunner(createExecutionContext(), {
    LOADER: env.LOADER,
    ...(secret === undefined ? {} : { LOCAL_CLUSTER_SECRET: secret }),
  });

describe("SandboxRunner refuses callers without the cluster secret", () => {
  it("refuses load and get without the secret, or with a wrong one, before anything runs", async () => {
    const { seen, bridge } = host();
    const hash = await codeHash(CODE);
    for (const wrong of ["", "guess", `${SECRET}x`, SECRET.slice(0, -1)]) {
      await expect(runner().load(wrong, CODE, {}, bridge)).rejects.toThrow(REFUSED);
      await expect(runner().get(wrong, hash, CODE, {}, bridge)).rejects.toThrow(REFUSED);
      await expect(runner().get(wrong, hash, null, {}, bridge)).rejects.toThrow(REFUSED);
    }
    // Nor as the old face (code first): the code is not the secret.
    await expect(
      (runner().load as unknown as (...a: unknown[]) => Promise<unknown>)(CODE, {}, bridge),
    ).rejects.toThrow(REFUSED);
    expect(seen.begun).toBe(0);
  });

  it("refuses HTTP on its RPC socket with an answer, not an uncaught exception", async () => {
    for (const secret of [SECRET, undefined]) {
      const answer = await runner(secret).fetch(
        new Request("http://runner/retire", { method: "POST" }),
      );
      expect(answer.status).toBe(403);
      expect(await answer.text()).toBe(REFUSED);
    }
  });

  it("serves no one when it was started without a secret", async () => {
    const { seen, bridge } = host();
    await expect(runner(undefined).load("", CODE, {}, bridge)).rejects.toThrow(REFUSED);
    await expect(runner(undefined).load("undefined", CODE, {}, bridge)).rejects.toThrow(REFUSED);
    expect(seen.begun).toBe(0);
  });

  it("serves a caller with the secret", async () => {
    const { seen, bridge } = host();
    expect(await runner().load(SECRET, CODE, {}, bridge)).toEqual({ answer: "ran" });
    expect(seen.begun).toBe(1);
  });
});

describe("SandboxRunner begins no run whose host gave it up before the runner got to it", () => {
  it("answers it cancelled, through the tracked host, without running it", async () => {
    // A runner whose thread a program held gets to the run only after the host's timeout closed
    // the run's bridge: the tracked host (as the loader hands it over) says not to begin.
    const began: string[] = [];
    const bridge = { closed: false, call: () => null };
    const { target } = trackHostCalls(bridge, { onBegin: () => began.push("begun"), onCall() {} });
    bridge.closed = true;
    const answer = await runner().load(SECRET, CODE, {}, target);
    // Not "ran": the loaded worker was never called.
    expect(answer).toEqual({ thrown: expect.stringMatching(/moved to another runner/) });
    expect(began).toEqual([]);
  });
});

describe("SandboxRunner keeps stable code only under its own hash", () => {
  it("does not keep code sent under another code's name; the name still runs only its own code", async () => {
    const { bridge } = host();
    const name = await codeHash(CODE);
    const planted = await runner().get(SECRET, name, OTHER, {}, bridge);
    expect(planted).toEqual({ thrown: expect.stringMatching(/does not match its name/) });
    // Nothing was kept under the name: the host is asked for the code, and its own runs.
    expect(await runner().get(SECRET, name, null, {}, bridge)).toEqual({ missingCode: true });
    expect(await runner().get(SECRET, name, CODE, {}, bridge)).toEqual({ answer: "ran" });
    expect(await runner().get(SECRET, name, null, {}, bridge)).toEqual({ answer: "ran" });
  });
});

describe("SandboxRunner keeps a run's base only under its own hash (issue #43)", () => {
  /** A base whose main module runs the program module `prog.js` the call sends. */
  const BASE: WorkerLoaderWorkerCode = {
    compatibilityDate: "2026-08-01",
    mainModule: "main.js",
    modules: {
      "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
import program from "./prog.js";
export default class extends WorkerEntrypoint { run() { return program(); } }`,
    },
    globalOutbound: null,
    env: {},
  };
  const PLANTED: WorkerLoaderWorkerCode = {
    ...BASE,
    modules: {
      "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run() { return "planted"; } }`,
    },
  };
  const program = (value: string) => `export default () => ${JSON.stringify(value)};`;

  it("runs the base with the program module sent in the same call, asking for the base once", async () => {
    const { bridge } = host();
    const hash = await codeHash(BASE);
    const send = (base: WorkerLoaderWorkerCode | null, value: string) =>
      runner().loadWithBase(SECRET, hash, base, "prog.js", program(value), {}, bridge);
    expect(await send(null, "one")).toEqual({ missingCode: true });
    expect(await send(BASE, "one")).toEqual({ answer: "one" });
    // Kept: later runs send only their program, each its own.
    expect(await send(null, "two")).toEqual({ answer: "two" });
    expect(await send(null, "three")).toEqual({ answer: "three" });
  });

  it("does not keep a base sent under another code's name", async () => {
    const { bridge, seen } = host();
    const hash = await codeHash({ ...BASE, compatibilityDate: "2026-08-02" });
    const planted = await runner().loadWithBase(SECRET, hash, PLANTED, "prog.js", "", {}, bridge);
    expect(planted).toEqual({ thrown: expect.stringMatching(/does not match its name/) });
    expect(
      await runner().loadWithBase(SECRET, hash, null, "prog.js", program("x"), {}, bridge),
    ).toEqual({ missingCode: true });
    expect(seen.begun).toBe(0);
  });

  it("refuses a program module that would replace one of the base's modules", async () => {
    const { bridge, seen } = host();
    const hash = await codeHash(BASE);
    const replaced = await runner().loadWithBase(
      SECRET,
      hash,
      BASE,
      "main.js",
      `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run() { return "replaced"; } }`,
      {},
      bridge,
    );
    expect(replaced).toEqual({ thrown: expect.stringMatching(/may not replace/) });
    expect(seen.begun).toBe(0);
  });

  it("refuses a call without the secret before anything runs", async () => {
    const { bridge, seen } = host();
    const hash = await codeHash(BASE);
    await expect(
      runner().loadWithBase("wrong", hash, BASE, "prog.js", program("x"), {}, bridge),
    ).rejects.toThrow(REFUSED);
    expect(seen.begun).toBe(0);
  });
});

describe("SandboxRunner gives up a run the host gave up on", () => {
  it("warmed with stable code sent as text, runs under its hash without asking for the code", async () => {
    // What the supervisor copies between runners (cli/local-server/runners/stable-warmth.mjs): the
    // shared worker's code, its Wasm as base64, names the same hash on the way back.
    const engine = sharedWorkerCode({ compatibilityDate: "2026-08-01", cpuMs: 30_000 });
    expect(await codeHash(decodeCode(encodeCode(engine)))).toBe(await codeHash(engine));
    const WARMED: WorkerLoaderWorkerCode = {
      ...CODE,
      modules: {
        "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
let warmed = false;
export default class extends WorkerEntrypoint { warm() { warmed = true; } run() { return warmed ? "warm" : "cold"; } }`,
      },
    };
    const hash = await codeHash(WARMED);
    const { bridge } = host();
    expect(await runner().get(SECRET, hash, null, {}, bridge)).toEqual({ missingCode: true });
    expect(await warmStable(env.LOADER, decodeCode(encodeCode(WARMED)))).toBe(hash);
    expect(stableHashes()).toContain(hash);
    // The same loaded worker, warmed before this first run.
    expect(await runner().get(SECRET, hash, null, {}, bridge)).toEqual({ answer: "warm" });
  });

  it("answers the host's reserve ring (runner-reserve.ts) without running or counting anything", async () => {
    // The host rings a slot it believes has no runner; when one has just started there, the
    // ring reaches it: it must cost nothing (no run begun: the pool would not end it as idle).
    const begunBefore = runnerLife.headers()[RUNS_BEGUN_HEADER];
    expect(await runner().get(SECRET, RESERVE_RING, null, null, null)).toEqual({
      missingCode: true,
    });
    expect(runnerLife.headers()[RUNS_BEGUN_HEADER]).toBe(begunBefore);
    // And with a wrong secret it is refused like any call.
    await expect(runner().get("guess", RESERVE_RING, null, null, null)).rejects.toThrow();
  });

  it("ends its side at the run's timeout plus a margin", () => {
    expect(runDeadlineFor({ timeoutMs: 300 })).toBe(300 + RUN_END_MARGIN_MS);
    expect(runDeadlineFor({})).toBe(DEFAULT_LIMITS.timeoutMs + RUN_END_MARGIN_MS);
    expect(DEFAULT_RUN_TIMEOUT_MS).toBe(DEFAULT_LIMITS.timeoutMs);
    expect(runDeadlineFor({ timeoutMs: "1" })).toBe(30_000 + RUN_END_MARGIN_MS);
  });

  const underWay = () => Number(runnerLife.headers()[RUNS_UNDER_WAY_HEADER]);
  // A loaded worker that never answers and keeps a timer going (so workerd never calls it hung):
  // what a program that defeats the harness's own end would leave (the harness lives in the
  // sandbox, the program's side; the runner is the host's side of it).
  const NEVER: WorkerLoaderWorkerCode = {
    ...CODE,
    modules: {
      "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run() { return new Promise(() => { setInterval(() => {}, 20); }); } }`,
    },
  };

  for (const face of ["load", "get"] as const) {
    it(`${face}: answers timedOut and counts the run ended at its timeout plus the margin`, async () => {
      const before = underWay();
      const { bridge } = host();
      const timeoutMs = 300;
      const runs = runner();
      const started = Date.now();
      const hash = await codeHash(NEVER);
      const answer =
        face === "load"
          ? runs.load(SECRET, NEVER, { timeoutMs }, bridge)
          : runs.get(SECRET, hash, NEVER, { timeoutMs }, bridge);
      // Before, the call never answered and the run stayed under way for good.
      const settled = await Promise.race([
        answer,
        new Promise((r) => setTimeout(r, timeoutMs + RUN_END_MARGIN_MS + 5_000, "still waiting")),
      ]);
      expect(settled).toEqual({ timedOut: true });
      expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs + RUN_END_MARGIN_MS - 50);
      expect(underWay()).toBe(before);
    });
  }

  for (const face of ["load", "get"] as const) {
    it(`${face}: gives a run up once the host no longer waits for it, long before its timeout`, async () => {
      // Found by attack10: a task's `tasks/cancel` ended the run on the host, but the host's call
      // to the runner went on in the task's context, so the runner kept the run (its isolate, its
      // memory, a run under way that retirement waits for) until its timeout plus the margin.
      const before = underWay();
      let wanted = true;
      const bridge = { begin: () => true, wanted: () => wanted, call: () => null };
      const runs = runner();
      const hash = await codeHash(NEVER);
      const timeoutMs = 60_000;
      const answer =
        face === "load"
          ? runs.load(SECRET, NEVER, { timeoutMs }, bridge)
          : runs.get(SECRET, hash, NEVER, { timeoutMs }, bridge);
      const settledBeforeNo = await Promise.race([
        answer,
        new Promise((r) => setTimeout(r, RUN_WANTED_POLL_MS + 200, "still running")),
      ]);
      expect(settledBeforeNo).toBe("still running");
      expect(underWay()).toBe(before + 1);
      wanted = false;
      const settled = await Promise.race([
        answer,
        new Promise((r) => setTimeout(r, RUN_WANTED_POLL_MS + 3_000, "still waiting")),
      ]);
      expect(settled).toEqual({ timedOut: true });
      expect(underWay()).toBe(before);
    });
  }

  for (const face of ["load", "get"] as const) {
    it(`${face}: gives a run up once the host can no longer answer (a gone client, issue #40)`, async () => {
      // e2e gone-client: workerd cancels the host's request when its client goes, with it the
      // host's call here, and the runner's asking fails ("Network connection lost."). Counted as
      // yes, the run went on until its timeout plus the margin.
      const before = underWay();
      let gone = false;
      const bridge = {
        begin: () => true,
        wanted: () => {
          if (gone) throw new Error("Network connection lost.");
          return true;
        },
        call: () => null,
      };
      const runs = runner();
      const hash = await codeHash(NEVER);
      const timeoutMs = 60_000;
      const answer =
        face === "load"
          ? runs.load(SECRET, NEVER, { timeoutMs }, bridge)
          : runs.get(SECRET, hash, NEVER, { timeoutMs }, bridge);
      const settledBefore = await Promise.race([
        answer,
        new Promise((r) => setTimeout(r, RUN_WANTED_POLL_MS + 200, "still running")),
      ]);
      expect(settledBefore).toBe("still running");
      gone = true;
      const settled = await Promise.race([
        answer,
        new Promise((r) => setTimeout(r, RUN_WANTED_POLL_MS + 3_000, "still waiting")),
      ]);
      expect(settled).toEqual({ timedOut: true });
      expect(underWay()).toBe(before);
    });
  }

  it("keeps each run's call going past the host's cancelling it (ctx.waitUntil)", async () => {
    // A call the host cancels (its client gone) has its context dropped unless it is kept: the
    // run then stayed counted to its deadline, asking no one (e2e gone-client).
    const kept: Promise<unknown>[] = [];
    const ctx = {
      waitUntil: (p: Promise<unknown>) => void kept.push(p),
      passThroughOnException() {},
    };
    const runs = new SandboxRunner(ctx as unknown as ExecutionContext, {
      LOADER: env.LOADER,
      LOCAL_CLUSTER_SECRET: SECRET,
    });
    const hash = await codeHash(CODE);
    const loaded = runs.load(SECRET, CODE, {}, host().bridge);
    expect(kept).toHaveLength(1);
    expect(await loaded).toEqual({ answer: "ran" });
    const got = runs.get(SECRET, hash, CODE, {}, host().bridge);
    // `get` checks the code's hash first (awaited), then keeps the run's call.
    expect(await got).toEqual({ answer: "ran" });
    expect(kept).toHaveLength(2);
    await Promise.all(kept);
  });

  it("a whole run through the loader, cancelled: the runner counts it ended within a poll", async () => {
    const before = underWay();
    const loader = new RunnerLoader([runner()], Date.now, trackHostCalls, SECRET);
    const executor = new WorkerLoaderExecutor({ loader: loader as unknown as WorkerLoader });
    const cancel = new AbortController();
    const outcome = executor.execute({
      code: `async () => { for (;;) { try { await new Promise((r) => setTimeout(r, 20)); } catch {} } }`,
      namespaces: {},
      limits: { timeoutMs: 60_000 },
      signal: cancel.signal,
    });
    const begun = Date.now() + 5_000;
    while (underWay() === before && Date.now() < begun) await new Promise((r) => setTimeout(r, 20));
    expect(underWay()).toBe(before + 1);
    cancel.abort();
    expect(await outcome).toMatchObject({ status: "error", error: { name: "AbortError" } });
    const until = Date.now() + RUN_WANTED_POLL_MS + 3_000;
    while (underWay() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(underWay()).toBe(before);
    expect(loader.busy()).toEqual([0]);
  });

  it("a whole run through the loader: the host times out first, the runner counts it ended", async () => {
    const before = underWay();
    const loader = new RunnerLoader([runner()], Date.now, trackHostCalls, SECRET);
    const executor = new WorkerLoaderExecutor({ loader: loader as unknown as WorkerLoader });
    const outcome = await executor.execute({
      code: `async () => { for (;;) { try { await new Promise((r) => setTimeout(r, 20)); } catch {} } }`,
      namespaces: {},
      limits: { timeoutMs: 300 },
    });
    expect(outcome).toMatchObject({ status: "timeout", error: { name: "TimeoutError" } });
    const until = Date.now() + RUN_END_MARGIN_MS + 3_000;
    while (underWay() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(underWay()).toBe(before);
    expect(loader.busy()).toEqual([0]);
  });
});

describe("SandboxRunner frees a run's bytes once it has sent them on (issue #43)", () => {
  // A loaded worker that answers the size and a checksum of the extension data it received.
  const SUMS: WorkerLoaderWorkerCode = {
    ...CODE,
    modules: {
      "main.js": `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { run(request) {
  const data = request.extensions[0].data;
  let sum = 0;
  for (let i = 0; i < data.length; i += 4096) sum = (sum + data[i]) % 65521;
  return { length: data.length, sum };
} }`,
    },
  };

  it("the loaded worker gets the whole data, and the runner's copy is detached right after", async () => {
    // 4 MiB, a packed spec's size (Cloudflare's is 4.2 MB): before, each search left such a copy
    // in the runner's isolate until its next collection, and the runners grew ~100 MB each under
    // 16 clients' searches.
    const data = new Uint8Array(4 * 1_048_576);
    for (let i = 0; i < data.length; i += 4096) data[i] = i % 251;
    let sum = 0;
    for (let i = 0; i < data.length; i += 4096) sum = (sum + (data[i] ?? 0)) % 65521;
    const { bridge } = host();
    // Called in this isolate, the test's request stands for the copy RPC hands a runner.
    const request = { extensions: [{ name: "openapi", namespace: "codemode", data }] };
    expect(await runner().load(SECRET, SUMS, request, bridge)).toEqual({
      answer: { length: 4 * 1_048_576, sum },
    });
    expect(data.buffer.byteLength).toBe(0);
  });

  it("leaves strings and requests without extensions alone", () => {
    const request = { extensions: [{ name: "request", data: "text" }, null, { data: 5 }] };
    releaseBytes(request);
    releaseBytes(null);
    releaseBytes({ extensions: "no" });
    expect(request.extensions[0]).toEqual({ name: "request", data: "text" });
  });
});
