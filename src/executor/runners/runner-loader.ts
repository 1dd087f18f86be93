/**
 * The host side of local sandbox runners: a Worker Loader look-alike that the executors use in
 * place of `env.LOADER` when the local server runs its sandboxes in runner processes
 * (docs/local-runtime.md). Each run goes to the least busy runner over Workers RPC; the executors
 * keep everything else on the host (code preparation, the host bridge and its limits, the run's
 * clock, reading the answer), so a runner only ever holds what the sandbox holds.
 *
 * Runs avoid a runner whose runs have shown no progress for {@link RUNNER_STALL_MS} (a program
 * may be holding its thread). A runner that fails under a run (the supervisor replaced it because it stopped answering, or it
 * crashed) fails that run at once with {@link RUNNER_LOST}; runs on other runners go on. A runner
 * that failed is skipped for {@link RUNNER_REST_MS}, and a run that failed at once without
 * reaching the host is sent to the next runner, so a runner being replaced costs no run that had
 * not started.
 *
 * Does not do: load anything on the host. Deployed, the real `LOADER` binding is used instead.
 */
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";

/**
 * How long a runner that failed is passed over: the supervisor replaces a runner in 1–2 s on a
 * 2-core machine (3 s leaves room on a loaded one).
 */
export const RUNNER_REST_MS = 3_000;

/** The start of the message of a run whose runner went away under it. */
export const RUNNER_LOST = "the sandbox runner running this program stopped";

/**
 * How long a busy runner may show no sign of progress (no host call under way or made, no run
 * finished) before new runs prefer other runners: a program blocking its thread blocks every run
 * sent after it to that runner, until the supervisor replaces it (10 s). Honest programs either
 * call the host or finish well within this, or only lose their preference among idle runners.
 */
export const RUNNER_STALL_MS = 500;

/**
 * Wraps a run's host bridge so the loader sees each host call start and end (its sign of the
 * runner's progress). The Worker passes one that builds an `RpcTarget` (src/app/sandbox-loader.ts):
 * what the runner receives must cross Workers RPC.
 */
export type HostTracker = (host: unknown, onCall: (phase: "start" | "end") => void) => unknown;

interface HostCalls {
  call(...args: unknown[]): unknown;
}

/** A plain wrapper, for callers outside a Worker (tests). */
const plainTracker: HostTracker = (host, onCall) => ({
  call: async (...args: unknown[]) => {
    onCall("start");
    try {
      return await (host as HostCalls).call(...args);
    } finally {
      onCall("end");
    }
  },
});

interface Slot {
  runner: RunnerApi;
  busy: number;
  restUntil: number;
  /** Host calls under way from its runs. */
  calls: number;
  /** When its runs last showed progress (a host call began or ended, a run finished). */
  lastProgress: number;
  /** When its current busy stretch began. */
  since: number;
}

/** What the executors call on a loaded worker's entrypoint. */
type Dispatch = (runner: RunnerApi, request: unknown, host: unknown) => Promise<RunnerAnswer>;

/**
 * Host calls the run made so far: the executors pass their `HostBridge`, which counts them (an
 * object of ours, never the program's). Anything else counts as having made calls.
 */
function hostCalls(host: unknown): number {
  const calls = (host as { calls?: unknown } | null)?.calls;
  return typeof calls === "number" ? calls : 1;
}

/** Routes loads to runners; see the module comment. */
export class RunnerLoader {
  private readonly slots: Slot[];
  private next = 0;

  /**
   * @param runners - the runner bindings (at least one)
   * @param now - the clock (tests pass their own)
   * @param track - how a run's host bridge is wrapped to watch its calls (see {@link HostTracker})
   */
  constructor(
    runners: readonly RunnerApi[],
    private readonly now: () => number = Date.now,
    private readonly track: HostTracker = plainTracker,
  ) {
    if (runners.length === 0) throw new RangeError("RunnerLoader needs at least one runner.");
    this.slots = runners.map((runner) => ({
      runner,
      busy: 0,
      restUntil: 0,
      calls: 0,
      lastProgress: 0,
      since: 0,
    }));
  }

