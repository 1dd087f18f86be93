/**
 * P7's table rows (bench/driver/code-rows.mjs): the shared-worker executor's rows are judged
 * against the same target and the same anchor samples as the default (isolate-per-run) row.
 */
import { describe, expect, it } from "vitest";
import { codeRows, P7_TARGET_RATIO } from "../../../bench/driver/code-rows.mjs";

/** The row shape of report.mjs, without the ratio's rounding. */
function row(metric: string, ours: unknown, anchor: unknown, target = "", met: unknown = null) {
  return { metric, ours, anchor, target, met };
}

const side = (p50: number) => ({ p50, p95: p50, min: p50, n: 60, errors: 0 });

/** One P7 row of code-latency.mjs's results, every side at 5 ms but those named. */
function p7(oursRaw: number, sharedRaw: number | undefined, anchorRaw: number, again?: number) {
  const sides = ["ours", "anchor", "oursV1", "oursV1Client", "oursRaw2025"];
  return {
    "n5-k1": {
      n: 5,
      k: 1,
      ...Object.fromEntries(sides.map((s) => [s, side(5)])),
      oursRaw: side(oursRaw),
      anchorRaw: side(anchorRaw),
      ...(sharedRaw === undefined ? {} : { sharedRaw: side(sharedRaw) }),
      ...(again === undefined ? {} : { sharedRawAgain: side(again) }),
      sameAnswer: true,
    },
  };
}

const shared = (rows: ReturnType<typeof row>[]) =>
  rows.filter((r) => r.metric.includes("shared-worker executor"));

describe("P7 rows", () => {
  it("judge the shared-worker executor against the anchor's raw-client samples", () => {
    const rows = codeRows({ p7: p7(4.9, 2.3, 4.7) }, row);
    expect(shared(rows)).toEqual([
      expect.objectContaining({
        ours: 2.3,
        anchor: 4.7,
        target: `ratio ≤ ${P7_TARGET_RATIO}`,
        met: true,
      }),
    ]);
    expect(shared(codeRows({ p7: p7(4.9, 2.5, 4.7) }, row))[0]?.met).toBe(false);
  });

  it("judge both readings of the shared worker, each labelled with when it was timed", () => {
    const rows = shared(codeRows({ p7: p7(4.9, 6.1, 4.7, 2.2) }, row));
    expect(rows.map((r) => [r.ours, r.anchor, r.met])).toEqual([
      [6.1, 4.7, false],
      [2.2, 4.7, true],
    ]);
    expect(rows[0]?.metric).toMatch(/right after other Workers were built/);
    expect(rows[1]?.metric).toMatch(/second run in a row/);
  });

  it("keep the default row first and judged on its own", () => {
    const rows = codeRows({ p7: p7(4.9, 2.3, 4.7) }, row);
    expect(rows[0]).toMatchObject({ ours: 4.9, anchor: 4.7, met: false });
    expect(rows[0]?.metric).not.toMatch(/shared-worker/);
    expect(rows.at(-1)?.metric).toMatch(/shared-worker executor/);
  });

  it("have no shared-worker row when it was not measured", () => {
    expect(shared(codeRows({ p7: p7(4.9, undefined, 4.7) }, row))).toEqual([]);
  });
});
