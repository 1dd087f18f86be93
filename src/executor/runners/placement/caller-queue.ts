/**
 * The line of runs waiting for a runner (docs/local-runtime.md, "Placement"): every run that
 * placement (run-placement.ts) does not send at once waits here, and the runners that become
 * acceptable go to the waiting runs in turn ({@link CallerQueue.inTurn}): by turns of caller (the
 * caller let in longest ago first), each caller's runs oldest first. A caller's runs that may use
 * no runner (one caller may have runs on all runners but one, and every runner it uses is
 * stalled: runner-placement.ts) are bounded here in number and time, so a caller starting many
 * blocking programs parks a bounded amount on the host and gets a clear error past it.
 *
 * Why a line (issue #40, "one client can starve everyone"): each waiting run looked for a runner
 * on a timer of its own, and whoever looked right after a runner freed took it, a run arriving
 * at that moment included. Under one client's flood of trivial searches (every runner keeps a
 * young run that may be blocking), 240 runs in 10 s waited over 300 ms for a runner, up to
 * 9.4 s, in no order.
 *
 * Data only: what is decided here is read by each waiting run on a timer of its own request.
 * Nothing here resolves or touches a promise of another request (workerd: "Cannot perform I/O on
 * behalf of a different request").
 *
 * Does not do: decide which runner a run would take (run-placement.ts, runner-placement.ts), or
 * give the runners out (slot-chooser.ts).
 */

/**
 * Runs of one caller that may wait at once for a runner it may use (see {@link CALLER_BUSY});
 * one more fails at once. Bounds what a caller that starts many blocking programs parks here.
 */
export const CALLER_QUEUE_MAX = 16;

/**
 * How long a caller's run waits for a runner it may use before it fails: past the time the
 * supervisor takes to replace a runner that a program holds (10 s and a moment), after which the
 * caller's runs there have failed and its runners serve again; below RUNNER_HELD_MAX_MS
 * (runner-placement.ts).
 */
export const CALLER_WAIT_MS = 12_000;

/**
 * How long a waiting run may go without looking before it is dropped from the line: its
 * request's context is gone (workerd gives up a request whose client went away, and no timer of
 * it fires again), and it must not hold the runs behind it. As long as a run's place on its
 * runner lasts unrenewed (run-lease.ts, RUN_LEASE_MS): a host thread busy for seconds never
 * drops a live run, and one dropped that looks again takes its place back (by {@link
 * Waiter.since}).
 */
export const WAITER_SILENT_MS = 5_000;

/**
 * How long a waiting run may go without looking and still be given a runner, and how long a
 * runner given to it waits for it to take it (slot-chooser.ts): past this its request may be gone
 * (workerd gives up a request whose client went away, and no timer of it fires again), and a
 * runner held for it would be lost to every other run. A run at the head of the line looks every
 * 10 ms, further back every 50 ms; this leaves a host thread busy for most of a second room.
 */
export const WAITER_GIVE_SILENT_MS = 1_000;

/**
 * How long the line remembers when a caller without waiting runs was let in: past this, one let
 * in that long ago ranks as one never let in ({@link NEW_CALLER_AHEAD_MS}).
 */
const LET_IN_KEPT_MS = CALLER_WAIT_MS;

/**
 * How far ahead of the callers let in before its oldest run came a caller new to the line goes:
 * it goes before those let in less than this before its run came (a new client goes before a
 * flood that was let in just now), after those let in earlier. Not first of all: a caller never
 * let in went before every caller let in once, and a process that starts each run from a fresh
 * child (each a caller of its own, cli/local-server/front/callers/) was always such a caller, so
 * a caller let in once then waited as long as those kept coming, for ever (attack28). Now it
 * waits at most for the children's runs that came within this of its last turn.
 */
export const NEW_CALLER_AHEAD_MS = 1_000;

/** The start of the message of a run that found no runner its caller may use. */
export const CALLER_BUSY =
  "this caller's runs already use every sandbox runner one caller may use, and none of them is free";

/** One run waiting in the line, as the line sees it (run-placement.ts, RunPlacement). */
export interface Waiter {
  /** Whose run it is ("": nobody in particular, one caller like any other here). */
  readonly caller: string;
  /** When it first asked for a runner: its place among its caller's runs (oldest first). */
  readonly since: number;
  /** When it last looked (its request is alive); see {@link WAITER_SILENT_MS}. */
  lookedAt: number;
  /**
   * Since when it has found no runner its caller may use, once counted against its caller
   * ({@link CallerQueue.capped}); undefined while it may use one.
   */
  cappedSince?: number;
  /** Refused a place among its caller's capped runs: it fails at its next look. */
  refused?: boolean;
}

/** The line, per caller; see the module comment. */
export class CallerQueue<W extends Waiter> {
  /** Each caller's waiting runs, oldest first. */
  private readonly lines = new Map<string, W[]>();
  /** When each caller last had a run let in (see {@link LET_IN_KEPT_MS}). */
  private readonly letInAt = new Map<string, number>();
  /** Capped runs waiting, per caller. */
  private readonly cappedCount = new Map<string, number>();
  /** Waiters counted in {@link cappedCount}. */
  private readonly counted = new Set<W>();
  /** Every waiting run. */
  private readonly members = new Set<W>();

