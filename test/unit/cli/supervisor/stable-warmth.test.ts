/**
 * Which stable code the supervisor copies from a runner and which runners it warms with it
 * (cli/local-server/runners/stable-warmth.mjs): only code a runner reports holding (none with the
 * isolate-per-run executor, so no runner is warmed there), never twice to one runner, never to a
 * runner being ended.
 */
import { describe, expect, it } from "vitest";
import {
  LEARN_SILENT_MS,
  MAX_KNOWN_CODES,
  codeToLearn,
  hashesToWarm,
  stableHashesOf,
} from "../../../../cli/local-server/runners/stable-warmth.mjs";

const A = "a".repeat(64);
const B = "b".repeat(64);

function runner(stable?: string, killedBecause?: string) {
  return {
    killedBecause,
    isRunning: () => true,
    lastHeaders: stable === undefined ? undefined : { "x-runner-stable": stable },
  };
}

describe("warm runners", () => {
  it("reads only well-formed hashes from a runner's /health header", () => {
    expect(stableHashesOf(undefined)).toEqual([]);
    expect(stableHashesOf({ "x-runner-stable": "" })).toEqual([]);
    expect(stableHashesOf({ "x-runner-stable": `${A},../x,${B}` })).toEqual([A, B]);
  });

  it("learns nothing while no runner holds stable code (the isolate-per-run executor)", () => {
    expect(codeToLearn([runner(""), runner()], new Set())).toBeNull();
  });

  it("learns code a runner holds, once, and not from a runner being ended", () => {
    const held = runner(A);
    expect(codeToLearn([runner(B, "it was retired"), held], new Set())).toEqual({
      runtime: held,
      hash: A,
    });
    expect(codeToLearn([held], new Set([A]))).toBeNull();
    const full = new Set(Array.from({ length: MAX_KNOWN_CODES }, (_, i) => String(i)));
    expect(codeToLearn([held], full)).toBeNull();
  });

  it("does not learn from a runner silent for LEARN_SILENT_MS (its thread may be held)", () => {
    const silent = { ...runner(A), lastAnswer: 1_000 };
    const answering = { ...runner(A), lastAnswer: 1_000 + LEARN_SILENT_MS };
    expect(codeToLearn([silent], new Set(), 1_000 + LEARN_SILENT_MS)).toBeNull();
    expect(codeToLearn([silent, answering], new Set(), 1_000 + LEARN_SILENT_MS)).toEqual({
      runtime: answering,
      hash: A,
    });
    expect(codeToLearn([silent], new Set(), 1_000 + LEARN_SILENT_MS - 1)?.runtime).toBe(silent);
  });

  it("warms a fresh runner with what is known, once, and not one that holds it", () => {
    expect(hashesToWarm(runner(), [A], undefined)).toEqual([A]);
    expect(hashesToWarm(runner(""), [A, B], new Set([B]))).toEqual([A]);
    expect(hashesToWarm(runner(A), [A], undefined)).toEqual([]);
    expect(hashesToWarm(runner(undefined, "it stopped answering"), [A], undefined)).toEqual([]);
    expect(hashesToWarm(runner(), [], undefined)).toEqual([]);
  });
});
