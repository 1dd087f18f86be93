/**
 * Seed example examples/stateless-elicitation.ts: a modern-only handler (`legacy: "reject"`)
 * whose tool returns `inputRequired(...)` and reads the answer with `acceptedContent(...)` on the
 * retry. A real SDK v2 client answers the form and gets the greeting; a 2025-era SDK v1 client
 * is refused.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import worker from "./examples/stateless-elicitation";
import { connectV1, text, viaWorker } from "./support/clients";

describe("seed: stateless elicitation (MRTR)", () => {
  it("asks for the name and greets with the answer", async () => {
    const client = new Client(
      { name: "seed-example-test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada" } };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch: viaWorker(worker),
      }),
    );
    expect(text(await client.callTool({ name: "ask-name", arguments: {} }))).toBe("Hello Ada");
    expect(asked).toEqual([
      expect.objectContaining({
        message: "What is your name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        },
      }),
    ]);
    await client.close();
  });

  it("refuses a 2025-era client (legacy: 'reject')", async () => {
    const response = await viaWorker(worker)("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1.0.0" },
        },
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { message: "Unsupported protocol version: 2025-11-25" },
    });
    await expect(connectV1("http://localhost/mcp", viaWorker(worker))).rejects.toThrow(
      /Unsupported protocol version/,
    );
  });
});
