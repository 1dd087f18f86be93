/**
 * What ends a shared-worker run whose loop catches refused host calls once its step budget is
 * spent. The engine's "interrupted" exception does not always end such a loop: where it lands
 * depends on how the program's steps align with the engine's step check (every 10,000 steps),
 * and from some of those places the program catches it and goes on (one interrupt per 10,000
 * steps, each caught) until the instrumented operation budget ends it. Session 28 met it by
 * chance: a change of the harness's own steps (a captured `includes` in sandbox/codec.ts) made
 * test/workers/executor/hostile/programs.test.ts's loop run 138–560 s instead of ~0.3 s. A few
 * calls before the loop move that alignment as well, and a loop of charged built-ins
 * (native-charges.ts) run in promise jobs met it the same way. The run now ends between two
 * engine jobs once its budget is spent. Plain Node with the real QuickJS WebAssembly and the
 * real guest.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { WarmEngine } from "../../../../sandbox/engine/warm-engine";
import type { HostReply } from "../../../../sandbox/protocol";

/** The host's refusal past its call limit: the runner answers later calls with it itself. */
const SPENT: HostReply = { error: { name: "LimitError", message: "spent" }, spent: true };

/**
 * Alignments tried: `pad` calls of a no-op before the loop, each one engine step check. Before
 * the fix, 7 of these 64 (15, 16, 35, 36, 38, 56, 58 with main's harness, 2026-12-07) ran until
 * the operation budget; every alignment is tried so a change of the harness's steps keeps some.
 */
const PADS = 64;

/**
 * The alignments (of {@link PADS}) at which a loop running `body` went past its step budget.
 * The operation budget is the bound of a run the step budget missed (the test's guard): 300
 * interrupts end these loops after ~1,000 operations, a missed one runs all 100,000.
 */
async function overruns(body: string, pads = PADS): Promise<number[]> {
  const engine = new WarmEngine(await newQuickJSWASMModuleFromVariant(variant));
  const host = async (): Promise<HostReply> => SPENT;
  const overrun: number[] = [];
  for (let pad = 0; pad < pads; pad++) {
    const code = `const f = () => 0; ${"f();".repeat(pad)} for (;;) { ${body} }`;
    const request = engineRunRequest(code, { maxOperations: 100_000, maxInterrupts: 300 });
    const run = new EngineRun(engine, request, [], host);
    const result = await run.result;
    run.dispose();
    if (typeof result === "string") throw new Error(`the run was not stopped: ${result}`);
    expect(result.stop).toBe("interrupted");
    const { operations } = JSON.parse(result.partial ?? "{}") as { operations?: number };
    if (!(typeof operations === "number" && operations < 5_000)) overrun.push(pad);
  }
  return overrun;
}

describe("shared worker engine: a loop that catches what ends it", { timeout: 120_000 }, () => {
  it("of refused calls ends at its step budget whatever the alignment of its steps", async () => {
    expect(await overruns("try { await codemode.echo(1) } catch {}")).toEqual([]);
  });

  // The charge's own RangeError is the program's to catch; the engine's interrupt was meant to
  // end it "whatever the program catches", and at 12 of the first 32 alignments did not (with
  // 40,000 characters a call; these 17,000 are one interrupt's worth and cheaper to overrun).
  it("of charged built-ins in promise jobs ends at its step budget", async () => {
    const body = 'try { await Promise.resolve().then(() => "x".repeat(17000)) } catch {}';
    expect(await overruns(body, 32)).toEqual([]);
  });
});
