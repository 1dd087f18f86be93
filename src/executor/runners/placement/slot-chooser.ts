/**
 * The runs waiting for a runner, served in turn (docs/local-runtime.md, "Placement"): one
 * {@link SlotChooser} per set of runner slots holds the slots' turn counter and the line of
 * waiting runs (caller-queue.ts), starts each run's placement (run-placement.ts, which waits for
 * the runner), and gives runners out to the runs of the line.
 *
 * Runs that wait are served in turn ({@link SlotChooser.serve}): whenever a run arrives or a
 * waiting run looks, the waiting runs are asked, in the line's order (by turns of caller, each
 * caller's oldest first), whether they would go now, and each that would is given its runner at
 * once: the runner holds a place for it (as a run sent there) until it looks and takes it. So a
 * run arriving, or a run that waited less, never takes the runner a run waiting longer would
 * take.
 *
 * Does not do: a run's own wait, burst state and looks (run-placement.ts), say which runner is
 * best at a moment (runner-placement.ts, pure), or send runs and read what runners answer
 * (runner-loader.ts).
 */
import { CallerQueue, WAITER_GIVE_SILENT_MS } from "./caller-queue";
import { dropLapsed } from "./run-lease";
import { RUNNER_LOOK_MS, RunPlacement, type PlacementChooser, type Verdict } from "./run-placement";
import {
  MAYBE_BLOCKED,
  burstGoesOn,
  callerCapped,
  claimedByEarlier,
  claimedSlot,
  pickSlot,
  replacementDue,
  replacementDueUntil,
  spareInBurst,
  tierOf,
  type Claim,
  type PlacedSlot,
  type RunOnSlot,
} from "./runner-placement";

/**
 * The longest pause after failures in a row: a slot is tried at least this often while it keeps
 * refusing (a refused connection costs next to nothing), so a runner that has just started is
 * used within this long. A run whose best runner may be blocked waits this long at most for a
 * resting runner instead. 100 ms: with 400, a run waiting for a runner being started began on
 * it 0.2–0.55 s after the supervisor had it ready (e2e fair-share), half of the 1 s that the
 * other client may wait there.
 */
export const RUNNER_RETRY_MAX_MS = 100;

/** Chooses runners for runs over one set of slots; see the module comment. */
export class SlotChooser<S extends PlacedSlot> implements PlacementChooser<S> {
  private next = 0;
  /** When the line was last walked for silent runs. */
  private droppedAt = Number.NEGATIVE_INFINITY;
  /** Runs waiting for a runner, in turn (caller-queue.ts). */
  private readonly line = new CallerQueue<RunPlacement<S>>();
  /** Runs given a runner that have not taken it yet. */
  private readonly givenOut = new Set<RunPlacement<S>>();

  /**
   * @param slots - the runner slots, owned by the loader (their state changes as runs go)
   * @param now - the clock (tests pass their own)
   */
  constructor(
    private readonly slots: readonly S[],
    private readonly now: () => number,
  ) {}

  /**
   * One run's placement, from its first try at `firstSent`: {@link RunPlacement.choose} is
   * called before each send. Whether it arrived during a burst is decided now.
   */
  placing(caller: string, firstSent: number): RunPlacement<S> {
    dropLapsed(this.slots, firstSent);
    return new RunPlacement(this, caller, firstSent, spareInBurst(this.slots, firstSent));
  }

  /**
   * The runner for the next run of `caller` (runner-placement.ts), ties in turn.
   * @param turn - whether the turn counter moves on (not while the line is only asked)
   */
  pick(caller: string, except?: S, inBurst = false, turn = true): S | undefined {
    const now = this.now();
    // Runs whose request's context is gone hold no runner (run-lease.ts).
    dropLapsed(this.slots, now);
    const slot = pickSlot(this.slots, this.next, caller, now, except, inBurst);
    if (turn) this.next = (this.next + 1) % this.slots.length;
    return slot;
  }

  /**
   * Puts `placement` in the line (if it is not) and serves the line (unless `serve` is false).
   * @param looking - whether it is a waiting run looking (not one arriving; see {@link taker})
   */
  enter(placement: RunPlacement<S>, serve = true, looking = false): void {
    this.line.join(placement);
    if (serve) this.serve(looking ? placement : undefined);
  }

