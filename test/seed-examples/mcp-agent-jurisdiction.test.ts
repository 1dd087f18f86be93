/**
 * Seed example examples/mcp-agent-jurisdiction.ts: `MyMCP.serve("/mcp", { jurisdiction: "eu" })`.
 * Every session's Durable Object is looked up in the EU namespace, for the new session and for
 * each follow-up request (see support/jurisdiction.ts for how workerd stands in for the pin).
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/mcp-agent-jurisdiction";
import { connectV1, text, viaWorker } from "./support/clients";
import { recordingBindings } from "./support/jurisdiction";

describe("seed: McpAgent.serve with jurisdiction 'eu'", () => {
  it("pins every session lookup to the EU jurisdiction", async () => {
    const asked: string[] = [];
    const { client } = await connectV1(
      "http://localhost/mcp",
      viaWorker(worker, recordingBindings(asked)),
    );
    expect(text(await client.callTool({ name: "square", arguments: { n: 3 } }))).toBe("9");
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked)).toEqual(new Set(["eu"]));
    await client.close();
  });
});
