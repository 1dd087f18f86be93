/**
 * Issue #40, "a run that is given up on ends everywhere", on the shared worker: when the host no
 * longer waits for a run (a task's `tasks/cancel`), its runner gives the run up within a poll
 * (sandbox-runner.ts), and must end it inside the engine too, with the key only that runner's call
 * holds (run-end-key.ts, sandbox/engine/runner.ts `end`). Before, the runner's call returned but
 * the program went on in the engine until its own deadline: its memory, its place among the
 * engine's runs under way, and the engine's template (only a run alone gets it) all held. The same
 * for the host itself with the real Worker Loader (deployed: no runner between). Real workerd, a
 * real SandboxRunner and the real engine.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeHash } from "../../../../src/executor/runners/code-hash";
import { runnerLife, RUNS_UNDER_WAY_HEADER } from "../../../../src/executor/runners/runner-life";
import { RunnerLoader } from "../../../../src/executor/runners/runner-loader";
import { RUN_WANTED_POLL_MS } from "../../../../src/executor/runners/run-wanted";
import { SandboxRunner } from "../../../../src/executor/runners/sandbox-runner";
import { trackHostCalls } from "../../../../src/executor/runners/tracked-host";
import { SharedWorkerExecutor } from "../../../../src/executor/shared-worker/shared-worker-executor";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";

const SECRET = "shared-worker-ended-test-secret";

/** The engine's entrypoint as a test reaches it (the runner's and the host's face besides). */
interface Engine {
  stats(): Promise<{ underWay: number; warmRuns: number }>;
  end(key: unknown): Promise<boolean>;
  run(request: unknown, host: unknown, key?: unknown): Promise<unknown>;
}

/** Awaits forever, catching whatever its awaits throw: the stuck program. */
const STUCK = "for (;;) { try { await new Promise((r) => setTimeout(r, 200)); } catch {} }";
/** Heavy on the engine, yet it yields to the event loop between its stretches. */
const BUSY =
  "let n = 0; for (;;) { for (let i = 0; i < 20000; i++) n += i; try { await new Promise((r) => setTimeout(r, 0)); } catch {} }";

const runnerUnderWay = () => Number(runnerLife.headers()[RUNS_UNDER_WAY_HEADER]);

/** Waits until `check` holds or `ms` passed, looking every 50 ms. */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

/**
 * A shared-worker executor whose runs go through a real SandboxRunner (as on the local server),
 * and the engine that runner loaded (the same stable worker, named by its code's hash).
 */
function throughRunner(
  limits: { timeoutMs: number; maxOperations?: number },
  ctx: ExecutionContext = createExecutionContext(),
) {
  let code: WorkerLoaderWorkerCode | undefined;
  const runner = new SandboxRunner(ctx, {
    LOADER: env.LOADER,
    LOCAL_CLUSTER_SECRET: SECRET,
  });
  const loader = new RunnerLoader([runner], Date.now, trackHostCalls, SECRET);
  const seen = {
    load: (c: WorkerLoaderWorkerCode) => loader.load(c),
    get: (
      id: string | null,
      getCode: () => WorkerLoaderWorkerCode | Promise<WorkerLoaderWorkerCode>,
    ) => loader.get(id, async () => (code = await getCode())),
  };
  const executor = new SharedWorkerExecutor({ loader: seen as unknown as WorkerLoader, limits });
  const engine = async (): Promise<Engine> => {
    if (!code) throw new Error("The runner loaded no shared worker yet.");
    const known = code;
    return env.LOADER.get(await codeHash(known), () => known).getEntrypoint() as unknown as Engine;
  };
  return { executor, engine };
}

