/**
 * The host side of local sandbox runners: a Worker Loader look-alike that the executors use in
 * place of `env.LOADER` when the local server runs its sandboxes in runner processes
 * (docs/local-runtime.md). The executors keep everything else on the host (code preparation, the
 * host bridge and its limits, the run's clock, reading the answer), so a runner only ever holds
 * what the sandbox holds.
 *
 * Placement (docs/local-runtime.md, "Placement"): each run goes to the best runner by
 * {@link RunnerTier}: one with nothing under way, then one whose runs all show progress (they
 * call the host), then one that may be blocked (its newest run began less than
 * {@link RUNNER_STALL_MS} ago and has neither called the host nor finished: a program that holds
 * its thread looks exactly like this at first), then a stalled one (a run quiet for longer),
 * then a resting one; within a tier the one with the fewest runs using its thread, ties in turn.
 * A run quiet for longer than {@link RUNNER_HELD_MAX_MS} is not holding its runner's thread (the
 * supervisor replaces a runner held that long, and its runs then fail): it waits on something
 * (a run the host gave up on may live on in its runner) and stops counting against its runner,
 * so such a run never keeps a runner out of use. One caller (src/app/placement-caller.ts) may have runs
 * on at most all runners but one; its further runs go to runners it already uses, or wait
 * (bounded) when all of those are stalled, so the last runner stays free for others.
 *
 * A runner that fails under a run (the supervisor replaced it because it stopped answering, or it
 * crashed) fails that run at once with {@link RUNNER_LOST}; runs on other runners go on. A runner
 * that failed, or refused a run (its slot's runner is not running yet: connection refused), is
 * skipped for {@link RUNNER_RETRY_MS}, doubled for each failure in a row up to
 * {@link RUNNER_RETRY_MAX_MS}, so a runner that just started is used within a moment; a run
 * whose best runner may be blocked waits for such a rest to end rather than go there. A run that failed before reaching the host is sent to the next
 * runner, so a runner being replaced costs no run that had not started. A runner being retired
 * (runner-life.ts) begins no run: the run goes to another runner, and the retiring one is passed
 * over for {@link RUNNER_REST_MS}.
 *
 * Does not do: load anything on the host. Deployed, the real `LOADER` binding is used instead.
 */
import { CodeModeError } from "../../errors";
import { codeHash } from "./code-hash";
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";

/**
 * How long a runner that said it is retiring is passed over: the supervisor replaces a runner in
 * 1–2 s on a 2-core machine (3 s leaves room on a loaded one). A run that failed later than this
 * after it was sent is never sent again (it may have been the program holding the runner).
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

/**
 * How long a run may go without a sign of progress and still be taken to hold its runner's
 * thread. The supervisor replaces a runner whose `/health` goes unanswered for 10 s, and its runs
 * then fail; so a run quiet for longer holds no thread: it waits on something (timers, or it is a
 * run the host gave up on that lives on in its runner). Without this bound such a run marked its
 * runner stalled for as long as it lived, and the host stopped sending runs to a healthy runner
 * for minutes. 15 s: the watchdog's 10 s, its probe pause, and a loaded machine's slack.
 */
export const RUNNER_HELD_MAX_MS = 15_000;

/**
 * How long a runner that failed is passed over the first time: doubled for each failure in a row
 * (a run it begins resets the count), at most {@link RUNNER_RETRY_MAX_MS}. Short on purpose: the
 * supervisor replaces a failed runner within 1–2 s, and its slot refuses connections at once
 * until then, so trying it again costs a run only a retry on another runner, while a rest of
 * seconds hid a runner that had just started (its replacement, or a spare the supervisor brought
 * up because every other runner is held) for that long: in e2e fair-share, a round of stalls 11 s
 * after the first found two runners resting and all three went to the third.
 */
export const RUNNER_RETRY_MS = 100;

/**
 * The longest pause after failures in a row: a slot is tried at least this often while it keeps
 * refusing (a refused connection costs next to nothing), so a runner that has just started is
 * used within this long. A run whose best runner may be blocked waits this long at most for a
 * resting runner instead.
 */
export const RUNNER_RETRY_MAX_MS = 400;

/**
 * How long a run that no runner began is sent on to other runners when they fail or refuse it:
 * while every runner is being replaced (a round of blocking programs on all of them), a run is
 * held on the host until one serves again, rather than failing.
 */
export const RUNNER_RETRY_WINDOW_MS = 5_000;

/**
 * Runs of one caller that may wait at once for a runner it may use (see {@link CALLER_BUSY});
 * one more fails at once. Bounds what a caller that starts many blocking programs parks here.
 */
