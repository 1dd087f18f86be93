// RunnerLoader (src/executor/runners/runner-loader.ts): how the host spreads runs over the local
// sandbox runners and what a run sees when its runner fails. The runners here are stand-ins that
// answer as a runner does; the real cross-process path is covered by the e2e scripts (fanout,
// runaway, runner-kill, native-stall).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  RUNNER_BEGIN_MS,
  RUNNER_GAVE_UP,
  RUNNER_LOOK_MS,
  RUNNER_LOST,
  RUNNER_NOT_SENT,
  RUNNER_REST_MS,
  RUNNER_RETIRED_LOOK_MS,
  RUNNER_RETRY_MAX_MS,
  RUNNER_RETRY_MS,
  RUNNER_RETRY_WINDOW_MS,
  RunnerLoader,
} from "../../../src/executor/runners/runner-loader";
import { RESERVE_PENDING_MS, RESERVE_RING } from "../../../src/executor/runners/runner-reserve";
import {
  CALLER_BUSY,
  CALLER_QUEUE_MAX,
  CALLER_WAIT_MS,
} from "../../../src/executor/runners/placement/caller-queue";
import { MOVED } from "../../../src/executor/runners/host-tracker";
import {
  RUNNER_HELD_MAX_MS,
  RUNNER_STALL_MS,
} from "../../../src/executor/runners/placement/runner-placement";
import { codeHash } from "../../../src/executor/runners/code-hash";
import type { RunnerAnswer, RunnerApi } from "../../../src/executor/runners/runner-protocol";
import { startVirtualTime, type StopVirtualTime } from "../../helpers/virtual-time";

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
    loadWithBase: (_secret, _hash, base, _name, _text, _request, host) => start("load", base, host),
    get: (_secret, _hash, code, _request, host) => start("get", code, host),
  };
  return { api, sent };
}

const CODE = { compatibilityDate: "2026-08-01", mainModule: "a.js", modules: { "a.js": "" } };

/** The loader's settings besides its runners, by name (the constructor takes them in order). */
interface LoaderOptions {
  /** Its clock (default `Date.now`). */
  now?: () => number;
  /** Who sent a run (default: nobody named, so no caller is capped). */
  caller?: () => string;
  /** How many of the last runners are spares (default 0). */
  spares?: number;
  /** Whether it keeps a warm reserve by ringing a cold slot (default no). */
  reserve?: boolean;
}

/** A RunnerLoader over the stand-in `runners`, in slot order, with `options` by name. */
function loaderOf(runners: { api: RunnerApi }[], options: LoaderOptions = {}) {
  const { now = Date.now, caller = () => "", spares = 0, reserve = false } = options;
  return new RunnerLoader(
    runners.map((r) => r.api),
    now,
    undefined,
    "",
    caller,
    spares,
    reserve,
  );
}

/** Runs once through the loader's `load` face, as the executors do. */
function run(loader: RunnerLoader, host: unknown = { calls: 0 }) {
  const entry = loader.load(CODE).getEntrypoint() as unknown as {
    run(request: unknown, host: unknown): Promise<unknown>;
  };
  return entry.run({}, host);
}

/** Runs once through the loader's `get` face, as the shared-worker executor does. */
function runShared(loader: RunnerLoader, host: unknown = { calls: 0 }) {
  const entry = loader.get("engine", () => CODE).getEntrypoint() as unknown as {
    run(request: unknown, host: unknown): Promise<unknown>;
  };
  return entry.run({}, host);
}

/** A host bridge whose calls never end (a run waiting on the host), counting as one made. */
const waitingHost = () => ({ calls: 0, call: () => new Promise(() => {}) });

/** A handler whose run calls the host once and then never ends (it waits on the host). */
const waitsOnHost: Handler = (_kind, _code, host) => {
  void (host as { call(): Promise<unknown> }).call();
  return new Promise(() => {});
};

/** A handler whose run never calls the host and never ends (a program holding its thread). */
const holds: Handler = () => new Promise(() => {});

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** Waits until `done()` (looking every 5 ms); fails after 5 s rather than hang. */
async function until(done: () => boolean): Promise<void> {
  for (let looks = 0; !done(); looks++) {
    if (looks > 1_000) throw new Error("until: never happened");
    await tick(5);
  }
}

/** A run that answers after 20 ms (a trivial search). */
const quick: Handler = () => tick(20).then(() => ({ answer: "quick" }));

/**
 * A runner that serves its first run with `first` (default {@link quick}) and whose every later
 * run holds its thread (a round of stalls arriving after one honest run).
 */
function servesOnceThenHolds(name: string, first: Handler = quick) {
  const made = runner(name, (kind, code, host) =>
    made.sent.length === 1 ? first(kind, code, host) : holds(kind, code, host),
  );
  return made;
}