describe("shared worker through a runner: a run the host gave up on ends in the engine", () => {
  it.each([
    ["keeps awaiting and catching", STUCK],
    ["computes between short waits", BUSY],
  ])(
    "a program that %s: 0 runs under way in the engine within ~2 s, and the template serves the next run",
    async (_label, code) => {
      const { executor, engine } = throughRunner({ timeoutMs: 60_000, maxOperations: 1e9 });
      // A first run loads the engine (and shows the template's runs are counted).
      expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
      const before = await (await engine()).stats();
      expect(before.underWay).toBe(0);
      const runnerBefore = runnerUnderWay();
      const cancel = new AbortController();
      const outcome = executor.execute({ code, signal: cancel.signal });
      await until(async () => (await (await engine()).stats()).underWay === 1, 10_000);
      const during = await (await engine()).stats();
      expect(during.underWay).toBe(1);
      cancel.abort();
      expect(await outcome).toMatchObject({ error: { name: "AbortError" } });
      // The runner asks every RUN_WANTED_POLL_MS; the engine stops the run within ~0.1 s of the
      // runner's word. Before, it went on until its deadline (the run's 60 s timeout + 1 s).
      // The runner counts it ended once the engine has freed it.
      await until(
        async () =>
          (await (await engine()).stats()).underWay === 0 && runnerUnderWay() === runnerBefore,
        RUN_WANTED_POLL_MS + 2_000,
      );
      expect((await (await engine()).stats()).underWay).toBe(0);
      expect(runnerUnderWay()).toBe(runnerBefore);
      // A later run works, and is restored from the engine's template (it is alone there).
      expect(await executor.execute({ code: "return 6 * 7" })).toMatchObject({ result: 42 });
      expect((await (await engine()).stats()).warmRuns).toBe(during.warmRuns + 1);
    },
  );

  it("hands its `end` call to the request's waitUntil, so it is not cancelled when the runner answers", async () => {
    // The runner waits END_WAIT_MS at most for the engine's word, then answers its request, and
    // workerd may cancel what that request still has in flight: an `end` the engine is slow to
    // answer (its thread busy) was dropped with it, and the run went on there until its
    // deadline. Only the hand-over is checked here (no cancellation is provoked in the test);
    // before, nothing was handed over.
    const real = createExecutionContext();
    const kept: Promise<unknown>[] = [];
    const ctx = {
      waitUntil: (pending: Promise<unknown>) => {
        kept.push(pending);
        real.waitUntil(pending);
      },
      passThroughOnException: () => real.passThroughOnException(),
      props: {},
    } as unknown as ExecutionContext;
    const { executor, engine } = throughRunner({ timeoutMs: 60_000 }, ctx);
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const cancel = new AbortController();
    const outcome = executor.execute({ code: STUCK, signal: cancel.signal });
    await until(async () => (await (await engine()).stats()).underWay === 1, 10_000);
    // Each run's call is handed over as it starts (so a host that cancels it leaves the runner
    // asking: sandbox-runner.ts, issue #40): the warm-up's and this one's.
    const runCalls = kept.length;
    expect(runCalls).toBe(2);
    cancel.abort();
    expect(await outcome).toMatchObject({ error: { name: "AbortError" } });
    await until(async () => kept.length > runCalls, RUN_WANTED_POLL_MS + 2_000);
    expect(kept).toHaveLength(runCalls + 1);
    // The engine's own answer to the `end` call: the run was ended there.
    expect(await kept[runCalls]).toBe(true);
    expect((await (await engine()).stats()).underWay).toBe(0);
  });

  it("no caller without the run's key ends it: guesses, other keys and short keys end nothing", async () => {
    const { executor, engine } = throughRunner({ timeoutMs: 60_000 });
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const shared = await engine();
    const cancel = new AbortController();
    const outcome = executor.execute({ code: STUCK, signal: cancel.signal });
    await until(async () => (await shared.stats()).underWay === 1, 10_000);
    expect((await shared.stats()).underWay).toBe(1);
    // A caller that reached the engine's entrypoint (no program does: it has no binding, and its
    // harness never sees the key) and guesses: nothing ends.
    for (const guess of ["", "0".repeat(64), "f".repeat(64), "__proto__", "constructor", 1, null])
      expect(await shared.end(guess)).toBe(false);
    // A run whose key is short enough to guess is not endable at all: its key ends nothing.
    const host = { call: async () => "null" };
    const short = shared.run(engineRunRequest(STUCK, { timeoutMs: 3_000 }), host, "short-key");
    const other = shared.run(engineRunRequest(STUCK, { timeoutMs: 3_000 }), host, "k".repeat(64));
    await until(async () => (await shared.stats()).underWay === 3, 10_000);
    expect(await shared.end("short-key")).toBe(false);
    expect((await shared.stats()).underWay).toBe(3);
    // Its own key ends only its own run: the runner's run goes on.
    expect(await shared.end("k".repeat(64))).toBe(true);
    expect(await other).toMatchObject({ stop: "ended" });
    expect((await shared.stats()).underWay).toBe(2);
    // A key used up (its run over) ends nothing again.
    expect(await shared.end("k".repeat(64))).toBe(false);
    expect(await short).toMatchObject({ stop: "timeout" });
    expect((await shared.stats()).underWay).toBe(1);
    // The runner's own run is still there until its host gives it up.
    cancel.abort();
    await outcome;
    await until(async () => (await shared.stats()).underWay === 0, RUN_WANTED_POLL_MS + 2_000);
    expect((await shared.stats()).underWay).toBe(0);
  });
});

