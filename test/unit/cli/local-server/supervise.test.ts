/**
 * What the supervisor says of its runtimes (cli/local-server/runtime-host.mjs): the spare runner
 * slot, and its workerd configurations (the host's and the runners'), said once.
 */
import { describe, expect, it } from "vitest";
import { configNote, spareRunners } from "../../../../cli/local-server/runtime-host.mjs";

describe("spareRunners", () => {
  it("one spare slot beyond the runners, while the host reads that many bindings", () => {
    expect([0, 1, 3, 16, 17].map(spareRunners)).toEqual([0, 1, 1, 1, 0]);
  });
});

describe("configNote", () => {
  it("says each wording once: the host's and the runners' configurations are one line", () => {
    const shown: string[] = [];
    const note = configNote((line: string) => shown.push(line), "npm start", "/cache/workerd");
    note("host-key built");
    note("runner-key built");
    expect(shown).toEqual(["npm start: workerd configuration built, kept in /cache/workerd."]);
    // A later launch reads both; one read and one built (a runner setting changed) say both.
    const later: string[] = [];
    const next = configNote((line: string) => later.push(line), "npm start", "/cache/workerd");
    next("host-key kept");
    next("runner-key built");
    next("spare-key kept");
    expect(later).toEqual([
      "npm start: workerd configuration read from /cache/workerd.",
      "npm start: workerd configuration built, kept in /cache/workerd.",
    ]);
  });
});
