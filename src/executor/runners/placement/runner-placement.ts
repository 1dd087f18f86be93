/**
 * Which local sandbox runner a new run goes to (docs/local-runtime.md, "Placement"): the best
 * runner by tier: one with nothing under way, then one whose runs all show progress (they call
 * the host), then one that may be blocked (its newest run began less than
 * {@link RUNNER_STALL_MS} ago and has neither called the host nor finished: a program that holds
 * its thread looks exactly like this at first), then a stalled one (a run quiet for longer), then
 * a resting one; within a tier the one with the fewest runs using its thread, ties in turn.
 *
 * A run quiet for longer than {@link RUNNER_HELD_MAX_MS} is not holding its runner's thread (the
 * supervisor replaces a runner held that long, and its runs then fail): it waits on something (a
 * run the host gave up on may live on in its runner) and stops counting against its runner, so
 * such a run never keeps a runner out of use. One caller (src/app/placement-caller.ts) may have
 * runs on at most all runners but one; its further runs go to runners it already uses, or none
 * when all of those are stalled (the caller queue then holds the run), so the last runner stays
 * free for others.
 *
 * Pure: the runner loader (runner-loader.ts) owns the slots and the clock, and it and the line
 * (slot-chooser.ts, run-placement.ts) pass both in. Does not do: wait for a better runner or hold
 * the line of waiting runs (run-placement.ts, slot-chooser.ts), or send runs (runner-loader.ts).
 */

/**
 * How long a busy runner may show no sign of progress (no host call under way or made, no run
 * finished) before new runs prefer other runners: a program blocking its thread blocks every run
 * sent after it to that runner, until the supervisor replaces it (10 s). Honest programs either
 * call the host or finish well within this, or only lose their preference among idle runners.
 */
export const RUNNER_STALL_MS = 500;

/**
 * How long a run may go without a sign of progress and still be taken to hold its runner's
 * thread. The supervisor replaces a runner whose `/health` goes unanswered for 10 s, and its runs
 * then fail; so a run quiet for longer holds no thread: it waits on something (timers, or it is a
 * run the host gave up on that lives on in its runner). Without this bound such a run marked its
 * runner stalled for as long as it lived, and the host stopped sending runs to a healthy runner
 * for minutes. 15 s: the watchdog's 10 s, its probe pause, and a loaded machine's slack.
 */
export const RUNNER_HELD_MAX_MS = 15_000;

/** One run on one runner, as placement sees it. */
export interface RunOnSlot {
  /** Whose run it is ("": no caller named, never capped). */
  caller: string;
  /** When it was sent, began, or a host call of it began or ended: its last sign of progress. */
  lastProgress: number;
  /** Host calls of it under way (it waits on the host, not on the runner's thread). */
  inCall: number;
  /** Whether it has called the host at all (one that has not may be holding the thread). */
  called: boolean;
  /**
   * When its request last showed it is alive (run-lease.ts): a run whose place was not renewed
   * for a while lost its request's context and is dropped. Unset: not leased, never dropped.
   */
  aliveAt?: number;
}

/** One runner, as placement sees it. */
export interface PlacedSlot {
  /** Runs sent to it and not settled. */
  readonly runs: Set<RunOnSlot>;
  /**
   * Not known to have a runner serving: it began no run since the host started or since it last
   * refused one. The supervisor starts runners when runs need them (cli/local-server/runners/runner-pool.mjs):
   * a slot without one refuses at once, and a run sent there is the host asking for one.
   */
  cold?: boolean;
  /** A slot beyond the configured count, for a temporary runner when every runner is held. */
  spare?: boolean;
  /**
   * When the host first asked for this cold slot's runner (a run it refused before it began, or
   * the warm reserve's ring: runner-reserve.ts), since it last began a run; 0 or absent: not
   * asked. Its runner is on its way from then ({@link ASKED}, {@link spareInBurst}).
   */
  askedAt?: number;
  /** Until when it is passed over (it failed, refused, or said it is retiring). */
  restUntil: number;
  /** Until when it counts as stalled after failing to begin a run in time. */
  lateUntil: number;
  /**
   * Until when its runs quiet past {@link RUNNER_HELD_MAX_MS} still count as holding its thread:
   * it was late to begin a run sent to it (runner-loader.ts sets it), so something holds its
   * thread now. A program can hold it in stretches under the supervisor's 10 s (a catastrophic
   * regex, a timer, again): never replaced, and quiet for long, it looked like a run waiting on
   * something, and every new run went there (not to the idle spare) and waited out a stretch.
   */
  slowUntil?: number;
  /**
   * The claims on this slot of runs still being placed ({@link Claim}: each was refused here
   * before it began), so its runner goes to the earliest first ({@link claimedByEarlier}).
   */
  claims?: Set<{ at: number; away?: boolean }>;
}

