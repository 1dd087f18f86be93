/**
 * A slot's prepared replacement (cli/local-server/runners/slot-preparation.mjs), on plain slots
 * with fake runtimes and a fake clock: when one is started beside a silent runner, never two for
 * one slot, when it is given up (its runner answers again, was replaced or retired, the server
 * stops), and when it is swapped in. The pool's wiring of it: runner-pool.test.ts ("prepared
 * replacements").
 */
import { describe, expect, it } from "vitest";
import { PREPARE_AFTER_MS } from "../../../../cli/local-server/runners/prepared-replacement.mjs";
import { createSlotPreparation } from "../../../../cli/local-server/runners/slot-preparation.mjs";
import { fakeClock } from "./fake-clock";
import { fakeRuntime, type FakeRuntime } from "./fake-runtime";

interface Slot {
  index: number;
  runtime: any;
  retiring: boolean;
  preparing: boolean;
  prepared: any;
}

/**
 * `count` slots, each with a runner that last answered at time 0, and their preparation. A
 * replacement's start waits for `ready()` when `held`; without `aside`, none can be started.
 */
function preparationOf({ count = 1, held = false, aside = true } = {}) {
  const clock = fakeClock();
  const slots: Slot[] = [];
  for (let index = 1; index <= count; index++)
    slots.push({
      index,
      runtime: fakeRuntime(`runner ${index}`),
      retiring: false,
      preparing: false,
      prepared: null,
    });
  /** The runners started beside a slot's, in order, and each one's crash callback. */
  const started: FakeRuntime[] = [];
  const crash = new Map<FakeRuntime, (runtime: any) => void>();
  const promoted: FakeRuntime[] = [];
  const gates: (() => void)[] = [];
  const replaced: { index: number; runtime: unknown; reason: string }[] = [];
  const warmed: unknown[] = [];
  const lines: string[] = [];
  const state = { stopping: false, promoteFails: false };
  const preparation = createSlotPreparation({
    slots,
    clock,
    ...(aside && {
      launchAside: async (slot: Slot, onCrash: (runtime: any) => void) => {
        const runtime = fakeRuntime(`runner ${slot.index}`);
        started.push(runtime);
        crash.set(runtime, onCrash);
        if (held) await new Promise<void>((resolve) => gates.push(resolve));
        return {
          runtime: runtime as any,
          promote: () => {
            if (state.promoteFails) throw new Error("ENOENT: no such file");
            promoted.push(runtime);
          },
        };
      },
    }),
    replace: async (slot, runtime, reason) =>
      void replaced.push({ index: slot.index, runtime, reason }),
    warm: (runtime) => void warmed.push(runtime),
    stopping: () => state.stopping,
    log: (line) => lines.push(line),
    label: "test",
  });
  /** Lets every replacement still starting answer. */
  const ready = async () => {
    for (const gate of gates.splice(0)) gate();
    await clock.advance(0);
  };
  /** One look at `ms` past time 0, and what it set off settled. */
  const lookAt = async (ms: number) => {
    await clock.advance(ms - clock.now());
    preparation.look();
    await clock.advance(0);
  };
  return {
    clock,
    slots,
    preparation,
    started,
    crash,
    promoted,
    replaced,
    warmed,
    lines,
    state,
    ready,
    lookAt,
  };
}

