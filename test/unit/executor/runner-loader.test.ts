// RunnerLoader (src/executor/runners/runner-loader.ts): how the host spreads runs over the local
// sandbox runners and what a run sees when its runner fails. The runners here are stand-ins that
// answer as a runner does; the real cross-process path is covered by the e2e scripts (fanout,
// runaway, runner-kill, native-stall).
import { describe, expect, it } from "vitest";
import {
  MOVED,
  RUNNER_BEGIN_MS,
  RUNNER_GAVE_UP,
  RUNNER_LOST,
  RUNNER_REST_MS,
  RUNNER_STALL_MS,
  RunnerLoader,
} from "../../../src/executor/runners/runner-loader";
import { codeHash } from "../../../src/executor/runners/code-hash";
import type { RunnerAnswer, RunnerApi } from "../../../src/executor/runners/runner-protocol";

type Handler = (kind: "load" | "get", code: unknown, host: unknown) => Promise<RunnerAnswer>;

/** Tells the host the run began, as a real runner does first (sandbox-runner.ts). */
const begin = (host: unknown) => (host as { begin?: () => void }).begin?.();

/**
 * A runner that records what it was sent and answers with `handler`; it begins each run at once
 * unless `begins` is false (a runner whose thread a program holds begins nothing).
 */
function runner(name: string, handler: Handler = async () => ({ answer: name }), begins = true) {
  const sent: { kind: string; code: unknown }[] = [];
  const start = (kind: "load" | "get", code: unknown, host: unknown) => {
    sent.push({ kind, code });
    if (begins) begin(host);
    return handler(kind, code, host);
  };
  const api: RunnerApi = {
    load: (_secret, code, _request, host) => start("load", code, host),
    get: (_secret, _hash, code, _request, host) => start("get", code, host),
  };
  return { api, sent };
}

const CODE = { compatibilityDate: "2026-08-01", mainModule: "a.js", modules: { "a.js": "" } };

/** Runs once through the loader's `load` face, as the executors do. */
function run(loader: RunnerLoader, host: unknown = { calls: 0 }) {
  const entry = loader.load(CODE).getEntrypoint() as unknown as {
    run(request: unknown, host: unknown): Promise<unknown>;
  };
  return entry.run({}, host);
}

