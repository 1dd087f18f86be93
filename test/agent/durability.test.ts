// McpAgent sessions: state and SQL survive eviction, sessions are isolated, DELETE and bad ids.
import { evictDurableObject, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectClient, initializeBody, rpc, text, workerFetch } from "./helpers";

function notesStub(sessionId: string) {
  return env.NOTES_AGENT.get(env.NOTES_AGENT.idFromString(sessionId));
}

async function recall(client: Awaited<ReturnType<typeof connectClient>>["client"]) {
  return JSON.parse(text(await client.callTool({ name: "recall", arguments: {} })));
}

describe("McpAgent sessions", () => {
  it("state, SQL rows and client capabilities survive an eviction unnoticed by the client", async () => {
    const { client, transport } = await connectClient("/notes", {
      capabilities: { elicitation: {}, roots: { listChanged: true } },
    });
    await client.callTool({ name: "remember", arguments: { owner: "ada", text: "first" } });
    await client.callTool({ name: "remember", arguments: { owner: "ada", text: "second" } });

    await evictDurableObject(notesStub(transport.sessionId!));

    // The same client keeps going: same session id, nothing re-initialized by it.
    expect(await recall(client)).toEqual({
      state: { owner: "ada", count: 2 },
      notes: ["first", "second"],
    });
    const who = JSON.parse(text(await client.callTool({ name: "client", arguments: {} })));
    expect(who.client).toEqual({ name: "agent-test-client", version: "1.0.0" });
    expect(who.caps).toEqual({ elicitation: { form: {} }, roots: { listChanged: true } });
    await client.callTool({ name: "remember", arguments: { owner: "ada", text: "third" } });
    expect((await recall(client)).notes).toEqual(["first", "second", "third"]);
    await client.close();
  });

  it("sql binds interpolations as parameters, never as SQL text", async () => {
    const { client } = await connectClient("/notes");
    const hostile = "x'); DROP TABLE notes; --";
    await client.callTool({ name: "remember", arguments: { owner: "eve", text: hostile } });
    expect((await recall(client)).notes).toEqual([hostile]);
    await client.close();
  });

  it("two sessions never see each other's state or rows", async () => {
    const one = await connectClient("/notes");
    const two = await connectClient("/notes");
    expect(one.transport.sessionId).not.toBe(two.transport.sessionId);
    await one.client.callTool({ name: "remember", arguments: { owner: "one", text: "mine" } });
    expect(await recall(two.client)).toEqual({ state: { owner: null, count: 0 }, notes: [] });
    await two.client.callTool({ name: "remember", arguments: { owner: "two", text: "yours" } });
    expect(await recall(one.client)).toEqual({
      state: { owner: "one", count: 1 },
      notes: ["mine"],
    });
    await one.client.close();
    await two.client.close();
  });

  it("DELETE ends the session and frees its storage; the id is then unknown", async () => {
    const { client, transport } = await connectClient("/notes");
    const sessionId = transport.sessionId!;
    await client.callTool({ name: "remember", arguments: { owner: "gone", text: "soon" } });
    await transport.terminateSession();
    await client.close();

    const stub = notesStub(sessionId);
    const left = await runInDurableObject(stub, (_agent, state) => ({
      kv: [...state.storage.kv.list()].length,
      tables: state.storage.sql
        .exec(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'",
        )
        .toArray(),
    }));
    expect(left).toEqual({ kv: 0, tables: [] });

    const after = await rpc(
      "/notes",
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-11-25",
      },
    );
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
  });

  it("unknown or malformed session ids get 404 with a JSON-RPC error; a missing one 400", async () => {
    const unknown = env.NOTES_AGENT.newUniqueId().toString();
    for (const sessionId of [unknown, "not-a-durable-object-id"]) {
      const response = await rpc(
        "/notes",
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        {
          "mcp-session-id": sessionId,
        },
      );
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32001, message: "Session not found" },
        id: null,
      });
    }
    const missing = await rpc("/notes", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
      "Mcp-Session-Id",
    );
  });

  it("initialize creates exactly one object whose id is the session id", async () => {
    const before = (await listDurableObjectIds(env.ADD_AGENT)).length;
    const response = await rpc("/mcp", initializeBody());
    const sessionId = response.headers.get("mcp-session-id")!;
    await response.body?.cancel();
    const ids = (await listDurableObjectIds(env.ADD_AGENT)).map((id) => id.toString());
    expect(ids).toHaveLength(before + 1);
    expect(ids).toContain(sessionId);
    expect(response.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
  });

  it("applies the shared Origin guard and CORS preflight", async () => {
    const evil = await rpc("/mcp", initializeBody(), { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    const preflight = await workerFetch("http://localhost/mcp", { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Last-Event-ID");
  });
});
