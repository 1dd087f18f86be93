// McpAgent.serve without a binding name (the default Durable Object binding) and how a session starts.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { captureConsole } from "../helpers/console-capture";
import { FAIL_NEXT_RESTORE } from "./fixtures/default-agent";
import { connectClient, text } from "./helpers";

describe("McpAgent.serve without a binding", () => {
  it("routes to the MCP_OBJECT binding, with state kept across calls", async () => {
    const { client, transport } = await connectClient("/default");
    // Only DefaultAgent (bound as MCP_OBJECT) has this server name.
    expect(client.getServerVersion()?.name).toBe("DefaultBinding");
    expect(text(await client.callTool({ name: "add", arguments: { a: 2 } }))).toBe("total 2");
    expect(text(await client.callTool({ name: "add", arguments: { a: 3 } }))).toBe("total 5");
    // The session's object lives in MCP_OBJECT.
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromString(transport.sessionId!));
    const stored = await runInDurableObject(stub, (agent) => agent.state);
    expect(stored).toEqual({ total: 5 });
    await client.close();
  });
});

describe("McpAgent session start", () => {
  it("a transient storage failure while a session restores is retried by the next request", async () => {
    const errors = captureConsole("error");
    const { client, transport } = await connectClient("/flaky");
    expect(text(await client.callTool({ name: "add", arguments: { a: 1 } }))).toBe("total 1");
    const stub = env.FLAKY_START_AGENT.get(
      env.FLAKY_START_AGENT.idFromString(transport.sessionId!),
    );
    // Arm the fault for the next instance, then make the next request start a fresh one.
    await runInDurableObject(stub, (_agent, state) =>
      state.storage.kv.put(FAIL_NEXT_RESTORE, true),
    );
    await evictDurableObject(stub);

    await expect(client.callTool({ name: "add", arguments: { a: 1 } })).rejects.toThrow();
    // Answered 503 and logged by the object (not thrown out of its RPC method: the runtime would
    // log that as an uncaught exception).
    expect(errors()).toMatch(/McpAgent: the session could not start.*injected storage failure/);
    // The failure was not cached: the same session serves again, with its state.
    expect(text(await client.callTool({ name: "add", arguments: { a: 2 } }))).toBe("total 3");
    await client.close();
  });
});
