/**
 * Seed example examples/create-mcp-handler-options.ts: every Worker option of createMcpHandler
 * at once (route, CORS, Host and Origin allowlists, authContext, legacy, responseMode). The
 * handler accepts them and serves both eras on `/mcp` of the custom domain, from the allowed
 * browser origin; a disallowed origin gets 403 and other paths 404.
 */
import { describe, expect, it } from "vitest";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { handler } from "./examples/create-mcp-handler-options";
import { createServer as whoamiServer } from "./examples/whoami";
import { connectV1, connectV2, text, viaWorker, type FetchLike } from "./support/clients";

const fromApp: FetchLike = (url, init) => {
  const headers = new Headers(init?.headers);
  headers.set("origin", "https://app.example.com");
  return viaWorker(handler)(url, { ...init, headers });
};

describe("seed: createMcpHandler options", () => {
  it("serves SDK v2 and v1 clients on the route from the allowed origin", async () => {
    const v2 = await connectV2("https://mcp.example.com/mcp", fromApp);
    expect(text(await v2.callTool({ name: "hello", arguments: { name: "v2" } }))).toBe(
      "Hello, v2!",
    );
    await v2.close();
    const { client: v1 } = await connectV1("https://mcp.example.com/mcp", fromApp);
    expect(text(await v1.callTool({ name: "hello", arguments: { name: "v1" } }))).toBe(
      "Hello, v1!",
    );
    await v1.close();
  });

  it("refuses other origins (403) and other paths (404)", async () => {
    const init = (origin: string): RequestInit => ({
      method: "POST",
      headers: {
        origin,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    const worker = viaWorker(handler);
    expect((await worker("https://mcp.example.com/mcp", init("https://evil.example"))).status).toBe(
      403,
    );
    expect(
      (await worker("https://mcp.example.com/other", init("https://app.example.com"))).status,
    ).toBe(404);
  });

  it("authContext sets the props getMcpAuthContext() returns", async () => {
    const withProps = createMcpHandler(whoamiServer, {
      authContext: { props: { userId: "from-options" } },
    });
    const client = await connectV2("http://localhost/mcp", viaWorker(withProps));
    const who = JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    await client.close();
    expect(who.userId).toBe("from-options");
  });
});