describe("RunnerLoader", () => {
  // Every wait below is on virtual time (test/helpers/virtual-time.ts): the loader's
  // clock and timers are fake and jump to the next timer once all else has settled, so a
  // bound like "answered within 450 ms" is exact on any machine, however loaded.
  let stopVirtualTime: StopVirtualTime;
  beforeEach(() => {
    stopVirtualTime = startVirtualTime();
  });
  afterEach(() => stopVirtualTime());

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

  describe("when every runner says it is retiring", () => {
    /**
     * A runner answering "retiring" (it begins nothing) while `serving()` is false, and then
     * beginning and answering as its fresh successor; `onRetiring` runs at each such answer.
     */
    const retiringUntil = (name: string, serving: () => boolean, onRetiring = () => {}) =>
      runner(
        name,
        async (_kind, _code, host) => {
          if (!serving()) {
            onRetiring();
            return { retiring: true };
          }
          begin(host);
          return { answer: name };
        },
        false,
      );

    it("holds the run, asking one runner at a time, until a fresh one begins it", async () => {
      let now = 1_000;
      let fresh = false;
      const a = retiringUntil("a", () => fresh);
      const b = retiringUntil("b", () => fresh);
      const loader = new RunnerLoader([a.api, b.api], () => now);
      const sends = () => a.sent.length + b.sent.length;
      let settled = false;
      const running = run(loader).finally(() => (settled = true));
      await until(() => sends() === 2);
      now += RUNNER_RETIRED_LOOK_MS;
      // Held, not failed: it asks again, one runner per look (not both at each look).
      await until(() => sends() === 3);
      expect(settled).toBe(false);
      fresh = true;
      now += RUNNER_RETIRED_LOOK_MS;
      expect(["a", "b"]).toContain(await running);
      expect(sends()).toBe(4);
    });

    it("fails the run with a clear error once no runner served within RUNNER_RETRY_WINDOW_MS of its first try", async () => {
      const first = 1_000;
      let now = first;
      // Each answer takes a while by the clock (a loaded machine), so the window passes.
      const a = retiringUntil(
        "a",
        () => false,
        () => (now += 3_000),
      );
      const b = retiringUntil(
        "b",
        () => false,
        () => (now += 3_000),
      );
      const loader = new RunnerLoader([a.api, b.api], () => now);
      await expect(run(loader)).rejects.toThrow(
        /every runner was retiring for 10 s.*Retrying is safe: the program did not start\.$/,
      );
      // Held until the window was all but over, not given up at the first round.
      expect(now - first).toBeGreaterThan(RUNNER_RETRY_WINDOW_MS - RUNNER_RETIRED_LOOK_MS);
      expect(a.sent.length + b.sent.length).toBeGreaterThan(2);
    });

    it("never sends the run again once its host gave it up (its timeout or a cancel wins)", async () => {
      const a = retiringUntil("a", () => false);
      const b = retiringUntil("b", () => false);
      const host = { calls: 0, closed: false };
      const running = run(new RunnerLoader([a.api, b.api]), host);
      await until(() => a.sent.length + b.sent.length === 2);
      // The executor answered at the run's timeout and closed its bridge (host-bridge.ts).
      host.closed = true;
      await expect(running).rejects.toThrow(RUNNER_NOT_SENT);
      expect(a.sent.length + b.sent.length).toBe(2);
    });
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

  it("sends a run's base once per runner, named by its hash, and each run's program module every time (issue #43)", async () => {
    /** The executors' code of one run: the same base, this run's own program module. */
    const runCode = (program: string) =>
      ({
        compatibilityDate: "2026-08-01",
        mainModule: "harness.js",
        modules: { "harness.js": "export default {}", "user.js": program },
        globalOutbound: null,
        env: {},
        limits: { cpuMs: 50 },
      }) as unknown as WorkerLoaderWorkerCode;
    /** A runner that keeps bases by hash, as sandbox-runner.ts does, and answers what it ran. */
    function baseRunner() {
      const bases = new Map<string, unknown>();
      const calls: { hash: string; base: unknown; text: string }[] = [];
      const api: RunnerApi = {
        load: async () => ({ thrown: "sent whole" }),
        get: async () => ({ thrown: "not stable" }),
        loadWithBase: async (_secret, hash, base, name, text, _request, host) => {
          calls.push({ hash, base, text });
          if (base) bases.set(hash, base);
          if (!bases.has(hash)) return { missingCode: true };
          begin(host);
          return { answer: `${name}:${text}` };
        },
      };
      return { api, calls };
    }
    const a = baseRunner();
    const b = baseRunner();
    const loader = new RunnerLoader([a.api, b.api]);
    const runOf = (program: string) =>
      (
        loader.load(runCode(program)).getEntrypoint() as unknown as {
          run(request: unknown, host: unknown): Promise<unknown>;
        }
      ).run({}, { calls: 0 });
    expect(await runOf("p1")).toBe("user.js:p1");
    expect(await runOf("p2")).toBe("user.js:p2");
    expect(await runOf("p3")).toBe("user.js:p3");
    expect(await runOf("p4")).toBe("user.js:p4");
    const { "user.js": _program, ...baseModules } = runCode("").modules as Record<string, string>;
    const hash = await codeHash({ ...runCode(""), modules: baseModules });
    const used = [a, b].filter((one) => one.calls.length > 0);
    expect(used.length).toBeGreaterThan(0);
    for (const one of used) {
      // Asked with no base first; sent once on `missingCode`; never again.
      expect(one.calls.map((c) => c.base === null)).toEqual(one.calls.map((_c, i) => i !== 1));
      expect(one.calls[1]!.base).toEqual({ ...runCode(""), modules: baseModules });
      expect(new Set(one.calls.map((c) => c.hash))).toEqual(new Set([hash]));
    }
    // Each run's program went with it (twice for a runner's first run: asked, then with its base).
    expect([...a.calls, ...b.calls].length).toBe(4 + used.length);
  });

  it("sends code that is not plain data whole, every time (run-base.ts)", async () => {
    const a = runner("a");
    const loader = new RunnerLoader([a.api]);
    const withEnv = {
      compatibilityDate: "2026-08-01",
      mainModule: "harness.js",
      modules: { "harness.js": "", "user.js": "" },
      globalOutbound: null,
      env: { BINDING: {} },
    } as unknown as WorkerLoaderWorkerCode;
    const entry = loader.load(withEnv).getEntrypoint() as unknown as {
      run(request: unknown, host: unknown): Promise<unknown>;
    };
    expect(await entry.run({}, { calls: 0 })).toBe("a");
    expect(a.sent).toEqual([{ kind: "load", code: withEnv }]);
  });

  it("sends the cluster secret first in every call", async () => {
    const secrets: string[] = [];
    const api: RunnerApi = {
      load: async (secret, _code, _request, host) => (
        secrets.push(secret),
        begin(host),
        { answer: 1 }
      ),
      loadWithBase: async (secret, _hash, _base, _name, _text, _request, host) => (
        secrets.push(secret),
        begin(host),
        { answer: 3 }
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

  it("sends a run its runner never began to another however late the failure is read (a held host thread)", async () => {
    // A slot with no runner (its doorbell closes the connection at once), read only after the
    // host's thread was held past RUNNER_REST_MS by other work (a batch of 60 programs of 64 KiB
    // in one POST: 17 of its runs failed so on a fresh local server). A runner begins a run only
    // once the host answered its `begin` (sandbox-runner.ts), so the program did not start.
    let now = 0;
    const doorbell = runner(
      "doorbell",
      async () => {
        now += 2 * RUNNER_REST_MS;
        throw new Error("Network connection lost.");
      },
      false,
    );
    const b = runner("b");
    const loader = new RunnerLoader([doorbell.api, b.api], () => now);
    expect(await run(loader)).toBe("b");
    expect([doorbell.sent.length, b.sent.length]).toEqual([1, 1]);
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

  it("tells a runner that gets to a run only after its host gave it up not to begin it", async () => {
    // One runner, whose thread a program holds: the run waits there (nowhere to move it) past
    // its timeout. The runner asks `begin` only when its thread is free again.
    let heldHost: { begin(): boolean } | undefined;
    const held = runner(
      "held",
      (_kind, _code, host) => {
        heldHost = host as { begin(): boolean };
        return new Promise(() => {});
      },
      false,
    );
    const host = { calls: 0, closed: false };
    void run(new RunnerLoader([held.api]), host);
    await until(() => heldHost !== undefined);
    // The executor answered at the run's timeout and closed its bridge (host-bridge.ts).
    host.closed = true;
    expect(heldHost!.begin()).toBe(false);
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
    // Moved once RUNNER_BEGIN_MS had passed (not before: a runner slow to begin is not yet held),
    // and at once then (virtual time: these are exact).
    expect(Date.now() - started).toBeGreaterThanOrEqual(RUNNER_BEGIN_MS);
    expect(Date.now() - started).toBeLessThanOrEqual(RUNNER_BEGIN_MS + RUNNER_LOOK_MS);
    // The first copy, should its runner ever get to it, is told not to begin, and could not
    // reach the host anyway.
    expect((heldHost as unknown as { begin(): boolean }).begin()).toBe(false);
    // Spent: the copy answers its later calls itself, with no round trip per call.
    expect(await heldHost!.call()).toMatchObject({ error: { message: MOVED }, spent: true });
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

  describe("placement (issue 40: one client can starve everyone)", () => {
    for (const [face, start] of [
      ["load", run],
      ["get (the shared worker)", runShared],
    ] as const) {
      it(`through ${face}: passes over a runner whose newest run began < RUNNER_STALL_MS ago without calling the host, for one whose runs show progress`, async () => {
        let now = 1_000;
        const blocked = runner("blocked", holds);
        // "working"'s runs call the host once (the call ends at once) and go on computing.
        const working = runner("working", (_kind, _code, host) => {
          void (host as { call(): Promise<unknown> }).call();
          return new Promise(() => {});
        });
        const loader = new RunnerLoader([blocked.api, working.api], () => now);
        const host = { calls: 0, call: async () => "ok" };
        // Each run begins before the next starts (through get, the code's hash is computed first,
        // by crypto.subtle: a few milliseconds).
        void start(loader, host); // both idle: taken in turn → blocked, which holds its thread
        await tick(20);
        void start(loader, host); // → working
        await tick(20);
        void start(loader, host); // → working (blocked's run has not called the host)
        await tick(20);
        expect(loader.busy()).toEqual([1, 2]);
        // 100 ms after the blocking program began: working is busier, but its runs have shown
        // progress and blocked's has not, so blocked may be held.
        now += 100;
        void start(loader, host);
        await tick(20);
        now += RUNNER_STALL_MS - 200;
        void start(loader, host);
        await tick(20);
        expect(loader.busy()).toEqual([1, 4]);
        expect(blocked.sent).toHaveLength(1);
      });
    }

    it("never moves a run its runner is late to begin onto a runner that may be blocked (a shared worker's first run asks for its code)", async () => {
      const blocked = runner("blocked", holds);
      // A runner without the engine's code asks for it first, slowly (a loaded machine).
      const fresh = runner(
        "fresh",
        async (_kind, code, host) => {
          if (code === null) {
            await tick(RUNNER_BEGIN_MS + 100);
            return { missingCode: true };
          }
          begin(host);
          return { answer: "fresh" };
        },
        false,
      );
      const loader = new RunnerLoader([blocked.api, fresh.api]);
      void runShared(loader); // → blocked, which holds its thread from now on
      const answer = await Promise.race([runShared(loader), tick(3_000).then(() => "no answer")]);
      expect(answer).toBe("fresh");
      expect(blocked.sent).toHaveLength(1);
    });

    it("keeps one caller to all runners but one: its run waits while its runners are stalled, another caller's takes the last", async () => {
      let now = 1_000;
      let who = "address:203.0.113.7";
      const gates: (() => void)[] = [];
      // a's first run waits for the test; every other run holds its runner.
      const a = runner("a", () =>
        a.sent.length > 1
          ? new Promise(() => {})
          : new Promise((r) => gates.push(() => r({ answer: "a" }))),
      );
      const b = runner("b", holds);
      const c = runner("c", holds);
      const loader = loaderOf([a, b, c], { now: () => now, caller: () => who });
      void run(loader); // → a
      void run(loader); // → b
      now += RUNNER_STALL_MS + 1; // both stalled
      void run(loader); // its third: waits, though c is free
      await tick(120);
      expect(loader.busy()).toEqual([1, 1, 0]);
      who = "oauth:someone-else";
      void run(loader); // another caller's run takes the last runner
      expect(loader.busy()).toEqual([1, 1, 1]);
      // Once one of its runs ends, its waiting run takes that runner.
      gates.shift()!();
      await tick(120);
      expect(loader.busy()).toEqual([1, 1, 1]);
      expect([a.sent.length, b.sent.length, c.sent.length]).toEqual([2, 1, 1]);
    });

    it("lets a capped caller add runs to its own runners while they show progress, never the last one", async () => {
      const who = "oauth:heavy-user";
      const a = runner("a", waitsOnHost);
      const b = runner("b", waitsOnHost);
      const c = runner("c", waitsOnHost);
      const loader = loaderOf([a, b, c], { now: () => 0, caller: () => who });
      for (let i = 0; i < 6; i++) void run(loader, waitingHost());
      expect(loader.busy()).toEqual([3, 3, 0]);
    });

    it("does not cap runs that name no caller (a local server's clients all share one address)", async () => {
      let now = 1_000;
      const [a, b, c] = ["a", "b", "c"].map((name) => runner(name, holds));
      const loader = loaderOf([a!, b!, c!], { now: () => now, caller: () => "" });
      void run(loader);
      void run(loader);
      now += RUNNER_STALL_MS + 1;
      void run(loader);
      expect(loader.busy()).toEqual([1, 1, 1]);
    });

    it("bounds a caller's waiting runs and their wait, each with a clear error", async () => {
      let now = 1_000;
      const a = runner("a", holds);
      const b = runner("b", holds);
      const loader = loaderOf([a, b], { now: () => now, caller: () => "oauth:u1" });
      void run(loader); // → a: all runners but one
      now += RUNNER_STALL_MS + 1;
      const waiting = Array.from({ length: CALLER_QUEUE_MAX }, () =>
        run(loader).then(
          () => new Error("ran"),
          (e: unknown) => e as Error,
        ),
      );
      const over = (await run(loader).catch((e: unknown) => e)) as Error;
      expect(over.message).toContain(CALLER_BUSY);
      expect(over.message).toMatch(
        /16 more of its runs already wait.*the program did not start\.$/,
      );
      expect(loader.busy()).toEqual([1, 0]);
      now += CALLER_WAIT_MS;
      const errors = await Promise.all(waiting);
      for (const error of errors) {
        expect(error).toBeInstanceOf(Error);
        expect(error.message).toContain(`${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms)`);
      }
      expect(b.sent).toHaveLength(0);
    });

    it("stops counting a run quiet past RUNNER_HELD_MAX_MS against its runner (it holds no thread), so the runner is used again", async () => {
      let now = 1_000;
      // a's first run never calls the host and never ends (a run the host gave up on, living on
      // in its runner); every later run waits on the host.
      const a = runner("a", (kind, code, host) =>
        a.sent.length === 1 ? new Promise(() => {}) : waitsOnHost(kind, code, host),
      );
      const b = runner("b", waitsOnHost);
      const loader = new RunnerLoader([a.api, b.api], () => now);
      void run(loader, waitingHost()); // → a (in turn)
      void run(loader, waitingHost()); // → b
      now += RUNNER_STALL_MS + 1;
      void run(loader, waitingHost()); // a is stalled: → b
      expect(a.sent).toHaveLength(1);
      now += RUNNER_HELD_MAX_MS;
      void run(loader, waitingHost());
      void run(loader, waitingHost());
      expect(a.sent.length).toBeGreaterThan(1);
    });

    it("marks a runner late to begin a run as held: its quiet runs count against it again, the next run takes the spare", async () => {
      let now = 1_000;
      // a's first run never calls the host and never ends, and holds a's thread in stretches
      // (a regex under 10 s, a timer, again): a's later runs begin only after 400 ms.
      const a = runner(
        "a",
        async (_kind, _code, host) => {
          if (a.sent.length === 1) return new Promise(() => {});
          await tick(400);
          begin(host);
          return { answer: "a" };
        },
        false,
      );
      const spare = runner("spare");
      const loader = loaderOf([a, spare], { now: () => now, spares: 1 });
      void run(loader); // → a
      now += RUNNER_HELD_MAX_MS + 1;
      // Quiet past RUNNER_HELD_MAX_MS, a's run counts as waiting: the next run tries a.
      expect(await run(loader)).toBe("a");
      expect(a.sent).toHaveLength(2);
      // a was late to begin it (its thread is held): the next runs, one after another, go to the
      // spare, not behind a's held thread (each would wait out a stretch).
      expect(await run(loader)).toBe("spare");
      expect(await run(loader)).toBe("spare");
      expect(a.sent).toHaveLength(2);
    });

    it("tries a runner that refused a run at once (not running yet) again after RUNNER_RETRY_MS, doubling in a row", async () => {
      let now = 1_000;
      let down = true;
      const a = runner(
        "a",
        async (_kind, _code, host) => {
          if (down) throw new Error("connect ECONNREFUSED 127.0.0.1:40001");
          begin(host);
          return { answer: "a" };
        },
        false,
      );
      // b's first run waits on the host for good (b is busy from then on); later ones answer.
      const b = runner("b", (kind, code, host) =>
        b.sent.length === 1 ? waitsOnHost(kind, code, host) : Promise.resolve({ answer: "b" }),
      );
      const loader = new RunnerLoader([a.api, b.api], () => now);
      void run(loader, waitingHost()); // → a, refused at once → b
      await tick();
      expect([a.sent.length, b.sent.length]).toEqual([1, 1]);
      now += RUNNER_RETRY_MS + 1;
      expect(await run(loader)).toBe("b"); // a tried again, refused again: it rests twice as long
      expect(a.sent).toHaveLength(2);
      now += RUNNER_RETRY_MS * 1.5;
      expect(await run(loader)).toBe("b");
      expect(a.sent).toHaveLength(2);
      down = false; // its runner has started
      now += RUNNER_RETRY_MS;
      expect(await run(loader)).toBe("a");
      expect(a.sent).toHaveLength(3);
    });

    it("sends runs to the first runner while it is idle; a slot tried only when it is busy, cold again once it refuses", async () => {
      // Slots 2 and 3 have no runner at first (the supervisor starts them when asked: a run sent
      // there is refused, which asks). Idle runner 1 takes runs without the others being tried.
      let up = false;
      const a = runner("a");
      const b = runner(
        "b",
        async (_kind, _code, host) => {
          if (!up) throw new Error("connect(): No such file or directory");
          begin(host);
          return { answer: "b" };
        },
        false,
      );
      const c = runner("c", async () => Promise.reject(new Error("ECONNREFUSED")), false);
      let now = 1_000;
      const loader = new RunnerLoader([a.api, b.api, c.api], () => now);
      for (let i = 0; i < 4; i++) expect(await run(loader)).toBe("a");
      expect([b.sent.length, c.sent.length]).toEqual([0, 0]);
      // Runner 1 busy (its first run waits on the host): the next run asks the cold slots (each
      // refuses at once) and then shares runner 1; once slot 2's runner serves, it takes runs,
      // and runner 1 idle again is preferred to the slot that still refuses.
      const busy = runner("busy", (kind, code, host) =>
        busy.sent.length === 1
          ? waitsOnHost(kind, code, host)
          : Promise.resolve({ answer: "busy" }),
      );
      const busyLoader = new RunnerLoader([busy.api, b.api, c.api], () => now);
      void run(busyLoader, waitingHost());
      await tick();
      expect(await run(busyLoader)).toBe("busy");
      expect([b.sent.length, c.sent.length]).toEqual([1, 1]);
      up = true;
      now += RUNNER_RETRY_MAX_MS + 1;
      expect(await run(busyLoader)).toBe("b");
      expect(await run(busyLoader)).toBe("b");
      expect(c.sent).toHaveLength(1);
    });

    it("sends a run refused at once on to every other runner in turn until one takes it", async () => {
      const refuses = () =>
        runner("down", async () => Promise.reject(new Error("ECONNREFUSED")), false);
      const [a, b] = [refuses(), refuses()];
      const c = runner("c");
      const loader = new RunnerLoader([a.api, b.api, c.api], () => 0);
      expect(await run(loader)).toBe("c");
      expect([a.sent.length, b.sent.length, c.sent.length]).toEqual([1, 1, 1]);
    });

    it("tries a runner that failed under a run again after RUNNER_RETRY_MS, not after a rest of seconds (its replacement serves within 1–2 s)", async () => {
      let now = 1_000;
      let replaced = false;
      const a = runner("a", async () => {
        if (replaced) return { answer: "a" };
        now += 10_000; // held until the supervisor replaced it
        throw new Error("Network connection lost.");
      });
      const b = runner("b", waitsOnHost);
      const loader = new RunnerLoader([a.api, b.api], () => now);
      await expect(run(loader)).rejects.toThrow(RUNNER_LOST);
      replaced = true;
      void run(loader, waitingHost()); // a rests: → b, which then waits on the host
      now += RUNNER_RETRY_MS + 1;
      expect(await run(loader)).toBe("a");
    });

    it("holds a run no runner began while every runner is being replaced, until one serves (within RUNNER_RETRY_WINDOW_MS)", async () => {
      const started = Date.now();
      const refusing = (name: string) =>
        runner(
          name,
          async (_kind, _code, host) => {
            if (Date.now() - started < 400) throw new Error("connect ECONNREFUSED");
            begin(host);
            return { answer: name };
          },
          false,
        );
      const loader = new RunnerLoader([refusing("a").api, refusing("b").api]);
      expect(["a", "b"]).toContain(await run(loader));
      // Held, not failed, and tried again within one retry once the runners serve (at 400 ms).
      expect(Date.now() - started).toBeLessThanOrEqual(400 + RUNNER_RETRY_MAX_MS);
    });

    it("waits for a runner whose short rest is about to end rather than send a run to one that may be blocked", async () => {
      let refusals = 1;
      const blocked = runner("blocked", holds);
      const restarting = runner(
        "restarting",
        async (_kind, _code, host) => {
          if (refusals-- > 0) throw new Error("connect ECONNREFUSED");
          begin(host);
          return { answer: "restarting" };
        },
        false,
      );
      const loader = new RunnerLoader([blocked.api, restarting.api]);
      void run(loader); // → blocked (in turn), which holds its thread from now on
      // → restarting, refused at once; blocked may be held, restarting's rest ends in a moment.
      const answer = await Promise.race([run(loader), tick(3_000).then(() => "no answer")]);
      expect(answer).toBe("restarting");
      expect(blocked.sent).toHaveLength(1);
    });

    it("keeps looking for a better runner while its runner has not begun a run, and moves it once one shows progress", async () => {
      // "cold" begins what it is sent only after 1.5 s (a fresh runner loading the engine).
      const cold = runner(
        "cold",
        async (_kind, _code, host) => {
          await tick(1_500);
          begin(host);
          return { answer: "cold" };
        },
        false,
      );
      // "busy"'s first run calls the host only after 400 ms (until then it may be blocking);
      // later runs answer at once.
      const busy = runner("busy", async (_kind, _code, host) => {
        if (busy.sent.length > 1) return { answer: "busy" };
        await tick(400);
        void (host as { call(): Promise<unknown> }).call();
        return new Promise(() => {});
      });
      const loader = new RunnerLoader([busy.api, cold.api]);
      void run(loader, waitingHost()); // → busy (in turn)
      const started = Date.now();
      expect(await run(loader)).toBe("busy"); // → cold; moved once busy's run shows progress
      // Moved at the first look after busy's run called the host (400 ms), long before cold
      // begins (1.5 s).
      expect(Date.now() - started).toBeLessThanOrEqual(400 + RUNNER_BEGIN_MS);
    });

    describe("runs waiting for a runner are served in turn (issue 40: one flood, every runner young)", () => {
      /**
       * Runners whose first run each is a trivial search that ends when the test says (until
       * then it may be a blocking program: young, no host call), and whose later runs hold
       * their runner; `began` lists each run's name as a runner begins it.
       */
      function floodedPair() {
        const began: string[] = [];
        const ends: (() => void)[] = [];
        const make = (): RunnerApi => {
          let runs = 0;
          const start = (request: unknown, host: unknown) => {
            began.push((request as { name: string }).name);
            begin(host);
            return runs++ === 0
              ? new Promise<RunnerAnswer>((r) => ends.push(() => r({ answer: "done" })))
              : new Promise<RunnerAnswer>(() => {});
          };
          return {
            load: (_s, _code, request, host) => start(request, host),
            loadWithBase: (_s, _h, _b, _n, _t, request, host) => start(request, host),
            get: (_s, _h, _code, request, host) => start(request, host),
          };
        };
        let who = "";
        const loader = new RunnerLoader([make(), make()], Date.now, undefined, "", () => who);
        /** Starts a run named `name` of caller `caller` ("": the local clients' one caller). */
        const named = (name: string, caller = "") => {
          who = caller;
          return (
            loader.load(CODE).getEntrypoint() as unknown as {
              run(request: unknown, host: unknown): Promise<unknown>;
            }
          ).run({ name }, { calls: 0 });
        };
        return { began, ends, named };
      }

      it("gives the runners that free to the runs waiting longest, not to one arriving or looking then", async () => {
        const { began, ends, named } = floodedPair();
        void named("search 1");
        void named("search 2");
        expect(began).toEqual(["search 1", "search 2"]);
        void named("waits first"); // both runners have a young run: it waits
        await tick(10);
        void named("waits second");
        await tick(20);
        void named("waits third"); // behind the first two (as many as runners): looks every 50 ms
        await tick(30);
        ends.shift()!(); // search 1 ends: its runner is free
        await tick(2);
        void named("arrives then"); // before, it took that runner at once
        await tick(100);
        ends.shift()!(); // search 2 ends
        await tick(100);
        // Each runner to one of the two runs then first in the line (as many as runners): among
        // the runs at its head the one that looks first takes a runner that frees, so it is not
        // idle until the oldest looks. Never to the run that arrived after them. Before, "arrives
        // then" took the first free runner at once.
        expect(began).toHaveLength(4);
        expect(["waits first", "waits second"]).toContain(began[2]);
        expect(began).not.toContain("arrives then");
      });

      it("serves callers in turn: a caller never let in before one whose runs were", async () => {
        const { began, ends, named } = floodedPair();
        void named("search 1");
        void named("search 2");
        for (const name of ["flood 1", "flood 2", "flood 3"]) void named(name);
        await tick(5);
        // Another caller's run, behind the flood's three waiting runs.
        void named("other caller", "address:198.51.100.7");
        await tick(55);
        ends.shift()!(); // search 1 ends
        await tick(100);
        // Before, "flood 1" took it (each run looked at its own times, "flood 1" first).
        expect(began.slice(2)).toEqual(["other caller"]);
      });
    });
  });

  describe("the warm reserve (runners started on demand: cli/local-server/runners/runner-pool.mjs)", () => {
    /** A slot whose runner records reserve rings apart from runs. */
    function ringable(name: string, handler?: Handler, begins?: boolean) {
      const made = runner(name, handler, begins);
      const rings: number[] = [];
      const api: RunnerApi = {
        load: made.api.load,
        loadWithBase: made.api.loadWithBase,
        get: (secret, hash, code, request, host) => {
          if (hash === RESERVE_RING) {
            rings.push(rings.length);
            return Promise.reject(new Error("connect ECONNREFUSED (its doorbell)"));
          }
          return made.api.get(secret, hash, code, request, host);
        },
      };
      return { ...made, api, rings };
    }

    it("rings a regular cold slot once the last idle runner takes a run, and only then", async () => {
      let now = 1_000;
      const a = ringable("a", waitsOnHost);
      const b = ringable("b");
      const c = ringable("c");
      const spare = ringable("spare");
      const loader = loaderOf([a, b, c, spare], { now: () => now, spares: 1, reserve: true });
      // Runner 1 idle: a run takes it, and now no runner known to serve is idle: slot 2 is rung
      // (its runner starts before a run needs it); slot 3 and the spare are not.
      void run(loader, waitingHost());
      await tick();
      expect([b.rings.length, c.rings.length, spare.rings.length]).toEqual([1, 0, 0]);
      // A run sent to slot 2 (its runner is up by then) is demand: slot 3 becomes the reserve.
      now += RESERVE_PENDING_MS;
      expect(await run(loader)).toBe("b");
      expect([b.rings.length, c.rings.length, spare.rings.length]).toEqual([1, 1, 0]);
    });

    it("rings nothing while a runner is idle (an idle server keeps its one runner), nor when off", async () => {
      let now = 1_000;
      const a = ringable("a");
      const b = ringable("b");
      const c = ringable("c");
      const on = loaderOf([a, b, c], { now: () => now, reserve: true });
      // Each run ends before the next: runner 1 is idle again every time, and is taken the
      // moment a run is sent to it, so the first run rings slot 2; no other is rung while slot
      // 2's runner is on its way (RESERVE_PENDING_MS), however many runs come.
      for (let i = 0; i < 3; i++) expect(await run(on)).toBe("a");
      expect([b.rings.length, c.rings.length]).toEqual([1, 0]);
      // Past that, slot 2 counts as failed to come: rung again, or the next one.
      now += RESERVE_PENDING_MS;
      expect(await run(on)).toBe("a");
      expect(b.rings.length + c.rings.length).toBe(2);
      const e = ringable("e", waitsOnHost);
      const f = ringable("f");
      const off = new RunnerLoader([e.api, f.api], () => 1_000);
      void run(off, waitingHost());
      await tick();
      expect(f.rings).toHaveLength(0);
    });

    it("rings nothing when a run leaves another runner known to serve idle", async () => {
      let now = 1_000;
      let endFirst = () => {};
      const a = ringable("a", async (_kind, _code, host) => {
        if (a.sent.length > 1) return { answer: "a" };
        void (host as { call(): Promise<unknown> }).call();
        return new Promise((resolve) => (endFirst = () => resolve({ answer: "a" })));
      });
      const b = ringable("b");
      const c = ringable("c");
      const loader = loaderOf([a, b, c], { now: () => now, reserve: true });
      const first = run(loader, waitingHost()); // → a; no idle runner left: rings b
      await tick();
      now += RESERVE_PENDING_MS;
      // b's runner is up: the next run (a is busy) takes it, and rings c (none idle again).
      expect(await run(loader)).toBe("b");
      expect([b.rings.length, c.rings.length]).toEqual([1, 1]);
      endFirst();
      await first;
      now += RESERVE_PENDING_MS;
      // a and b both idle: a run takes one, the other stays idle, nothing is rung.
      expect(["a", "b"]).toContain(await run(loader));
      expect([b.rings.length, c.rings.length]).toEqual([1, 1]);
    });

    it("waits for a runner whose young run finishes rather than join one that may be blocking", async () => {
      // Both runners have a run that began a moment ago and has not called the host: one is a
      // trivial search (ends in 100 ms), the other a stall. In turn the next run would go to the
      // stall's runner (ties in turn, runner 1 first); it waits a few looks instead and takes
      // the trivial one's runner once that is idle.
      const holder = runner("holder", holds);
      const trivial = runner("trivial", async () => {
        await tick(100);
        return { answer: "trivial" };
      });
      const loader = new RunnerLoader([holder.api, trivial.api], () => Date.now());
      void run(loader); // → holder
      void run(loader); // → trivial
      await tick();
      expect([holder.sent.length, trivial.sent.length]).toEqual([1, 1]);
      const started = Date.now();
      const answer = await Promise.race([run(loader), tick(2_000).then(() => "no answer")]);
      expect(answer).toBe("trivial");
      expect(holder.sent).toHaveLength(1);
      // Sent at the first look after trivial's run ended (100 ms), then its own 100 ms.
      expect(Date.now() - started).toBeLessThanOrEqual(100 + RUNNER_LOOK_MS + 100);
    });

    it("a run refused by the slot it asked for waits for it; the spare stays for the next run", async () => {
      // Runner 1 holds its thread; slot 2 refuses for 600 ms (its runner starting); the spare's
      // runner serves (the supervisor keeps it running while the pool is busy). Before, the run
      // refused by slot 2 went on to the spare, and a run arriving after it found the spare
      // taken (e2e fair-share: the third of three stalls took the spare, and the other client's
      // search waited for a start).
      const started = Date.now();
      const held = runner("held", holds);
      const starting = runner(
        "starting",
        async (_kind, _code, host) => {
          if (Date.now() - started < 600) throw new Error("connect ECONNREFUSED");
          begin(host);
          return { answer: "starting" };
        },
        false,
      );
      const spare = runner("spare", async () => {
        await tick(200);
        return { answer: "spare" };
      });
      const loader = loaderOf([held, starting, spare], { spares: 1 });
      void run(loader); // → held: it holds its thread from now on
      const asked = run(loader); // → slot 2, refused: it waits for slot 2's runner
      await tick(100);
      const later = Date.now();
      expect(await run(loader)).toBe("spare"); // → the spare, at once
      // The spare's own 200 ms and no look before it (the refused slot opens only at 600 ms).
      expect(Date.now() - later).toBeLessThan(200 + RUNNER_LOOK_MS);
      expect(await asked).toBe("starting");
      expect(spare.sent).toHaveLength(1);
      expect(held.sent).toHaveLength(1);
    });

    it("a burst of stalls leaves the spare to the runs after it (they find it at once)", async () => {
      // e2e fair-share, shared worker: an honest search is on runner a when one client's three
      // stalls arrive; b is idle, slot c has no runner yet (it refuses for 600 ms while it
      // starts), the spare's runner serves. Before, the third stall took the spare at once (it
      // ranked before runners that may be blocked), the second took a when the search ended,
      // and a run arriving after the burst went to c and waited for its start (placement of
      // that run: runner-placement.test.ts, ASKED).
      const started = Date.now();
      const a = servesOnceThenHolds("a", () => tick(60).then(() => ({ answer: "a" })));
      const b = runner("b", holds);
      const c = runner(
        "c",
        async (kind, code, host) => {
          if (Date.now() - started < 600) throw new Error("connect ECONNREFUSED");
          begin(host);
          return holds(kind, code, host);
        },
        false,
      );
      const spare = runner("spare");
      const loader = loaderOf([a, b, c, spare], { spares: 1 });
      const search = run(loader); // → a: a trivial run, 60 ms
      for (let i = 0; i < 3; i++) void run(loader); // the stalls
      await tick(150);
      // No stall took the spare: one on b, one on a once the search ended, one waiting for c.
      expect(spare.sent).toHaveLength(0);
      expect(await search).toBe("a");
      expect([a.sent.length, b.sent.length]).toEqual([2, 1]);
      await tick(600);
      expect(c.sent.length).toBeGreaterThanOrEqual(2);
      expect(loader.busy()).toEqual([1, 1, 1, 0]);
    });

    it("a run caught in a burst takes the spare once the runner the burst asked for serves a stall", async () => {
      // e2e fair-share, round 1 at load 12–16 (both executors): a and b serve; one client's three
      // stalls take them and ask for c (its runner starting: it refuses for 300 ms); another
      // client's search arrives 20 ms later, within the burst. It claimed c too, lost c's fresh
      // runner to the stall, and waited, ranked as in the burst for good, until c's stall looked
      // stalled (RUNNER_STALL_MS after it began) before it took the idle spare: ~1 s in all.
      const started = Date.now();
      let opensAt = 0;
      let stallBeganOnC = 0;
      const SEARCH = { ...CODE, mainModule: "search.js", modules: { "search.js": "" } };
      const a = servesOnceThenHolds("a");
      const b = servesOnceThenHolds("b");
      const c = runner(
        "c",
        async (kind, code, host) => {
          if (Date.now() - started < opensAt) throw new Error("connect ECONNREFUSED");
          begin(host);
          if ((code as typeof CODE).mainModule === "search.js") return { answer: "c" };
          stallBeganOnC = Date.now();
          return holds(kind, code, host);
        },
        false,
      );
      const spare = runner("spare");
      const loader = loaderOf([a, b, c, spare], { spares: 1 });
      // a and b serve (each has begun a run) and are idle again.
      await Promise.all([run(loader), run(loader)]);
      expect([a.sent.length, b.sent.length]).toEqual([1, 1]);
      opensAt = Date.now() - started + 300;
      for (let i = 0; i < 3; i++) void run(loader); // the stalls: a, b, and c (asked for)
      await tick(20);
      const entry = loader.load(SEARCH).getEntrypoint() as unknown as {
        run(request: unknown, host: unknown): Promise<unknown>;
      };
      // c's runner serves from 300 ms and its stall begins there; the search then goes to the
      // spare within a look or two. Before, it waited until c's stall looked stalled, at least
      // RUNNER_STALL_MS after it began.
      expect(await entry.run({}, { calls: 0 })).toBe("spare");
      expect(stallBeganOnC).toBeGreaterThan(0);
      expect(Date.now() - stallBeganOnC).toBeLessThanOrEqual(2 * RUNNER_LOOK_MS);
      expect(loader.busy()).toEqual([1, 1, 1, 0]);
    });

    it("a burst beside a held runner due for replacement waits for it; the spare stays free", async () => {
      // e2e fair-share, round 2 on a loaded machine: a round-1 stall still holds c (quiet 9.5 s:
      // the supervisor is about to end it, its replacement ready) when the next round's three
      // stalls arrive; a and b serve and are idle. Before, the third stall took the spare, and
      // the other client's runs waited for c's replacement.
      let skew = 0;
      let endHeld: (error: Error) => void = () => {};
      const c = runner("c", (kind, code, host) =>
        c.sent.length === 1
          ? new Promise((_resolve, reject) => (endHeld = reject))
          : holds(kind, code, host),
      );
      const a = servesOnceThenHolds("a");
      const b = servesOnceThenHolds("b");
      const spare = runner("spare");
      const loader = loaderOf([c, a, b, spare], { now: () => Date.now() + skew, spares: 1 });
      const held = run(loader).catch((error: unknown) => String(error)); // → c, held
      // a and b serve (each has begun a run) and are idle again.
      await Promise.all([run(loader), run(loader)]);
      expect([a.sent.length, b.sent.length]).toEqual([1, 1]);
      await tick(100);
      skew += 9_500;
      for (let i = 0; i < 3; i++) void run(loader); // the next round's stalls
      await tick(150);
      expect(spare.sent).toHaveLength(0);
      expect([a.sent.length, b.sent.length]).toEqual([2, 2]);
      // Another client's run after the burst finds the spare at once.
      expect(await run(loader)).toBe("spare");
      // Past RUNNER_STALL_MS a and b are stalled: the burst's run still waits for c, not the spare.
      await tick(RUNNER_STALL_MS + 100);
      expect(spare.sent).toHaveLength(1);
      // c's runner is ended; its successor serves, and the burst's last stall goes there.
      endHeld(new Error("the runner was replaced"));
      expect(await held).toContain(RUNNER_LOST);
      await tick(200);
      expect(c.sent).toHaveLength(2);
      expect(spare.sent).toHaveLength(1);
    });

    it("a run that finds every runner stalled waits for a due replacement, not on a stalled runner", async () => {
      // e2e fair-share-cold, shared worker, round 2 (load 11): round 1's stalls, begun late on
      // runners being started, still held runners (quiet ~10 s: their replacements due) when
      // round 2's stalls took the rest; another client's searches found every runner stalled,
      // went to one of them at once and failed with it 9–11 s later.
      let skew = 0;
      let endHeld: (error: Error) => void = () => {};
      const c = runner("c", () =>
        c.sent.length === 1
          ? new Promise((_resolve, reject) => (endHeld = reject))
          : Promise.resolve({ answer: "c" }),
      );
      const a = runner("a", holds);
      const b = runner("b", holds);
      const spare = runner("spare", holds);
      const loader = loaderOf([c, a, b, spare], { now: () => Date.now() + skew, spares: 1 });
      const held = run(loader).catch((error: unknown) => String(error)); // → c, held
      for (let i = 0; i < 3; i++) void run(loader); // → a, b, then the spare once they stall
      await tick(RUNNER_STALL_MS + 200);
      expect([c, a, b, spare].map((r) => r.sent.length)).toEqual([1, 1, 1, 1]);
      skew += 9_500; // c, a and b quiet 9.5 s: their replacements are due
      const other = run(loader);
      await tick(150);
      expect(
        [c, a, b, spare].map((r) => r.sent.length),
        "no run joins a stalled runner",
      ).toEqual([1, 1, 1, 1]);
      // c's runner is ended; its successor serves, and the waiting run goes there.
      endHeld(new Error("the runner was replaced"));
      expect(await held).toContain(RUNNER_LOST);
      expect(await other).toBe("c");
    });

    it("a burst waits out one due window, not a chain of quiet runs that are never replaced (hostile)", async () => {
      // A program awaiting a timer is as quiet as one holding its thread, but its runner answers
      // the watchdog and is never replaced. A client starting such runs 2 s apart kept some
      // runner "due" (replacementDue) for a burst's run, which then waited up to the whole retry
      // window (10 s) for replacements that never came while the spare stood idle.
      // The loader's clock is the test's alone: every quiet time below is exactly what it says
      // however slowly the machine runs the ticks (with the real clock beneath it, a loaded
      // machine made c late before the burst). The ticks only let the loader look again.
      let clock = 0;
      const sleeps: Handler = () => new Promise(() => {});
      const c = runner("c", sleeps);
      const d = runner("d", sleeps);
      const e = runner("e", sleeps);
      const a = servesOnceThenHolds("a");
      const spare = runner("spare");
      const loader = loaderOf([c, d, e, a, spare], { now: () => clock, spares: 1 });
      // The sleepers, 1.8 s apart: c, then d, then e.
      for (const next of [c, d, e]) {
        void run(loader);
        await tick(20);
        expect(next.sent, "each sleeper on its own runner").toHaveLength(1);
        clock += 1_800;
      }
      // a serves once and is idle.
      await run(loader);
      expect(a.sent).toHaveLength(1);
      clock = 9_500; // c quiet 9.5 s: due
      // The burst: one stall to a (sent, not called), then the run that finds only the spare.
      void run(loader);
      await tick(10);
      const late = run(loader);
      await tick(150);
      expect(spare.sent).toHaveLength(0);
      // c turns late as d turns due, then d late as e turns due: 3.6 s of one run's wait.
      clock += 1_800;
      await tick(150);
      clock += 1_800;
      await tick(150);
      expect(spare.sent).toHaveLength(1);
      expect(await late).toBe("spare");
    });

    it("never moves a run slow to begin onto the spare, even where it progresses", async () => {
      // A run slow to begin may be a blocking program (a stall on a fresh runner, loading the
      // shared worker's engine): moved beside a search on the spare, it held the spare into the
      // next round of e2e fair-share.
      const started = Date.now();
      const held = runner("held", holds);
      const slow = runner(
        "slow",
        async (_kind, _code, host) => {
          await tick(Math.max(0, 600 - (Date.now() - started)));
          begin(host);
          return { answer: "slow" };
        },
        false,
      );
      const spare = runner("spare", waitsOnHost);
      const loader = loaderOf([held, slow, spare], { spares: 1 });
      void run(loader); // → held
      const late = run(loader); // → slow (cold), which takes 600 ms to begin it
      void run(loader, waitingHost()); // → the spare (every other runner may be held): progresses
      expect(await late).toBe("slow");
      expect(spare.sent).toHaveLength(1);
    });

    it("waits for a starting runner past many short rests rather than join a run that may be blocking", async () => {
      // The slot refuses for 3.2 s (its runner starting on a loaded machine), resting 100–400 ms
      // between tries; the other runner holds its thread. Before, the run stopped looking after
      // 8 rests and joined the blocking program.
      const started = Date.now();
      const blocked = runner("blocked", holds);
      const starting = runner(
        "starting",
        async (_kind, _code, host) => {
          if (Date.now() - started < 3_200) throw new Error("connect ECONNREFUSED");
          begin(host);
          return { answer: "starting" };
        },
        false,
      );
      const loader = new RunnerLoader([blocked.api, starting.api]);
      void run(loader); // → blocked, which holds its thread from now on
      const answer = await Promise.race([run(loader), tick(4_800).then(() => "no answer")]);
      expect(answer).toBe("starting");
      expect(blocked.sent).toHaveLength(1);
    });
  });
});