describe("shared worker: a run whose calls ping-pong with its host", () => {
  it("hears its end at its next answer, though no timer of its fires meanwhile", async () => {
    const { executor, engine } = throughRunner({ timeoutMs: 60_000 });
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const shared = await engine();
    const key = "c3".repeat(32);
    let calls = 0;
    let ended: Promise<boolean> | undefined;
    // Refuses at once, as a closed bridge does: each call is a round trip and nothing more.
    const host = {
      call: async () => {
        if (++calls === 5) ended = shared.end(key);
        return { error: { name: "Error", message: "refused" } };
      },
    };
    const code = "for (;;) { try { await codemode.echo(1); } catch {} }";
    // Before, the run heard its end only on its own timer (END_CHECK_MS), which does not fire
    // while its calls ping-pong within one process: it went on until its step budget
    // ("interrupted"), which also bounds this test whatever happens.
    const outcome = await shared.run(
      engineRunRequest(code, { timeoutMs: 30_000, maxInterrupts: 300 }),
      host,
      key,
    );
    expect(outcome).toMatchObject({ stop: "ended" });
    expect(await ended).toBe(true);
    expect((await shared.stats()).underWay).toBe(0);
  });
});

describe("shared worker: a run ended before it began", () => {
  it("an `end` that arrives before its run (still loading) ends the run as it begins", async () => {
    const { executor, engine } = throughRunner({ timeoutMs: 60_000 });
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const shared = await engine();
    const key = "e".repeat(64);
    expect(await shared.end(key)).toBe(false);
    const host = { call: async () => "null" };
    expect(
      await shared.run(engineRunRequest(STUCK, { timeoutMs: 30_000 }), host, key),
    ).toMatchObject({ stop: "ended" });
    expect((await shared.stats()).underWay).toBe(0);
  });

  it("a run ended before it began never starts: no host call, no step of its own", async () => {
    const { executor, engine } = throughRunner({ timeoutMs: 60_000 });
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const shared = await engine();
    const before = await shared.stats();
    const key = "a1".repeat(32);
    expect(await shared.end(key)).toBe(false);
    let calls = 0;
    const host = {
      call: async () => {
        calls++;
        return "null";
      },
    };
    // Before, the run began and was only marked: its first stretch went on until its timer's
    // first look, so this call reached the host that had given the run up, and the loop after
    // it held the engine's thread until its step budget ran out ("interrupted", not "ended").
    const code = "await codemode.echo(1); for (;;) {}";
    expect(
      await shared.run(
        engineRunRequest(code, { timeoutMs: 30_000, maxInterrupts: 500 }),
        host,
        key,
      ),
    ).toMatchObject({ stop: "ended" });
    expect(calls).toBe(0);
    const after = await shared.stats();
    expect(after.underWay).toBe(0);
    // It took no template either: the engine began no run for it.
    expect(after.warmRuns).toBe(before.warmRuns);
    // The key is used up: the same key later starts its run as any other.
    expect(await shared.run(engineRunRequest("return await codemode.echo(2)"), host, key)).toEqual(
      expect.stringContaining('"result"'),
    );
    expect(calls).toBe(1);
  });
});

