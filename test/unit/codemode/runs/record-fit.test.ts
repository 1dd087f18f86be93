// fitRecord: the hard size of a run record (#29), what it keeps and how it marks the cuts.
import { describe, expect, it } from "vitest";
import {
  cutMiddle,
  fitRecord,
  fitsBytes,
  recordBytes,
} from "../../../../src/codemode/runs/record-fit";
import { RUN_RECORD_LIMITS, type RunRecord } from "../../../../src/codemode/runs/run-record";
import { sampleRun } from "../../../helpers/stores/run-records";

const CAP = RUN_RECORD_LIMITS.recordBytes;

/** A record with every field at its own bound, written in `char`. */
function maxed(char: string): RunRecord {
  return {
    ...sampleRun(1, 0, "x", "execute"),
    code: `async () => { /* start */ ${char.repeat(RUN_RECORD_LIMITS.codeChars - 40)} /* end */ }`,
    error: {
      name: char.repeat(200),
      message: char.repeat(RUN_RECORD_LIMITS.errorChars),
    },
    outcome: "error",
    calls: Array.from({ length: RUN_RECORD_LIMITS.calls }, (_, i) => ({
      kind: "request" as const,
      method: "GET",
      path: `/call-${i}/${char.repeat(500)}`,
      ok: false,
      durationMs: 1,
      error: char.repeat(RUN_RECORD_LIMITS.errorChars),
    })),
    droppedCalls: 20,
    droppedCallsAt: RUN_RECORD_LIMITS.calls / 2,
    logs: Array.from({ length: 40 }, (_, i) => ({
      level: "log" as const,
      message: `line ${i} ${char.repeat(200)}`,
    })),
    result: char.repeat(RUN_RECORD_LIMITS.resultChars),
    clipped: true,
  };
}

describe("fitRecord", () => {
  it("keeps a record under the cap as it is", () => {
    const record = sampleRun(1, 0, "x");
    expect(fitRecord(record)).toBe(record);
  });

  it.each([
    ["ASCII", "x"],
    ["characters JSON writes as \\u escapes (6 bytes each)", "\u0001"],
    ["4-byte UTF-8 characters", "😀"],
  ])("cuts a record with every field at its bound in %s to the cap", (_what, char) => {
    const record = maxed(char);
    expect(recordBytes(record)).toBeGreaterThan(CAP);
    const fitted = fitRecord(record);
    expect(recordBytes(fitted)).toBeLessThanOrEqual(CAP);
    expect(fitted.clipped).toBe(true);
  });

  // The run: 220 refused requests with 500-character paths and 2,000-character errors.
  it.each([
    ["ASCII", "x"],
    ["escaped characters (the program is cut too)", "\u0001"],
  ])(
    "keeps the program's start and end, the first and last calls, counts the rest (%s)",
    (_what, char) => {
      const record = maxed(char);
      const fitted = fitRecord(record);
      expect(fitted.code.startsWith("async () => { /* start */")).toBe(true);
      expect(fitted.code.endsWith("/* end */ }")).toBe(true);
      if (char !== "x") expect(fitted.code).toMatch(/… \[\d+ characters cut\] …/);
      const paths = fitted.calls.map((call) => (call.kind === "request" ? call.path : ""));
      expect(paths[0]).toMatch(/^\/call-0\//);
      expect(paths.at(-1)).toMatch(/^\/call-199\//);
      expect(fitted.droppedCalls + fitted.calls.length).toBe(220);
      expect(fitted.droppedCallsAt).toBeGreaterThan(0);
      expect(paths[fitted.droppedCallsAt! - 1]).toMatch(/^\/call-\d\//);
      expect(fitted.logs[0]!.message).toMatch(/^line 0 /);
      expect(fitted.logs.at(-1)!.message).toMatch(/^line 39 /);
      expect(fitted.droppedLogs + fitted.logs.length).toBe(40);
    },
  );
});

describe("cutMiddle", () => {
  it("keeps start and end and says how much went", () => {
    expect(cutMiddle("abcdefghij", 4)).toBe("abc\n… [6 characters cut] …\nj");
    expect(cutMiddle("short", 10)).toBe("short");
  });
});

describe("fitsBytes", () => {
  it("answers as the UTF-8 byte count does, at and around every cap", () => {
    // 1-, 2-, 3- and 4-byte characters (the last a surrogate pair), alone and mixed: the length
    // shortcut must never answer otherwise than counting the bytes would.
    for (const text of ["abc", "é".repeat(7), "€".repeat(5), "😀".repeat(4), "a€😀é"]) {
      const record = { text };
      const bytes = recordBytes(record);
      for (let cap = 0; cap <= bytes * 3 + 2; cap++)
        expect([text, cap, fitsBytes(record, cap)]).toEqual([text, cap, bytes <= cap]);
    }
  });
});
