/**
 * One run's wait for a runner before it is sent (docs/local-runtime.md, "Placement"): the runner
 * loader (runner-loader.ts) asks the run's {@link RunPlacement} for the runner it goes to now, and
 * it waits as long as the placement rules say a better runner is moments away (a rest about to
 * end, a run that may be an honest one about to finish, the slot the run asked for, a held
 * runner's due replacement) and no longer than {@link RUNNER_RETRY_WINDOW_MS}. It holds the run's
 * own state across its tries (its burst state, its claim, the due window it met, what the line
 * gave it), decides what the run would do now were it alone ({@link RunPlacement.decide}), and
 * looks again on a timer of the run's own request until the line gives it a runner.
 *
 * Does not do: say which runner is best at a moment (runner-placement.ts, pure), hold the line of
 * waiting runs or serve it in turn (slot-chooser.ts, caller-queue.ts), or send runs
 * (runner-loader.ts).
 */
import type { Waiter } from "./caller-queue";
import {
  MAYBE_BLOCKED,
  STALLED,
  tierOf,
  waitsForClaim,
  type Claim,
  type PlacedSlot,
  type RunOnSlot,
} from "./runner-placement";

/**
 * How long a run that no runner began is sent on to other runners when they fail or refuse it,
 * and waits for a runner being started rather than join one that may be blocked: while every
 * runner is being replaced (a round of blocking programs on all of them), a run is held on the
 * host until one serves again, rather than failing. 10 s: replacements took 3–7 s on a 2-core
 * machine at load 15 (e2e fair-share, three at once); with 5 s a search gave up waiting,
 * joined a stalled runner and failed with it.
 */
export const RUNNER_RETRY_WINDOW_MS = 10_000;

/**
 * How often a run that every runner answered "retiring" asks again while it is held for a fresh
 * runner ({@link RunPlacement.retiredLook}): one runner each time, answered at once while it is
 * still retiring, so a held run costs one small call per look. The supervisor replaces a retiring
 * runner within 1–3 s on a loaded 2-core machine (cli/local-server/runners/runner-pool.mjs); the
 * retiring runners' own rest (RUNNER_REST_MS, 3 s) would hold a run up to 3 s past the first
 * fresh runner, this up to a quarter second.
 */
export const RUNNER_RETIRED_LOOK_MS = 250;

/**
 * How often a run whose every runner may be blocked looks again, while some runner's run may
 * still be an honest one about to finish (it began < RUNNER_STALL_MS ago): a trivial run ends
 * in milliseconds and frees its runner, a blocking program never does and turns stalled. Before,
 * such a run was placed at once, in turn among equals, and one in three joined a stall (e2e
 * fair-share: a search beside a stall, failing with it 10 s later).
 */
export const RUNNER_LOOK_MS = 50;

/**
 * How often the runs first in the line look (as many as there are runners: the ones served
 * next): a runner given to a waiting run stays unused until that run looks and takes it (the
 * line is data; no request wakes another's run), so this is what each turn costs a runner.
 * Runs further back look every {@link RUNNER_LOOK_MS}.
 */
export const LINE_HEAD_LOOK_MS = 10;

/** What a waiting run would do now ({@link RunPlacement.decide}). */
export type Verdict<S> =
  /** Go to this runner now. */
  | { go: S }
  /** Wait; something may change at `lookAt` (a rest ending, a look again). */
  | { lookAt: number }
  /** Its caller may use no runner now (runner-placement.ts, pickSlot). */
  | { capped: true };

/**
 * The slots' chooser as one run's placement sees it (slot-chooser.ts, SlotChooser): the runner
 * it would take now, the line it waits in, and the moments its decision may change at. Here,
 * with the run that uses it: slot-chooser.ts imports this file (the chooser starts each run's
 * placement), and the source tree has no import circle (docs/architecture.md).
 */
