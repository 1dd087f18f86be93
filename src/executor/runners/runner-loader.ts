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
 * not started. A runner being retired (runner-life.ts) begins no run: the run goes to another
 * runner, and the retiring one is passed over like one that failed.
 *
 * Does not do: load anything on the host. Deployed, the real `LOADER` binding is used instead.
 */
import { CodeModeError } from "../../errors";
import { codeHash } from "./code-hash";
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
 * How long a runner may take to begin a run it was sent before the run is moved to another
 * runner: a runner whose thread a program holds cannot even begin the runs queued behind it.
 * The first copy is cancelled (its host calls are refused), so a run is never carried out twice
 * with effects.
 */
export const RUNNER_BEGIN_MS = 250;

/** What a {@link HostTracker} reports about one run on one runner. */
export interface HostEvents {
  /** A host call of the run began or ended. */
  onCall(phase: "start" | "end"): void;
  /** The runner is beginning the run (it waits for the tracker's yes before it does). */
  onBegin(): void;
}

/**
 * Wraps a run's host bridge for one runner: the loader learns when the runner begins the run and
 * when its host calls start and end (its signs of progress), and can cut the run off from the
 * host (`close`: its calls are refused from then on). The Worker passes one that builds an
 * `RpcTarget` (tracked-host.ts): what the runner receives must cross Workers RPC.
 */
export type HostTracker = (host: unknown, events: HostEvents) => { target: unknown; close(): void };

interface HostCalls {
  call(...args: unknown[]): unknown;
}

/** A plain wrapper, for callers outside a Worker (tests). */
const plainTracker: HostTracker = (host, events) => {
  let closed = false;
  return {
    target: {
      begin: () => {
        if (closed) return false;
        events.onBegin();
        return true;
      },
      overLimit: (namespace: unknown, name: unknown) =>
        closed
          ? { error: { name: "Error", message: MOVED } }
          : (host as { refuseOverLimit?(ns: unknown, n: unknown): unknown }).refuseOverLimit?.(
              namespace,
              name,
            ),
      overWaiting: (namespace: unknown, name: unknown) =>
        closed
          ? { error: { name: "Error", message: MOVED } }
          : (host as { refuseWaiting?(ns: unknown, n: unknown): unknown }).refuseWaiting?.(
              namespace,
              name,
            ),
      call: async (...args: unknown[]) => {
        if (closed) return { error: { name: "Error", message: MOVED } };
        events.onCall("start");
        try {
          return await (host as HostCalls).call(...args);
        } finally {
          events.onCall("end");
        }
      },
    },
    close: () => {
      closed = true;
    },
  };
};

/** What a cancelled copy of a run gets for a host call (it is never read: the run moved). */
export const MOVED = "This run was moved to another runner; this copy may not call the host.";

interface Slot {
  runner: RunnerApi;
  busy: number;
  restUntil: number;
  /** Host calls under way from its runs. */
  calls: number;
  /** Its runs with a host call under way (they wait on the host, not on the runner's thread). */
  waiting: number;
  /** When its runs last showed progress (a host call began or ended, a run finished). */
  lastProgress: number;
  /** When its current busy stretch began. */
  since: number;
  /** Until when it counts as stalled after failing to begin a run in time. */
  lateUntil: number;
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

/** The start of the message of a run its runner gave up (sandbox-runner.ts: `timedOut`). */
export const RUNNER_GAVE_UP = "TimeoutError: the sandbox runner gave this run up";

/** Routes loads to runners; see the module comment. */
export class RunnerLoader {
  private readonly slots: Slot[];
  private next = 0;
  /** Stable workers' code hashes by id, each computed once (code-hash.ts). */
  private readonly hashes = new Map<string, Promise<string>>();

