/**
 * The host's stable code taught to the pool before the server is ready
 * (cli/local-server/runners/stable-warmth.mjs `teach`, called from supervise.mjs with what
 * host-code-request.mjs read): every running runner is sent it, the first host waits for their
 * loads (bounded), and each runner started later is warmed with it at once, with no runner
 * having been sent the code by the host first (a cold pool: bench/README.md, "Fair share from a
 * cold pool"). Fake runtimes and a fake clock.
 */
import { describe, expect, it } from "vitest";
import { createWarmth } from "../../../../cli/local-server/runners/stable-warmth.mjs";
import { fakeClock } from "./fake-clock";

const HASH = "d".repeat(64);
const CODE = Buffer.from('{"mainModule":"runner.js"}');

function runtime(name: string, stable = "") {
  return {
    name,
    pid: 1,
    killedBecause: undefined as string | undefined,
    isRunning: () => true,
    lastHeaders: { "x-runner-stable": stable },
  };
}

function warmth(running: ReturnType<typeof runtime>[]) {
  const clock = fakeClock();
  const sent: string[] = [];
  const loads: (() => void)[] = [];
  const lines: string[] = [];
  const parts = createWarmth({
    readCode: async () => null,
    warm: (target: any, code: Buffer) => {
      sent.push(`${target.name}:${code === CODE}`);
      return new Promise<boolean>((resolve) => loads.push(() => resolve(true)));
    },
    running: () => running as any,
    stopping: () => false,
    log: (line: string) => void lines.push(line),
    label: "test",
    clock,
  });
  return { clock, sent, loads, lines, ...parts };
}

describe("the host's stable code taught to the pool", () => {
  it("warms every running runner and resolves once they loaded it", async () => {
    const { clock, sent, loads, lines, teach } = warmth([runtime("runner 1")]);
    let done = false;
    void teach(HASH, CODE, 8_000).then(() => (done = true));
    await clock.advance(1_000);
    expect(sent).toEqual(["runner 1:true"]);
    expect(done).toBe(false);
    loads[0]!();
    await clock.advance(0);
    expect(done).toBe(true);
    expect(lines.join("\n")).toContain(
      "runner 1 (workerd pid 1) loaded the shared worker's engine",
    );
  });

  it("gives up waiting at its bound when a load never ends", async () => {
    const { clock, teach } = warmth([runtime("runner 1")]);
    let done = false;
    void teach(HASH, CODE, 8_000).then(() => (done = true));
    await clock.advance(7_999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });

  it("warms each runner started later at once, not one that holds it, never twice", async () => {
    const { clock, sent, teach, warmRuntime } = warmth([]);
    void teach(HASH, CODE, 8_000);
    await clock.advance(0);
    expect(sent).toEqual([]);
    const spare = runtime("runner 4");
    warmRuntime(spare as any);
    warmRuntime(spare as any);
    warmRuntime(runtime("runner 2", HASH) as any);
    expect(sent).toEqual(["runner 4:true"]);
  });
});
