/**
 * Seed example examples/elicitation-url.ts: URL-mode elicitation with a unique `elicitationId`
 * carried in the URL. `accept` means the user agreed to open the page.
 */
import { describe, expect, it } from "vitest";
import { UrlElicitationMcp } from "./examples/elicitation-url";
import { text } from "./support/clients";
import { elicitingClient } from "./support/elicitation";

const worker = UrlElicitationMcp.serve("/mcp", { binding: "URL_MCP" });

describe("seed: URL-mode elicitation", () => {
  it("accept: the tool reports the page opened; the URL carries the elicitation id", async () => {
    const { client, asked } = await elicitingClient(worker, { url: {} }, () => ({
      action: "accept",
    }));
    expect(text(await client.callTool({ name: "connect", arguments: {} }))).toBe(
      "Connection page opened. Complete it in your browser.",
    );
    const request = asked[0] as {
      mode: string;
      message: string;
      url: string;
      elicitationId: string;
    };
    expect(request.mode).toBe("url");
    expect(request.message).toBe("Connect your account to continue.");
    expect(request.elicitationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.url).toBe(`https://example.com/connect?elicitationId=${request.elicitationId}`);
    await client.close();
  });

  it("decline: the connection is cancelled", async () => {
    const { client } = await elicitingClient(worker, { url: {} }, () => ({ action: "decline" }));
    expect(text(await client.callTool({ name: "connect", arguments: {} }))).toBe(
      "Connection cancelled.",
    );
    await client.close();
  });
});