  /**
   * @param runners - the runner bindings (at least one)
   * @param now - the clock (tests pass their own)
   * @param track - how a run's host bridge is wrapped to watch its calls (see {@link HostTracker})
   * @param secret - the local cluster's secret (cluster-secret.ts), sent first in every call: a
   *   runner refuses calls without it
   */
  constructor(
    runners: readonly RunnerApi[],
    private readonly now: () => number = Date.now,
    private readonly track: HostTracker = plainTracker,
    private readonly secret: string = "",
  ) {
    if (runners.length === 0)
      throw new CodeModeError("invalid_option", "RunnerLoader needs at least one runner binding.");
    this.slots = runners.map((runner) => ({
      runner,
      busy: 0,
      restUntil: 0,
      calls: 0,
      waiting: 0,
      lastProgress: 0,
      since: 0,
      lateUntil: 0,
    }));
  }

  /** Runs in flight per runner, in binding order (for the status report and tests). */
  busy(): number[] {
    return this.slots.map((slot) => slot.busy);
  }

  /** A fresh worker per run, on a runner chosen when the run starts. */
  load(code: WorkerLoaderWorkerCode): WorkerStub {
    return this.stub((runner, request, host) => runner.load(this.secret, code, request, host));
  }

  /**
   * The stable worker `id` on the runner chosen when the run starts (its code sent once). A
   * runner knows it by its code's hash, computed here once per id (the code built once for it),
   * so a runner runs under that name only the code the name was made from.
   */
  get(
    id: string | null,
    getCode: () => WorkerLoaderWorkerCode | Promise<WorkerLoaderWorkerCode>,
  ): WorkerStub {
    const key = id ?? "default";
    return this.stub(async (runner, request, host) => {
      const hash = await this.hashOf(key, getCode);
      const first = await runner.get(this.secret, hash, null, request, host);
      if (!("missingCode" in first)) return first;
      return runner.get(this.secret, hash, await getCode(), request, host);
    });
  }

  /** The code hash of stable worker `key` (a failed build is tried again next time). */
  private hashOf(
    key: string,
    getCode: () => WorkerLoaderWorkerCode | Promise<WorkerLoaderWorkerCode>,
  ): Promise<string> {
    let hash = this.hashes.get(key);
    if (!hash) {
      hash = (async () => codeHash(await getCode()))();
      this.hashes.set(key, hash);
      hash.catch(() => this.hashes.delete(key));
    }
    return hash;
  }

  private stub(dispatch: Dispatch): WorkerStub {
    const entry = { run: (request: unknown, host: unknown) => this.run(dispatch, request, host) };
    return { getEntrypoint: () => entry } as unknown as WorkerStub;
  }