describe("when a replacement is prepared", () => {
  it("for a runner silent for PREPARE_AFTER_MS, not sooner; warmed and announced", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS - 1);
    expect(env.started).toHaveLength(0);
    await env.lookAt(PREPARE_AFTER_MS);
    expect(env.started.map((r) => r.name)).toEqual(["runner 1"]);
    expect(env.slots[0]!.prepared.runtime).toBe(env.started[0]);
    expect(env.warmed).toEqual([env.started[0]]);
    expect(env.lines).toEqual([
      "test: runner 1 has not answered for 4 s; a replacement stands ready beside it.",
    ]);
  });

  it("never two for one slot: not while one starts, nor once one stands ready", async () => {
    const env = preparationOf({ count: 2, held: true });
    // Runner 2 answered lately: only runner 1 is silent.
    env.slots[1]!.runtime.lastAnswer = PREPARE_AFTER_MS;
    await env.lookAt(PREPARE_AFTER_MS);
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started.map((r) => r.name)).toEqual(["runner 1"]);
    expect(env.slots[0]!.preparing).toBe(true);
    await env.ready();
    expect(env.slots[0]!.preparing).toBe(false);
    expect(env.slots[0]!.prepared.runtime).toBe(env.started[0]);
    await env.lookAt(PREPARE_AFTER_MS + 1_000);
    // Runner 2 silent in turn gets its own.
    await env.lookAt(2 * PREPARE_AFTER_MS);
    await env.ready();
    expect(env.started.map((r) => r.name)).toEqual(["runner 1", "runner 2"]);
  });

  it("none for a retiring runner, an ended one, or an empty slot", async () => {
    const env = preparationOf({ count: 3 });
    env.slots[0]!.retiring = true;
    await env.slots[1]!.runtime.kill("it was idle");
    env.slots[2]!.runtime = null;
    await env.lookAt(2 * PREPARE_AFTER_MS);
    expect(env.started).toHaveLength(0);
  });

  it("none without launchAside", async () => {
    const env = preparationOf({ aside: false });
    await env.lookAt(2 * PREPARE_AFTER_MS);
    expect(env.slots[0]!.preparing).toBe(false);
    expect(env.slots[0]!.prepared).toBeNull();
  });

  it("a prepared runner that exits on its own leaves its slot, which gets another", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    env.started[0]!.exit();
    await env.clock.advance(0);
    expect(env.slots[0]!.prepared).toBeNull();
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started).toHaveLength(2);
    expect(env.slots[0]!.prepared.runtime).toBe(env.started[1]);
  });
});

describe("when a prepared replacement is given up", () => {
  it("its runner answers again: ended at the next look, and said", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    env.slots[0]!.runtime.lastAnswer = PREPARE_AFTER_MS + 200;
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started[0]!.killedBecause).toBe("its runner answers again");
    expect(env.slots[0]!.prepared).toBeNull();
    expect(env.lines.at(-1)).toBe(
      `test: runner 1 answers again; the replacement prepared for it (workerd pid ${env.started[0]!.pid}) is ended.`,
    );
  });

  it("its slot's runner starts retiring: ended at the next look, without saying it answers", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    env.slots[0]!.retiring = true;
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started[0]!.killedBecause).toBe("its runner is retired or ended");
    expect(env.slots[0]!.prepared).toBeNull();
    expect(env.lines.join("\n")).not.toMatch(/answers again/);
  });

  it("its runner was ended (retired, idle): ended at the next look, without saying it answers", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    env.slots[0]!.runtime = null;
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started[0]!.killedBecause).toBe("its runner is retired or ended");
    expect(env.lines.join("\n")).not.toMatch(/answers again/);
  });

  it("ready only after its runner answered again: ended at once, never announced", async () => {
    const env = preparationOf({ held: true });
    await env.lookAt(PREPARE_AFTER_MS);
    env.slots[0]!.runtime.lastAnswer = PREPARE_AFTER_MS + 200;
    await env.clock.advance(300);
    await env.ready();
    expect(env.started[0]!.killedBecause).toBe("it was not needed");
    expect(env.slots[0]!.prepared).toBeNull();
    expect(env.warmed).toHaveLength(0);
    expect(env.lines).toEqual([]);
  });

  it("ready only after a fresh runner took the slot (itself silent): ended, not given to it", async () => {
    const env = preparationOf({ held: true });
    await env.lookAt(PREPARE_AFTER_MS);
    // Ended at the watchdog's 10 s, a fresh runner started: its start counts as its answer.
    await env.clock.advance(6_000);
    const fresh = fakeRuntime("runner 1");
    fresh.lastAnswer = env.clock.now();
    env.slots[0]!.runtime = fresh;
    await env.clock.advance(100);
    await env.ready();
    expect(env.started[0]!.killedBecause).toBe("it was not needed");
    expect(env.slots[0]!.prepared).toBeNull();
    expect(env.lines.join("\n")).not.toMatch(/has not answered for 0 s/);
  });

  it("ready only after its slot lost its runner, or the server began to stop: ended", async () => {
    for (const loses of [
      (env: ReturnType<typeof preparationOf>) => void (env.slots[0]!.runtime = null),
      (env: ReturnType<typeof preparationOf>) => void (env.state.stopping = true),
    ]) {
      const env = preparationOf({ held: true });
      await env.lookAt(PREPARE_AFTER_MS);
      loses(env);
      await env.ready();
      expect(env.started[0]!.killedBecause).toBe("it was not needed");
      expect(env.slots[0]!.prepared).toBeNull();
      expect(env.lines).toEqual([]);
    }
  });
});

