// The declarations corpus (issue #16): the JSON Schema Test Suite's draft 2020-12 and draft-07
// schemas with their instances, the listed cases, and real MCP servers' tools, judged in one
// TypeScript program (see corpus-build.ts for what is checked and corpus-ledger.ts for every
// known disagreement and its reason).
import { beforeAll, describe, expect, it } from "vitest";
import { judgeCorpus, type CorpusReport } from "./corpus-build";

describe("declarations corpus", () => {
  let report: CorpusReport;
  beforeAll(async () => {
    report = await judgeCorpus();
    console.log(`declarations corpus: ${JSON.stringify(report.counts)}`);
  }, 120_000);

  it("has no unexplained disagreement", () => {
    expect(report.problems.slice(0, 20)).toEqual([]);
    expect(report.problems.length).toBe(0);
  });

  it("has no stale ledger entries", () => {
    expect(report.unusedLedger).toEqual([]);
  });

  it("is a corpus of hundreds of schemas", () => {
    expect(report.counts["suite schemas"]).toBeGreaterThan(500);
    expect(report.counts["mcp tools"]).toBeGreaterThan(100);
  });
});