  /** Runs in flight per runner, in binding order (for the status report and tests). */
  busy(): number[] {
    return this.slots.map((slot) => slot.busy);
  }

  /** A fresh worker per run, on a runner chosen when the run starts. */
  load(code: WorkerLoaderWorkerCode): WorkerStub {
    return this.stub((runner, request, host) => runner.load(code, request, host));
  }

  /** The stable worker `id` on the runner chosen when the run starts (its code sent once). */
  get(
    id: string | null,
    getCode: () => WorkerLoaderWorkerCode | Promise<WorkerLoaderWorkerCode>,
  ): WorkerStub {
    const key = id ?? "default";
    return this.stub(async (runner, request, host) => {
      const first = await runner.get(key, null, request, host);
      if (!("missingCode" in first)) return first;
      return runner.get(key, await getCode(), request, host);
    });
  }

  private stub(dispatch: Dispatch): WorkerStub {
    const entry = { run: (request: unknown, host: unknown) => this.run(dispatch, request, host) };
    return { getEntrypoint: () => entry } as unknown as WorkerStub;
  }

  /**
   * Sends one run to a runner. A runner that fails is passed over for {@link RUNNER_REST_MS}
   * (the supervisor is replacing it); a run whose runner failed at once, before the run reached
   * any host function, had no effect outside its sandbox and is sent to another runner once.
   */
  private async run(dispatch: Dispatch, request: unknown, host: unknown): Promise<unknown> {
    for (let retried = false; ; retried = true) {
      const slot = this.pick();
      const sent = this.now();
      if (slot.busy++ === 0) slot.since = sent;
      const tracked = this.track(host, (phase) => {
        slot.calls += phase === "start" ? 1 : -1;
        slot.lastProgress = this.now();
      });
      let answer: RunnerAnswer;
      try {
        answer = await dispatch(slot.runner, request, tracked);
      } catch (error) {
        const failedAt = this.now();
        slot.restUntil = failedAt + RUNNER_REST_MS;
        const harmless = failedAt - sent < RUNNER_REST_MS && hostCalls(host) === 0;
        if (!retried && harmless && this.slots.length > 1) continue;
        throw new Error(
          `${RUNNER_LOST} (runner ${this.slots.indexOf(slot) + 1}: ${errorText(error)}). The local server replaces a runner that stops answering for a while (a program blocking its thread: a catastrophic regular expression, a huge native loop) or that crashed; runs on other runners were not affected. Retrying is safe unless the program wrote something before this point.`,
          { cause: error },
        );
      } finally {
        slot.busy--;
        slot.lastProgress = this.now();
      }
      if ("answer" in answer) return answer.answer;
      // The loaded worker's own failure, as the in-process loader would have thrown it.
      throw new Error("thrown" in answer ? answer.thrown : "the runner did not send the code");
    }
  }

  /**
   * The runner for the next run: one that is neither resting nor stalled if there is one, the
   * least busy among those, ties taken in turn.
   */
  private pick(): Slot {
    const now = this.now();
    const count = this.slots.length;
    const rank = (slot: Slot): number => {
      if (slot.restUntil > now) return 2;
      const stalled =
        slot.busy > 0 &&
        slot.calls === 0 &&
        now - Math.max(slot.lastProgress, slot.since) > RUNNER_STALL_MS;
      return stalled ? 1 : 0;
    };
    let best: Slot | undefined;
    let bestRank = 3;
    for (let i = 0; i < count; i++) {
      const slot = this.slots[(this.next + i) % count]!;
      const r = rank(slot);
      if (!best || r < bestRank || (r === bestRank && slot.busy < best.busy)) {
        best = slot;
        bestRank = r;
      }
    }
    this.next = (this.next + 1) % count;
    return best!;
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