  /**
   * Sends one run to a runner. A runner that fails is passed over for {@link RUNNER_REST_MS}
   * (the supervisor is replacing it); a run whose runner failed at once, before the run reached
   * any host function, had no effect outside its sandbox and is sent to another runner once. A
   * run its runner has not begun within {@link RUNNER_BEGIN_MS} is moved to a runner that shows
   * progress, if there is one (at most once per other runner).
   */
  private async run(dispatch: Dispatch, request: unknown, host: unknown): Promise<unknown> {
    let retried = false;
    let moves = 0;
    let retirements = 0;
    for (;;) {
      const slot = this.pick();
      const sent = this.now();
      if (slot.busy++ === 0) slot.since = sent;
      let begun = false;
      let ownCalls = 0;
      // Calls that end after their run settled (aborted with it) are no longer this slot's.
      let settledYet = false;
      const tracked = this.track(host, {
        onCall: (phase) => {
          if (settledYet) return;
          const delta = phase === "start" ? 1 : -1;
          slot.calls += delta;
          ownCalls += delta;
          // This run waits on the host while it has a call under way.
          if (phase === "start" ? ownCalls === 1 : ownCalls === 0) slot.waiting += delta;
          slot.lastProgress = this.now();
        },
        onBegin: () => {
          begun = true;
          slot.lastProgress = this.now();
        },
      });
      const settled = dispatch(slot.runner, request, tracked.target).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      // Registered first, so it runs before this function goes on.
      void settled.then(() => {
        settledYet = true;
        slot.busy--;
        if (ownCalls > 0) slot.waiting--;
        slot.calls -= ownCalls;
        ownCalls = 0;
        slot.lastProgress = this.now();
      });
      let outcome: { answer: RunnerAnswer } | { error: unknown } | "late" = await (moves <
      this.slots.length - 1
        ? Promise.race([settled, this.after(RUNNER_BEGIN_MS)])
        : settled);
      if (outcome === "late") {
        if (!begun && this.progressElsewhere(slot)) {
          tracked.close();
          slot.lateUntil = this.now() + RUNNER_STALL_MS;
          moves++;
          continue;
        }
        outcome = await settled;
      }
      if ("error" in outcome) {
        const failedAt = this.now();
        slot.restUntil = failedAt + RUNNER_REST_MS;
        const harmless = failedAt - sent < RUNNER_REST_MS && hostCalls(host) === 0;
        if (!retried && harmless && this.slots.length > 1) {
          retried = true;
          continue;
        }
        throw new Error(
          `${RUNNER_LOST} (runner ${this.slots.indexOf(slot) + 1}: ${errorText(outcome.error)}). The local server replaces a runner that stops answering for a while (a program blocking its thread: a catastrophic regular expression, a huge native loop) or that crashed; runs on other runners were not affected. Retrying is safe unless the program wrote something before this point.`,
          { cause: outcome.error },
        );
      }
      const answer = outcome.answer;
      if ("retiring" in answer) {
        // The supervisor is retiring this runner (runner-life.ts): it began nothing. Passed
        // over until its fresh successor serves; the run goes to another runner.
        slot.restUntil = this.now() + RUNNER_REST_MS;
        if (++retirements < this.slots.length) continue;
        throw new Error(
          `${RUNNER_LOST}: every runner was retiring at once (the local server retires one at a time; with a single runner, or when another process on this machine sent them POST /retire, it is replaced within seconds). Retrying is safe: the program did not start.`,
        );
      }
      if ("answer" in answer) return answer.answer;
      if ("timedOut" in answer)
        // Read by no one in practice: the host's own clock, started before the run was sent,
        // ended the run (TimeoutError) before the runner's, which adds a margin.
        throw new Error(
          `${RUNNER_GAVE_UP}: it was still going past its timeout. Make the program finish within its timeoutMs.`,
        );
      // The loaded worker's own failure, as the in-process loader would have thrown it.
      throw new Error("thrown" in answer ? answer.thrown : "the runner did not send the code");
    }
  }

  /** Settles with "late" after `ms` (the timer does not keep anything alive once it fired). */
  private after(ms: number): Promise<"late"> {
    return new Promise((resolve) => setTimeout(() => resolve("late"), ms));
  }

  /** Whether another runner than `slot` is neither resting nor stalled. */
  private progressElsewhere(slot: Slot): boolean {
    const now = this.now();
    return this.slots.some((other) => other !== slot && this.rank(other, now) === 0);
  }

  /** 0: ready; 1: stalled (busy without progress, or late to begin a run); 2: resting. */
  private rank(slot: Slot, now: number): number {
    if (slot.restUntil > now) return 2;
    if (slot.lateUntil > now) return 1;
    const stalled =
      slot.busy > 0 &&
      slot.calls === 0 &&
      now - Math.max(slot.lastProgress, slot.since) > RUNNER_STALL_MS;
    return stalled ? 1 : 0;
  }

  /**
   * The runner for the next run: one that is neither resting nor stalled if there is one; among
   * those the one with the fewest runs using its thread (runs waiting on a host call do not), then
   * the fewest runs in all; ties taken in turn.
   */
  private pick(): Slot {
    const now = this.now();
    const count = this.slots.length;
    let best: Slot | undefined;
    let bestRank = 3;
    for (let i = 0; i < count; i++) {
      const slot = this.slots[(this.next + i) % count]!;
      const r = this.rank(slot, now);
      if (!best || r < bestRank || (r === bestRank && load(slot) < load(best))) {
        best = slot;
        bestRank = r;
      }
    }
    this.next = (this.next + 1) % count;
    return best!;
  }
}

/**
 * How loaded a runner's thread is, for choosing: runs on it that are not waiting on the host
 * first (a program computing, or holding the thread, delays every run beside it), then all runs.
 */
function load(slot: Slot): number {
  return (slot.busy - slot.waiting) * 1_000 + slot.busy;
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
