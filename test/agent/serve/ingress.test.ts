// McpAgent.serve: the checks that refuse a request before its session is looked up, in agents'
// order (Accept, Content-Type, size, JSON, JSON-RPC, initialize rules, protocol version, session
// id). An unknown session id must not hide the more specific answer.
import { listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { initializeBody, rpc, workerFetch } from "../helpers";

const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: number; message: string } }).error;
}

describe("McpAgent.serve refuses before the session lookup", () => {
  it("a follow-up with an unsupported MCP-Protocol-Version: 400, whatever the session id", async () => {
    const unknown = env.NOTES_AGENT.newUniqueId().toString();
    for (const sessionId of ["some-session-id", unknown]) {
      const response = await rpc("/notes", initialized, {
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2026-07-28",
      });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/^Bad Request: Unsupported protocol version: 2026-07-28/);
    }
  });

  it("initialize carrying an Mcp-Session-Id: 400 / -32600, and no object is created", async () => {
    const before = (await listDurableObjectIds(env.NOTES_AGENT)).length;
    const response = await rpc("/notes", initializeBody(), { "mcp-session-id": "some-session-id" });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/^Invalid Request: initialize must not carry an Mcp-Session-Id/);
    expect(await listDurableObjectIds(env.NOTES_AGENT)).toHaveLength(before);
  });

  it("initialize batched with another message: 400 / -32600", async () => {
    const response = await rpc("/notes", [initializeBody(), initialized]);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({
      code: -32600,
      message: "Invalid Request: Only one initialization request is allowed",
    });
  });

  it("POST without both Accept types: 406; not JSON: 415; bad JSON: 400 / -32700", async () => {
    const headers = { "mcp-session-id": "some-session-id" };
    const noAccept = await workerFetch("http://localhost/notes", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(initialized),
    });
    expect(noAccept.status).toBe(406);
    const wrongType = await workerFetch("http://localhost/notes", {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "text/plain",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialized),
    });
    expect(wrongType.status).toBe(415);
    const notJson = await workerFetch("http://localhost/notes", {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect(await errorOf(notJson)).toMatchObject({ code: -32700 });
    const notRpc = await rpc("/notes", { hello: "world" }, headers);
    expect(notRpc.status).toBe(400);
    expect(await errorOf(notRpc)).toMatchObject({
      code: -32700,
      message: "Parse error: Invalid JSON-RPC message",
    });
  });

  it("GET needs text/event-stream and a supported version; DELETE a supported version", async () => {
    const sessionId = "some-session-id";
    const noAccept = await workerFetch("http://localhost/notes", {
      headers: { "mcp-session-id": sessionId, accept: "application/json" },
    });
    expect(noAccept.status).toBe(406);
    const getVersion = await workerFetch("http://localhost/notes", {
      headers: {
        "mcp-session-id": sessionId,
        accept: "text/event-stream",
        "mcp-protocol-version": "1999-01-01",
      },
    });
    expect(getVersion.status).toBe(400);
    // A GET's session id is checked before its version (a DELETE's after), as in agents.
    const getNoSession = await workerFetch("http://localhost/notes", {
      headers: { accept: "text/event-stream", "mcp-protocol-version": "1999-01-01" },
    });
    expect(getNoSession.status).toBe(400);
    expect((await errorOf(getNoSession)).message).toMatch(/Mcp-Session-Id header is required/);
    const deleteNoSession = await workerFetch("http://localhost/notes", {
      method: "DELETE",
      headers: { "mcp-protocol-version": "1999-01-01" },
    });
    expect((await errorOf(deleteNoSession)).message).toMatch(/Unsupported protocol version/);
    const deleteVersion = await workerFetch("http://localhost/notes", {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" },
    });
    expect(deleteVersion.status).toBe(400);
    expect((await errorOf(deleteVersion)).message).toMatch(
      /Unsupported protocol version: 1999-01-01/,
    );
  });

  it("well-formed requests with unknown ids still get 404 / -32001", async () => {
    const unknown = env.NOTES_AGENT.newUniqueId().toString();
    for (const sessionId of ["some-session-id", unknown]) {
      const response = await rpc("/notes", initialized, {
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      });
      expect(response.status).toBe(404);
      expect(await errorOf(response)).toMatchObject({ code: -32001 });
    }
  });
});