  /** Takes `placement` out of the line. */
  leave(placement: RunPlacement<S>): void {
    this.line.leave(placement);
  }

  /** Throws when `placement`'s caller may wait no longer (caller-queue.ts, check). */
  check(placement: RunPlacement<S>): void {
    this.line.check(placement, this.now());
  }

  /** Whether placement keeps `caller` to the runners it uses now (runner-placement.ts). */
  capped(caller: string): boolean {
    return callerCapped(this.slots, caller, this.now());
  }

  /** How many runs at the head of the line look every LINE_HEAD_LOOK_MS (run-placement.ts). */
  heads(): number {
    return this.slots.length;
  }

  /**
   * Serves the line: asks its runs in turn (caller-queue.ts, inTurn) whether they would go now,
   * and gives each that would its runner, which then counts as taken for the runs after it. Runs
   * alike (same caller and burst state, no claim) that wait behind one that waits are not asked:
   * one that began later would wait too (its retry window ends later), so a serve costs a walk of
   * the line and a few decisions, not one per run.
   * @param by - the waiting run that looks now, if any (see {@link taker}); never a run arriving
   */
  serve(by?: RunPlacement<S>): void {
    const now = this.now();
    this.takeBack(now);
    if (this.line.size() === 0) return;
    dropLapsed(this.slots, now);
    // Silence is seconds long: a walk for it each second is enough.
    if (now - this.droppedAt >= 1_000) {
      this.droppedAt = now;
      this.line.dropSilent(now);
    }
    /** Runs that wait, each with its verdict, for the runs alike behind it. */
    const waiting: [RunPlacement<S>, Exclude<Verdict<S>, { go: S }>][] = [];
    for (let served = true; served;) {
      served = false;
      let position = 0;
      for (const runs of this.line.inTurn()) {
        for (const placement of runs) {
          placement.position = position++;
          // Its request may be gone (see WAITER_GIVE_SILENT_MS): it keeps its place, asked again
          // once it looks.
          if (now - placement.lookedAt > WAITER_GIVE_SILENT_MS) continue;
          let verdict = waiting.find(([ahead]) => placement.decidesAs(ahead))?.[1];
          if (!verdict) {
            const fresh = placement.decide();
            if ("go" in fresh) {
              this.give(this.taker(placement, fresh.go, by), fresh.go, now);
              served = true;
              break;
            }
            verdict = fresh;
            waiting.push([placement, verdict]);
          }
          if ("capped" in verdict) {
            this.line.capped(placement, now);
            placement.lookAt = undefined;
          } else {
            this.line.uncapped(placement);
            placement.lookAt = verdict.lookAt;
          }
        }
        // The caller just let in goes to the back of the turns: the line is walked again.
        if (served) break;
      }
    }
  }

  /** `placement` took the runner given to it, or is placed no longer. */
  untrack(placement: RunPlacement<S>): void {
    this.givenOut.delete(placement);
  }

  /**
   * Takes back the runners given to runs that did not take them within
   * {@link WAITER_GIVE_SILENT_MS} (their request is gone, or its thread held that long): each
   * such run goes back to its place in the line. A request given up by workerd never looks
   * again, and a runner held for it until its place lapsed (run-lease.ts, 5 s) would keep the
   * pool from a storm of cut-off requests' runs for seconds each.
   */
  private takeBack(now: number): void {
    for (const placement of this.givenOut) {
      const given = placement.given;
      if (!given) {
        this.givenOut.delete(placement);
        continue;
      }
      if (now - given.at <= WAITER_GIVE_SILENT_MS) continue;
      given.slot.runs.delete(given.held);
      placement.given = undefined;
      this.givenOut.delete(placement);
      this.line.join(placement);
    }
  }