export const CALLER_QUEUE_MAX = 16;

/**
 * How long a caller's run waits for a runner it may use before it fails: past the time the
 * supervisor takes to replace a runner that a program holds (10 s and a moment), after which the
 * caller's runs there have failed and its runners serve again; below {@link RUNNER_HELD_MAX_MS}.
 */
export const CALLER_WAIT_MS = 12_000;

/** Pause between two looks for a runner while a caller's run waits. */
const CALLER_LOOK_MS = 50;

/** The start of the message of a run that found no runner its caller may use. */
export const CALLER_BUSY =
  "this caller's runs already use every sandbox runner one caller may use, and none of them is free";

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

/** One run on one runner, as placement sees it. */
interface RunOnSlot {
  /** Whose run it is ("": no caller named, never capped). */
  caller: string;
  /** When it was sent, began, or a host call of it began or ended: its last sign of progress. */
  lastProgress: number;
  /** Host calls of it under way (it waits on the host, not on the runner's thread). */
  inCall: number;
  /** Whether it has called the host at all (one that has not may be holding the thread). */
  called: boolean;
}

interface Slot {
  runner: RunnerApi;
  /** Runs sent to it and not settled. */
  runs: Set<RunOnSlot>;
  restUntil: number;
  /** Refusals at once in a row (see RUNNER_RETRY_MS); a run it begins resets them. */
  refusals: number;
  /** Until when it counts as stalled after failing to begin a run in time. */
  lateUntil: number;
}

/**
 * How fit a runner is for a new run, best first (the module comment says why in this order).
 * A runner's tier is the worst of its runs', or idle, stalled or resting by its own state.
 */
