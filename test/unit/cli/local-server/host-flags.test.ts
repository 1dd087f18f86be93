/**
 * The host runtime's V8 flags (cli/local-server/v8-flags.mjs): `--expose-gc` (for the host's
 * own collections, src/app/host-collection.ts) only when sandboxes run in runner processes. Flags
 * reach every isolate of a process: with no runners, sandbox programs run in the host and must
 * not get `gc`.
 */
import { describe, expect, it } from "vitest";
import { HOST_COLLECTION_FLAG, HOST_FLAGS } from "../../../../cli/local-server/v8-flags.mjs";
import { hostMessage } from "../../../../cli/local-server/worker-options.mjs";

const message = (runners: string[]) =>
  hostMessage({
    configFile: "/x/dist/worker/wrangler.json",
    config: { name: "code-mode-mcp", main: "index.js", compatibility_date: "2026-01-01" },
    bindings: {},
    persist: "/x/state",
    runners,
    secret: "s",
  });

describe("the host runtime's V8 flags", () => {
  it("expose gc to the host only when its sandboxes run in runners", () => {
    expect(message(["127.0.0.1:4001"]).v8Flags).toEqual([...HOST_FLAGS, HOST_COLLECTION_FLAG]);
    expect(message([]).v8Flags).toEqual(HOST_FLAGS);
    expect(HOST_FLAGS).not.toContain(HOST_COLLECTION_FLAG);
  });
});
