/**
 * The host side of local sandbox runners: a Worker Loader look-alike that the executors use in
 * place of `env.LOADER` when the local server runs its sandboxes in runner processes
 * (docs/local-runtime.md). The executors keep everything else on the host (code preparation, the
 * host bridge and its limits, the run's clock, reading the answer), so a runner only ever holds
 * what the sandbox holds.
 *
 * Placement (which runner a run goes to, and how long a run waits for one) is the placement/
 * room: decided in placement/runner-placement.ts, a run's wait for a better runner before it is
 * sent in placement/run-placement.ts, runs that wait served in turn from one line
 * (placement/slot-chooser.ts, placement/caller-queue.ts), and a run's place on its slot held only
 * while its request lives (placement/run-lease.ts). How the loader learns of a run's progress is host-tracker.ts; which
 * cold slot is rung ahead of the work (the warm reserve) is runner-reserve.ts. This file sends
 * runs and handles what runners answer.
 *
 * A runner that fails under a run (the supervisor replaced it because it stopped answering, or it
 * crashed) fails that run at once with {@link RUNNER_LOST}; runs on other runners go on. A runner
 * that failed, or refused a run (its slot's runner is not running yet: connection refused), is
 * skipped for {@link RUNNER_RETRY_MS}, doubled for each failure in a row up to
 * {@link RUNNER_RETRY_MAX_MS}, so a runner that just started is used within a moment; a run
 * whose best runner may be blocked waits for such a rest to end rather than go there. A run that failed before reaching the host is sent to the next
 * runner, so a runner being replaced costs no run that had not started. A runner being retired
 * (runner-life.ts) begins no run: the run goes to another runner, and the retiring one is passed
 * over for {@link RUNNER_REST_MS}; when every runner is retiring the run is held until a fresh one
 * begins it (within {@link RUNNER_RETRY_WINDOW_MS}). A run whose host gave it up while it waited
 * (its timeout, a cancel) is never sent.
 *
 * Does not do: load anything on the host. Deployed, the real `LOADER` binding is used instead.
 */
import { CodeModeError } from "../../errors";
import { codeHash } from "./code-hash";
import { PROGRAM_MODULE, baseHashCache, splitRunCode } from "./run-base";
import { plainTracker, type HostTracker } from "./host-tracker";
import type { RunnerAnswer, RunnerApi } from "./runner-protocol";
import {
  PROGRESSING,
  RUNNER_HELD_MAX_MS,
  RUNNER_STALL_MS,
  asked,
  tierOf,
  type Claim,
  type RunOnSlot,
} from "./placement/runner-placement";
import { RESERVE_RING, slotToRing, type ReserveSlot } from "./runner-reserve";
import { dropLapsed, renewLease } from "./placement/run-lease";
import { forgetStale, type Forgotten } from "./stale-slot";
import { RUNNER_RETRY_WINDOW_MS } from "./placement/run-placement";
import { RUNNER_RETRY_MAX_MS, SlotChooser } from "./placement/slot-chooser";

export {
  RUNNER_LOOK_MS,
  RUNNER_RETIRED_LOOK_MS,
  RUNNER_RETRY_WINDOW_MS,
} from "./placement/run-placement";
export { RUNNER_RETRY_MAX_MS } from "./placement/slot-chooser";

/**
 * How long a runner that said it is retiring is passed over: the supervisor replaces a runner in
 * 1–2 s on a 2-core machine (3 s leaves room on a loaded one). A run that failed later than this
 * after it was sent is never sent again (it may have been the program holding the runner).
 */
export const RUNNER_REST_MS = 3_000;

/** The start of the message of a run whose runner went away under it. */
export const RUNNER_LOST = "the sandbox runner running this program stopped";

/**
 * How long a runner may take to begin a run it was sent before the run is moved to another
 * runner: a runner whose thread a program holds cannot even begin the runs queued behind it.
 * The first copy is cancelled (its host calls are refused), so a run is never carried out twice
 * with effects.
 */
