// The contract's McpAgent examples, served by the agent fixture Worker and called by a real SDK v1 client.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { connectClient, text } from "./helpers";

describe("the contract's McpAgent examples", () => {
  it("serves the add/square tools via serve('/mcp')", async () => {
    const { client } = await connectClient("/mcp");
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).toSorted()).toEqual(["add", "square"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    expect(text(await client.callTool({ name: "square", arguments: { a: 7 } }))).toBe("49");
    await client.close();
  });

  it("runs the counter agent: resource, add tool, onStateChanged", async () => {
    const { client, transport } = await connectClient("/counter");
    const before = await client.readResource({ uri: "mcp://resource/counter" });
    expect((before.contents[0] as { text: string }).text).toBe("1");

    const result = await client.callTool({ name: "add", arguments: { a: 5 } });
    expect(text(result)).toBe("Added 5, total is now 6");

    const after = await client.readResource({ uri: "mcp://resource/counter" });
    expect((after.contents[0] as { text: string }).text).toBe("6");

    const stub = env.COUNTER_AGENT.get(env.COUNTER_AGENT.idFromString(transport.sessionId!));
    const changes = await runInDurableObject(stub, (agent) => agent.stateChanges);
    expect(changes).toEqual([{ counter: 6 }]);
    await client.close();
  });
});