const IDLE = 0;
const PROGRESSING = 1;
const MAYBE_BLOCKED = 2;
const STALLED = 3;
const RESTING = 4;

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
  /** Runs waiting for a runner, per caller. */
  private readonly waiting = new Map<string, number>();

  /**
   * @param runners - the runner bindings (at least one)
   * @param now - the clock (tests pass their own)
   * @param track - how a run's host bridge is wrapped to watch its calls (see {@link HostTracker})
   * @param secret - the local cluster's secret (cluster-secret.ts), sent first in every call: a
   *   runner refuses calls without it
   * @param callerOf - who is starting the run now ("": nobody in particular, never capped); the
   *   Worker passes the caller of the request being served (src/app/placement-caller.ts)
   */
  constructor(
    runners: readonly RunnerApi[],
    private readonly now: () => number = Date.now,
    private readonly track: HostTracker = plainTracker,
    private readonly secret: string = "",
    private readonly callerOf: () => string = () => "",
  ) {
    if (runners.length === 0)
      throw new CodeModeError("invalid_option", "RunnerLoader needs at least one runner binding.");
    this.slots = runners.map((runner) => ({
      runner,
      runs: new Set(),
      restUntil: 0,
      refusals: 0,
      lateUntil: 0,
    }));
  }

  /** Runs in flight per runner, in binding order (for the status report and tests). */
  busy(): number[] {
    return this.slots.map((slot) => slot.runs.size);
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
   * Sends one run to a runner. A runner that fails is passed over for a moment that doubles
   * while it keeps failing ({@link RUNNER_RETRY_MS}); a run whose runner failed before the run
   * reached any host function had no effect outside its sandbox and is sent to another runner:
   * any number of times within {@link RUNNER_RETRY_WINDOW_MS} when no runner began it, once when
   * one did. A run its runner has not begun within {@link RUNNER_BEGIN_MS} is moved to an idle
   * runner or one whose runs show progress as soon as there is one, never to one that may be
   * blocked (at most once per other runner).
   */
  private async run(dispatch: Dispatch, request: unknown, host: unknown): Promise<unknown> {
    const caller = this.callerOf();
    const firstSent = this.now();
    let retriesBegun = 0;
    let moves = 0;
    /** The runners that answered they are retiring, during this run's placement. */
    const retiring = new Set<Slot>();
    let chosen: Slot | undefined;
    for (;;) {
      // Placed at once when it can be (no await: the run is under way before this call returns).
      let slot = chosen ?? this.pick(caller) ?? (await this.wait(caller));
      // A runner that may be blocked costs a run up to 10 s and then its failure; one whose short
      // rest is about to end costs a refused connection at worst: wait for that one (bounded).
      // Only a run not being moved here waits (`chosen` is set by the code after this loop).
      for (
        let looks = 0;
        // eslint-disable-next-line no-unmodified-loop-condition
        !chosen && looks < 8 && this.tier(slot, this.now()) >= MAYBE_BLOCKED;
        looks++
      ) {
        const soon = this.restEndingSoon();
        if (soon === undefined || soon - firstSent > RUNNER_RETRY_WINDOW_MS) break;
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, soon - this.now())));
        slot = this.pick(caller) ?? (await this.wait(caller));
      }
      chosen = undefined;
      const sent = this.now();
      const mine: RunOnSlot = { caller, lastProgress: sent, inCall: 0, called: false };
      slot.runs.add(mine);
      let begun = false;
      // Calls that end after their run settled (aborted with it) are no longer this slot's.
      let settledYet = false;
      const tracked = this.track(host, {
        onCall: (phase) => {
          if (settledYet) return;
          mine.inCall += phase === "start" ? 1 : -1;
          mine.called = true;
          mine.lastProgress = this.now();
        },
        onBegin: () => {
          begun = true;
          slot.refusals = 0;
          mine.lastProgress = this.now();
        },
      });
      const settled = dispatch(slot.runner, request, tracked.target).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      // Registered first, so it runs before this function goes on.
      void settled.then(() => {
        settledYet = true;
        slot.runs.delete(mine);
      });
      let outcome: { answer: RunnerAnswer } | { error: unknown } | "late" = await (moves <
      this.slots.length - 1
        ? Promise.race([settled, this.after(RUNNER_BEGIN_MS)])
        : settled);
      // Not begun in time: moved as soon as a better runner is there (looked for again every
      // RUNNER_BEGIN_MS: a runner may be slow to begin for a while, e.g. a fresh one loading the
      // shared worker's engine, while the others' runs are at a moment that may be blocking).
      // `begun` is set by the tracker's onBegin callback while this loop awaits.
      // eslint-disable-next-line no-unmodified-loop-condition
      while (outcome === "late" && !begun) {
        const better = this.pick(caller, slot);
        if (better && this.tier(better, this.now()) <= PROGRESSING) {
          chosen = better;
          break;
        }
        outcome = await Promise.race([settled, this.after(RUNNER_BEGIN_MS)]);
      }
      if (chosen) {
        tracked.close();
        slot.lateUntil = this.now() + RUNNER_STALL_MS;
        // The cancelled copy begins nothing: it no longer counts as its caller's.
        mine.caller = "";
        moves++;
        continue;
      }
      if (outcome === "late") outcome = await settled;
      if ("error" in outcome) {
        const failedAt = this.now();
        // Passed over briefly, doubling while it keeps failing (see RUNNER_RETRY_MS): a runner
        // being replaced serves again within 1–2 s, and trying it costs a refused connection.
        slot.restUntil =
          failedAt + Math.min(RUNNER_RETRY_MAX_MS, RUNNER_RETRY_MS * 2 ** slot.refusals++);
        const harmless = failedAt - sent < RUNNER_REST_MS && hostCalls(host) === 0;
        // Never begun: the program did not run, so runners are tried until one takes it (within
        // RUNNER_RETRY_WINDOW_MS). Begun: one more runner only, so a program that crashes its
        // runner at once cannot crash them all.
        const again = begun ? retriesBegun++ < 1 : failedAt - firstSent < RUNNER_RETRY_WINDOW_MS;
        if (harmless && again) {
          await this.firstRestEnd();
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
        // Counted by runner, not by answer: a retiring runner may be looked at again once its
        // rest ends (placement holds runs while every runner rests), and two answers of one
        // runner are not "every runner".
        slot.restUntil = this.now() + RUNNER_REST_MS;
        retiring.add(slot);
        if (retiring.size < this.slots.length) continue;
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

  /** When the first rest of at most RUNNER_RETRY_MAX_MS from now ends, if one does. */
  private restEndingSoon(): number | undefined {
    const now = this.now();
    let soon: number | undefined;
    for (const slot of this.slots)
      if (slot.restUntil > now && slot.restUntil - now <= RUNNER_RETRY_MAX_MS)
        soon = Math.min(soon ?? slot.restUntil, slot.restUntil);
    return soon;
  }

  /** Waits until the first runner's rest ends, when every runner rests (a retry would fail). */
  private async firstRestEnd(): Promise<void> {
    const now = this.now();
    const ends = Math.min(...this.slots.map((slot) => slot.restUntil));
    if (ends > now) await new Promise((resolve) => setTimeout(resolve, ends - now));
  }

  /** Settles with "late" after `ms` (the timer does not keep anything alive once it fired). */
  private after(ms: number): Promise<"late"> {
    return new Promise((resolve) => setTimeout(() => resolve("late"), ms));
  }

  /**
   * The runner for a run of `caller` that {@link pick} found none for: the run waits, looking
   * again every {@link CALLER_LOOK_MS}, at most {@link CALLER_WAIT_MS}, with at most
   * {@link CALLER_QUEUE_MAX} runs of the caller waiting at once.
   */
  private async wait(caller: string): Promise<Slot> {
    const waiting = this.waiting.get(caller) ?? 0;
    if (waiting >= CALLER_QUEUE_MAX)
      throw new Error(
        `${CALLER_BUSY}, and ${CALLER_QUEUE_MAX} more of its runs already wait for one. One caller (an OAuth user, or a client address) may use all runners but one, so that other callers always find one; its runs there have shown no progress for a while (programs holding their runner's thread). Wait for your runs to finish, then retry: the program did not start.`,
      );
    this.waiting.set(caller, waiting + 1);
    try {
      const deadline = this.now() + CALLER_WAIT_MS;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, CALLER_LOOK_MS));
        const slot = this.pick(caller);
        if (slot) return slot;
        if (this.now() >= deadline)
          throw new Error(
            `${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms). One caller (an OAuth user, or a client address) may use all runners but one, so that other callers always find one; its runs there have shown no progress (programs holding their runner's thread). Retry once they ended: the program did not start.`,
          );
      }
    } finally {
      const left = (this.waiting.get(caller) ?? 1) - 1;
      if (left > 0) this.waiting.set(caller, left);
      else this.waiting.delete(caller);
    }
  }

  /**
   * How fit `slot` is for a new run (IDLE … RESTING): its own rest or lateness, else the worst of
   * its runs' tiers. A run is progressing while it waits in a host call, or when it has called
   * the host and shown progress within {@link RUNNER_STALL_MS}; it may be blocking when it has
   * not called the host yet and began less than that ago; stalled when quiet for longer; and
   * quiet past {@link RUNNER_HELD_MAX_MS} it holds no thread (see there) and counts as waiting.
   */
  private tier(slot: Slot, now: number): number {
    if (slot.restUntil > now) return RESTING;
    if (slot.lateUntil > now) return STALLED;
    let tier = IDLE;
    for (const run of slot.runs) {
      const quiet = now - run.lastProgress;
      const own =
        run.inCall > 0 || quiet > RUNNER_HELD_MAX_MS
          ? PROGRESSING
          : quiet > RUNNER_STALL_MS
            ? STALLED
            : run.called
              ? PROGRESSING
              : MAYBE_BLOCKED;
      if (own > tier) tier = own;
    }
    return tier;
  }

  /**
   * The runner for the next run of `caller` (other than `except`): the best tier, then the
   * fewest runs using its thread, then the fewest runs, ties in turn. A caller with runs on all
   * runners but one already is kept to those runners: it gets the best of them unless every one
   * is stalled or resting, and then none (its run waits: {@link wait}).
   */
  private pick(caller: string, except?: Slot): Slot | undefined {
    const now = this.now();
    const count = this.slots.length;
    const capped =
      caller !== "" &&
      count > 1 &&
      this.slots.filter((slot) => usedBy(slot, caller)).length >= count - 1;
    let best: Slot | undefined;
    let bestTier = RESTING + 1;
    let bestLoad = 0;
    for (let i = 0; i < count; i++) {
      const slot = this.slots[(this.next + i) % count]!;
      if (slot === except || (capped && !usedBy(slot, caller))) continue;
      const tier = this.tier(slot, now);
      const load = threadLoad(slot, now);
      if (!best || tier < bestTier || (tier === bestTier && load < bestLoad)) {
        best = slot;
        bestTier = tier;
        bestLoad = load;
      }
    }
    this.next = (this.next + 1) % count;
    if (capped && bestTier >= STALLED) return undefined;
    return best;
  }
}

/** Whether `caller` has a run on `slot`. */
function usedBy(slot: Slot, caller: string): boolean {
  for (const run of slot.runs) if (run.caller === caller) return true;
  return false;
}

/**
 * How loaded a runner's thread is, for choosing within a tier: its runs that may be using the
 * thread first (not waiting in a host call, not quiet past RUNNER_HELD_MAX_MS: a program
 * computing, or holding the thread, delays every run beside it), then all its runs.
 */
function threadLoad(slot: Slot, now: number): number {
  let using = 0;
  for (const run of slot.runs)
    if (run.inCall === 0 && now - run.lastProgress <= RUNNER_HELD_MAX_MS) using++;
  return using * 1_000 + slot.runs.size;
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