  /** How many runs wait. */
  size(): number {
    return this.members.size;
  }

  /** Capped runs of `caller` waiting now. */
  count(caller: string): number {
    return this.cappedCount.get(caller) ?? 0;
  }

  /** Whether `waiter` is in the line. */
  has(waiter: W): boolean {
    return this.members.has(waiter);
  }

  /** Puts `waiter` in the line at its place among its caller's runs (by `since`). */
  join(waiter: W): void {
    if (this.has(waiter)) return;
    let line = this.lines.get(waiter.caller);
    if (!line) this.lines.set(waiter.caller, (line = []));
    let at = line.length;
    while (at > 0 && line[at - 1]!.since > waiter.since) at--;
    line.splice(at, 0, waiter);
    this.members.add(waiter);
    // A capped run that left (silent for a while) and looks again counts again.
    if (waiter.cappedSince !== undefined) this.count1(waiter);
  }

  /** Takes `waiter` out of the line (it was let in, failed or went silent). */
  leave(waiter: W): void {
    this.uncount(waiter);
    if (!this.members.delete(waiter)) return;
    const line = this.lines.get(waiter.caller)!;
    line.splice(line.indexOf(waiter), 1);
    if (line.length === 0) this.lines.delete(waiter.caller);
  }

  /** `waiter` was given a runner at `now`: out of the line, and its caller's turn is over. */
  letIn(waiter: W, now: number): void {
    this.leave(waiter);
    waiter.cappedSince = undefined;
    this.letInAt.set(waiter.caller, now);
    // Forgotten once it hardly matters: a caller let in that long ago ranks by its oldest run.
    if (this.letInAt.size > 2 * this.lines.size + 64)
      for (const [caller, at] of this.letInAt)
        if (!this.lines.has(caller) && now - at > LET_IN_KEPT_MS) this.letInAt.delete(caller);
  }

  /**
   * The waiting runs in turn: callers by when each was last let in (longest ago first; ties by
   * their oldest run), each caller's runs oldest first. A caller not let in before (or so long
   * ago it was forgotten) ranks as let in {@link NEW_CALLER_AHEAD_MS} before its oldest run
   * came (see there).
   */
  inTurn(): W[][] {
    const rank = (line: W[]) =>
      this.letInAt.get(line[0]!.caller) ?? line[0]!.since - NEW_CALLER_AHEAD_MS;
    return [...this.lines.values()].toSorted(
      (a, b) => rank(a) - rank(b) || a[0]!.since - b[0]!.since,
    );
  }

  /** Drops the runs that have not looked for {@link WAITER_SILENT_MS} at `now`. */
  dropSilent(now: number): void {
    // Deleting from a Set while walking it is safe: each member is visited once.
    for (const waiter of this.members)
      if (now - waiter.lookedAt > WAITER_SILENT_MS) this.leave(waiter);
  }

  /**
   * `waiter` found no runner its caller may use at `now`: counted against its caller from the
   * first time, or refused when {@link CALLER_QUEUE_MAX} of its caller's runs wait so already.
   */
  capped(waiter: W, now: number): void {
    if (waiter.cappedSince !== undefined || waiter.refused) return;
    if (this.count(waiter.caller) >= CALLER_QUEUE_MAX) {
      waiter.refused = true;
      return;
    }
    waiter.cappedSince = now;
    this.count1(waiter);
  }

  /** `waiter` may use a runner again (it waits for a better one, if at all). */
  uncapped(waiter: W): void {
    this.uncount(waiter);
    waiter.cappedSince = undefined;
  }

  /**
   * Throws, with what to do, when `waiter` was refused a place among its caller's capped runs
   * or has waited {@link CALLER_WAIT_MS} for a runner its caller may use.
   */
  check(waiter: W, now: number): void {
    if (waiter.refused)
      throw new Error(
        `${CALLER_BUSY}, and ${CALLER_QUEUE_MAX} more of its runs already wait for one. One caller (an OAuth user, a client address, or a process on the local server's machine) may use all runners but one, so that other callers always find one; its runs there have shown no progress for a while (programs holding their runner's thread). Wait for your runs to finish, then retry: the program did not start.`,
      );
    if (waiter.cappedSince !== undefined && now - waiter.cappedSince >= CALLER_WAIT_MS)
      throw new Error(
        `${CALLER_BUSY} (waited ${CALLER_WAIT_MS} ms). One caller (an OAuth user, a client address, or a process on the local server's machine) may use all runners but one, so that other callers always find one; its runs there have shown no progress (programs holding their runner's thread). Retry once they ended: the program did not start.`,
      );
  }

  private count1(waiter: W): void {
    if (this.counted.has(waiter)) return;
    this.counted.add(waiter);
    this.cappedCount.set(waiter.caller, this.count(waiter.caller) + 1);
  }

  private uncount(waiter: W): void {
    if (!this.counted.delete(waiter)) return;
    const left = this.count(waiter.caller) - 1;
    if (left > 0) this.cappedCount.set(waiter.caller, left);
    else this.cappedCount.delete(waiter.caller);
  }
}