describe("RunnerLoader", () => {
  it("sends each run to the least busy runner, ties in turn", async () => {
    const gates: (() => void)[] = [];
    // a's first run waits for the test; later ones answer at once.
    const slow = runner("a", () =>
      slow.sent.length > 1
        ? Promise.resolve({ answer: "a" })
        : new Promise((r) => gates.push(() => r({ answer: "a" }))),
    );
    const b = runner("b");
    const loader = new RunnerLoader([slow.api, b.api]);
    const first = run(loader);
    expect(loader.busy()).toEqual([1, 0]);
    // a is busy: the next three go to b, which answers at once.
    expect(await run(loader)).toBe("b");
    expect(await run(loader)).toBe("b");
    gates.shift()!();
    expect(await first).toBe("a");
    expect(loader.busy()).toEqual([0, 0]);
    const answers = [await run(loader), await run(loader)];
    expect(answers.toSorted()).toEqual(["a", "b"]);
  });

  it("sends a run that a retiring runner did not begin to another, and passes that runner over", async () => {
    // A retiring runner (runner-life.ts) answers before it begins anything.
    const retiring = runner("a", async () => ({ retiring: true }), false);
    const b = runner("b");
    let now = 1_000;
    const loader = new RunnerLoader([retiring.api, b.api], () => now);
    expect(await run(loader)).toBe("b");
    expect(retiring.sent).toHaveLength(1);
    // Passed over while its successor starts: the next runs go to b without asking a.
    expect([await run(loader), await run(loader)]).toEqual(["b", "b"]);
    expect(retiring.sent).toHaveLength(1);
    now += RUNNER_REST_MS + 1;
    expect(await run(loader)).toBe("b");
    expect(retiring.sent).toHaveLength(2);
  });

  it("fails a run with a clear error when every runner says it is retiring", async () => {
    const a = runner("a", async () => ({ retiring: true }), false);
    const b = runner("b", async () => ({ retiring: true }), false);
    await expect(run(new RunnerLoader([a.api, b.api]))).rejects.toThrow(
      /every runner was retiring at once.*Retrying is safe: the program did not start\.$/,
    );
  });

  it("rethrows the loaded worker's own failure unchanged (the executors read it as before)", async () => {
    const a = runner("a", async () => ({ thrown: "detected that your Worker's code had hung" }));
    await expect(run(new RunnerLoader([a.api]))).rejects.toThrow(
      /^detected that your Worker's code had hung$/,
    );
  });

  it("sends a stable worker's code only when the runner asks for it, named by its hash", async () => {
    let held: unknown = null;
    const names: string[] = [];
    const a = runner("a", async (kind, code) => {
      if (kind === "get" && code) held = code;
      return held ? { answer: "ran" } : { missingCode: true };
    });
    const get = a.api.get;
    a.api.get = (secret, hash, code, request, host) => (
      names.push(hash),
      get(secret, hash, code, request, host)
    );
    const loader = new RunnerLoader([a.api]);
    let built = 0;
    const stub = () =>
      loader.get("engine", () => (built++, CODE)).getEntrypoint() as unknown as {
        run(request: unknown, host: unknown): Promise<unknown>;
      };
    expect(await stub().run({}, {})).toBe("ran");
    expect(await stub().run({}, {})).toBe("ran");
    expect(await stub().run({}, {})).toBe("ran");
    // Built once for its name, once to send it; never again.
    expect(built).toBe(2);
    expect(a.sent.map((s) => s.code === null)).toEqual([true, false, true, true]);
    // The name is the code's own hash, not the id the executor chose.
    expect(new Set(names)).toEqual(new Set([await codeHash(CODE)]));
  });

  it("sends the cluster secret first in every call", async () => {
    const secrets: string[] = [];
    const api: RunnerApi = {
      load: async (secret, _code, _request, host) => (
        secrets.push(secret),
        begin(host),
        { answer: 1 }
      ),
      get: async (secret, _hash, _code, _request, host) => (
        secrets.push(secret),
        begin(host),
        { answer: 2 }
      ),
    };
    const loader = new RunnerLoader([api], Date.now, undefined, "the-secret");
    expect(await run(loader)).toBe(1);
    const entry = loader.get("x", () => CODE).getEntrypoint() as unknown as {
      run(request: unknown, host: unknown): Promise<unknown>;
    };
    expect(await entry.run({}, {})).toBe(2);
    expect(secrets).toEqual(["the-secret", "the-secret"]);
  });

  it("reads a runner's `timedOut` (it gave the run up) as a timeout, not a lost runner", async () => {
    const a = runner("a", async () => ({ timedOut: true }));
    const error = (await run(new RunnerLoader([a.api])).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`^${RUNNER_GAVE_UP}`));
    expect(error.message).not.toContain(RUNNER_LOST);
  });

  it("fails a run whose runner went away with a clear error, and rests that runner", async () => {
    let now = 0;
    const lost = runner("a", async () => {
      now += RUNNER_REST_MS; // the runner hung this long before it was replaced
      throw new Error("Network connection lost.");
    });
    const b = runner("b");
    const loader = new RunnerLoader([lost.api, b.api], () => now);
    const error = (await run(loader).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(RUNNER_LOST);
    expect(error.message).toContain("runner 1: Network connection lost.");
    expect(error.message).toMatch(/Retrying is safe unless the program wrote something/);
    // The failed runner rests: the next runs go to b even though a is not busy.
    expect(await run(loader)).toBe("b");
    expect(await run(loader)).toBe("b");
    expect(lost.sent.length).toBe(1);
  });

  it("sends a run that failed at once, before any host call, to another runner", async () => {
    const down = runner("a", async () => {
      throw new Error("Network connection lost.");
    });
    const b = runner("b");
    const loader = new RunnerLoader([down.api, b.api], () => 0);
    expect(await run(loader)).toBe("b");
    expect(down.sent.length + b.sent.length).toBe(2);
  });

  it("never re-sends a run that reached the host (its calls may have had effects)", async () => {
    const down = runner("a", async () => {
      throw new Error("Network connection lost.");
    });
    const b = runner("b");
    const loader = new RunnerLoader([down.api, b.api], () => 0);
    // The first run goes to runner 1 (both idle, taken in turn) and has made three host calls.
    await expect(run(loader, { calls: 3 })).rejects.toThrow(RUNNER_LOST);
    expect(b.sent.length).toBe(0);
    expect(loader.busy()).toEqual([0, 0]);
  });

  it("sends new runs away from a runner whose runs show no progress (a program holding its thread)", async () => {
    let now = 1_000;
    // "stuck" never answers and never calls the host; "working"'s runs sit in a host call.
    const stuck = runner("stuck", () => new Promise(() => {}));
    const working = runner("working", (_kind, _code, host) => {
      void (host as { call(): Promise<unknown> }).call();
      return new Promise(() => {});
    });
    const loader = new RunnerLoader([stuck.api, working.api], () => now);
    const host = { calls: 0, call: () => new Promise(() => {}) };
    void run(loader, host); // both idle: taken in turn → stuck
    void run(loader, host); // → working, whose run then calls the host
    expect(loader.busy()).toEqual([1, 1]);
    // Within the bound both still count as making progress: the least busy wins, in turn.
    now += RUNNER_STALL_MS + 1;
    // Past it, stuck has shown nothing: new runs go to working, though it is busier.
    void run(loader, host);
    void run(loader, host);
    expect(loader.busy()).toEqual([1, 3]);
    expect(stuck.sent.length).toBe(1);
  });

  it("moves a run its runner does not begin in time to a runner that shows progress, and cuts the first copy off", async () => {
    // "held" never begins what it is sent (a program holds its thread); "free" answers at once.
    let heldHost: { call(): Promise<unknown> } | undefined;
    const held = runner(
      "held",
      (_kind, _code, host) => {
        heldHost = host as { call(): Promise<unknown> };
        return new Promise(() => {});
      },
      false,
    );
    const free = runner("free");
    const loader = new RunnerLoader([held.api, free.api]);
    const calls: string[] = [];
    const host = { calls: 0, call: async () => (calls.push("reached"), "ok") };
    const started = Date.now();
    expect(await run(loader, host)).toBe("free");
    expect(Date.now() - started).toBeGreaterThanOrEqual(RUNNER_BEGIN_MS - 5);
    // The first copy, should its runner ever get to it, is told not to begin, and could not
    // reach the host anyway.
    expect((heldHost as unknown as { begin(): boolean }).begin()).toBe(false);
    expect(await heldHost!.call()).toMatchObject({ error: { message: MOVED } });
    expect(calls).toEqual([]);
  });

  it("leaves a run on a runner that began it, however long it takes", async () => {
    let finish: (() => void) | undefined;
    const slow = runner("slow", () => new Promise((r) => (finish = () => r({ answer: "slow" }))));
    const other = runner("other");
    const loader = new RunnerLoader([slow.api, other.api]);
    const pending = run(loader);
    await new Promise((r) => setTimeout(r, RUNNER_BEGIN_MS + 100));
    finish!();
    expect(await pending).toBe("slow");
    expect(other.sent.length).toBe(0);
  });

  it("prefers a runner whose runs wait on the host over one whose run uses its thread", async () => {
    // "computing" holds a run that never calls the host; "waiting"'s run sits in a host call.
    const computing = runner("computing", () => new Promise(() => {}));
    const waiting = runner("waiting", (_kind, _code, host) => {
      void (host as { call(): Promise<unknown> }).call();
      return new Promise(() => {});
    });
    const loader = new RunnerLoader([computing.api, waiting.api], () => 0);
    const host = { calls: 0, call: () => new Promise(() => {}) };
    void run(loader, host); // → computing (both idle, in turn)
    void run(loader, host); // → waiting, which then calls the host
    // Both hold one run, but only computing's uses its thread: the next two go to waiting.
    void run(loader, host);
    void run(loader, host);
    expect(loader.busy()).toEqual([1, 3]);
  });
});
