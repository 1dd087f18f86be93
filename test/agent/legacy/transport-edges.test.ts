// WorkerTransport and createLegacyMcpHandler edges: failures, bad input, version header, resumption.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  createLegacyMcpHandler,
  DurableObjectEventStore,
  type SessionRecord,
  type SessionStorage,
} from "code-mode-mcp/mcp";
import { initializeBody } from "../helpers";
import { memoryStorage } from "../memory-storage";
import { messageOf, SseReader } from "../sse";

const URL_LOCAL = "http://localhost/mcp";
const ACCEPT = "application/json, text/event-stream";

function buildServer() {
  const server = new McpServer({ name: "edges", version: "1.0.0" });
  server.tool("echo", { text: z.string() }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

function post(body: unknown, headers: Record<string, string> = {}, init: RequestInit = {}) {
  return new Request(URL_LOCAL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
    ...init,
  });
}

const inSession = (sessionId: string) => ({
  "mcp-session-id": sessionId,
  "mcp-protocol-version": "2025-11-25",
});
const echo = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: { text } },
});

/** Opens a session through a first handler and returns the stored record. */
async function storedSession(): Promise<SessionRecord> {
  let record: SessionRecord | undefined;
  const storage = {
    get: () => record,
    set: (value: SessionRecord) => void (record = value),
  };
  const response = await createLegacyMcpHandler(buildServer(), {
    storage,
  }).fetch(post(initializeBody()));
  await response.text();
  return record!;
}

/**
 * A server whose `wait` tool answers `text` only once `release()` is called; `finished()` says
 * whether it has answered.
 */
function gatedServer(text: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let done = false;
  const server = buildServer();
  server.tool("wait", async () => {
    await gate;
    done = true;
    return { content: [{ type: "text", text }] };
  });
  return { server, release, finished: () => done };
}

/** A `tools/call` of the gated `wait` tool. */
const waitCall = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "wait" },
});

/** Initializes a session on `handler`; gives its id. */
async function openSession(handler: { fetch: (request: Request) => Promise<Response> }) {
  const init = await handler.fetch(post(initializeBody()));
  await init.text();
  return init.headers.get("mcp-session-id")!;
}

/** The GET that resumes a session's stream after the event `lastEventId`. */
function resumeAfter(sessionId: string, lastEventId: string) {
  return new Request(URL_LOCAL, {
    headers: { accept: "text/event-stream", ...inSession(sessionId), "last-event-id": lastEventId },
  });
}

async function resultOf(response: Response): Promise<Record<string, any>> {
  const frames = await new SseReader(response.body!).rest();
  return frames.map(messageOf).findLast((message) => message?.id !== undefined)!;
}

