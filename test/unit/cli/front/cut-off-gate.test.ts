/**
 * The front's bound on requests cut off after they were sent (cli/local-server/front/
 * cut-off-gate.mjs), decision by decision: the clock injected (the supervisor's fake clock), no
 * server, no timing.
 */
import { describe, expect, it } from "vitest";
import {
  CUT_OFF_HOLD_MS,
  CUT_OFF_MAX,
  FRESH_BYTES,
  FRESH_MAX,
  FRESH_MS,
  NOT_NAMED_YET,
  createCutOffGate,
} from "../../../../cli/local-server/front/cut-off-gate.mjs";
import { fakeClock, settle } from "../supervisor/fake-clock";

type Gate = ReturnType<typeof createCutOffGate>;
type Pass = { began: () => void; cutOff: () => void; done: () => void };

/** A waiting request's client: `leave()` is its connection closing. */
function client() {
  let drop: (() => void) | undefined;
  return {
    gone: (d: () => void) => {
      drop = d;
      return () => (drop = undefined);
    },
    leave: () => drop?.(),
  };
}

/** Admits a request; `pass()` is its pass once it has one, undefined while it waits or if dropped. */
function admit(gate: Gate, who = client(), caller?: () => string | undefined, bytes?: number) {
  const state: { pass?: Pass; dropped: boolean; settled: boolean } = {
    dropped: false,
    settled: false,
  };
  const admitted = gate.admit(who.gone, caller, bytes);
  if (admitted instanceof Promise)
    void admitted.then((p) => {
      state.settled = true;
      if (p) state.pass = p;
      else state.dropped = true;
    });
  else {
    state.settled = true;
    state.pass = admitted;
  }
  return { state, leave: who.leave, sync: !(admitted instanceof Promise) };
}