/**
 * How fit a runner is for a new run, best first (the module comment says why in this order).
 * A runner's tier is the worst of its runs', or cold, stalled or resting by its own state.
 */
export const IDLE = 0;
/**
 * A slot with no runner known to serve ({@link PlacedSlot.cold}): after an idle runner, before
 * a busy one. Sending a run there costs a refused connection and asks the supervisor for a
 * runner, which serves the runs after it: so the pool grows once every serving runner is busy.
 */
export const COLD = 1;
/** Every run under way calls the host, or has shown progress within {@link RUNNER_STALL_MS}. */
export const PROGRESSING = 2;
/**
 * The spare slot with nothing under way, whether its runner is running or not: taken only when no
 * runner is idle or progressing and no regular slot is cold, i.e. every one may be held by a
 * program blocking its thread (or is stalled, resting, or being started for a run that asked for
 * it): a run goes there rather than where it may wait 10 s and fail with the runner. The
 * supervisor keeps the spare's runner running while the pool is busy (cli/local-server/runners/warm-spare.mjs),
 * so such a run need not wait for a start; ranked after the regular runners even then, so
 * honest load grows the regular slots and leaves the spare free for that moment. Not while a
 * burst of runs is still asking for regular runners ({@link spareInBurst}).
 */
export const SPARE = 3;
/**
 * A regular cold slot with nothing on its way whose runner the host asked for less than
 * {@link RUNNER_CLAIM_MS} ago ({@link PlacedSlot.askedAt}: its runner is being started), while
 * the spare's runner serves and is free ({@link pickSlot} ranks it so; otherwise it is
 * {@link COLD}). After the warm spare: a run sent there is refused and waits for that start
 * (0.3–3 s on a loaded 2-core machine) while the spare would serve it at once (e2e fair-share,
 * shared worker: with every regular runner held by a stall and the spare idle, searches went to
 * the slot the third stall had asked for and waited 0.86–0.9 s for its start). Before a runner
 * that may be blocked. The run that asked for it still goes back to it ({@link claimedSlot}).
 */
export const ASKED = 4;
/** A run began less than {@link RUNNER_STALL_MS} ago and has not called the host yet. */
export const MAYBE_BLOCKED = 5;
/**
 * The spare while a burst of runs is still asking for regular runners ({@link spareInBurst}):
 * after a runner that may be blocked, so a run of the burst waits (looking every 50 ms:
 * run-placement.ts) for a runner an honest run frees or for the runner it asked for, and leaves
 * the spare to the runs that come after the burst.
 */
export const SPARE_IN_BURST = 6;
/** A run quiet for longer than {@link RUNNER_STALL_MS}, or the runner was late to begin one. */
export const STALLED = 7;
/** The runner is passed over for now. */
export const RESTING = 8;

/**
 * How long after the host first asked for a regular cold slot's runner the spare is kept for
 * the runs after the burst ({@link spareInBurst}). The runs of one burst (a client's programs
 * sent at once) reach placement within milliseconds of each other, a few tens on a loaded
 * machine; another client's run arriving then waits this long at most.
 */
export const SPARE_BURST_MS = 80;