  /**
   * Who takes `slot`, which `first` (the first run in turn that would go now) would take: `by`
   * instead when it is a run of the same caller at the head of the line that looks now and would
   * take that same runner, so the runner is used now rather than when `first` next looks (up to
   * LINE_HEAD_LOOK_MS later: run-placement.ts); `first` then takes the next one. So a caller's
   * order is loose among the first {@link heads} runs only, and callers' turns are kept: measured
   * (many-callers, one process's 100 connections of trivial searches), a runner idle until its
   * run looked cost the flood a quarter of its searches, and every run in the line waits for
   * those.
   */
  private taker(first: RunPlacement<S>, slot: S, by: RunPlacement<S> | undefined) {
    if (!by || by === first || by.caller !== first.caller) return first;
    if (by.position >= this.heads() || !this.line.has(by)) return first;
    const verdict = by.decide();
    return "go" in verdict && verdict.go === slot ? by : first;
  }

  /**
   * Gives `slot` to `placement`: a place held there for it (a run sent, as far as placement can
   * tell) until the run itself is sent (RunPlacement.sent). Leased, so a run whose request is
   * gone before it looks again holds it no longer than a run sent would (run-lease.ts).
   */
  private give(placement: RunPlacement<S>, slot: S, now: number): void {
    const held: RunOnSlot = {
      caller: placement.caller,
      lastProgress: now,
      inCall: 0,
      called: false,
      aliveAt: now,
    };
    slot.runs.add(held);
    placement.given = { slot, held, at: now };
    this.givenOut.add(placement);
    this.line.letIn(placement, now);
    this.next = (this.next + 1) % this.slots.length;
  }

  /**
   * Where a run that claimed a slot goes instead of `best` (runner-placement.ts): never to a cold
   * slot that another run still being placed claimed earlier (claimedByEarlier): the next best.
   */
  claimed(best: S, claim: Claim<S> | undefined, caller = "", inBurst = false): S {
    const now = this.now();
    const slot = claimedSlot(best, claim, now);
    if (!claimedByEarlier(slot, claim, now)) return slot;
    return pickSlot(this.slots, this.next, caller, now, slot, inBurst) ?? slot;
  }

  /** Whether a run that arrived during a burst is still placed as in one (burstGoesOn). */
  burstGoesOn(): boolean {
    return burstGoesOn(this.slots, this.now());
  }

  /** Until when replacements due now are worth waiting for (replacementDueUntil). */
  dueUntil(): number | undefined {
    return replacementDueUntil(this.slots, this.now());
  }

  /** Whether a held regular runner's replacement is due now (replacementDue). */
  replacementDue(): boolean {
    return replacementDue(this.slots, this.now());
  }

  /**
   * When to look again for a runner that a run which may be honest is about to free
   * ({@link RUNNER_LOOK_MS} from now), if any runner's worst run may still be one.
   */
  maybeFreeSoon(): number | undefined {
    const now = this.now();
    return this.slots.some((slot) => tierOf(slot, now) === MAYBE_BLOCKED)
      ? now + RUNNER_LOOK_MS
      : undefined;
  }

  /**
   * When a run of a burst looks again while a held runner's replacement is due
   * (runner-placement.ts, replacementDue): every {@link RUNNER_LOOK_MS}, so it takes the fresh
   * runner moments after it serves, and the spare stays free for the runs after the burst.
   */
  replacedSoon(): number | undefined {
    return this.replacementDue() ? this.now() + RUNNER_LOOK_MS : undefined;
  }

  /** When the first rest of at most RUNNER_RETRY_MAX_MS from now ends, if one does. */
  restEndingSoon(): number | undefined {
    const now = this.now();
    let soon: number | undefined;
    for (const slot of this.slots)
      if (slot.restUntil > now && slot.restUntil - now <= RUNNER_RETRY_MAX_MS)
        soon = Math.min(soon ?? slot.restUntil, slot.restUntil);
    return soon;
  }

  /** Waits until the first runner's rest ends, when every runner rests (a retry would fail). */
  async firstRestEnd(): Promise<void> {
    const now = this.now();
    const ends = Math.min(...this.slots.map((slot) => slot.restUntil));
    if (ends > now) await new Promise((resolve) => setTimeout(resolve, ends - now));
  }

  /** The clock. */
  time(): number {
    return this.now();
  }
}