export interface PlacementChooser<S extends PlacedSlot> {
  /** The best runner for a run of `caller` now; the turn counter moves on only when `turn`. */
  pick(caller: string, except?: S, inBurst?: boolean, turn?: boolean): S | undefined;
  /** Where a run that claimed a slot goes instead of `best`. */
  claimed(best: S, claim: Claim<S> | undefined, caller?: string, inBurst?: boolean): S;
  /** Whether a run that arrived during a burst is still placed as in one. */
  burstGoesOn(): boolean;
  /** Puts `placement` in the line and serves the line (unless `serve` is false). */
  enter(placement: RunPlacement<S>, serve?: boolean, looking?: boolean): void;
  /** Takes `placement` out of the line. */
  leave(placement: RunPlacement<S>): void;
  /** Throws when `placement`'s caller may wait no longer. */
  check(placement: RunPlacement<S>): void;
  /** Whether placement keeps `caller` to the runners it uses now. */
  capped(caller: string): boolean;
  /** How many runs at the head of the line look every {@link LINE_HEAD_LOOK_MS}. */
  heads(): number;
  /** `placement` took the runner given to it, or is placed no longer. */
  untrack(placement: RunPlacement<S>): void;
  /** Until when replacements due now are worth waiting for, if any are due. */
  dueUntil(): number | undefined;
  /** Whether a held regular runner's replacement is due now. */
  replacementDue(): boolean;
  /** When a look again may find a runner a run that may be honest freed, if any may. */
  maybeFreeSoon(): number | undefined;
  /** When a run of a burst looks again while a held runner's replacement is due, if one is. */
  replacedSoon(): number | undefined;
  /** When the first rest ending soon ends, if one does. */
  restEndingSoon(): number | undefined;
  /** The clock. */
  time(): number;
}

/**
 * One run's wait for a runner, across its tries (started by slot-chooser.ts,
 * SlotChooser.placing); see the module comment.
 */
export class RunPlacement<S extends PlacedSlot> implements Waiter {
  /** Whether it has waited for a held runner's due replacement (see {@link choose}). */
  private dueSeen = false;
  /**
   * Until when it waits for due replacements: the end of the first due window it met, not of
   * any later one (runner-placement.ts, replacementDueUntil: a quiet run whose runner is never
   * replaced, one after another, kept a burst's run off the idle spare for the retry window).
   */
  private dueUntil: number | undefined;
  /** The regular slot that refused this run before it began, if any (see {@link choose}). */
  private claim: Claim<S> | undefined;
  /** When it last looked (caller-queue.ts, Waiter). */
  lookedAt = 0;
  /** Since when its caller may use no runner (caller-queue.ts, Waiter). */
  cappedSince?: number;
  /** Refused a place among its caller's waiting runs (caller-queue.ts, Waiter). */
  refused?: boolean;
  /** Its place in the line at the last serve (0: first). */
  position = 0;
  /** When its decision may change, as the last serve found (undefined: look in turn). */
  lookAt: number | undefined;
  /**
   * The runner the line gave it, and the place held there for it until the run is sent
   * ({@link sent}).
   */
  given: { slot: S; held: RunOnSlot; at: number } | undefined;
  /** The place held for it on the runner it took, until {@link sent}. */
  private holding: { slot: S; held: RunOnSlot; at: number } | undefined;

  /**
   * @param caller - whose run it is ("": nobody in particular)
   * @param firstSent - when it first asked for a runner: its place in the line
   * @param inBurst - it arrived during a burst asking for runners: placed as in one until every
   *   runner the burst asked for serves (runner-placement.ts, burstGoesOn), never again after
   */
  constructor(
    private readonly chooser: PlacementChooser<S>,
    readonly caller: string,
    private readonly firstSent: number,
    private inBurst: boolean,
  ) {}

  /** When it first asked for a runner (caller-queue.ts, Waiter). */
  get since(): number {
    return this.firstSent;
  }

  /** Whether it is still placed as in its burst (once not, never again). */
  private stillInBurst(): boolean {
    return (this.inBurst &&= this.chooser.burstGoesOn());
  }

  /** The best runner for it now, none when its caller may use none (it waits in the line). */
  private bestNow(claim: Claim<S> | undefined): S | undefined {
    const best = this.chooser.pick(this.caller, undefined, this.stillInBurst(), false);
    return best && this.chooser.claimed(best, claim, this.caller, this.inBurst);
  }

