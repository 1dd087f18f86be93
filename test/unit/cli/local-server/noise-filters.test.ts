/**
 * The supervisor's output (cli/local-server/workerd-output/noise-filters.mjs, issue #32): what
 * workerd prints as its peers go away at shutdown (`kj::` exceptions and their stack lines) or
 * when a run finds a runner slot empty is dropped, and every other line, an error of the
 * product's own included, is kept.
 */
import { describe, expect, it } from "vitest";
import {
  withoutEmptySlotNoise,
  withoutShutdownNoise,
} from "../../../../cli/local-server/workerd-output/noise-filters.mjs";

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

describe("withoutEmptySlotNoise", () => {
  it("drops the host's lines about a runner slot without a runner, and keeps the rest", () => {
    const shown: string[] = [];
    const output = withoutEmptySlotNoise((line: string) => shown.push(line));
    for (const line of [
      "NOSENTRY RPC connection broken for non-DISCONNECTED reason.; exception = kj/async-io-unix.c++:1520: failed: connect(): No such file or directory; address = unix:/tmp/cmm-UnrnHe/runner-2.sock:0",
      "stack: /x/workerd@5536ddd /x/workerd@58842bd",
      "e = capnp/rpc-twoparty.c++:354: failed: expected idle != this->idle [false != false]",
      "stack: /x/workerd@399a6a1",
      "NOSENTRY RPC connection broken for non-DISCONNECTED reason.; exception = kj/async-io-unix.c++:1520: failed: connect(): Connection refused; address = unix:/tmp/cmm-UnrnHe/runner-17.sock:0",
      "stack: /x/workerd@5536ddd",
      "stack: a stack line of something else is kept",
      "NOSENTRY RPC connection broken for non-DISCONNECTED reason.; exception = kj/async-io-unix.c++:1520: failed: connect(): Connection refused; address = 127.0.0.1:443",
      "Error: the product's own failure",
    ])
      output(line);
    expect(shown).toEqual([
      "stack: a stack line of something else is kept",
      "NOSENTRY RPC connection broken for non-DISCONNECTED reason.; exception = kj/async-io-unix.c++:1520: failed: connect(): Connection refused; address = 127.0.0.1:443",
      "Error: the product's own failure",
    ]);
  });
});
