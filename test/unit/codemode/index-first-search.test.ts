// A search ships the spec's index first and runs again on the whole spec only when the sandbox
// says the program read past it; the decisions, with the executor and the clock injected. The
// sandbox's side (the run ended at the first read past the index, whatever the program does
// with the error) is in test/workers/codemode/openapi/search.test.ts.
import { describe, expect, it } from "vitest";
import { WHOLE_SPEC_NEEDED } from "../../../sandbox/protocol";
import {
  indexFirstSearch,
  pastIndexWords,
  readsPastIndex,
  type ShippedSpec,
} from "../../../src/codemode/index-first-search";
import { resolveLimits } from "../../../src/executor/limits";
import type {
  ExecuteRequest,
  ExecutionOutcome,
  Executor,
  ExecutorLimits,
} from "../../../src/executor/types";

const WHOLE = new Uint8Array([1, 2, 3, 4]);
const INDEX = new Uint8Array([1, 2]);
const SPEC: ShippedSpec = {
  whole: WHOLE,
  index: INDEX,
  pastIndex: pastIndexWords(["parameters", "requestBody", "responses", "x-code-samples"]),
};

function outcome(over: Partial<ExecutionOutcome> = {}): ExecutionOutcome {
  return {
    status: "ok",
    result: "answer",
    logs: [],
    droppedLogs: 0,
    calls: 0,
    truncated: false,
    resultBytes: 8,
    operations: 10,
    durationMs: 5,
    ...over,
  };
}

const PAST: ExecutionOutcome = outcome({
  status: "error",
  result: undefined,
  logs: [{ level: "log", text: "first run" } as never],
  error: { name: "LimitError", message: WHOLE_SPEC_NEEDED },
});

/** An executor answering from a script, recording what each run was shipped and its limits. */
function scripted(
  answers: ExecutionOutcome[],
  keepsExtensionData?: boolean,
  limits?: Partial<ExecutorLimits>,
) {
  const runs: { data: unknown; timeoutMs: number | undefined }[] = [];
  const executor: Executor = {
    ...(keepsExtensionData ? { keepsExtensionData } : {}),
    ...(limits ? { limits: resolveLimits(limits) } : {}),
    execute: async (request: ExecuteRequest) => {
      runs.push({
        data: request.extensions?.find((e) => e.name === "openapi")?.data,
        timeoutMs: request.limits?.timeoutMs,
      });
      return answers[runs.length - 1] ?? outcome();
    },
  };
  return { executor, runs };
}

const program = (code = "async () => (await codemode.spec()).paths") => ({
  code,
  limits: { timeoutMs: 1_000 },
});

describe("index-first search", () => {
  it("ships the index alone to a program that stays in it: one run", async () => {
    const { executor, runs } = scripted([outcome()]);
    const result = await indexFirstSearch(executor, program(), SPEC);
    expect(runs.map((r) => r.data)).toEqual([INDEX]);
    expect(result.result).toBe("answer");
  });

  it("runs again on the whole spec when the sandbox says the program read past the index", async () => {
    const { executor, runs } = scripted([PAST, outcome({ logs: [] })]);
    let clock = 100;
    const result = await indexFirstSearch(executor, program(), SPEC, () => (clock += 150));
    expect(runs.map((r) => r.data)).toEqual([INDEX, WHOLE]);
    // The second run gets what the first left of the timeout (one clock step: 150 ms).
    expect(runs[1]!.timeoutMs).toBe(850);
    // Its outcome is the answer: the first run's error and logs are gone.
    expect(result).toEqual(outcome({ logs: [] }));
  });

  it("does not run again for any other error, a LimitError with another message included", async () => {
    const other = outcome({
      status: "limit",
      error: { name: "LimitError", message: "Operation budget of 10 exceeded." },
    });
    const { executor, runs } = scripted([other]);
    expect(await indexFirstSearch(executor, program(), SPEC)).toBe(other);
    expect(runs).toHaveLength(1);
  });

  it("with no time left for the second run, answers a timeout without starting it", async () => {
    const { executor, runs } = scripted([PAST]);
    let clock = 0;
    const result = await indexFirstSearch(executor, program(), SPEC, () => (clock += 1_000));
    expect(runs).toHaveLength(1);
    expect(result.status).toBe("timeout");
    expect(result.error?.name).toBe("TimeoutError");
    expect(result.logs).toEqual([]);
  });

  it("without a timeout in the tool's limits, both runs share the executor's own (hostile)", async () => {
    // A program that spins for nearly its whole timeout on the index, then reads past it (or
    // throws an error named LimitError with that message: the same to the host) must not get
    // the executor's whole timeout again: that held a runner twice as long as any other run.
    const { executor, runs } = scripted([PAST, outcome()], undefined, { timeoutMs: 1_000 });
    let clock = 0;
    await indexFirstSearch(executor, { code: "async () => 1" }, SPEC, () => (clock += 900));
    expect(runs).toEqual([
      { data: INDEX, timeoutMs: undefined },
      { data: WHOLE, timeoutMs: 100 },
    ]);
  });

  it("an executor that does not say its limits gets the second run with its own timeout", async () => {
    const { executor, runs } = scripted([PAST, outcome()]);
    await indexFirstSearch(executor, { code: "async () => 1" }, SPEC);
    expect(runs).toEqual([
      { data: INDEX, timeoutMs: undefined },
      { data: WHOLE, timeoutMs: undefined },
    ]);
  });

  it("ships the whole spec at once to a program naming what the index lacks", async () => {
    for (const code of [
      "async () => { const s = await codemode.spec(); return s.paths['/a'].post.requestBody }",
      "const s = await codemode.spec(); return Object.keys(s.components.schemas)",
      "const s = await codemode.spec(); return JSON.stringify(s.paths['/a'])",
      "const s = await codemode.spec(); return s.paths['/a'].get['x-code-samples']",
    ]) {
      const { executor, runs } = scripted([outcome()]);
      await indexFirstSearch(executor, program(code), SPEC);
      expect(
        runs.map((r) => r.data),
        code,
      ).toEqual([WHOLE]);
    }
  });

  it("guesses by whole words: longer names that contain a field's do not count", () => {
    const words = SPEC.pastIndex;
    expect(readsPastIndex("o.requestBody", words)).toBe(true);
    expect(readsPastIndex('o["parameters"]', words)).toBe(true);
    expect(readsPastIndex("const requestBodyCount = 1; myparameters; responses2", words)).toBe(
      false,
    );
    expect(readsPastIndex("x-code-samples-old", words)).toBe(false);
    expect(readsPastIndex("o.requestBody", undefined)).toBe(false);
  });

  it("ships the whole spec at once to an executor that keeps extension data, or without an index", async () => {
    const keeps = scripted([outcome()], true);
    await indexFirstSearch(keeps.executor, program(), SPEC);
    expect(keeps.runs.map((r) => r.data)).toEqual([WHOLE]);
    const plain = scripted([outcome()]);
    await indexFirstSearch(plain.executor, program(), { whole: "{}" });
    expect(plain.runs.map((r) => r.data)).toEqual(["{}"]);
  });
});