  /**
   * What it would do now, were it alone: go to its best runner, or wait for a better one
   * moments away ({@link lookAgainAt}), or wait for a runner its caller may use.
   */
  decide(): Verdict<S> {
    const best = this.bestNow(this.claim);
    if (!best) return { capped: true };
    const at = this.lookAgainAt(best, this.claim);
    return at === undefined ? { go: best } : { lookAt: at };
  }

  /**
   * Whether it decides as `ahead` does, a run before it in the line (SlotChooser.serve): the
   * same burst state, neither with a claim (its own slot, its own moment), it began no earlier
   * (its retry window ends no earlier), and the same caller or two that placement treats alike
   * (neither kept to its own runners: runner-placement.ts, callerCapped), so a line of many
   * callers costs a decision per kind of run, not per caller.
   */
  decidesAs(ahead: RunPlacement<S>): boolean {
    return (
      !this.claim &&
      !ahead.claim &&
      this.inBurst === ahead.inBurst &&
      this.dueUntil === ahead.dueUntil &&
      this.dueSeen === ahead.dueSeen &&
      this.firstSent >= ahead.firstSent &&
      (this.caller === ahead.caller ||
        (!this.chooser.capped(this.caller) && !this.chooser.capped(ahead.caller)))
    );
  }

  /**
   * The runner the run goes to now: at once (no await: the run is under way before the loader's
   * call returns, so the next run placed sees it) unless a better runner is moments away or a
   * run waiting longer takes it (the line: caller-queue.ts). A
   * runner that may be blocked costs a run up to 10 s and then its failure; one whose short
   * rest is about to end costs a refused connection at worst: it waits for that one (bounded).
   * A run that claimed a slot waits for it rather than take the spare (runner-placement.ts,
   * waitsForClaim). Bounded by the retry window, not by a count of looks: while runners are
   * being started on a loaded machine (3 s and more) rests keep ending, and a run that stopped
   * looking after a few of them went to a held runner and failed with it 10 s later.
   * The loader calls {@link sent} once the run is among the runner's runs, and {@link done}
   * when it is placed no longer.
   * @param claim - the regular slot that refused this run before it began, if any
   */
  choose(claim: Claim<S> | undefined): S | Promise<S> {
    this.claim = claim;
    this.lookedAt = this.chooser.time();
    this.chooser.enter(this);
    if (this.given) return this.take();
    // A caller's run past CALLER_QUEUE_MAX waiting fails at once.
    this.chooser.check(this);
    return this.waitInLine();
  }

  /** The runner given to it; the place held there stays until {@link sent}. */
  private take(): S {
    const given = this.given!;
    this.given = undefined;
    this.chooser.untrack(this);
    this.holding = given;
    return given.slot;
  }

  /** The run is among its runner's runs: the place held for it there goes. */
  sent(): void {
    this.holding?.slot.runs.delete(this.holding.held);
    this.holding = undefined;
  }

  /** It is placed no longer (sent, failed, or given up): out of the line, nothing held. */
  done(): void {
    this.chooser.leave(this);
    this.sent();
    if (this.given) this.given.slot.runs.delete(this.given.held);
    this.given = undefined;
    this.chooser.untrack(this);
  }

  /**
   * Looks on a timer of its own until the line gives it a runner: every
   * {@link LINE_HEAD_LOOK_MS} while it is among the first, else every {@link RUNNER_LOOK_MS}, or
   * sooner when its decision may change sooner (a rest ending). A look at the head, or at such a
   * moment, serves the line.
   */
  private async waitInLine(): Promise<S> {
    for (;;) {
      const now = this.chooser.time();
      const every = this.position < this.chooser.heads() ? LINE_HEAD_LOOK_MS : RUNNER_LOOK_MS;
      // One millisecond past a rest's end: a timer may fire within the millisecond before it by
      // the clock, and a look then found the rest not over, no other rest ending soon, and sent
      // the run to the blocked runner.
      const soon = this.lookAt !== undefined && this.lookAt - now < every;
      const wait = soon ? Math.max(1, this.lookAt! - now + 1) : every;
      await new Promise((resolve) => setTimeout(resolve, wait));
      this.lookedAt = this.chooser.time();
      // Back in the line if it was dropped while its request was silent (it keeps its place).
      // Only the runs at the head serve the line (often enough for all: every
      // LINE_HEAD_LOOK_MS), and a run whose decision may change now; a walk of the line per look
      // of each run cost the host's thread.
      const head = this.position < this.chooser.heads();
      if (!this.given) this.chooser.enter(this, head || soon, true);
      if (this.given) return this.take();
      this.chooser.check(this);
    }
  }