export const RUNNER_BEGIN_MS = 250;

/**
 * How long a runner that failed is passed over the first time: doubled for each failure in a row
 * (a run it begins resets the count), at most {@link RUNNER_RETRY_MAX_MS}. Short on purpose: the
 * supervisor replaces a failed runner within 1–2 s, and its slot refuses connections at once
 * until then, so trying it again costs a run only a retry on another runner, while a rest of
 * seconds hid a runner that had just started (its replacement, or a spare the supervisor brought
 * up because every other runner is held) for that long: in e2e fair-share, a round of stalls 11 s
 * after the first found two runners resting and all three went to the third.
 */
export const RUNNER_RETRY_MS = 50;

/** One runner, as the loader holds it. */
interface Slot extends ReserveSlot {
  runner: RunnerApi;
  /** Refusals at once in a row (see RUNNER_RETRY_MS); a run it begins resets them. */
  refusals: number;
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

/** The start of the message of a run no runner began because its host gave it up first. */
export const RUNNER_NOT_SENT = "this program was not sent to a sandbox runner";

/**
 * Whether the run's host gave the run up: the executors pass their `HostBridge`, `closed` once
 * its answer was read, its timeout passed or it was cancelled (host-bridge.ts).
 */
function runEnded(host: unknown): boolean {
  return (host as { closed?: unknown } | null)?.closed === true;
}

/** The start of the message of a run its runner gave up (sandbox-runner.ts: `timedOut`). */
export const RUNNER_GAVE_UP = "TimeoutError: the sandbox runner gave this run up";

/** Routes loads to runners; see the module comment. */
export class RunnerLoader {
  private readonly slots: Slot[];
  /** The line of runs waiting for a runner, served in turn (slot-chooser.ts). */
  private readonly chooser: SlotChooser<Slot>;
  /** Stable workers' code hashes by id, each computed once (code-hash.ts). */
  private readonly hashes = new Map<string, Promise<string>>();
  /** Runs' base hashes by the base's key, each computed once (run-base.ts). */
  private readonly baseHashOf = baseHashCache();

  /**
   * @param runners - the runner bindings (at least one)
   * @param now - the clock (tests pass their own)
   * @param track - how a run's host bridge is wrapped to watch its calls (see {@link HostTracker})
   * @param secret - the local cluster's secret (cluster-secret.ts), sent first in every call: a
   *   runner refuses calls without it
   * @param callerOf - who is starting the run now ("": nobody in particular, never capped); the
   *   Worker passes the caller of the request being served (src/app/placement-caller.ts)
   * @param spares - how many of the last bindings are spare slots (runner-placement.ts: asked
   *   for only when every other runner is held)
   * @param reserve - keep a warm reserve: when a run takes the last idle runner, ring a regular
   *   cold slot at once (runner-reserve.ts), so the supervisor starts its runner before a
   *   run needs it (the local server passes true; off, a slot is asked for only by a run sent
   *   there, which then waits for the start)
   * @param leases - each run renews its place on its slot from its own request (run-lease.ts),
   *   and a place not renewed lapses: in workerd a request given up (its client gone) never
   *   settles its call to the runner, and its run stayed on its slot for good (the local server
   *   passes true; off, a run leaves its slot only when its call settles)
   */
  constructor(
    runners: readonly RunnerApi[],
    private readonly now: () => number = Date.now,
    private readonly track: HostTracker = plainTracker,
    private readonly secret: string = "",
    private readonly callerOf: () => string = () => "",
    spares = 0,
    private readonly reserve = false,
    private readonly leases = false,
  ) {
    if (runners.length === 0)
      throw new CodeModeError("invalid_option", "RunnerLoader needs at least one runner binding.");
    // Only the first slot is known to have a runner at the start: the supervisor starts the
    // others when runs need them (cli/local-server/runners/runner-pool.mjs), so they are cold until a
    // run begins there, and a run goes to them only when no serving runner is idle.
    this.slots = runners.map((runner, i) => ({
      runner,
      runs: new Set(),
      restUntil: 0,
      refusals: 0,
      lateUntil: 0,
      slowUntil: 0,
      cold: i > 0,
      spare: i > 0 && i >= runners.length - spares,
      rungAt: 0,
    }));
    this.chooser = new SlotChooser(this.slots, now);
  }

