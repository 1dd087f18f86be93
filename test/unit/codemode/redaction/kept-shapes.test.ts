// src/codemode/redaction/kept-shapes.ts: one instance of each class the hot passes make per view
// is kept for the isolate's life, so a full collection between views does not free the class's
// map and throw away the optimized code that checks it (bench/diagnostics/random-body-alloc.mjs
// counts the code thrown away: ~200 functions for four random 4 MiB bodies before, 5 after).
import { expect, test } from "vitest";
import { keptShapes } from "../../../../src/codemode/redaction/kept-shapes";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";

test("each class a hot pass makes per view has an instance kept", () => {
  // Loading redaction loads every module that keeps one.
  expect(secretRedactor(["tok_9f8e7d6c5b4a3z"]).text("a tok_9f8e7d6c5b4a3z")).not.toContain("tok_");
  const names = new Set(keptShapes().map((instance) => instance.constructor.name));
  for (const name of [
    "SequenceMap",
    "ViewBuilder",
    "WindowedSearch",
    "SegmentCut",
    "SequenceLeads",
    "StretchScan",
    "CutRuns",
    "DecodedRuns",
    "RunReader",
  ])
    expect(names, name).toContain(name);
});