/**
 * How long a run holding a regular runner's thread (quiet, no host call) must have been quiet for
 * that runner's replacement to be due soon: the supervisor ends a runner 10 s after its last
 * `/health` answer (cli/local-server/health/watchdog.mjs), which came before the run began, and its
 * prepared replacement serves at once (cli/local-server/runners/prepared-replacement.mjs).
 * 8 s: with 9, a held runner quiet ~8.6–9 s when a burst came was not due, the burst's last run
 * took the idle spare, and the other client's searches waited 1.1–1.7 s for that runner's
 * replacement (e2e fair-share, isolate-per-run, round 2 at load 9–10: a round-1 stall had begun
 * ~2 s late, on a runner being started). The replacement comes up to a second after the 10 s on
 * a loaded machine (the watchdog's probe pause, the kill, its news), so from 8 s it is at most
 * ~3 s away: what a burst's run waits at most for it (until {@link REPLACEMENT_LATE_MS}).
 */
export const REPLACEMENT_DUE_MS = 8_000;
/**
 * How long such a run may be quiet before its runner's replacement counts as late rather than
 * due: the watchdog's 10 s, and a second for the kill and its news on a loaded machine.
 */
export const REPLACEMENT_LATE_MS = 11_000;

/**
 * Whether a regular runner's replacement is due (at `now`): it holds a run that has called no
 * host function and shown no progress for between {@link REPLACEMENT_DUE_MS} and
 * {@link REPLACEMENT_LATE_MS}, so the supervisor is about to end it and a fresh runner serves in
 * its slot within moments. Not a run quiet that long that is known to wait on something (it is
 * in a host call).
 */
export function replacementDue(slots: readonly PlacedSlot[], now: number): boolean {
  return replacementDueUntil(slots, now) !== undefined;
}

/**
 * When the replacements due at `now` ({@link replacementDue}) turn late: the latest moment one
 * of those quiet runs reaches {@link REPLACEMENT_LATE_MS}, or undefined when none is due. A run
 * waits for a due replacement only until then (run-placement.ts): a program awaiting a timer is
 * as quiet as one holding its thread, but its runner answers the watchdog and is never
 * replaced, so a client starting such runs a little apart would keep some runner "due" for the
 * whole retry window.
 */
export function replacementDueUntil(slots: readonly PlacedSlot[], now: number): number | undefined {
  let until: number | undefined;
  for (const slot of slots) {
    if (slot.spare) continue;
    for (const run of slot.runs) {
      const quiet = now - run.lastProgress;
      if (run.inCall === 0 && quiet >= REPLACEMENT_DUE_MS && quiet < REPLACEMENT_LATE_MS)
        until = Math.max(until ?? 0, run.lastProgress + REPLACEMENT_LATE_MS);
    }
  }
  return until;
}

/**
 * Whether a burst of runs is still asking for regular runners at `now`: a regular cold slot not
 * asked for yet had a run sent to it less than {@link SPARE_BURST_MS} ago (it may be refused,
 * asking for the slot's runner), or one was first asked for less than that ago. Runs that
 * claimed the slot and try it again do not make a burst last (e2e fair-share, load 19: their
 * tries kept it going, and another client's searches joined the claim). Meanwhile the spare ranks {@link SPARE_IN_BURST}. Why: a
 * burst of blocking programs as large as the pool (one client's, e2e fair-share) takes every
 * running regular runner, asks for a cold one, and its last program, finding the others may be
 * blocked, took the idle spare at once (the spare ranked before them); then every other
 * client's run waited for the asked runner's start. Kept out for a moment, that program waits
 * for the asked runner (or a runner an honest run frees), and the spare serves the runs after.
 */
export function spareInBurst(slots: readonly PlacedSlot[], now: number): boolean {
  return (
    slots.some(
      (slot) =>
        slot.cold &&
        !slot.spare &&
        (asked(slot, now) ? now - (slot.askedAt ?? 0) < SPARE_BURST_MS : sentLately(slot, now)),
    ) || burstBesideDue(slots, now)
  );
}