describe("when a prepared replacement is swapped in", () => {
  it("taken off its slot before its runner is ended, so no look ends it meanwhile", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    const prepared = env.preparation.take(env.slots[0]!);
    expect(prepared?.runtime).toBe(env.started[0]);
    expect(env.slots[0]!.prepared).toBeNull();
    // The runner is ended, and a look comes before the swap.
    await env.slots[0]!.runtime.kill("it stopped answering");
    await env.lookAt(PREPARE_AFTER_MS + 500);
    expect(env.started[0]!.killedBecause).toBeUndefined();
    expect(env.preparation.swappable(prepared)).toBe(true);
  });

  it("swappable only while it runs and the server goes on", async () => {
    const env = preparationOf();
    expect(env.preparation.swappable(null)).toBe(false);
    await env.lookAt(PREPARE_AFTER_MS);
    const prepared = env.preparation.take(env.slots[0]!);
    env.state.stopping = true;
    expect(env.preparation.swappable(prepared)).toBe(false);
    env.state.stopping = false;
    env.started[0]!.exit();
    expect(env.preparation.swappable(prepared)).toBe(false);
  });

  it("swapIn moves it onto the slot's address; one that cannot move is ended", async () => {
    const env = preparationOf({ count: 2 });
    await env.lookAt(PREPARE_AFTER_MS);
    const first = env.preparation.take(env.slots[0]!)!;
    expect(env.preparation.swapIn(first)).toBe(env.started[0]);
    expect(env.promoted).toEqual([env.started[0]]);
    env.state.promoteFails = true;
    const second = env.preparation.take(env.slots[1]!)!;
    expect(env.preparation.swapIn(second)).toBeNull();
    expect(env.started[1]!.killedBecause).toBe("it could not take its place");
    expect(env.lines.at(-1)).toBe(
      "test: the replacement prepared for runner 2 could not take its place (ENOENT: no such file); a fresh one is started.",
    );
  });

  it("giveUp ends a taken replacement its slot does not need", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    await env.preparation.giveUp(env.preparation.take(env.slots[0]!));
    expect(env.started[0]!.killedBecause).toBe("it was not needed");
    await env.preparation.giveUp(null);
  });

  it("a crash ends it while it stands ready, and replaces it once it is the slot's runner", async () => {
    const env = preparationOf();
    await env.lookAt(PREPARE_AFTER_MS);
    const aside = env.started[0]!;
    env.crash.get(aside)!(aside);
    await env.clock.advance(0);
    expect(aside.killedBecause).toBe("it crashed");
    expect(env.replaced).toEqual([]);
    // Another, swapped in, then crashing: the slot's runner is replaced as any.
    await env.lookAt(PREPARE_AFTER_MS + 500);
    const next = env.started[1]!;
    env.slots[0]!.runtime = env.preparation.swapIn(env.preparation.take(env.slots[0]!)!);
    env.crash.get(next)!(next);
    expect(env.replaced).toEqual([{ index: 1, runtime: next, reason: "it crashed" }]);
    expect(next.killedBecause).toBeUndefined();
  });
});
