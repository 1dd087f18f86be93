// The filter of workerd log lines that tests provoke on purpose (test/helpers/vitest/expected-runtime-logs.mjs):
// it drops exactly those, and prints every other runtime complaint.
import { describe, expect, it } from "vitest";
import { isExpectedRuntimeLog } from "../helpers/vitest/expected-runtime-logs.mjs";

const STACK =
  "stack: /x/node_modules/@cloudflare/workerd-linux-64/bin/workerd@553ea72 /x/workerd@3064920";
const REFUSED = `exception = kj/async-io-unix.c++:1535: disconnected: connect(): Connection refused\n${STACK}\n`;
const LOST_1 =
  "uncaught exception; source = Uncaught (in promise); stack = Error: Network connection lost.\n";
const LOST_2 = `uncaught exception; exception = workerd/jsg/_virtual_includes/iterator/workerd/jsg/value.h:1477: disconnected: jsg.Error: Network connection lost.\n${STACK}\n`;
const HUNG = `uncaught exception; exception = workerd/io/io-context.c++:1593: failed: jsg.Error: The Workers runtime canceled this request because it detected that your Worker's code had hung and would never generate a response.\n${STACK}\n`;

const fresh = () => ({ refusedAt: -Infinity, droppedAt: -Infinity });

describe("isExpectedRuntimeLog", () => {
  it("drops a refused connect and the two lost-connection lines right after it", () => {
    const state = fresh();
    expect(
      [REFUSED, LOST_1, LOST_2].map((m, i) => isExpectedRuntimeLog(m, state, 1_000 + i)),
    ).toEqual([true, true, true]);
  });

  it("prints a lost connection with no refused connect just before it", () => {
    expect(isExpectedRuntimeLog(LOST_1, fresh(), 1_000)).toBe(false);
    const state = fresh();
    isExpectedRuntimeLog(REFUSED, state, 1_000);
    expect(isExpectedRuntimeLog(LOST_2, state, 3_000)).toBe(false);
  });

  it("drops the hung-request cancel of an abandoned sandbox", () => {
    expect(isExpectedRuntimeLog(HUNG, fresh(), 0)).toBe(true);
  });

  it("drops the cancelled stream pumps of a client that went away mid-stream", () => {
    const lines = [
      "exception = kj/async-io.c++:1453: disconnected: abortRead() has been called",
      "exception = workerd/api/streams/internal.c++:2643: disconnected: pump canceled",
      "exception = kj/async-io.c++:876: disconnected: read end of pipe was aborted",
      "exception = kj/async-io.c++:1713: disconnected: fixed-length pipe ended prematurely",
    ];
    expect(lines.map((l) => isExpectedRuntimeLog(`${l}\n${STACK}\n`, fresh(), 0))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      isExpectedRuntimeLog(
        "exception = kj/async-io.c++:1: disconnected: something new\n",
        fresh(),
        0,
      ),
    ).toBe(false);
  });

  it("prints anything else, and an expected line that carries more than workerd's stack", () => {
    const state = fresh();
    expect(
      isExpectedRuntimeLog(
        "uncaught exception; source = Uncaught (in promise); stack = Error: injected storage failure\n    at get (x.ts:1:1)\n",
        state,
        0,
      ),
    ).toBe(false);
    expect(isExpectedRuntimeLog(`${HUNG}    at run (src/executor/x.ts:1:1)\n`, state, 0)).toBe(
      false,
    );
    expect(isExpectedRuntimeLog("Sourcemap for x points to missing source files\n", state, 0)).toBe(
      false,
    );
    expect(isExpectedRuntimeLog(`${STACK}\n`, state, 0)).toBe(false);
  });
});
