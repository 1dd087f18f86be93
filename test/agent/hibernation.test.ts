/**
 * Idle sessions let their Durable Object hibernate: a client's open standalone GET stream is
 * held by the Worker, and the object only keeps a hibernatable WebSocket to it. Eviction (what
 * hibernation does to the instance) succeeds while the stream is open, and the next message
 * wakes a fresh instance that restores the session, its state and the stream.
 */
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectClient, text, workerFetch } from "./helpers";
import { SseReader } from "./sse";

describe("hibernation of Streamable HTTP sessions", () => {
  it("an open standalone GET stream does not pin the object; events still reach it after a wake-up", async () => {
    // workerFetch: the client opens its standalone GET stream, as real clients do.
    const { client, transport } = await connectClient("/default", { fetch: workerFetch });
    const logged: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(notification.params.data);
    });
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromString(transport.sessionId!));
    expect(text(await client.callTool({ name: "add", arguments: { a: 1 } }))).toBe("total 1");
    await client.callTool({ name: "announce", arguments: { text: "before" } });
    await expect.poll(() => logged, { timeout: 10_000 }).toEqual(["before"]);
    // The stream is a hibernatable socket, not a request the object is still answering.
    const sockets = await runInDurableObject(stub, (_agent, state) => state.getWebSockets().length);
    expect(sockets).toBe(1);

    // Rejects ("still has active references") when a request or stream pins the object.
    await evictDurableObject(stub);

    await client.callTool({ name: "announce", arguments: { text: "after" } });
    await expect.poll(() => logged, { timeout: 10_000 }).toEqual(["before", "after"]);
    expect(text(await client.callTool({ name: "add", arguments: { a: 2 } }))).toBe("total 3");
    await evictDurableObject(stub);
    await client.callTool({ name: "announce", arguments: { text: "again" } });
    await expect.poll(() => logged, { timeout: 10_000 }).toEqual(["before", "after", "again"]);
    await client.close();
  });

  it("one standalone stream per session (409), and DELETE ends the relayed stream", async () => {
    const { transport } = await connectClient("/default");
    const headers = {
      accept: "text/event-stream",
      "mcp-session-id": transport.sessionId!,
      "mcp-protocol-version": "2025-11-25",
    };
    const first = await workerFetch("http://localhost/default", { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("mcp-session-id")).toBe(transport.sessionId);
    const second = await workerFetch("http://localhost/default", { headers });
    expect(second.status).toBe(409);
    await second.body?.cancel();
    const unknown = await workerFetch("http://localhost/default", {
      headers: { ...headers, "mcp-session-id": env.MCP_OBJECT.newUniqueId().toString() },
    });
    expect(unknown.status).toBe(404);

    const ended = await workerFetch("http://localhost/default", { method: "DELETE", headers });
    expect(ended.status).toBe(200);
    // The stream ends (EOF) instead of staying open on a deleted session.
    const rest = await new SseReader(first.body!).rest();
    expect(rest.every((frame) => frame.data === undefined)).toBe(true);
  });
});
