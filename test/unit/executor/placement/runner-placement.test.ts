// Placement (src/executor/runners/placement/runner-placement.ts): which runner a new run goes to,
// decided on plain slots at a given time. The loader's own tests (runner-loader.test.ts) cover
// how runs move and retry; these pin the decision itself.
import { describe, expect, it } from "vitest";
import {
  ASKED,
  COLD,
  IDLE,
  MAYBE_BLOCKED,
  PROGRESSING,
  REPLACEMENT_DUE_MS,
  REPLACEMENT_LATE_MS,
  RESTING,
  RUNNER_CLAIM_MS,
  RUNNER_HELD_MAX_MS,
  RUNNER_STALL_MS,
  SPARE,
  SPARE_BURST_MS,
  SPARE_IN_BURST,
  STALLED,
  burstGoesOn,
  callerCapped,
  claimedByEarlier,
  claimedSlot,
  pickSlot,
  replacementDue,
  replacementDueUntil,
  spareInBurst,
  tierOf,
  waitsForClaim,
  type PlacedSlot,
  type RunOnSlot,
} from "../../../../src/executor/runners/placement/runner-placement";

const NOW = 1_000_000;

function slot(name: string, runs: Partial<RunOnSlot>[] = [], own: Partial<PlacedSlot> = {}) {
  return {
    name,
    runs: new Set(
      runs.map((run) => ({ caller: "", lastProgress: NOW, inCall: 0, called: false, ...run })),
    ),
    restUntil: 0,
    lateUntil: 0,
    ...own,
  };
}

describe("tierOf", () => {
  it("ranks a runner by its own state, then by its worst run", () => {
    expect(tierOf(slot("idle"), NOW)).toBe(IDLE);
    expect(tierOf(slot("calling", [{ inCall: 1, lastProgress: NOW - 5_000 }]), NOW)).toBe(
      PROGRESSING,
    );
    expect(tierOf(slot("called", [{ called: true, lastProgress: NOW - 10 }]), NOW)).toBe(
      PROGRESSING,
    );
    expect(tierOf(slot("new", [{ lastProgress: NOW - 10 }]), NOW)).toBe(MAYBE_BLOCKED);
    expect(tierOf(slot("quiet", [{ lastProgress: NOW - RUNNER_STALL_MS - 1 }]), NOW)).toBe(STALLED);
    expect(tierOf(slot("late", [], { lateUntil: NOW + 1 }), NOW)).toBe(STALLED);
    expect(tierOf(slot("rest", [{ inCall: 1 }], { restUntil: NOW + 1 }), NOW)).toBe(RESTING);
    // The worst run decides.
    expect(tierOf(slot("mixed", [{ inCall: 1 }, { lastProgress: NOW - 600 }]), NOW)).toBe(STALLED);
  });

  it("stops counting a run quiet past RUNNER_HELD_MAX_MS (it holds no thread: it waits)", () => {
    const held = slot("held", [{ lastProgress: NOW - RUNNER_HELD_MAX_MS }]);
    expect(tierOf(held, NOW)).toBe(STALLED);
    expect(tierOf(held, NOW + 1)).toBe(PROGRESSING);
  });

  it("keeps counting a quiet run on a runner that was slow to begin a run (its thread is held)", () => {
    // A program holding its thread in stretches under the supervisor's 10 s (a catastrophic
    // regex, a timer, again) is never replaced, and quiet past RUNNER_HELD_MAX_MS it looked like
    // a run waiting on something: new runs went there, not to the idle spare, and waited out
    // each stretch (e2e attack: another client's searches waited 1-2 s, again and again).
    const quiet = [{ lastProgress: NOW - RUNNER_HELD_MAX_MS - 1 }];
    const slow = slot("slow", quiet, { slowUntil: NOW + 1 });
    expect(tierOf(slow, NOW)).toBe(STALLED);
    expect(tierOf(slot("slow", quiet, { slowUntil: NOW }), NOW)).toBe(PROGRESSING);
    const spare = slot("spare", [], { spare: true });
    expect(pickSlot([slow, spare], 0, "", NOW)?.name).toBe("spare");
  });
});

