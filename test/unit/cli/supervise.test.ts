/**
 * The supervisor's output on a normal stop (cli/local-server/supervise.mjs, issue #32): what
 * workerd prints as its peers go away at shutdown (`kj::` exceptions and their stack lines) is
 * dropped, and every other line, an error of the product's own included, is kept.
 */
import { describe, expect, it } from "vitest";
import { withoutShutdownNoise } from "../../../cli/local-server/supervise.mjs";

describe("withoutShutdownNoise", () => {
  it("drops workerd's shutdown exceptions with their stack lines, and keeps the rest", () => {
    const shown: string[] = [];
    const output = withoutShutdownNoise((line: string) => shown.push(line));
    for (const line of [
      "[mf:info] POST /mcp 200 OK (5ms)",
      "✘ [ERROR] kj::Exception: disconnected: worker_do_not_log; Peer disconnected",
      "    stack: 7f2a1 7f2a2 7f2a3",
      "    at workerd/io/worker-entrypoint.c++:212",
      "workerd/server/server.c++:3012: error: Uncaught exception: disconnected: Network connection lost.",
      "*** Received signal #15: Terminated",
      "code-mode-mcp: runner 2 failed 5 times in a row; stopping.",
      "Error: the product's own failure",
      "    at handler (worker.js:10:5)",
    ])
      output(line);
    expect(shown).toEqual([
      "[mf:info] POST /mcp 200 OK (5ms)",
      "code-mode-mcp: runner 2 failed 5 times in a row; stopping.",
      "Error: the product's own failure",
      "    at handler (worker.js:10:5)",
    ]);
  });
});
