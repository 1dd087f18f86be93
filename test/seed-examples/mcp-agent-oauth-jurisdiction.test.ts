/**
 * Seed example examples/mcp-agent-oauth-jurisdiction.ts: the EU jurisdiction with OAuth
 * (`apiHandlers: { "/mcp": MyMCP.serve("/mcp", { jurisdiction: "eu" }) }`). The authorized
 * client's session lives in the EU namespace.
 */
import { describe, expect, it } from "vitest";
import worker from "./examples/mcp-agent-oauth-jurisdiction";
import { connectV1, text, viaWorker, withBearer } from "./support/clients";
import { recordingBindings } from "./support/jurisdiction";
import { accessToken } from "./support/oauth";

describe("seed: McpAgent behind OAuthProvider with jurisdiction 'eu'", () => {
  it("serves an authorized client from the EU namespace", async () => {
    const asked: string[] = [];
    const fetch = viaWorker(worker, recordingBindings(asked));
    const token = await accessToken(fetch);
    const { client } = await connectV1("http://localhost/mcp", withBearer(fetch, token));
    expect(text(await client.callTool({ name: "square", arguments: { n: 4 } }))).toBe("16");
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked)).toEqual(new Set(["eu"]));
    await client.close();
  });
});