describe("cold slots (runners started on demand: cli/local-server/runners/runner-pool.mjs)", () => {
  it("ranks a slot with no runner known to serve after an idle runner and before a busy one", () => {
    expect(tierOf(slot("cold", [], { cold: true }), NOW)).toBe(COLD);
    expect(tierOf(slot("spare", [], { cold: true, spare: true }), NOW)).toBe(SPARE);
    expect(tierOf(slot("resting", [], { cold: true, restUntil: NOW + 1 }), NOW)).toBe(RESTING);
    expect([
      IDLE,
      COLD,
      PROGRESSING,
      SPARE,
      ASKED,
      MAYBE_BLOCKED,
      SPARE_IN_BURST,
      STALLED,
      RESTING,
    ]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const idle = slot("idle");
    const cold = slot("cold", [], { cold: true });
    const busy = slot("busy", [{ called: true }]);
    // An idle runner first: no runner is started while one is free.
    expect(pickSlot([cold, idle], 0, "", NOW)?.name).toBe("idle");
    // Every runner busy: the cold slot (the host asks for a runner there).
    expect(pickSlot([busy, cold], 0, "", NOW)?.name).toBe("cold");
  });

  it("asks for the spare only when every runner may be held, never while one progresses", () => {
    const spare = slot("spare", [], { cold: true, spare: true });
    const progressing = slot("progressing", [{ inCall: 1 }]);
    const blocking = slot("blocking", [{ lastProgress: NOW - 10 }]);
    const stalled = slot("stalled", [{ lastProgress: NOW - RUNNER_STALL_MS - 1 }]);
    expect(pickSlot([spare, progressing], 0, "", NOW)?.name).toBe("progressing");
    expect(pickSlot([spare, blocking, stalled], 1, "", NOW)?.name).toBe("spare");
  });
});

describe("the warm spare (its runner kept running while the pool is busy)", () => {
  it("ranks the spare after every regular runner that is idle, cold or progressing, running or not", () => {
    const warm = slot("spare", [], { spare: true });
    expect(tierOf(warm, NOW)).toBe(SPARE);
    // Honest load grows the regular slots: a cold regular slot before an idle spare.
    const cold = slot("cold", [], { cold: true });
    const busy = slot("busy", [{ called: true }]);
    expect(pickSlot([warm, busy, cold], 0, "", NOW)?.name).toBe("cold");
    expect(pickSlot([warm, busy], 0, "", NOW)?.name).toBe("busy");
    // Every regular runner may be held (a young quiet run, a stalled one): the spare at once.
    const young = slot("young", [{ lastProgress: NOW - 10 }]);
    const stalled = slot("stalled", [{ lastProgress: NOW - RUNNER_STALL_MS - 1 }]);
    expect(pickSlot([young, stalled, warm], 0, "", NOW)?.name).toBe("spare");
    // Once a run is on it, it ranks by that run, as any runner.
    expect(tierOf(slot("spare", [{ lastProgress: NOW - 10 }], { spare: true }), NOW)).toBe(
      MAYBE_BLOCKED,
    );
  });
});

describe("waitsForClaim (a run refused by the slot whose runner it asked for)", () => {
  const spare = slot("spare", [], { spare: true });
  const starting = slot("starting", [], { cold: true, restUntil: NOW + 50 });
  const claim = { slot: starting, at: NOW - 500 };

  it("waits for its slot rather than take the spare or a runner that may be held", () => {
    expect(waitsForClaim(spare, claim, NOW)).toBe(true);
    expect(waitsForClaim(slot("young", [{ lastProgress: NOW - 10 }]), claim, NOW)).toBe(true);
  });

  it("goes at once to a better runner, or to its slot when its rest is over", () => {
    expect(waitsForClaim(slot("idle"), claim, NOW)).toBe(false);
    expect(waitsForClaim(slot("cold", [], { cold: true }), claim, NOW)).toBe(false);
    expect(waitsForClaim(slot("calling", [{ inCall: 1 }]), claim, NOW)).toBe(false);
    expect(waitsForClaim(starting, claim, NOW)).toBe(false);
    expect(waitsForClaim(spare, claim, NOW + 50)).toBe(false);
  });

  it("holds for RUNNER_CLAIM_MS at most, never for a spare slot, nor without a claim", () => {
    const late = {
      slot: slot("starting", [], { cold: true, restUntil: NOW + 50 }),
      at: NOW - RUNNER_CLAIM_MS,
    };
    expect(waitsForClaim(spare, late, NOW)).toBe(false);
    const spareClaim = {
      slot: slot("spare2", [], { spare: true, cold: true, restUntil: NOW + 50 }),
      at: NOW,
    };
    expect(waitsForClaim(slot("young", [{ lastProgress: NOW - 10 }]), spareClaim, NOW)).toBe(false);
    expect(waitsForClaim(spare, undefined, NOW)).toBe(false);
  });
});

describe("a burst asking for regular runners (spareInBurst), and asked slots (ASKED)", () => {
  const warmSpare = () => slot("spare", [], { spare: true });
  const young = (name: string) => slot(name, [{ lastProgress: NOW - 10 }]);
  const asked = (at: number) => slot("asked", [], { cold: true, askedAt: at });

  it("is a burst while a regular cold slot was asked for, or sent a run, < SPARE_BURST_MS ago", () => {
    expect(spareInBurst([young("a"), asked(NOW - 5), warmSpare()], NOW)).toBe(true);
    expect(spareInBurst([young("a"), asked(NOW - SPARE_BURST_MS), warmSpare()], NOW)).toBe(false);
    const sent = slot("sent", [{ lastProgress: NOW - 5 }], { cold: true });
    expect(spareInBurst([sent], NOW)).toBe(true);
    expect(spareInBurst([sent], NOW - 5 + SPARE_BURST_MS)).toBe(false);
    // A claimed run trying the asked slot again does not make the burst last.
    const retried = slot("retried", [{ lastProgress: NOW - 5 }], {
      cold: true,
      askedAt: NOW - SPARE_BURST_MS,
    });
    expect(spareInBurst([retried], NOW)).toBe(false);
    // Not the spare's own refusals, nor a slot never asked for, nor a serving one.
    expect(spareInBurst([slot("s", [], { cold: true, spare: true, askedAt: NOW })], NOW)).toBe(
      false,
    );
    expect(spareInBurst([slot("cold", [], { cold: true })], NOW)).toBe(false);
    expect(spareInBurst([slot("up", [], { askedAt: NOW })], NOW)).toBe(false);
  });

  it("keeps the spare for the runs after a burst: the burst's runs go to the slot they asked for", () => {
    // e2e fair-share, shared worker: an honest search on runner a, a stall just taken runner b,
    // slot c asked for by the stalls (its runner starting), the spare running and free. The third
    // stall took the spare (it ranked before a runner that may be blocked), and every search
    // after it waited for c's start.
    const slots = [young("a"), young("b"), asked(NOW - 5), warmSpare()];
    expect(pickSlot(slots, 0, "", NOW)?.name).toBe("asked");
    // The first stall still on its way to c, or c resting after refusing it: not the spare
    // (before, it went there at once); a runner that may be blocked, where the loader waits.
    const onItsWay = slot("c", [{ lastProgress: NOW - 5 }], { cold: true });
    const resting = slot("c", [], { cold: true, askedAt: NOW - 5, restUntil: NOW + 45 });
    for (const c of [onItsWay, resting]) {
      const best = pickSlot([young("a"), young("b"), c, warmSpare()], 0, "", NOW)!;
      expect(best.name).not.toBe("spare");
      expect(tierOf(best, NOW)).toBeGreaterThanOrEqual(MAYBE_BLOCKED);
    }
    // After the burst a run goes to the spare at once, not to the slot being started.
    const after = NOW - 5 + SPARE_BURST_MS;
    const later = [young("a"), young("b"), asked(NOW - 5), warmSpare()];
    for (const s of later) for (const run of s.runs) run.lastProgress = after - 10;
    expect(tierOf(later[2]!, after)).toBe(COLD);
    expect(pickSlot(later, 0, "", after)?.name).toBe("spare");
  });

  it("keeps the spare from a burst that took the serving runners while one's replacement is due", () => {
    // e2e fair-share's round 2 at load 15–21: a round-1 stall that began late still holds
    // runner c (quiet 10 s: the supervisor is about to end it, its replacement ready); the
    // round's first two stalls have just taken a and b. The third took the idle spare, and the
    // other client's searches waited 1.2–3.4 s for c's replacement.
    const held = (quiet: number) => slot("c", [{ lastProgress: NOW - quiet }]);
    const dueSlots = [young("a"), young("b"), held(REPLACEMENT_DUE_MS + 1_000), warmSpare()];
    expect(replacementDue(dueSlots, NOW)).toBe(true);
    expect(spareInBurst(dueSlots, NOW)).toBe(true);
    const best = pickSlot(dueSlots, 0, "", NOW)!;
    expect(best.name).not.toBe("spare");
    // The loader waits there (a runner that may be blocked), looking again for c's successor.
    expect(tierOf(best, NOW)).toBeGreaterThanOrEqual(MAYBE_BLOCKED);
    // After the burst (its runs older than SPARE_BURST_MS) a run takes the spare at once.
    const after = NOW + SPARE_BURST_MS;
    expect(spareInBurst(dueSlots, after)).toBe(false);
    expect(pickSlot(dueSlots, 0, "", after)?.name).toBe("spare");
    // No replacement due: a held runner not quiet that long, one overdue (the wait is bounded),
    // one whose run waits in a host call, a spare's own stall: the spare is the burst's too.
    for (const c of [
      held(REPLACEMENT_DUE_MS - 1),
      held(REPLACEMENT_LATE_MS),
      slot("c", [{ lastProgress: NOW - REPLACEMENT_DUE_MS, inCall: 1 }]),
      slot("c", [{ lastProgress: NOW - REPLACEMENT_DUE_MS }], { spare: true }),
    ]) {
      const slots = [young("a"), young("b"), c, warmSpare()];
      expect(replacementDue(slots, NOW)).toBe(false);
      expect(spareInBurst(slots, NOW)).toBe(false);
    }
    expect(
      pickSlot([young("a"), young("b"), held(REPLACEMENT_LATE_MS), warmSpare()], 0, "", NOW)?.name,
    ).toBe("spare");
    // Runs that called the host are no burst of blocking programs.
    const honest = [
      slot("a", [{ lastProgress: NOW - 10, called: true }]),
      held(REPLACEMENT_DUE_MS),
      warmSpare(),
    ];
    expect(spareInBurst(honest, NOW)).toBe(false);
  });

  it("keeps the spare from a burst beside a runner held ~8.5 s (a stall that began late)", () => {
    // The audit of issue #40 (e2e fair-share, isolate-per-run, load 9–10): round 1's stall on b
    // began ~2 s late (b was being started), so when round 2 came 11 s after round 1, b's run had
    // been quiet ~8.6–9 s: not due with 9 s; the round's third stall took the idle spare, and
    // the other client's searches waited 1.1–1.7 s for b's replacement.
    const lateStall = slot("b", [{ lastProgress: NOW - 8_500 }]);
    const slots = [young("a"), lateStall, young("c"), warmSpare()];
    expect(replacementDue(slots, NOW)).toBe(true);
    expect(spareInBurst(slots, NOW)).toBe(true);
    expect(pickSlot(slots, 0, "", NOW)?.name).not.toBe("spare");
    expect(burstGoesOn(slots, NOW + SPARE_BURST_MS)).toBe(true);
    // Quiet for 7 s, the replacement is ~3–4 s away: too far for a burst's run to wait for.
    const earlier = [
      young("a"),
      slot("b", [{ lastProgress: NOW - 7_000 }]),
      young("c"),
      warmSpare(),
    ];
    expect(spareInBurst(earlier, NOW)).toBe(false);
  });

  it("places a burst's run as in the burst only until every runner it asked for serves (burstGoesOn)", () => {
    // e2e fair-share, round 1 at load 12–16: another client's search arrived 30–70 ms after the
    // stalls, in their burst; the slot the third stall asked for (c) got its runner and the stall
    // began there. Ranked as in the burst for good, the search waited until c's stall looked
    // stalled (500 ms later) before it took the idle spare: 0.97–1.0 s in all.
    const begunOnC = slot("c", [{ lastProgress: NOW - 5 }]);
    const served = [young("a"), young("b"), begunOnC, warmSpare()];
    expect(burstGoesOn(served, NOW)).toBe(false);
    expect(pickSlot(served, 0, "", NOW, undefined, false)?.name).toBe("spare");
    // Still a burst: c asked for and not serving yet (its runner starting, past SPARE_BURST_MS:
    // the burst's runs wait for it by their claims), c sent a run < SPARE_BURST_MS ago, or a
    // held regular runner's replacement due (the burst waits for it: replacementDue).
    const startingC = asked(NOW - SPARE_BURST_MS - 200);
    expect(spareInBurst([young("a"), young("b"), startingC, warmSpare()], NOW)).toBe(false);
    expect(burstGoesOn([young("a"), young("b"), startingC, warmSpare()], NOW)).toBe(true);
    expect(burstGoesOn([young("a"), young("b"), asked(NOW - 5), warmSpare()], NOW)).toBe(true);
    const due = slot("c", [{ lastProgress: NOW - REPLACEMENT_DUE_MS - 500 }]);
    expect(burstGoesOn([young("a"), young("b"), due, warmSpare()], NOW)).toBe(true);
    // Not for a slot asked RUNNER_CLAIM_MS ago or more (its start is late: the spare serves),
    // nor for the spare's own slot being cold.
    const long = asked(NOW - RUNNER_CLAIM_MS);
    expect(burstGoesOn([young("a"), young("b"), long, warmSpare()], NOW)).toBe(false);
    const coldSpare = slot("spare", [], { spare: true, cold: true, askedAt: NOW - 200 });
    expect(burstGoesOn([young("a"), young("b"), begunOnC, coldSpare], NOW)).toBe(false);
  });

  it("says until when a due replacement is worth waiting for: the latest due run turning late", () => {
    const quietFor = (name: string, quiet: number) => slot(name, [{ lastProgress: NOW - quiet }]);
    const c = quietFor("c", REPLACEMENT_DUE_MS + 1_500);
    const d = quietFor("d", REPLACEMENT_DUE_MS + 200);
    // d turns late last; e (not quiet long enough yet) is no part of this window.
    const e = quietFor("e", REPLACEMENT_DUE_MS - 100);
    expect(replacementDueUntil([c, d, e, warmSpare()], NOW)).toBe(
      NOW - REPLACEMENT_DUE_MS - 200 + REPLACEMENT_LATE_MS,
    );
    expect(replacementDueUntil([e, warmSpare()], NOW)).toBeUndefined();
  });

  it("ranks an asked slot after the spare only while the spare's runner serves and is free", () => {
    const honest = slot("busy", [{ called: true }]);
    // Warm spare: a progressing runner, then the spare, before the slot being started.
    const at = NOW - SPARE_BURST_MS;
    expect(pickSlot([asked(at), honest, warmSpare()], 0, "", NOW)?.name).toBe("busy");
    expect(pickSlot([asked(at), young("y"), warmSpare()], 0, "", NOW)?.name).toBe("spare");
    // No spare running (cold): the asked slot is an ordinary cold slot, first as before.
    const coldSpare = slot("spare", [], { spare: true, cold: true });
    expect(pickSlot([asked(at), honest, coldSpare], 0, "", NOW)?.name).toBe("asked");
    // Asked RUNNER_CLAIM_MS ago or more: no runner known to be on its way; cold again.
    expect(
      pickSlot([asked(NOW - RUNNER_CLAIM_MS), young("y"), warmSpare()], 0, "", NOW)?.name,
    ).toBe("asked");
  });

  it("sends a run that claimed a slot back to it once its rest is over, not to the spare", () => {
    const starting = slot("starting", [], { cold: true, askedAt: NOW - 500, restUntil: NOW });
    const claim = { slot: starting, at: NOW - 500 };
    expect(claimedSlot(warmSpare(), claim, NOW)).toBe(starting);
    expect(claimedSlot(young("y"), claim, NOW)).toBe(starting);
    // A better runner at once; its slot still resting; the claim expired; no claim.
    const idle = slot("idle");
    expect(claimedSlot(idle, claim, NOW)).toBe(idle);
    const spare = warmSpare();
    expect(claimedSlot(spare, { slot: { ...starting, restUntil: NOW + 1 }, at: NOW }, NOW)).toBe(
      spare,
    );
    expect(claimedSlot(spare, { slot: starting, at: NOW - RUNNER_CLAIM_MS }, NOW)).toBe(spare);
    expect(claimedSlot(spare, undefined, NOW)).toBe(spare);
    // Another run on its way there (a second claimant): not after it onto a fresh runner.
    const taken = slot("starting", [{ lastProgress: NOW - 5 }], { cold: true, askedAt: NOW - 500 });
    expect(claimedSlot(spare, { slot: taken, at: NOW - 500 }, NOW)).toBe(spare);
  });
});

describe("a cold slot a run was just sent to (a fresh runner may be about to begin it)", () => {
  it("ranks by that run, so a second run does not follow it onto the fresh runner", () => {
    // The first run sent to a slot whose runner has just come up: it may be a blocking program,
    // and until the runner begins it the slot is still cold. Before, it stayed COLD, and a
    // search sent a moment later joined the stall there (e2e fair-share) and failed with it.
    const fresh = slot("fresh", [{ lastProgress: NOW - 10 }], { cold: true });
    expect(tierOf(fresh, NOW)).toBe(MAYBE_BLOCKED);
    expect(tierOf(fresh, NOW + RUNNER_STALL_MS + 11)).toBe(STALLED);
    const spare = slot("spare", [], { cold: true, spare: true });
    const held = slot("held", [{ lastProgress: NOW - 10 }]);
    // Every other runner may be held: not the fresh slot the first run went to (it ranks by that
    // run); and while that run may be asking for the slot's runner (a burst), not the spare
    // either: the best is a runner that may be blocked, where the loader waits and looks again.
    expect(tierOf(pickSlot([fresh, held, spare], 0, "", NOW)!, NOW)).toBe(MAYBE_BLOCKED);
    // Once the burst is over, the spare is asked, not the fresh slot.
    const later = NOW + SPARE_BURST_MS;
    const fresher = slot("fresh", [{ lastProgress: NOW - 10 }], { cold: true });
    const heldLater = slot("held", [{ lastProgress: later - 10 }]);
    expect(pickSlot([fresher, heldLater, spare], 0, "", later)?.name).toBe("spare");
    // With nothing on its way there it is an ordinary cold slot again.
    expect(tierOf(slot("empty", [], { cold: true }), NOW)).toBe(COLD);
  });
});

describe("pickSlot", () => {
  it("takes the best tier, then the fewest runs using the thread, ties from `start` on", () => {
    const a = slot("a", [{ called: true }]);
    const b = slot("b", [{ inCall: 1 }]);
    const c = slot("c", [{ lastProgress: NOW - 600 }]);
    // a and b both progress; b's run waits on the host, a's may use the thread.
    expect(pickSlot([a, b, c], 0, "", NOW)?.name).toBe("b");
    const d = slot("d");
    const e = slot("e");
    expect(pickSlot([d, e], 0, "", NOW)?.name).toBe("d");
    expect(pickSlot([d, e], 1, "", NOW)?.name).toBe("e");
    expect(pickSlot([d, e], 0, "", NOW, d)?.name).toBe("e");
  });

  it("keeps a caller on all runners but one to its own runners, and to none when they stall", () => {
    const mine1 = slot("mine1", [{ caller: "u1", called: true }]);
    const mine2 = slot("mine2", [{ caller: "u1", called: true }]);
    const free = slot("free");
    expect(pickSlot([mine1, mine2, free], 0, "u1", NOW)?.name).toMatch(/^mine/);
    expect(pickSlot([mine1, mine2, free], 0, "u2", NOW)?.name).toBe("free");
    const stalled1 = slot("s1", [{ caller: "u1", lastProgress: NOW - 600 }]);
    const stalled2 = slot("s2", [{ caller: "u1", lastProgress: NOW - 600 }]);
    expect(pickSlot([stalled1, stalled2, free], 0, "u1", NOW)).toBeUndefined();
    // A run naming no caller is never capped.
    const anon1 = slot("n1", [{ lastProgress: NOW - 600 }]);
    const anon2 = slot("n2", [{ lastProgress: NOW - 600 }]);
    expect(pickSlot([anon1, anon2, free], 0, "", NOW)?.name).toBe("free");
  });

  it("counts the runners not resting: a caller on all of those but one is kept to its own", () => {
    // e2e fair-share (shared worker): the staller's run on a replaced runner had ended, so it
    // held 2 of 4 runners, under a cap counted among all; its waiting stall took the free one,
    // the other client's, while the fourth rested after its replacement (1,070 ms).
    const mine1 = slot("mine1", [{ caller: "u1", lastProgress: NOW - 600 }]);
    const mine2 = slot("mine2", [{ caller: "u1", lastProgress: NOW - 600 }]);
    const free = slot("free");
    const resting = slot("resting", [], { restUntil: NOW + 40 });
    const slots = [mine1, mine2, free, resting];
    expect(callerCapped(slots, "u1", NOW)).toBe(true);
    expect(pickSlot(slots, 0, "u1", NOW)).toBeUndefined();
    expect(pickSlot(slots, 0, "u2", NOW)?.name).toBe("free");
    // Once it serves again, the caller's cap is counted among all four.
    expect(callerCapped(slots, "u1", NOW + 40)).toBe(false);
    // Never less strict than among all: with fewer than two runners not resting, all count.
    const rest2 = slot("rest2", [], { restUntil: NOW + 40 });
    expect(callerCapped([mine1, resting, rest2], "u1", NOW)).toBe(false);
    expect(callerCapped([mine1, mine2, resting], "u1", NOW)).toBe(true);
  });

  it("never caps a caller when there is one runner", () => {
    const only = slot("only", [{ caller: "u1", lastProgress: NOW - 600 }]);
    expect(pickSlot([only], 0, "u1", NOW)?.name).toBe("only");
  });
});

describe("claimedByEarlier (a fresh runner goes to the run that asked for it first)", () => {
  it("passes a later run over a cold slot another run still being placed claimed first", () => {
    const c = slot("c", [], { cold: true, askedAt: NOW - 200 });
    const stall = { slot: c, at: NOW - 200 };
    const search = { slot: c, at: NOW - 150 };
    c.claims = new Set([stall, search]);
    expect(claimedByEarlier(c, search, NOW)).toBe(true);
    expect(claimedByEarlier(c, undefined, NOW)).toBe(true);
    expect(claimedByEarlier(c, stall, NOW)).toBe(false);
    // A claim RUNNER_CLAIM_MS old no longer holds the slot (its run may be gone for good).
    expect(claimedByEarlier(c, search, NOW - 200 + RUNNER_CLAIM_MS)).toBe(false);
    // Once the slot serves (a run began there) or for the spare, claims decide nothing.
    expect(claimedByEarlier({ ...c, cold: false }, search, NOW)).toBe(false);
    expect(claimedByEarlier({ ...c, spare: true }, search, NOW)).toBe(false);
    c.claims.delete(stall);
    expect(claimedByEarlier(c, search, NOW)).toBe(false);
  });

  it("a claim whose run was sent to another runner keeps no one off until it comes back", () => {
    // pool5's trace: a stall refused by a starting slot, then sent to another runner and slow
    // to begin there, kept its claim, and the slot's fresh runner was held from later runs.
    const c = slot("c", [], { cold: true, askedAt: NOW - 200 });
    const stall = { slot: c, at: NOW - 200, away: true };
    const search = { slot: c, at: NOW - 150 };
    c.claims = new Set([stall, search]);
    expect(claimedByEarlier(c, search, NOW)).toBe(false);
    // A run with no claim there is kept off by the search's claim only.
    c.claims.delete(search);
    expect(claimedByEarlier(c, undefined, NOW)).toBe(false);
    c.claims.add(search);
    stall.away = false;
    expect(claimedByEarlier(c, search, NOW)).toBe(true);
  });
});