  /** Runs in flight per runner, in binding order (for the status report and tests). */
  busy(): number[] {
    dropLapsed(this.slots, this.now());
    return this.slots.map((slot) => slot.runs.size);
  }

  /**
   * Forgets the stale marks on runner `index` (1-based, binding order): the supervisor found its
   * runner serving and unused for `quietMs` while runs began on others (stale-slot.ts).
   * @returns what was forgotten; undefined when there is no such runner
   */
  forgetStale(index: number, quietMs: number): Forgotten | undefined {
    const slot = this.slots[index - 1];
    return slot ? forgetStale(slot, this.now(), quietMs) : undefined;
  }

  /**
   * A fresh worker per run, on a runner chosen when the run starts. The executors' code goes as
   * its base, sent once per runner and named by its hash, and this run's program module
   * (run-base.ts); other code goes whole.
   */
  load(code: WorkerLoaderWorkerCode): WorkerStub {
    const split = splitRunCode(code, PROGRAM_MODULE);
    if (!split)
      return this.stub((runner, request, host) => runner.load(this.secret, code, request, host));
    const { base, name, text } = split;
    return this.stub(async (runner, request, host) => {
      const hash = await this.baseHashOf(split);
      const first = await runner.loadWithBase(this.secret, hash, null, name, text, request, host);
      if (!("missingCode" in first)) return first;
      return runner.loadWithBase(this.secret, hash, base, name, text, request, host);
    });
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
    // Where it waits for a runner, and whether it arrived during a burst (run-placement.ts).
    const placing = this.chooser.placing(caller, firstSent);
    let retriesBegun = 0;
    let moves = 0;
    /** The runners that answered they are retiring, during this run's placement. */
    const retiring = new Set<Slot>();
    let chosen: Slot | undefined;
    /** The regular slot that refused this run before it began: its runner is on its way. */
    let claim: Claim<Slot> | undefined;
    try {
      for (;;) {
        // Placed at once when it can be (no await: the run is under way before this call
        // returns, and the next run placed sees it), else after a wait for a better runner.
        const placed = chosen ?? placing.choose(claim);
        const slot = placed instanceof Promise ? await placed : placed;
        chosen = undefined;
        // Its host gave it up while it waited for a runner (its timeout passed, or it was
        // cancelled): the executor has answered already, and a runner would begin it for
        // nothing (a runner's `begin` asks only whether the copy was moved).
        if (runEnded(host))
          throw new Error(
            `${RUNNER_NOT_SENT}: it ended (its timeout passed, or it was cancelled) while it waited for a runner.`,
          );
        const sent = this.now();
        const mine: RunOnSlot = { caller, lastProgress: sent, inCall: 0, called: false };
        slot.runs.add(mine);
        // The place the line held for it there, if any, is this run's now (run-placement.ts).
        placing.sent();
        const endLease = this.leases ? renewLease(mine, this.now) : undefined;
        // Sent elsewhere, its claim keeps no other run off its slot (claimedByEarlier).
        if (claim) claim.away = slot !== claim.slot;
        this.keepReserve();
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
            if (claim) claim.slot.claims?.delete(claim);
            slot.refusals = 0;
            slot.cold = false;
            slot.askedAt = 0;
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
          endLease?.();
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
          // Something holds its thread: a run quiet there for long may be what holds it, not a
          // run waiting on something (runner-placement.ts, PlacedSlot.slowUntil).
          slot.slowUntil = this.now() + RUNNER_HELD_MAX_MS;
          const better = this.chooser.pick(caller, slot);
          // Never onto the spare: it is for runs that arrive while every runner is held, and a
          // run slow to begin may be a blocking program (seen in e2e fair-share, shared worker: a
          // stall slow to begin on a fresh runner, loading the engine, moved beside a search on
          // the spare and held it into the next round).
          if (better && !better.spare && tierOf(better, this.now()) <= PROGRESSING) {
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
          // Its runner is gone or not started: tried again only when no serving runner is idle
          // (which asks the supervisor for one, runner-pool.mjs).
          if (!begun) {
            // Its first refusal asked for its runner (runner-placement.ts, ASKED): later ones, a
            // claimed run trying it again, do not move when.
            if (!slot.cold || !asked(slot, failedAt)) slot.askedAt = failedAt;
            slot.cold = true;
          }
          // Never begun is harmless however late its failure is read: a runner begins a run only
          // once this host answered its `begin` (sandbox-runner.ts), so the program did not
          // start. The time counts only for a run begun: the host's own thread, held past
          // RUNNER_REST_MS by other work (a batch of large programs), made a slot's doorbell
          // closing the connection at once read as a runner lost under the run.
          const harmless = !begun || (failedAt - sent < RUNNER_REST_MS && hostCalls(host) === 0);
          // Never begun: the program did not run, so runners are tried until one takes it (within
          // RUNNER_RETRY_WINDOW_MS). Begun: one more runner only, so a program that crashes its
          // runner at once cannot crash them all.
          const again = begun ? retriesBegun++ < 1 : failedAt - firstSent < RUNNER_RETRY_WINDOW_MS;
          // Refused before it began by a regular slot: this run asked for its runner, and waits
          // for it (runner-placement.ts, waitsForClaim), from the first refusal there.
          if (!begun && !slot.spare && claim?.slot !== slot) {
            if (claim) claim.slot.claims?.delete(claim);
            claim = { slot, at: failedAt };
            (slot.claims ??= new Set()).add(claim);
          }
          if (harmless && again) {
            await this.chooser.firstRestEnd();
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
          // Every runner is retiring (a burst of POST /retire, or a single runner retired): the
          // supervisor replaces each within seconds, so the run is held on the host and asks
          // again, one runner at a time, until a fresh one begins it (run-placement.ts,
          // retiredLook). Failing it at once failed every run for the 1–3 s the replacements
          // took (e2e retire-storm). Its own timeout still wins: the executor answers at the
          // timeout whatever this waits for, and a run whose host gave it up is never sent.
          const lookAt = placing.retiredLook();
          if (lookAt !== undefined) {
            await this.after(Math.max(0, lookAt - this.now()));
            continue;
          }
          throw new Error(
            `${RUNNER_LOST}: every runner was retiring for ${RUNNER_RETRY_WINDOW_MS / 1000} s (the local server replaces a retiring runner within seconds; its runners keep being told to retire). Retrying is safe: the program did not start.`,
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
    } finally {
      // A run no longer being placed gives up its claim (runner-placement.ts, claimedByEarlier),
      // and its place in the line and any place held for it (run-placement.ts, done).
      if (claim) claim.slot.claims?.delete(claim);
      placing.done();
    }
  }

  /**
   * The warm reserve (`reserve` in the constructor; which slot: runner-reserve.ts): rings the
   * slot chosen, so its runner starts now rather than when a run needs it. A ring costs the
   * supervisor one refused connection, or a serving runner one `missingCode` answer.
   */
  private keepReserve(): void {
    if (!this.reserve) return;
    const next = slotToRing(this.slots, this.now());
    if (!next) return;
    next.rungAt = this.now();
    if (!asked(next, next.rungAt)) next.askedAt = next.rungAt;
    Promise.resolve()
      .then(() => next.runner.get(this.secret, RESERVE_RING, null, null, null))
      .catch(() => {});
  }

  /** Settles with "late" after `ms` (the timer does not keep anything alive once it fired). */
  private after(ms: number): Promise<"late"> {
    return new Promise((resolve) => setTimeout(() => resolve("late"), ms));
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
