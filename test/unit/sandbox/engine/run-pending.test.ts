/**
 * What one shared-worker run may keep pending in the runner (timers and host calls): each costs
 * the shared worker's own V8 heap about 1.2 KB outside the run's engine memory limit (measured:
 * 250,000 timers or 190,000 concurrent host calls held 300 MB of it, past a Worker's 128 MB, in
 * the one isolate every run shares). Plain Node with the real QuickJS WebAssembly and the real
 * guest modules, as run-memory-growth.test.ts.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun, MAX_PENDING } from "../../../../sandbox/engine/run";
import type { HostReply } from "../../../../sandbox/protocol";

/** Runs `code`; the host answers each call after a few milliseconds, counting those at once. */
async function run(code: string) {
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  let running = 0;
  let mostAtOnce = 0;
  const host = async (_ns: string, _name: string, args: string): Promise<HostReply> => {
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    return args;
  };
  // The run's own clock is set past the test's wait minus a margin: on a loaded machine tens of
  // thousands of engine promises take seconds, and a stopped run must say why, not fail to parse.
  const engineRun = new EngineRun(quickjs, engineRunRequest(code, { timeoutMs: 50_000 }), [], host);
  const result = await engineRun.result;
  engineRun.dispose();
  if (typeof result !== "string") throw new Error(`the run stopped: ${JSON.stringify(result)}`);
  return { response: JSON.parse(result as string) as Record<string, unknown>, mostAtOnce };
}

// Each test runs tens of thousands of engine promises: give a loaded machine time.
describe(
  "shared worker engine: what a run keeps pending in the runner",
  { timeout: 60_000 },
  () => {
    it(`refuses a timer past ${MAX_PENDING} pending ones, with an error the program can catch`, async () => {
      const { response } = await run(`
      let made = 0, refused;
      try { for (let i = 0; i < 50000; i++) { setTimeout(() => {}, 5000); made++ } }
      catch (e) { refused = e.name + ": " + e.message }
      return { made, refused };
    `);
      const result = JSON.parse(response["result"] as string) as { made: number; refused: string };
      expect(result.made).toBe(MAX_PENDING);
      expect(result.refused).toMatch(/^RangeError: .*pending.*await some/);
    });

    // 1,000 calls past the bound (30,000 calls before: 2-3 times the test's time for the same
    // answer): queued, they would all come back ok; let through, more would be in flight at once.
    it(`keeps at most ${MAX_PENDING} host calls in flight; the rest are refused, not queued`, async () => {
      const { response, mostAtOnce } = await run(`
      const calls = [];
      for (let i = 0; i < ${MAX_PENDING + 1000}; i++) calls.push(codemode.echo(i).then(() => "ok", (e) => e.name));
      const settled = await Promise.all(calls);
      return { ok: settled.filter((s) => s === "ok").length, refused: [...new Set(settled.filter((s) => s !== "ok"))] };
    `);
      expect(mostAtOnce).toBeLessThanOrEqual(MAX_PENDING);
      expect(JSON.parse(response["result"] as string)).toEqual({
        ok: MAX_PENDING,
        refused: ["LimitError"],
      });
    });

    it("frees the room as calls and timers settle", async () => {
      const { response } = await run(`
      let total = 0;
      for (let round = 0; round < 3; round++) {
        const batch = [];
        for (let i = 0; i < ${MAX_PENDING}; i++) batch.push(codemode.echo(i));
        total += (await Promise.all(batch)).length;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return total;
    `);
      expect(response["result"]).toBe(String(3 * MAX_PENDING));
    });
  },
);