  /**
   * Every runner answered this run that it is retiring (none began it): when it asks again
   * ({@link RUNNER_RETIRED_LOOK_MS} from now), or undefined when that would be past
   * {@link RUNNER_RETRY_WINDOW_MS} from its first try and it fails instead. Held, not failed: the
   * supervisor replaces retiring runners within seconds, and failing it failed every run sent
   * meanwhile (e2e retire-storm). Bounded by the window, as a run that no runner began is held
   * while runners refuse it; the run's own timeout is the executor's and ends the hold sooner
   * (runner-loader.ts sends no run whose host gave it up).
   */
  retiredLook(): number | undefined {
    const at = this.chooser.time() + RUNNER_RETIRED_LOOK_MS;
    return at - this.firstSent > RUNNER_RETRY_WINDOW_MS ? undefined : at;
  }

  /** When to look again rather than send the run to `slot` now (undefined: send it now). */
  private lookAgainAt(slot: S, claim: Claim<S> | undefined): number | undefined {
    const chooser = this.chooser;
    const claimed = waitsForClaim(slot, claim, chooser.time());
    // A burst's run leaves the spare alone while a held runner's replacement is due, and then
    // while that runner's short rest after the failure ends: it waits for the fresh runner there
    // (runner-placement.ts, replacementDue), bounded by the first due window it meets
    // (replacementDueUntil).
    const now = chooser.time();
    this.stillInBurst();
    this.dueUntil ??= this.inBurst && slot.spare ? chooser.dueUntil() : undefined;
    const due =
      this.inBurst &&
      !!slot.spare &&
      this.dueUntil !== undefined &&
      now < this.dueUntil &&
      chooser.replacementDue();
    if (due) this.dueSeen = true;
    const forDue = due || (this.dueSeen && !!slot.spare && chooser.restEndingSoon() !== undefined);
    // Every runner it may use is stalled (the best one is) while a held regular runner's
    // replacement is due: it waits for that fresh runner, bounded by the first due window it
    // meets, rather than join a stalled runner and fail with it when that one is replaced (e2e
    // fair-share, cold, shared worker, load 11: round 1's stalls, begun late on runners being
    // started, still held three runners when round 2's first stall took the fourth; searches
    // sent then went to a stalled runner at once and failed with it 9–11 s later).
    const stalled = tierOf(slot, now) >= STALLED;
    if (stalled) this.dueUntil ??= chooser.dueUntil();
    const forFresh =
      stalled && this.dueUntil !== undefined && now < this.dueUntil && chooser.replacementDue();
    if (!claimed && !forDue && tierOf(slot, chooser.time()) < MAYBE_BLOCKED) return undefined;
    // The earliest moment something may change: a rest ending, or a look again while a run may
    // be an honest one about to finish (a rest of up to 100 ms hid a runner freed meanwhile, and
    // a burst's stall took the spare's place in the queue for it).
    const soon = earliest(
      claimed ? claim!.slot.restUntil : undefined,
      chooser.restEndingSoon(),
      chooser.maybeFreeSoon(),
      this.inBurst || forFresh ? chooser.replacedSoon() : undefined,
    );
    if (soon === undefined || soon - this.firstSent > RUNNER_RETRY_WINDOW_MS) return undefined;
    return soon;
  }
}

/** The earliest of the moments given, if any. */
function earliest(...moments: (number | undefined)[]): number | undefined {
  const given = moments.filter((m): m is number => m !== undefined);
  return given.length > 0 ? Math.min(...given) : undefined;
}