/**
 * Whether a run that arrived during a burst ({@link spareInBurst}) is still placed as in one at
 * `now`: while the burst still asks for regular runners, while a regular slot the host asked for
 * has no runner serving yet (cold, {@link asked}: the burst's runs wait for it, by their claims),
 * or while a held regular runner's replacement is due ({@link replacementDue}). Once none of
 * these holds, every runner the burst asked for serves and is taken: a run still waiting then is
 * not waiting for a runner of the burst's, and the spare is what serves it. Why: in e2e
 * fair-share (load 12–16, both executors), another client's search arriving 30–70 ms after the
 * stalls was ranked as in their burst for good; it claimed the slot the third stall had asked
 * for, lost that fresh runner to the stall, and then waited until the stall there looked stalled
 * (500 ms after it began), 0.97–1.0 s in all, before it took the idle spare.
 */
export function burstGoesOn(slots: readonly PlacedSlot[], now: number): boolean {
  return (
    spareInBurst(slots, now) ||
    replacementDue(slots, now) ||
    slots.some((slot) => !slot.spare && slot.cold && asked(slot, now))
  );
}

/**
 * The other burst that keeps the spare for the runs after it: one that took serving regular
 * runners (a run sent to one less than {@link SPARE_BURST_MS} ago has not called the host)
 * while another regular runner's replacement is due ({@link replacementDue}). Why: in e2e
 * fair-share's second round (load 15–21), one of the first round's stalls had begun late (its
 * runner was being started) and still held its runner; the round's last stall, finding the
 * others just taken, took the idle spare, and every other client's run then waited for that
 * held runner's replacement (1.2–3.4 s). Kept out, the burst's run waits for the replacement
 * (moments away, at most until {@link REPLACEMENT_LATE_MS}: run-placement.ts looks again every
 * 50 ms meanwhile), and the spare serves the runs after the burst.
 */
function burstBesideDue(slots: readonly PlacedSlot[], now: number): boolean {
  if (!replacementDue(slots, now)) return false;
  for (const slot of slots) {
    if (slot.spare || slot.cold) continue;
    for (const run of slot.runs)
      if (!run.called && now - run.lastProgress < SPARE_BURST_MS) return true;
  }
  return false;
}

/** Whether a run was sent to `slot` less than {@link SPARE_BURST_MS} ago and has not begun. */
function sentLately(slot: PlacedSlot, now: number): boolean {
  for (const run of slot.runs) if (now - run.lastProgress < SPARE_BURST_MS) return true;
  return false;
}

/** Whether `slot`'s runner was asked for less than {@link RUNNER_CLAIM_MS} ago. */
export function asked(slot: PlacedSlot, now: number): boolean {
  const at = slot.askedAt ?? 0;
  return at > 0 && now - at < RUNNER_CLAIM_MS;
}

/**
 * How fit `slot` is for a new run at `now` (IDLE … RESTING): its own rest, coldness (while no
 * run is on its way there), lateness or being the spare, else the worst of its runs' tiers. A run is progressing while it waits in a host call, or when it has
 * called the host and shown progress within {@link RUNNER_STALL_MS}; it may be blocking when it
 * has not called the host yet and began less than that ago; stalled when quiet for longer; and
 * quiet past {@link RUNNER_HELD_MAX_MS} it holds no thread (see there) and counts as waiting,
 * unless its runner was late to begin a run lately ({@link PlacedSlot.slowUntil}).
 */
