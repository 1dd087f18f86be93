/**
 * A shared-worker run its caller ends (issue #40, "a run that is given up on ends everywhere"):
 * `EngineRun.askEnd` (sandbox/engine/run.ts), which the engine's `end(key)` calls when a runner
 * (or the host) gives a run up. The run must stop on its own timer, give its place back (the
 * engine's template goes to the next run alone again) and free its runtime, without touching the
 * runs beside it in the same engine memory. Before, such a run went on until its own deadline.
 * Plain Node with the real QuickJS WebAssembly and the real guest modules, as
 * warm-engine.test.ts; no time is asserted, only what ends.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { resultOf } from "../../../helpers/executor/engine-result";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { WarmEngine } from "../../../../sandbox/engine/warm-engine";
import type { EngineStop } from "../../../../sandbox/engine/protocol";
import type { HostReply } from "../../../../sandbox/protocol";

/** Awaits forever, catching whatever its awaits throw: what the stuck program does. */
const STUCK = "for (;;) { try { await new Promise((r) => setTimeout(r, 20)); } catch {} }";
/** Does work between short waits: heavy on the engine, yet it yields to the event loop. */
const BUSY =
  "let n = 0; for (;;) { for (let i = 0; i < 20000; i++) n += i; try { await new Promise((r) => setTimeout(r, 0)); } catch {} }";
/** Waits on a promise that never settles: no timer of its own wakes the run. */
const FOREVER = "await new Promise(() => {}); return 1";

async function newEngine(): Promise<WarmEngine> {
  const engine = new WarmEngine(await newQuickJSWASMModuleFromVariant(variant));
  expect(engine.warm).toBe(true);
  return engine;
}

/** Starts `code` with a deadline no test reaches (the run must end because it was asked). */
function start(engine: WarmEngine, code: string) {
  const host = async (_ns: string, _name: string, args: string): Promise<HostReply> => args;
  const run = new EngineRun(
    engine,
    engineRunRequest(code, {
      timeoutMs: 600_000,
      maxInterrupts: 10_000_000,
      maxOperations: 2_000_000_000,
    }),
    [],
    host,
  );
  const outcome = run.result.then((result) => {
    expect(run.dispose()).toBe(true);
    return result;
  });
  return { run, outcome };
}

describe("shared worker engine: a run its caller ends", () => {
  it.each([
    ["keeps awaiting and catching", STUCK],
    ["computes between short waits", BUSY],
    ["waits on a promise that never settles", FOREVER],
  ])("a run that %s stops, is freed and gives the template back", async (_label, code) => {
    const engine = await newEngine();
    const stuck = start(engine, code);
    expect(stuck.run.warm).toBe(true);
    expect(engine.underWay).toBe(1);
    // Running for a while, and not ending by itself.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stuck.run.freed).toBe(false);
    stuck.run.askEnd();
    expect((await stuck.outcome) as EngineStop).toMatchObject({
      stop: "ended",
      message: expect.stringMatching(/no longer waits/),
    });
    expect(stuck.run.freed).toBe(true);
    expect(engine.underWay).toBe(0);
    // The next run alone gets the template again, and works.
    const next = start(engine, "return 6 * 7");
    expect(next.run.warm).toBe(true);
    expect(await resultOf(next.outcome)).toBe(42);
  });

  it("ending a run beside others disturbs neither them nor the template's return", async () => {
    const engine = await newEngine();
    // A has the template; B and C run beside it in fresh runtimes of the same memory.
    const a = start(engine, `globalThis.mine = "a"; ${STUCK}`);
    const b = start(
      engine,
      `const list = Array.from({ length: 20000 }, (_, i) => ({ i })); ${STUCK}`,
    );
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const c = new EngineRun(
      engine,
      engineRunRequest(
        `globalThis.mine = "c".repeat(1000); const list = Array.from({ length: 20000 }, (_, i) => ({ i }));
         await codemode.echo(1);
         return { mine: mine.length, sum: list.reduce((s, o) => s + o.i, 0), leak: typeof leak }`,
        { timeoutMs: 600_000 },
      ),
      [],
      async (_ns: string, _name: string, args: string): Promise<HostReply> => {
        await hold;
        return args;
      },
    );
    const cOutcome = c.result.then((result) => {
      expect(c.dispose()).toBe(true);
      return result;
    });
    expect([a.run.warm, b.run.warm, c.warm]).toEqual([true, false, false]);
    expect(engine.underWay).toBe(3);
    // The fresh one first: its runtime is disposed in the memory A and C still use.
    b.run.askEnd();
    expect(await b.outcome).toMatchObject({ stop: "ended" });
    expect(engine.underWay).toBe(2);
    // Then the template's holder, while C still runs: no restore may happen under C.
    a.run.askEnd();
    expect(await a.outcome).toMatchObject({ stop: "ended" });
    expect(engine.underWay).toBe(1);
    const beside = start(engine, "return typeof mine");
    expect(beside.run.warm).toBe(false);
    expect(await resultOf(beside.outcome)).toBe("undefined");
    release();
    expect(await resultOf(cOutcome)).toEqual({ mine: 1000, sum: 199990000, leak: "undefined" });
    expect(engine.underWay).toBe(0);
    const after = start(engine, "return typeof mine");
    expect(after.run.warm).toBe(true);
    expect(await resultOf(after.outcome)).toBe("undefined");
  });

  it("asking a run that already ended changes nothing", async () => {
    const engine = await newEngine();
    const done = start(engine, "return 1");
    expect(await resultOf(done.outcome)).toBe(1);
    done.run.askEnd();
    expect(done.run.freed).toBe(true);
    expect(engine.underWay).toBe(0);
    const next = start(engine, "return 2");
    expect(next.run.warm).toBe(true);
    expect(await resultOf(next.outcome)).toBe(2);
  });
});