describe("createLegacyMcpHandler under failures and bad input", () => {
  it("a transport exception answers 500 / -32603 instead of rejecting the fetch", async () => {
    const onerror = vi.fn();
    const storage: SessionStorage = {
      get: () => Promise.reject(new Error("storage is down")),
      set: () => undefined,
    };
    const handler = createLegacyMcpHandler(buildServer(), { storage, onerror });
    const response = await handler.fetch(post(echo(1, "x"), inSession("some-session")));
    expect(response.status).toBe(500);
    expect((await response.json()) as unknown).toMatchObject({
      error: { code: -32603 },
    });
    expect(onerror).toHaveBeenCalledWith(expect.objectContaining({ message: "storage is down" }));
  });

  it("a transient storage failure while the session starts is retried on the next request", async () => {
    const record = await storedSession();
    let failures = 1;
    const storage: SessionStorage = {
      get: () => (failures-- > 0 ? Promise.reject(new Error("blip")) : record),
      set: () => undefined,
    };
    const handler = createLegacyMcpHandler(buildServer(), {
      storage,
      onerror: () => undefined,
    });
    const first = await handler.fetch(post(echo(1, "one"), inSession(record.sessionId)));
    expect(first.status).toBe(500);
    const second = await handler.fetch(post(echo(2, "two"), inSession(record.sessionId)));
    expect(second.status).toBe(200);
    expect(await resultOf(second)).toMatchObject({
      id: 2,
      result: { content: [{ text: "two" }] },
    });
  });

  it("a storage failure while a new session is recorded: the next initialize starts over", async () => {
    let record: SessionRecord | undefined;
    let failures = 1;
    const storage: SessionStorage = {
      get: () => record,
      set: (value) => {
        if (failures-- > 0) throw new Error("write failed");
        record = value;
      },
    };
    const handler = createLegacyMcpHandler(buildServer(), { storage, onerror: () => undefined });
    const first = await handler.fetch(post(initializeBody()));
    expect(first.status).toBe(500);
    expect((await first.json()) as unknown).toMatchObject({ error: { code: -32603 } });
    const second = await handler.fetch(post(initializeBody()));
    expect(second.status).toBe(200);
    const sessionId = second.headers.get("mcp-session-id")!;
    await second.text();
    expect(record?.sessionId).toBe(sessionId);
    const call = await handler.fetch(post(echo(1, "after retry"), inSession(sessionId)));
    expect(await resultOf(call)).toMatchObject({ result: { content: [{ text: "after retry" }] } });
  });

  it("an aborted request is not served: no server is connected", async () => {
    const server = buildServer();
    const handler = createLegacyMcpHandler(server);
    const controller = new AbortController();
    controller.abort();
    const response = await handler.fetch(post(initializeBody(), {}, { signal: controller.signal }));
    expect(response.status).toBe(499);
    expect(server.isConnected()).toBe(false);
  });

  it("an unsupported protocol version on a follow-up is refused before any session lookup", async () => {
    const get = vi.fn(() => undefined);
    const handler = createLegacyMcpHandler(buildServer(), {
      storage: { get, set: () => {} },
    });
    const response = await handler.fetch(
      post(echo(1, "x"), {
        "mcp-session-id": "abc",
        "mcp-protocol-version": "1999-01-01",
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /Unsupported protocol version: 1999-01-01/,
    );
    expect(get).not.toHaveBeenCalled();
  });

  it("initialize carrying Mcp-Session-Id gets 400 / -32600", async () => {
    const server = buildServer();
    const response = await createLegacyMcpHandler(server).fetch(
      post(initializeBody(), { "mcp-session-id": "left-over" }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()) as unknown).toMatchObject({
      id: 0,
      error: {
        code: -32600,
        message: expect.stringMatching(/must not carry an Mcp-Session-Id/),
      },
    });
    expect(server.isConnected()).toBe(false);
  });

  it("a body that is not JSON gets the SDK's parse error", async () => {
    const response = await createLegacyMcpHandler(buildServer()).fetch(
      new Request(URL_LOCAL, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT },
        body: "{not json",
      }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()) as unknown).toMatchObject({ error: { code: -32700 } });
  });

  it("initialize without protocolVersion gets an error that says so", async () => {
    const body = initializeBody() as { params: Record<string, unknown> };
    delete body.params.protocolVersion;
    const response = await createLegacyMcpHandler(buildServer()).fetch(post(body));
    expect(response.status).toBe(400);
    expect((await response.json()) as unknown).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringMatching(/initialize needs params\.protocolVersion/),
      },
    });
  });
});

