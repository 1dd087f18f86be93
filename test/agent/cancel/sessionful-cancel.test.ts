// Issue #40, "a run that is given up on ends everywhere", on the sessionful lanes: McpAgent over
// Streamable HTTP (a session id), McpAgent over HTTP+SSE (2024-11-05) and createLegacyMcpHandler.
// A run ends when its request's signal aborts (the executors watch `mcpReq.signal`; e2e
// gone-client shows the runner counting it ended), so each test holds a `hold` tool
// (fixtures/hold-tool.ts) and gives it up the way a client does: a `notifications/cancelled`
// sent by a real SDK client, or the client gone (a session deleted; the HTTP+SSE stream
// dropped, which ends that session). A Streamable HTTP POST stream that drops is not a give-up:
// the client may resume it with Last-Event-ID (test/agent/streams.test.ts), as the 2025
// transports ask ("disconnection SHOULD NOT be interpreted as the client cancelling its request").
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { describe, expect, it } from "vitest";
import {
  createLegacyMcpHandler,
  DurableObjectEventStore,
  type SessionRecord,
} from "../../../src/index";
import { CANCEL_BOARD_MAX_ENTRIES } from "../../../src/mcp/common/cancel-board";
import { sessionCancelBoard } from "../../../src/mcp/sessions/legacy/cancel-relay";
import { HOLD_GUARD_MS, holds, registerHold } from "../fixtures/hold-tool";
import { connectClient, workerFetch } from "../helpers";
import { memoryStorage } from "../memory-storage";

/** How long a given-up hold may take to see its abort: well inside the hold's own guard. */
const ABORTED_WITHIN_MS = HOLD_GUARD_MS / 2;

let calls = 0;

/**
 * Starts `hold` on `client` and waits until it runs. The call's promise is kept settled (a
 * cancelled call rejects) and returned.
 */
async function startHold(client: Client, signal?: AbortSignal) {
  const key = `cancel-lanes-${++calls}`;
  const call = client
    .callTool({ name: "hold", arguments: { key } }, undefined, {
      ...(signal !== undefined && { signal }),
      timeout: HOLD_GUARD_MS * 2,
    })
    .then(
      () => "answered",
      (error: unknown) => String(error),
    );
  await expect.poll(() => holds.has(key), { timeout: ABORTED_WITHIN_MS }).toBe(true);
  return { key, call };
}

/** Waits until the hold under `key` ended, and says whether it was aborted. */
async function abortedHold(key: string) {
  await expect.poll(() => holds.get(key)?.ended, { timeout: ABORTED_WITHIN_MS }).toBe(true);
  return holds.get(key)!.aborted;
}

/**
 * Starts `hold` on `client`, cancels it as the SDK does (its request's signal aborted, so it
 * sends `notifications/cancelled`), and expects the tool's own signal aborted and the call to
 * fail as aborted; closes the client.
 */
async function expectCancelEndsRun(client: Client): Promise<void> {
  const cancel = new AbortController();
  const { key, call } = await startHold(client, cancel.signal);
  cancel.abort();
  expect(await abortedHold(key)).toBe(true);
  expect(await call).toMatch(/abort/i);
  await client.close();
}