describe("shared worker on the real Worker Loader: the host ends a run it gave up on", () => {
  it("a cancelled run is ended in the engine at once, not at its deadline", async () => {
    let loaded: { id: string; code: () => WorkerLoaderWorkerCode } | undefined;
    const loader = {
      get(id: string, code: () => WorkerLoaderWorkerCode) {
        loaded = { id: `${id}:ended-test`, code };
        return env.LOADER.get(loaded.id, code);
      },
    };
    const executor = new SharedWorkerExecutor({
      loader: loader as unknown as WorkerLoader,
      limits: { timeoutMs: 60_000 },
    });
    // A stub of its own (the executor disposes the ones it used), to the same loaded worker.
    const engine = () =>
      env.LOADER.get(loaded!.id, loaded!.code).getEntrypoint() as unknown as Engine;
    expect(await executor.execute({ code: "return 1" })).toMatchObject({ result: 1 });
    const cancel = new AbortController();
    const outcome = executor.execute({ code: STUCK, signal: cancel.signal });
    await until(async () => (await engine().stats()).underWay === 1, 10_000);
    const during = await engine().stats();
    expect(during.underWay).toBe(1);
    cancel.abort();
    expect(await outcome).toMatchObject({ error: { name: "AbortError" } });
    // Confirmed before the AbortError went out (at most 0.5 s); a little slack for a loaded machine.
    await until(async () => (await engine().stats()).underWay === 0, 2_000);
    expect((await engine().stats()).underWay).toBe(0);
    expect(await executor.execute({ code: "return 6 * 7" })).toMatchObject({ result: 42 });
    expect((await engine().stats()).warmRuns).toBe(during.warmRuns + 1);
  });

  it("no host function runs once the run is cancelled, while the host waits for the engine's word", async () => {
    const loader = {
      get: (id: string, code: () => WorkerLoaderWorkerCode) =>
        env.LOADER.get(`${id}:ended-calls-test`, code),
    };
    const executor = new SharedWorkerExecutor({
      loader: loader as unknown as WorkerLoader,
      limits: { timeoutMs: 60_000 },
    });
    let calls = 0;
    let cancelled = false;
    let afterCancel = 0;
    let started!: () => void;
    const going = new Promise<void>((resolve) => (started = resolve));
    const tick = () => {
      calls++;
      if (cancelled) afterCancel++;
      if (calls === 5) started();
      return calls;
    };
    const cancel = new AbortController();
    const outcome = executor.execute({
      code: "for (;;) { try { await codemode.tick(); } catch {} }",
      namespaces: { codemode: { tick } },
      // Bounded by its budget whatever happens (no test timer fires while calls ping-pong).
      limits: { maxHostCalls: 1_000_000, maxOperations: 1_000_000 },
      signal: cancel.signal,
    });
    await going;
    // Before, the bridge stayed open until the engine confirmed the end: the cancelled
    // program's calls went on reaching the host's functions, side effects included, before the
    // AbortError went out. Not for 0.5 s at most: no timer fires while a run's calls ping-pong
    // within one process, so neither the engine's look nor the host's wait came (999,995 calls
    // over 187 s, until the host-call limit of a first version of this test).
    cancelled = true;
    cancel.abort();
    expect(await outcome).toMatchObject({ error: { name: "AbortError" } });
    expect(afterCancel).toBe(0);
  });
});