export function tierOf(slot: PlacedSlot, now: number): number {
  if (slot.restUntil > now) return RESTING;
  // A cold slot with a run on its way is no longer an empty promise: the run was sent there,
  // and if the slot's runner has just come up the run may be a blocking program it is about to
  // begin. Ranked by that run, so a second run does not follow it onto the fresh runner (seen in
  // e2e fair-share: a search and a stall reached a fresh runner together, and the search failed
  // with it 10 s later). A slot still refusing answers within milliseconds, so this costs little.
  if (slot.cold && slot.runs.size === 0) return slot.spare ? SPARE : COLD;
  if (slot.lateUntil > now) return STALLED;
  if (slot.spare && slot.runs.size === 0) return SPARE;
  let tier = IDLE;
  for (const run of slot.runs) {
    const quiet = now - run.lastProgress;
    const own =
      run.inCall > 0 || (quiet > RUNNER_HELD_MAX_MS && !slow(slot, now))
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
 * The runner for the next run of `caller` (other than `except`), looking from index `start` on
 * so that ties go in turn: the best tier, then the fewest runs using its thread, then the fewest
 * runs. A caller with runs on all runners but one already is kept to those runners: it gets the
 * best of them unless every one is stalled or resting, and then none (its run waits).
 * `inBurst`: the run arrived during a burst ({@link spareInBurst}), and is ranked as in one.
 */
export function pickSlot<S extends PlacedSlot>(
  slots: readonly S[],
  start: number,
  caller: string,
  now: number,
  except?: S,
  inBurst = false,
): S | undefined {
  const count = slots.length;
  const capped = callerCapped(slots, caller, now);
  let best: S | undefined;
  let bestTier = RESTING + 1;
  let bestLoad = 0;
  // A run that arrived during a burst keeps the burst's ranking for good: it waits for the
  // runner it (or the burst) asked for, or one an honest run frees, never the spare's place.
  const burst = inBurst || spareInBurst(slots, now);
  // A spare whose runner serves, free and open: a run goes there rather than wait for a start.
  const warmSpare =
    !burst &&
    slots.some((s) => s.spare && !s.cold && s.runs.size === 0 && tierOf(s, now) === SPARE);
  for (let i = 0; i < count; i++) {
    const slot = slots[(start + i) % count]!;
    if (slot === except || (capped && !usedBy(slot, caller))) continue;
    let tier = tierOf(slot, now);
    if (tier === SPARE && slot.spare && burst) tier = SPARE_IN_BURST;
    else if (tier === COLD && warmSpare && asked(slot, now)) tier = ASKED;
    const load = threadLoad(slot, now);
    if (!best || tier < bestTier || (tier === bestTier && load < bestLoad)) {
      best = slot;
      bestTier = tier;
      bestLoad = load;
    }
  }
  if (capped && bestTier >= STALLED) return undefined;
  return best;
}

/**
 * Whether {@link pickSlot} keeps `caller` to the runners it uses: it has runs on all runners but
 * one already. A caller not kept so is placed as any other would be. Counted among the runners
 * not resting (a runner just replaced, or refusing while it starts, serves no one for a moment):
 * counted among all, a caller whose run ended with its replaced runner was under its cap, and its
 * waiting stall took the one free serving runner, the other client's, while the replaced one
 * rested (e2e fair-share, shared worker: the other client's search waited 1,070 ms). Never less
 * strict than among all: where fewer than two runners are not resting, all are counted.
 */
export function callerCapped(slots: readonly PlacedSlot[], caller: string, now: number): boolean {
  if (caller === "") return false;
  const open = slots.filter((slot) => slot.restUntil <= now);
  const counted = open.length > 1 ? open : slots;
  return (
    counted.length > 1 &&
    counted.filter((slot) => usedBy(slot, caller)).length >= counted.length - 1
  );
}

/** Whether `caller` has a run on `slot`. */
function usedBy(slot: PlacedSlot, caller: string): boolean {
  for (const run of slot.runs) if (run.caller === caller) return true;
  return false;
}

/**
 * How loaded a runner's thread is, for choosing within a tier: its runs that may be using the
 * thread first (not waiting in a host call, not quiet past RUNNER_HELD_MAX_MS: a program
 * computing, or holding the thread, delays every run beside it), then all its runs.
 */
function threadLoad(slot: PlacedSlot, now: number): number {
  let using = 0;
  for (const run of slot.runs)
    if (run.inCall === 0 && (now - run.lastProgress <= RUNNER_HELD_MAX_MS || slow(slot, now)))
      using++;
  return using * 1_000 + slot.runs.size;
}

/** Whether `slot` was late to begin a run lately ({@link PlacedSlot.slowUntil}). */
function slow(slot: PlacedSlot, now: number): boolean {
  return (slot.slowUntil ?? 0) > now;
}

/**
 * How long a run that a regular slot refused before it began keeps waiting for that slot (see
 * {@link waitsForClaim}). A runner starts in 0.3–1 s alone on a loaded 2-core machine, up to 3 s
 * beside others (bench/README.md, "Runners on demand"); past this the run takes what placement
 * offers, the spare included.
 */
export const RUNNER_CLAIM_MS = 3_000;

/** The slot a run was refused by before it began (its runner being started), and when. */
export interface Claim<S extends PlacedSlot = PlacedSlot> {
  slot: S;
  at: number;
  /**
   * Its run is on another runner now (sent there, not begun yet): it holds no place at its
   * slot meanwhile ({@link claimedByEarlier}), and takes it up again if it comes back.
   */
  away?: boolean;
}

/**
 * Whether a run that claimed a slot waits for it rather than go to `best`. A run that a regular
 * slot refused before it began asked the supervisor for that slot's runner (its doorbell, or a
 * replacement on its way); it waits for that runner rather than go to the spare or to a runner
 * that may be held: the spare is the pool's one runner for runs that arrive while every runner is
 * held and none can be asked for, and a run that can wait for its own slot would take it from
 * them (e2e fair-share: of three stalls arriving at once, the third, refused by the slot it had
 * asked for, went on to the spare, and the other client's search waited for a start). It goes to
 * a better runner (idle, cold or progressing) at once; it waits only while its slot's rest after
 * the refusal is still to end (the slot is tried again then) and for at most
 * {@link RUNNER_CLAIM_MS} from the first refusal.
 */
export function waitsForClaim<S extends PlacedSlot>(
  best: S,
  claim: Claim<S> | undefined,
  now: number,
): boolean {
  if (!claim || best === claim.slot || claim.slot.spare) return false;
  if (now - claim.at >= RUNNER_CLAIM_MS || claim.slot.restUntil <= now) return false;
  return tierOf(best, now) >= SPARE;
}

/**
 * Where a run that claimed a slot goes now, given `best` from {@link pickSlot}: back to its
 * claimed slot once that slot's rest after the refusal is over, when `best` is the spare or a
 * runner that may be held (it waits for the runner it asked for: {@link waitsForClaim}), for at
 * most {@link RUNNER_CLAIM_MS} from the first refusal; else `best`. Needed because pickSlot ranks
 * an asked slot after a warm spare ({@link ASKED}): the run that asked would otherwise take the
 * spare the moment its slot's rest ends.
 */
export function claimedSlot<S extends PlacedSlot>(
  best: S,
  claim: Claim<S> | undefined,
  now: number,
): S {
  if (!claim || best === claim.slot || claim.slot.spare) return best;
  if (now - claim.at >= RUNNER_CLAIM_MS || claim.slot.restUntil > now) return best;
  // Not while another run is on its way there (it ranks by that run): two claimants sent to a
  // fresh runner together, a stall and a search, and the search failed with the stall.
  if (tierOf(claim.slot, now) !== COLD) return best;
  return tierOf(best, now) >= SPARE ? claim.slot : best;
}

/**
 * Whether a regular cold slot's fresh runner is for another run first: a run still being placed
 * claimed it earlier than `claim` (none: any waiting claim), less than {@link RUNNER_CLAIM_MS}
 * ago. The runs that claimed a slot all try it again when its rest ends, and whichever the
 * event loop runs first took it: in e2e fair-share (load 12–16) another client's search that had
 * been refused there after the third stall took c's fresh runner, and the stall, left with no
 * runner of its own, took the spare (unit test) or waited on. First come, first served: the
 * later run goes elsewhere meanwhile (the spare, once the burst is over: {@link burstGoesOn}).
 */
export function claimedByEarlier(slot: PlacedSlot, claim: Claim | undefined, now: number): boolean {
  if (!slot.cold || slot.spare || !slot.claims) return false;
  const mine = claim?.slot === slot ? claim.at : Number.POSITIVE_INFINITY;
  // A claim whose run was sent elsewhere keeps no one off: a stall refused by a starting slot,
  // then sent to another runner, slow to begin there (it kept its claim until it began), held
  // the fresh runner from every later run for up to RUNNER_CLAIM_MS (pool5's trace).
  for (const other of slot.claims)
    if (other !== claim && !other.away && other.at < mine && now - other.at < RUNNER_CLAIM_MS)
      return true;
  return false;
}
