// McpAgent.serve/serveSSE options (jurisdiction, binding, OAuth props, keep-alive) and an SDK v2 server.
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_KEEP_ALIVE_MS } from "../../../src/index";
import { captureConsole } from "../../helpers/console-capture";
import { NotesAgent } from "../fixtures/other-agents";
import { connectClient, initializeBody, text, withoutStandaloneStream } from "../helpers";

/**
 * A real namespace that records the jurisdiction asked for. workerd does not implement
 * jurisdiction restrictions ("not implemented in workerd"), so the recorded call returns the
 * namespace itself; on Cloudflare the same call returns the jurisdiction-pinned namespace.
 */
function recordingNamespace(asked: string[]) {
  const real = env.NOTES_AGENT;
  return new Proxy(real, {
    get(target, key, receiver) {
      if (key === "jurisdiction") {
        return (jurisdiction: string) => {
          asked.push(jurisdiction);
          return receiver;
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function ctxWith(props: Record<string, unknown> | undefined) {
  return { props: props ?? {}, waitUntil() {}, passThroughOnException() {} } as never;
}

describe("McpAgent.serve options", () => {
  it("jurisdiction reaches the Durable Object namespace for new and existing sessions", async () => {
    const asked: string[] = [];
    const handler = NotesAgent.serve("/eu", { binding: "NOTES_AGENT", jurisdiction: "eu" });
    const testEnv = { NOTES_AGENT: recordingNamespace(asked) };
    const fetch = (url: string | URL, init?: RequestInit) =>
      handler.fetch(new Request(url, init), testEnv, ctxWith(undefined));
    const { client } = await connectClient("/eu", { fetch });
    expect(text(await client.callTool({ name: "recall", arguments: {} }))).toContain('"count":0');
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked)).toEqual(new Set(["eu"]));
    await client.close();
  });

  it("serveSSE: jurisdiction and binding reach the namespace for the stream and each message", async () => {
    const asked: string[] = [];
    const handler = NotesAgent.serveSSE("/eu-sse", { binding: "NOTES_AGENT", jurisdiction: "eu" });
    const testEnv = { NOTES_AGENT: recordingNamespace(asked) };
    const fetch = (url: string | URL, init?: RequestInit) =>
      handler.fetch(new Request(url, init), testEnv, ctxWith(undefined));
    const client = new Client(
      { name: "sse-eu", version: "1.0.0" },
      { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    const transport = new SSEClientTransport(new URL("http://localhost/eu-sse"), {
      fetch,
      eventSourceInit: { fetch },
    });
    await client.connect(transport);
    expect(text(await client.callTool({ name: "recall", arguments: {} }))).toContain('"count":0');
    // The stream, initialize, notifications/initialized and the call: each asked for "eu".
    expect(asked.length).toBeGreaterThanOrEqual(4);
    expect(new Set(asked)).toEqual(new Set(["eu"]));
    await client.close();
  });

  it("a missing binding answers 500 without internals", async () => {
    const errors = captureConsole("error");
    const handler = NotesAgent.serve("/notes", { binding: "NOPE" });
    const response = await handler.fetch(
      new Request("http://localhost/notes", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(initializeBody()),
      }),
      env,
      ctxWith(undefined),
    );
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("NOPE");
    // The operator learns the cause from the log instead.
    expect(errors()).toContain('McpAgent.serve: no Durable Object binding named "NOPE" in env.');
  });

  it("OAuth props reach the agent, handlers and getMcpAuthContext, and a newer token's props win", async () => {
    const handler = NotesAgent.serve("/notes", { binding: "NOTES_AGENT" });
    let props: Record<string, unknown> = { user: "ada" };
    const fetch = withoutStandaloneStream((url, init) =>
      handler.fetch(new Request(url, init), env, ctxWith(props)),
    );
    const { client, transport } = await connectClient("/notes", { fetch });
    const whoami = async () =>
      JSON.parse(text(await client.callTool({ name: "whoami", arguments: {} })));
    expect(await whoami()).toEqual({ props: "ada", context: "ada", authInfo: true });

    props = { user: "ada-refreshed" };
    expect(await whoami()).toEqual({
      props: "ada-refreshed",
      context: "ada-refreshed",
      authInfo: true,
    });

    // After eviction the latest props are still known to the object.
    await evictDurableObject(
      env.NOTES_AGENT.get(env.NOTES_AGENT.idFromString(transport.sessionId!)),
    );
    props = {};
    expect((await whoami()).props).toBe("ada-refreshed");
    await client.close();
  });
});

describe("defaults", () => {
  it("keeps SSE streams alive every 25 s unless configured", () => {
    expect(DEFAULT_KEEP_ALIVE_MS).toBe(25_000);
  });
});

describe("McpAgent with an SDK v2 server", () => {
  it("serves tools to a 2025-era client, calls onStateUpdate, and state survives eviction", async () => {
    const { client, transport } = await connectClient("/v2");
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi #1");
    const stub = env.V2_AGENT.get(env.V2_AGENT.idFromString(transport.sessionId!));
    expect(await runInDurableObject(stub, (agent) => agent.updates)).toEqual([{ calls: 1 }]);
    await evictDurableObject(env.V2_AGENT.get(env.V2_AGENT.idFromString(transport.sessionId!)));
    expect(text(await client.callTool({ name: "echo", arguments: { text: "again" } }))).toBe(
      "again #2",
    );
    await client.close();
  });
});