/** A real SDK v1 client over the 2024-11-05 HTTP+SSE transport. */
async function connectSse(path: string) {
  const client = new Client(
    { name: "cancel-sse-client", version: "1.0.0" },
    { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new SSEClientTransport(new URL(`http://localhost${path}`), {
    fetch: workerFetch,
    eventSourceInit: { fetch: workerFetch },
  });
  await client.connect(transport);
  return { client, transport };
}

describe.each([
  { lane: "SDK v1 server", path: "/slow" },
  { lane: "SDK v2 server", path: "/v2" },
])("McpAgent over Streamable HTTP ($lane)", ({ path }) => {
  it("a client's notifications/cancelled ends the run", async () => {
    const { client } = await connectClient(path);
    await expectCancelEndsRun(client);
  });

  it("a client that ends its session (DELETE) ends the session's runs", async () => {
    const { client, transport } = await connectClient(path);
    const { key } = await startHold(client);
    await transport.terminateSession();
    expect(await abortedHold(key)).toBe(true);
    await client.close();
  });
});

describe.each([
  { lane: "SDK v1 server", path: "/slow-sse" },
  { lane: "SDK v2 server", path: "/v2-sse-fast" },
])("McpAgent over HTTP+SSE ($lane)", ({ path }) => {
  it("a client's notifications/cancelled ends the run", async () => {
    const { client } = await connectSse(path);
    await expectCancelEndsRun(client);
  });

  // The routes write keep-alives every 20 ms: a gone client is noticed at the next write (in
  // workerd a stream's reader going away is seen only then), so a run outlives its client by at
  // most `keepAliveMs` (25 s by default).
  it("a client whose event stream is gone (its session with it) ends the session's runs", async () => {
    const { client } = await connectSse(path);
    const { key } = await startHold(client);
    // Closes the GET stream: on this transport that is the session's end.
    await client.close();
    expect(await abortedHold(key)).toBe(true);
  });
});

/** A server with `hold`, for createLegacyMcpHandler. */
function holdServer() {
  const server = new McpServer({ name: "legacy-hold", version: "1.0.0" });
  registerHold(server);
  return server;
}

/** A real SDK v1 client of a createLegacyMcpHandler `handle`. */
async function legacyClient(handle: (request: Request) => Promise<Response>) {
  const client = new Client(
    { name: "cancel-legacy-client", version: "1.0.0" },
    { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: (url, init) => handle(new Request(url, init)),
  });
  await client.connect(transport);
  return { client, transport };
}

/** A session served by a fresh server per request, its record and events kept in memory. */
function perRequestHandle() {
  const state: { record?: SessionRecord } = {};
  const storage = {
    get: () => state.record,
    set: (value: SessionRecord) => void (state.record = value),
  };
  const events = memoryStorage();
  return (request: Request) =>
    createLegacyMcpHandler(holdServer(), {
      storage,
      eventStore: new DurableObjectEventStore(events),
    }).fetch(request);
}

describe("createLegacyMcpHandler", () => {
  const persistent = () => {
    const handler = createLegacyMcpHandler(holdServer());
    return (request: Request) => handler.fetch(request);
  };

  it.each([
    { mode: "one server", handle: persistent },
    { mode: "a server per request", handle: perRequestHandle },
  ])("$mode: a client's notifications/cancelled ends the run", async ({ handle }) => {
    const { client } = await legacyClient(handle());
    await expectCancelEndsRun(client);
  });

  it.each([
    { mode: "one server", handle: persistent },
    { mode: "a server per request", handle: perRequestHandle },
  ])(
    "$mode: a client that ends its session (DELETE) ends the session's runs",
    async ({ handle }) => {
      const { client, transport } = await legacyClient(handle());
      const { key } = await startHold(client);
      await transport.terminateSession();
      expect(await abortedHold(key)).toBe(true);
      await client.close();
    },
  );
});

describe("createLegacyMcpHandler, a full cancel board (attack23)", () => {
  it("a server per request: others' entries do not push a client's request off the board", async () => {
    const handle = perRequestHandle();
    const client = new Client(
      { name: "cancel-legacy-client", version: "1.0.0" },
      { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch: (url, init) => {
          const headers = new Headers(init?.headers);
          headers.set("cf-connecting-ip", "192.0.2.10");
          return handle(new Request(url, { ...init, headers }));
        },
      }),
    );
    const cancel = new AbortController();
    const { key, call } = await startHold(client, cancel.signal);
    // A board's worth of entries that name no caller: the owner every session request had
    // before WorkerTransport named its caller and address, when the oldest entry went first.
    const flood = Array.from({ length: CANCEL_BOARD_MAX_ENTRIES }, (_, n) =>
      sessionCancelBoard.enter(`["flood",${n}]`),
    );
    cancel.abort();
    const aborted = await abortedHold(key);
    for (const each of flood) each.leave();
    expect(aborted).toBe(true);
    expect(await call).toMatch(/abort/i);
    await client.close();
  });
});
