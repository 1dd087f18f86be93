// createMcpHandler with real SDK v1 and v2 clients over HTTP, and SDK v1 servers.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createMcpHandler, type StatelessMcpHandler } from "../../../src/index";
import { direct } from "../../helpers/clients/mcp-client";
import { text as firstText } from "../../helpers/clients/tool-result";
import { buildServer, modernRequest, rpcBody, URL_LOCAL } from "./fixtures";

const STATE_KEY = "test-only-request-state-key-0123456789abcdef";

async function modernClient(
  handler: StatelessMcpHandler,
  answer?: Record<string, string | number | boolean | string[]>,
) {
  const client = new Client(
    { name: "v2-client", version: "1.0.0" },
    {
      versionNegotiation: { mode: "auto" },
      capabilities: { elicitation: { form: {} } },
    },
  );
  if (answer !== undefined) {
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: answer,
    }));
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(URL_LOCAL), { fetch: direct(handler) }),
  );
  return client;
}

async function legacyClient(handler: StatelessMcpHandler) {
  const client = new V1Client({ name: "v1-client", version: "1.0.0" });
  await client.connect(new V1Transport(new URL(URL_LOCAL), { fetch: direct(handler) }));
  return client;
}

describe("real SDK clients over HTTP", () => {
  const handler = createMcpHandler(buildServer, { requestState: { key: STATE_KEY } });

  it("an SDK v2 client negotiates 2026-07-28 and calls a tool", async () => {
    const client = await modernClient(handler);
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "modern" } }))).toBe(
      "modern",
    );
    await client.close();
  });

  it("an SDK v1 client uses the stateless legacy lane and calls a tool", async () => {
    const client = await legacyClient(handler);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("echo");
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "legacy" } }))).toBe(
      "legacy",
    );
    await client.close();
  });

  it("runs a two-round MRTR tool: ask, then answer with the sealed price", async () => {
    const client = await modernClient(handler, { ok: true });
    const result = await client.callTool({ name: "book_table", arguments: { guests: 4 } });
    expect(firstText(result)).toBe("booked 4 for 100");
    await client.close();
  });

  it("rejects a tampered requestState with -32602", async () => {
    const capabilities = { elicitation: { form: {} } };
    const params = { name: "book_table", arguments: { guests: 2 } };
    const first = await rpcBody(
      await handler.fetch(modernRequest("tools/call", params, { capabilities })),
    );
    expect(first.result.resultType).toBe("input_required");
    const state: string = first.result.requestState;
    const [version, payload, mac] = state.split(".");
    const decoded = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(decoded.p).toEqual({ price: 50 });
    decoded.p.price = 1;
    const forged = btoa(JSON.stringify(decoded))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const inputResponses = { confirm: { action: "accept", content: { ok: true } } };
    for (const requestState of [`${version}.${forged}.${mac}`, `${state}x`, "junk"]) {
      const retry = await rpcBody(
        await handler.fetch(
          modernRequest(
            "tools/call",
            { ...params, inputResponses, requestState },
            { capabilities, id: 2 },
          ),
        ),
      );
      expect(retry.error.code).toBe(-32602);
      expect(retry.error.message).toBe("Invalid or expired requestState");
    }
    const honest = await rpcBody(
      await handler.fetch(
        modernRequest(
          "tools/call",
          { ...params, inputResponses, requestState: state },
          { capabilities, id: 3 },
        ),
      ),
    );
    expect(honest.result.content[0].text).toBe("booked 2 for 50");
  });

  it("notify reaches an open subscriptions/listen stream of this handler", async () => {
    const client = await modernClient(handler);
    const changed = new Promise<string>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", (notification) =>
        resolve(notification.method),
      ),
    );
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter.toolsListChanged).toBe(true);
    handler.notify.toolsChanged();
    expect(await changed).toBe("notifications/tools/list_changed");
    await subscription.close();
    await client.close();
  });

  it("notify without open subscriptions does nothing", () => {
    const lonely = createMcpHandler(buildServer);
    expect(() => {
      lonely.notify.toolsChanged();
      lonely.notify.promptsChanged();
      lonely.notify.resourcesChanged();
      lonely.notify.resourceUpdated("test://x");
    }).not.toThrow();
  });
});

describe("SDK v1 server (deprecated)", () => {
  function v1Server() {
    const server = new V1McpServer({ name: "v1-server", version: "1.0.0" });
    server.registerTool("shout", { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text: text.toUpperCase() }],
    }));
    server.registerTool("ask", {}, async () => {
      const answer = await server.server.elicitInput({
        message: "Name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    });
    return server;
  }

  it("serves an SDK v1 client, warning once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const handler = createMcpHandler(v1Server);
    const client = await legacyClient(handler);
    expect(firstText(await client.callTool({ name: "shout", arguments: { text: "hi" } }))).toBe(
      "HI",
    );
    await client.close();
    const deprecations = warn.mock.calls.filter(([message]) =>
      String(message).includes("SDK v1 server"),
    );
    expect(deprecations).toHaveLength(1);
    warn.mockRestore();
  });

  it("fails its server-to-client requests at once on the stateless lane", async () => {
    const handler = createMcpHandler(v1Server);
    const client = await legacyClient(handler);
    const result = await client.callTool({ name: "ask", arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain("inputRequired(");
    await client.close();
  });

  it("answers 2026-07-28 requests with -32022 so an SDK v2 client falls back to 2025", async () => {
    const handler = createMcpHandler(v1Server);
    const raw = await handler.fetch(modernRequest("tools/list"));
    expect(raw.status).toBe(400);
    const body = await raw.json<any>();
    expect(body.id).toBe(1);
    expect(body.error.code).toBe(-32022);
    const client = await modernClient(handler);
    expect(client.getProtocolEra()).toBe("legacy");
    expect(firstText(await client.callTool({ name: "shout", arguments: { text: "v2" } }))).toBe(
      "V2",
    );
    await client.close();
  });
});
