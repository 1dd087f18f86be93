/**
 * Seed examples examples/mcp-agent-counter.ts (`onStateChanged`, today's docs) and
 * examples/mcp-agent-counter-on-state-update.ts (`onStateUpdate`, the earlier docs): the counter
 * resource starts at `initialState`, the `add` tool persists state with `setState`, and each
 * callback logs the new state as the example does (`console.log({ stateUpdate: state })`).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MyMCP as ChangedMcp } from "./examples/mcp-agent-counter";
import { MyMCP as UpdateMcp } from "./examples/mcp-agent-counter-on-state-update";
import { connectV1, text, viaWorker } from "./support/clients";

afterEach(() => vi.restoreAllMocks());

describe.each([
  {
    callback: "onStateChanged",
    worker: () => ChangedMcp.serve("/mcp", { binding: "COUNTER_MCP" }),
  },
  {
    callback: "onStateUpdate",
    worker: () => UpdateMcp.serve("/mcp", { binding: "COUNTER_UPDATE_MCP" }),
  },
])("seed: McpAgent counter state ($callback)", ({ worker }) => {
  it("reads the counter resource, adds, and logs each state change", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { client } = await connectV1("http://localhost/mcp", viaWorker(worker()));
    const counter = async () =>
      (await client.readResource({ uri: "mcp://resource/counter" })).contents[0] as {
        text: string;
      };

    expect((await counter()).text).toBe("1");
    expect(text(await client.callTool({ name: "add", arguments: { a: 5 } }))).toBe(
      "Added 5, total is now 6",
    );
    expect(text(await client.callTool({ name: "add", arguments: { a: 4 } }))).toBe(
      "Added 4, total is now 10",
    );
    expect((await counter()).text).toBe("10");
    const logged = log.mock.calls.map((args) => args[0]);
    expect(logged).toContainEqual({ stateUpdate: { counter: 6 } });
    expect(logged).toContainEqual({ stateUpdate: { counter: 10 } });
    await client.close();
  });
});