describe("WorkerTransport in-session version header", () => {
  it("a follow-up POST naming an older supported revision is served with the session's version", async () => {
    const handler = createLegacyMcpHandler(buildServer());
    const sessionId = await openSession(handler);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-03-26" };
    const responses = await Promise.all(
      [1, 2, 3].map((id) => handler.fetch(post(echo(id, `n${id}`), headers))),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const results = await Promise.all(responses.map(resultOf));
    expect(results.map((result) => result.result.content[0].text)).toEqual(["n1", "n2", "n3"]);
  });
});

describe("WorkerTransport, SDK v1 transport surface", () => {
  it("handleRequest honours { parsedBody } when the body was already read", async () => {
    const handler = createLegacyMcpHandler(buildServer());
    const request = post(initializeBody());
    const parsedBody = await request.json();
    const response = await handler.transport.handleRequest(request, {
      parsedBody,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeTruthy();
    expect(await resultOf(response)).toMatchObject({
      id: 0,
      result: { protocolVersion: "2025-11-25" },
    });
  });

  it("the handler's .fetch passes { parsedBody } on too", async () => {
    const handler = createLegacyMcpHandler(buildServer());
    const request = post(initializeBody());
    const parsedBody = await request.json();
    const response = await handler.fetch(request, { parsedBody });
    expect(response.status).toBe(200);
    expect(await resultOf(response)).toMatchObject({
      id: 0,
      result: { protocolVersion: "2025-11-25" },
    });
  });

  it("closeSSEStream ends a request's stream; the client resumes it and gets the result", async () => {
    const { server, release } = gatedServer("released");
    const events = new DurableObjectEventStore(memoryStorage());
    const handler = createLegacyMcpHandler(server, { eventStore: events });
    const sessionId = await openSession(handler);
    const reader = new SseReader(
      (await handler.fetch(post(waitCall(5), inSession(sessionId)))).body!,
    );
    const priming = (await reader.next())!;
    expect(priming.id).toBeTruthy();

    handler.transport.closeSSEStream(5);
    expect(await reader.rest()).toEqual([]);
    const resumed = await handler.fetch(resumeAfter(sessionId, priming.id!));
    expect(resumed.status).toBe(200);
    release();
    expect(await resultOf(resumed)).toMatchObject({
      id: 5,
      result: { content: [{ text: "released" }] },
    });
  });
});

describe("late answers", () => {
  it("without an event store, an answer sent after closeSSEStream is dropped silently", async () => {
    const { server, release, finished } = gatedServer("too late");
    const errors: Error[] = [];
    // The SDK server has only this callback; it is where the late answer's failure landed.
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    server.server.onerror = (error) => errors.push(error);
    const handler = createLegacyMcpHandler(server, { onerror: (error) => errors.push(error) });
    const sessionId = await openSession(handler);
    const reader = new SseReader(
      (await handler.fetch(post(waitCall(5), inSession(sessionId)))).body!,
    );

    handler.transport.closeSSEStream(5);
    expect(await reader.rest()).toEqual([]);
    release();
    await vi.waitFor(() => expect(finished()).toBe(true));
    // A later request's answer is sent after the late one: by then it was dropped or reported.
    const after = await handler.fetch(post(echo(6, "still here"), inSession(sessionId)));
    expect(await resultOf(after)).toMatchObject({
      id: 6,
      result: { content: [{ text: "still here" }] },
    });
    expect(errors.map((error) => error.message)).toEqual([]);
  });
});

describe("resuming a dropped POST stream while its tool still runs", () => {
  it("GET + Last-Event-ID right after the drop is served (no 409) and delivers the result", async () => {
    const { server, release } = gatedServer("finished");
    const handler = createLegacyMcpHandler(server, {
      eventStore: new DurableObjectEventStore(memoryStorage()),
    });
    const sessionId = await openSession(handler);
    const reader = new SseReader(
      (await handler.fetch(post(waitCall(8), inSession(sessionId)))).body!,
    );
    const priming = (await reader.next())!;
    // The connection dropped, but the server has not noticed yet (at the edge only a failed
    // write reveals it, up to a keep-alive interval later): the client just stops reading.

    const resumed = await handler.fetch(resumeAfter(sessionId, priming.id!));
    expect(resumed.status).toBe(200);
    release();
    expect(await resultOf(resumed)).toMatchObject({
      id: 8,
      result: { content: [{ text: "finished" }] },
    });
  });
});

describe("two concurrent POSTs of one session reusing a JSON-RPC id", () => {
  it("each gets its own answer on its own stream", async () => {
    const { server, release } = gatedServer("slow answer");
    const handler = createLegacyMcpHandler(server);
    try {
      const sessionId = await openSession(handler);
      const slow = await handler.fetch(post(waitCall(1), inSession(sessionId)));
      const fast = await handler.fetch(post(echo(1, "fast answer"), inSession(sessionId)));
      expect(await resultOf(fast)).toMatchObject({
        id: 1,
        result: { content: [{ text: "fast answer" }] },
      });
      release();
      // A guard, not a timing assertion: an answer lost on the way (the bug) must fail the
      // test, not hang it; closing the transport ends every stream.
      const guard = setTimeout(() => void handler.transport.close(), 5_000);
      const answer = await resultOf(slow);
      clearTimeout(guard);
      expect(answer).toMatchObject({
        id: 1,
        result: { content: [{ text: "slow answer" }] },
      });
    } finally {
      // Before the fix the slow answer had no stream left: end the test's streams either way.
      release();
      await handler.transport.close();
    }
  });
});

describe("SDK v1 DNS-rebinding options", () => {
  const options = {
    enableDnsRebindingProtection: true,
    allowedHosts: ["localhost:8787"],
    allowedOrigins: ["http://localhost:8787"],
  };

  it("are honoured: Host and Origin outside the lists get 403, listed ones are served", async () => {
    const handler = createLegacyMcpHandler(buildServer(), options);
    const at = (url: string, headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: ACCEPT,
            ...headers,
          },
          body: JSON.stringify(initializeBody()),
        }),
      );
    const wrongHost = await at("http://localhost/mcp");
    expect(wrongHost.status).toBe(403);
    expect(await wrongHost.text()).toMatch(/Invalid Host header: localhost/);
    const wrongOrigin = await at("http://localhost:8787/mcp", {
      origin: "http://localhost:3000",
    });
    expect(wrongOrigin.status).toBe(403);
    expect(await wrongOrigin.text()).toMatch(/Invalid Origin header/);
    const listed = await at("http://localhost:8787/mcp", {
      origin: "http://localhost:8787",
    });
    expect(listed.status).toBe(200);
    await listed.text();
  });

  it("still apply when a persistent transport is given", async () => {
    const server = buildServer();
    const { transport } = createLegacyMcpHandler(server);
    const handler = createLegacyMcpHandler(server, { ...options, transport });
    const response = await handler.fetch(post(initializeBody()));
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/not in allowedHosts/);
  });

  it("lists without enableDnsRebindingProtection warn that they have no effect (as in SDK v1)", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    createLegacyMcpHandler(buildServer(), { allowedHosts: ["localhost:8787"] });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/allowedHosts has no effect without/));
    warn.mockRestore();
  });
});