describe("the front's cut-off gate (cut-off-gate.mjs)", () => {
  it("lets every request through at once while no one cuts requests off", () => {
    const gate = createCutOffGate({ clock: fakeClock() });
    for (let i = 0; i < 1_000; i++) {
      const { sync, state } = admit(gate);
      expect(sync).toBe(true);
      state.pass?.done();
    }
    expect(gate.held()).toBe(0);
  });

  it("holds new requests once CUT_OFF_MAX were cut off, and lets them in one by one as places are given back, in order", async () => {
    const clock = fakeClock();
    const gate = createCutOffGate({ clock });
    for (let i = 0; i < CUT_OFF_MAX; i++) admit(gate).state.pass?.cutOff();
    const first = admit(gate);
    const second = admit(gate);
    expect(first.sync).toBe(false);
    // One place back every CUT_OFF_HOLD_MS / CUT_OFF_MAX, steadily (not all at a hold's end).
    const perPlace = CUT_OFF_HOLD_MS / CUT_OFF_MAX;
    await clock.advance(Math.floor(perPlace) - 1);
    expect(first.state.settled).toBe(false);
    await clock.advance(2);
    expect(first.state.pass).toBeDefined();
    expect(second.state.settled).toBe(false);
    await clock.advance(Math.ceil(perPlace));
    expect(second.state.pass).toBeDefined();
  });

  it("drops a waiting request whose client leaves: it never reaches the host and takes no place", async () => {
    const clock = fakeClock();
    const gate = createCutOffGate({ clock, max: 1 });
    admit(gate).state.pass?.cutOff();
    const leaving = admit(gate);
    const staying = admit(gate);
    leaving.leave();
    await settle();
    expect(leaving.state.dropped).toBe(true);
    expect(gate.waiting()).toBe(1);
    await clock.advance(CUT_OFF_HOLD_MS);
    expect(staying.state.pass).toBeDefined();
  });

  it("holds a place for a request let in from the queue until its exchange ends (or its answer began), so a storm is not let in all at once", async () => {
    const clock = fakeClock();
    const gate = createCutOffGate({ clock, max: 2 });
    admit(gate).state.pass?.cutOff();
    admit(gate).state.pass?.cutOff();
    const waiting = Array.from({ length: 10 }, () => admit(gate));
    await clock.advance(CUT_OFF_HOLD_MS);
    expect(waiting.filter((w) => w.state.pass).length).toBe(2);
    // One answered (its place is free again), one cut off (it holds its place for the hold).
    waiting[0]!.state.pass!.done();
    waiting[1]!.state.pass!.cutOff();
    await settle();
    expect(waiting.filter((w) => w.state.pass).length).toBe(3);
  });

  it("keeps the gate shut no longer than one hold after a burst of cut-offs that passed while it was open", async () => {
    const clock = fakeClock();
    const gate = createCutOffGate({ clock });
    // 100 requests let through at once (no cut-off yet), then all cut off.
    const burst = Array.from({ length: 100 }, () => admit(gate));
    for (const b of burst) b.state.pass?.cutOff();
    const next = admit(gate);
    expect(next.sync).toBe(false);
    await clock.advance(CUT_OFF_HOLD_MS / CUT_OFF_MAX + 1);
    expect(next.state.pass).toBeDefined();
  });

  it("paces a storm of cut-off requests to CUT_OFF_MAX per hold, however many arrive", async () => {
    const clock = fakeClock();
    const gate = createCutOffGate({ clock });
    // 100 clients, each sending a request, cutting it off 150 ms later, and sending the next,
    // for 10 s (the storm that made the host miss /health). Passed on: what reaches the host.
    let reached = 0;
    let sent = 0;
    const stormMs = 10_000;
    const one = (): void => {
      if (clock.now() >= stormMs) return;
      sent++;
      const request = admit(gate);
      void clock.sleep(150).then(() => {
        if (request.state.pass) {
          reached++;
          request.state.pass.cutOff();
        } else request.leave();
        one();
      });
    };
    for (let i = 0; i < 100; i++) one();
    await clock.advance(stormMs + 1_000);
    expect(sent).toBeGreaterThan(6_000);
    // The first round of all 100 passed while no request had been cut off yet (honest
    // concurrency is never held); from then on, CUT_OFF_MAX per hold.
    expect(reached).toBeLessThanOrEqual(100 + CUT_OFF_MAX * (stormMs / CUT_OFF_HOLD_MS + 1));
    expect(reached).toBeGreaterThan(0);
  });

  describe("by caller", () => {
    /** Fills every place with cut-offs so that whatever comes next waits. */
    const shut = (gate: Gate) => {
      for (let i = 0; i < CUT_OFF_MAX; i++) admit(gate).state.pass?.cutOff();
    };
    const perPlace = CUT_OFF_HOLD_MS / CUT_OFF_MAX;

    it("lets another caller's request in at the next free place, however many one caller keeps waiting", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      const storm = Array.from({ length: 600 }, () => admit(gate, client(), () => "process:1"));
      await clock.advance(perPlace * 3);
      const search = admit(gate, client(), () => "process:2");
      expect(search.state.settled).toBe(false);
      // Before: one queue in order of arrival, the search behind ~597 requests (18.7 s).
      await clock.advance(Math.ceil(perPlace) + 1);
      expect(search.state.pass).toBeDefined();
      // The storm's own requests keep their order of arrival.
      const letIn = storm.map((s) => (s.state.pass ? 1 : 0)).join("");
      expect(letIn).toMatch(/^1{2,4}0+$/);
    });

    it("takes turns: two callers that keep requests waiting are let in one each, in turn", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      const order: string[] = [];
      const wait = (name: string) => {
        const admitted = gate.admit(client().gone, () => name);
        if (admitted instanceof Promise) void admitted.then((p) => p && order.push(name));
      };
      for (let i = 0; i < 30; i++) wait("a");
      for (let i = 0; i < 10; i++) wait("b");
      await clock.advance(perPlace * 12 + 1);
      expect(order.slice(0, 12)).toEqual([
        "a",
        "b",
        "a",
        "b",
        "a",
        "b",
        "a",
        "b",
        "a",
        "b",
        "a",
        "b",
      ]);
    });

    it("asks a waiting request's caller again at each turn: a name learnt while waiting counts", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      // Every request starts unknown (the look-up of its process has not answered yet).
      const names = new Map<number, string>();
      const storm = Array.from({ length: 200 }, (_, i) =>
        admit(gate, client(), () => names.get(i) ?? "unknown"),
      );
      let honest = "unknown";
      const search = admit(gate, client(), () => honest);
      await clock.advance(perPlace * 2 + 1);
      for (let i = 0; i < 200; i++) names.set(i, "process:1");
      honest = "process:2";
      // Two callers never let in under their names: the older request first, then the search.
      await clock.advance(perPlace * 2 + 1);
      expect(search.state.pass).toBeDefined();
      expect(storm.filter((s) => s.state.pass).length).toBeLessThanOrEqual(4);
    });

    it("lets a caller with requests waiting in between a stream of new callers", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      // A search waits, let in once already (its turn came), more of its requests waiting.
      const searches = Array.from({ length: 3 }, () => admit(gate, client(), () => "victim"));
      // A fresh process for each request, one arriving at every turn: each is a caller new to
      // the line. Before, each ranked ahead of everyone and the victim waited as long as they
      // came (here: 1 of its 3 requests let in over 40 turns). Now it goes in turn with them.
      for (let turn = 0; turn < 40; turn++) {
        admit(gate, client(), () => `process:${1_000 + turn}`);
        await clock.advance(Math.ceil(perPlace) + 1);
        if (turn === 12) expect(searches.every((s) => s.state.pass)).toBe(true);
      }
    });

    it("puts a caller that had none waiting first in line when it comes back", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      for (let i = 0; i < 100; i++) admit(gate, client(), () => "storm");
      await clock.advance(Math.ceil(perPlace) + 1);
      // One request at a time, each sent once the last was let in: each goes next.
      for (let round = 0; round < 5; round++) {
        const one = admit(gate, client(), () => "honest");
        await clock.advance(Math.ceil(perPlace) + 1);
        expect(one.state.pass).toBeDefined();
        one.state.pass?.done();
      }
    });

    it("skips a caller's dropped requests and drops the caller once none of its requests waits", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      shut(gate);
      const gone = Array.from({ length: 50 }, () => admit(gate, client(), () => "gone"));
      const stays = admit(gate, client(), () => "stays");
      for (const g of gone) g.leave();
      await settle();
      expect(gate.waiting()).toBe(1);
      await clock.advance(Math.ceil(perPlace) + 1);
      expect(stays.state.pass).toBeDefined();
      expect(gate.waiting()).toBe(0);
    });
  });

  describe("a caller's share of requests not yet answering", () => {
    it("lets one caller's burst in FRESH_MAX at a time, and another caller's request in at once", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      const burst = Array.from({ length: 600 }, () => admit(gate, client(), () => "process:1"));
      await settle();
      expect(burst.filter((b) => b.state.pass).length).toBe(FRESH_MAX);
      // Before: all 600 went to the host at once, and a search sent next waited behind them
      // on its thread (7.8 s).
      const search = admit(gate, client(), () => "process:2");
      await settle();
      expect(search.state.pass).toBeDefined();
      expect(gate.waiting()).toBe(600 - FRESH_MAX);
    });

    it("gives a request's share back when its answer begins, or FRESH_MS after it was sent", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      const burst = Array.from({ length: 3 * FRESH_MAX }, () => admit(gate, client(), () => "a"));
      await settle();
      const passed = () => burst.filter((b) => b.state.pass).length;
      expect(passed()).toBe(FRESH_MAX);
      // Two answers begin (an event stream's head): two more go.
      burst[0]!.state.pass!.began();
      burst[1]!.state.pass!.began();
      // A pass reports began at most once: a second call gives nothing back.
      burst[1]!.state.pass!.began();
      await settle();
      expect(passed()).toBe(FRESH_MAX + 2);
      // Long answers (a run's JSON comes whole at its end) hold the share FRESH_MS at most.
      await clock.advance(FRESH_MS - 1);
      expect(passed()).toBe(FRESH_MAX + 2);
      await clock.advance(2);
      expect(passed()).toBe(2 * FRESH_MAX + 2);
    });

    it("counts a request against the name its caller had when it was let in", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      let name = "unknown";
      const first = Array.from({ length: FRESH_MAX + 1 }, () => admit(gate, client(), () => name));
      await settle();
      expect(first.filter((b) => b.state.pass).length).toBe(FRESH_MAX);
      // The look-up answered: the waiting one is now its process's, which has its own share.
      name = "process:7";
      const more = Array.from({ length: FRESH_MAX }, () => admit(gate, client(), () => name));
      await settle();
      expect([...first, ...more].filter((b) => b.state.pass).length).toBe(2 * FRESH_MAX);
      // Those let in as "unknown" give their share back to "unknown".
      for (const b of first) b.state.pass?.done();
      name = "unknown";
      const later = Array.from({ length: FRESH_MAX }, () => admit(gate, client(), () => name));
      await settle();
      expect(later.every((b) => b.state.pass)).toBe(true);
    });

    it("lets a waiting request in when its caller is named, without waiting for the gate's next event", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      const names = new Map<number, string>();
      // All unknown: FRESH_MAX go, the rest wait for the unknown share (up to FRESH_MS).
      const burst = Array.from({ length: FRESH_MAX + 1 }, (_, i) =>
        admit(gate, client(), () => names.get(i) ?? "unknown"),
      );
      await settle();
      expect(burst[FRESH_MAX]!.state.settled).toBe(false);
      names.set(FRESH_MAX, "process:9");
      gate.recheck();
      await settle();
      expect(burst[FRESH_MAX]!.state.pass).toBeDefined();
    });

    it("holds no share for requests that name no caller (where callers cannot be told apart)", async () => {
      const gate = createCutOffGate({ clock: fakeClock() });
      const burst = Array.from({ length: 600 }, () => admit(gate));
      expect(burst.every((b) => b.sync)).toBe(true);
    });

    it("lets one caller's large bodies in FRESH_BYTES at a time, one always, and another caller's at once", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      const big = Math.floor(FRESH_BYTES / 2) + 1;
      // Sixteen bodies a little over half the share each: one at a time (before: all sixteen
      // went, and another client's search waited behind ~40 ms of the host's thread for each).
      const bodies = Array.from({ length: 16 }, () =>
        admit(gate, client(), () => "process:1", big),
      );
      await settle();
      expect(bodies.filter((b) => b.state.pass).length).toBe(1);
      // Another caller, and a body larger than the whole share: in at once (one always may).
      const other = admit(gate, client(), () => "process:2", FRESH_BYTES * 2);
      await settle();
      expect(other.state.pass).toBeDefined();
      // The first answer begins: the next body of the first caller goes, still one at a time.
      bodies[0]!.state.pass!.began();
      await settle();
      expect(bodies.filter((b) => b.state.pass).length).toBe(2);
      // Small requests of the same caller wait their turn behind its oldest (in order).
      const small = admit(gate, client(), () => "process:1", 100);
      await settle();
      expect(small.state.settled).toBe(false);
      // FRESH_MS later the body no longer counts, answered or not.
      await clock.advance(FRESH_MS + 1);
      expect(bodies.filter((b) => b.state.pass).length).toBe(3);
    });

    it("never lets a request in past the cut-off bound, whoever has room", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      for (let i = 0; i < CUT_OFF_MAX; i++)
        admit(gate, client(), () => `c${i}`).state.pass?.cutOff();
      const waiting = admit(gate, client(), () => "fresh");
      await settle();
      expect(waiting.state.settled).toBe(false);
    });
  });

  describe("a request waiting for its caller's name", () => {
    it("waits, however free the gate is, until its caller is named, then goes at once", async () => {
      const gate = createCutOffGate({ clock: fakeClock() });
      let name: string | undefined = NOT_NAMED_YET;
      const run = admit(gate, client(), () => name);
      // Before: let in at once, sent to the host as nobody's (the host caps no one for it).
      expect(run.sync).toBe(false);
      await settle();
      expect(run.state.settled).toBe(false);
      name = "process:1";
      gate.recheck();
      await settle();
      expect(run.state.pass).toBeDefined();
    });

    it("holds up no named request: others go at once past requests waiting for names", async () => {
      const gate = createCutOffGate({ clock: fakeClock() });
      const unnamed = Array.from({ length: 50 }, () => admit(gate, client(), () => NOT_NAMED_YET));
      const named = admit(gate, client(), () => "process:2");
      expect(named.sync).toBe(true);
      expect(unnamed.some((u) => u.state.settled)).toBe(false);
      expect(gate.waiting()).toBe(50);
    });

    it("asks each caller once when thousands arrive not named yet (no walk per arrival)", () => {
      // attack29: each arrival walked the whole queue twice, asking every waiting request's
      // caller: 2,000 new connections' requests cost the front's thread 0.5-0.75 s on arrival.
      const gate = createCutOffGate({ clock: fakeClock() });
      let asked = 0;
      const unnamed = () => {
        asked++;
        return NOT_NAMED_YET;
      };
      for (let i = 0; i < 2_000; i++) admit(gate, client(), unnamed);
      expect(gate.waiting()).toBe(2_000);
      expect(asked).toBe(2_000);
    });

    it("rechecks once for a look's whole batch of names (recheckSoon)", async () => {
      // A look names up to 1,024 sockets, each telling the gate; a recheck each walked the
      // queue each time (146 ms of the front's thread per look with 1,000 requests waiting).
      const gate = createCutOffGate({ clock: fakeClock() });
      let asked = 0;
      let name: string | undefined = NOT_NAMED_YET;
      const waiting = Array.from({ length: 100 }, () =>
        admit(gate, client(), () => (asked++, NOT_NAMED_YET)),
      );
      const named = admit(gate, client(), () => name);
      asked = 0;
      name = "process:1";
      for (let i = 0; i < 1_024; i++) gate.recheckSoon();
      expect(named.state.settled).toBe(false);
      await new Promise((r) => setImmediate(r));
      await settle();
      expect(named.state.pass).toBeDefined();
      // One recheck: a walk letting the named one in, one finding no other (before: 1,024).
      expect(asked).toBe(200);
      expect(waiting.some((w) => w.state.settled)).toBe(false);
    });

    it("once named, a burst goes by its caller's share and turn, not all at once", async () => {
      const clock = fakeClock();
      const gate = createCutOffGate({ clock });
      // One look names 200 requests of one process at once.
      let named = false;
      const burst = Array.from({ length: 200 }, () =>
        admit(gate, client(), () => (named ? "process:1" : NOT_NAMED_YET)),
      );
      const search = admit(gate, client(), () => "process:2");
      expect(search.sync).toBe(true);
      named = true;
      gate.recheck();
      await settle();
      // At most a share: before (a wait in front of the gate), each look's batch went at once.
      const inNow = burst.filter((b) => b.state.pass).length;
      expect(inNow).toBeGreaterThan(0);
      expect(inNow).toBeLessThanOrEqual(FRESH_MAX);
      // Another client's request coming now goes in its turn, next.
      const next = admit(gate, client(), () => "process:3");
      await settle();
      await clock.advance(FRESH_MS + 1);
      expect(next.state.pass).toBeDefined();
    });

    it("drops a request waiting for its name whose client leaves", async () => {
      const gate = createCutOffGate({ clock: fakeClock() });
      const run = admit(gate, client(), () => NOT_NAMED_YET);
      run.leave();
      await settle();
      expect(run.state.dropped).toBe(true);
      expect(gate.waiting()).toBe(0);
    });
  });
});
