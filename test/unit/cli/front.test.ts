/**
 * The local server's Node front (cli/local-server/front.mjs), over real sockets: it reads a
 * body whole before a runtime sees it (408 for a slow body, 413 for a large one), passes requests
 * on unchanged, and ends an event stream cut off mid-way with the JSON-RPC error for its request
 * instead of letting it end silently (issue #28: SDK clients waited until their own timeout).
 * The "runtime" behind it is a plain Node HTTP server standing in for workerd.
 */
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { clientAddress } from "../../../cli/local-server/exchange.mjs";
import { createFront } from "../../../cli/local-server/front.mjs";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Listens on a free loopback port. */
async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return (server.address() as AddressInfo).port;
}

/** A runtime stand-in and a front before it; `seen` holds the bodies the runtime received. */
async function setUp(
  handler: (req: IncomingMessage, body: string, res: import("node:http").ServerResponse) => void,
  limits: {
    maxBodyBytes?: number;
    bodyTimeoutMs?: number;
    logRequest?: (line: string) => void;
  } = {},
) {
  const seen: string[] = [];
  const runtimePort = await listen(
    createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push(body);
        handler(req, body, res);
      });
    }),
  );
  const runtime = { name: "runtime 1", port: runtimePort, killedBecause: undefined } as never;
  const front = createFront({ target: async () => runtime, ...limits });
  const port = await listen(front.server);
  return { port, seen, front, runtime };
}

/** Sends a raw request and resolves with the status and the whole body text. */
function send(
  port: number,
  body: string | undefined,
  options: { headers?: Record<string, string>; slow?: boolean } = {},
): Promise<{ status: number; text: string; headers: IncomingMessage["headers"] }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/mcp",
        headers: { "content-type": "application/json", ...options.headers },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.slow) {
      req.write(body?.slice(0, 1) ?? "");
      return; // the rest never comes
    }
    req.end(body);
  });
}

const CALL = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} });

describe("the local server's front", () => {
  it("passes a request on with its whole body and headers, and the answer back", async () => {
    const { port, seen } = await setUp((req, body, res) => {
      res.writeHead(200, {
        "content-type": "application/json",
        "x-echo": String(req.headers["x-test"]),
      });
      res.end(JSON.stringify({ got: body.length }));
    });
    const answer = await send(port, CALL, { headers: { "x-test": "kept" } });
    expect(answer).toMatchObject({ status: 200, text: JSON.stringify({ got: CALL.length }) });
    expect(answer.headers["x-echo"]).toBe("kept");
    expect(seen).toEqual([CALL]);
  });

  it("tells the runtime the client's address in CF-Connecting-IP, replacing one the client sent", async () => {
    const { port } = await setUp((req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ address: req.headers["cf-connecting-ip"] }));
    });
    // A client choosing its own address would choose the key of the consent page's attempt
    // limit (src/app/oauth/attempt-limiter.ts).
    const forged = await send(port, CALL, { headers: { "cf-connecting-ip": "203.0.113.9" } });
    expect(JSON.parse(forged.text)).toEqual({ address: "127.0.0.1" });
    const plain = await send(port, CALL);
    expect(JSON.parse(plain.text)).toEqual({ address: "127.0.0.1" });
  });

  it("pipes an upgrade (WebSocket) both ways, with the client's address set as for any request", async () => {
    const { port } = await setUp(() => {});
    const runtime = servers[0]!;
    const upgraded: import("node:stream").Duplex[] = [];
    runtime.on("upgrade", (req, socket) => {
      upgraded.push(socket);
      socket.write(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n" +
          `address=${String(req.headers["cf-connecting-ip"])};forged=${String(req.rawHeaders.filter((h) => h === "203.0.113.9").length)}\n`,
      );
      socket.on("data", (chunk) => socket.write(`echo:${String(chunk)}`));
    });
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/socket",
        headers: { connection: "Upgrade", upgrade: "test", "cf-connecting-ip": "203.0.113.9" },
      });
      req.on("upgrade", (_res, socket, head) => {
        let got = String(head);
        socket.write("hi");
        socket.on("data", (chunk) => {
          got += String(chunk);
          if (got.includes("echo:hi")) {
            socket.destroy();
            resolve(got);
          }
        });
      });
      req.on("error", reject);
      req.end();
    });
    for (const socket of upgraded) socket.destroy();
    expect(text).toContain("address=127.0.0.1;forged=0");
    expect(text).toContain("echo:hi");
  });

  it("writes a client's address as Cloudflare does: IPv4 plain, IPv6 as it is", () => {
    expect(clientAddress("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(clientAddress("127.0.0.1")).toBe("127.0.0.1");
    expect(clientAddress("::1")).toBe("::1");
    expect(clientAddress("2001:db8::ffff:1")).toBe("2001:db8::ffff:1");
    expect(clientAddress(undefined)).toBeUndefined();
  });

  it("logs a line per request when asked (LOG_REQUESTS): method, path without its query, status, time", async () => {
    const lines: string[] = [];
    const { port } = await setUp(
      (_req, _body, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      },
      { maxBodyBytes: 1_000, logRequest: (line) => lines.push(line) },
    );
    await send(port, CALL);
    await new Promise<void>((resolve, reject) =>
      request({ host: "127.0.0.1", port, method: "GET", path: "/mcp?token=s3cret" }, (res) =>
        res.resume().on("end", resolve),
      )
        .on("error", reject)
        .end(),
    );
    await send(port, "x".repeat(5_000));
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^POST \/mcp 200 OK \(\d+ms\)$/);
    expect(lines[1]).toMatch(/^GET \/mcp 200 OK \(\d+ms\)$/);
    expect(lines[2]).toMatch(/^POST \/mcp 413 Payload Too Large \(\d+ms\)$/);
    expect(lines.join("\n")).not.toContain("s3cret");
  });

  it("answers 413 for a body over the limit; the runtime never sees it", async () => {
    const { port, seen } = await setUp((_req, _body, res) => res.end("no"), {
      maxBodyBytes: 1_000,
    });
    const answer = await send(port, "x".repeat(5_000));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: "body_too_large" } });
    expect(seen).toEqual([]);
  });

  it("answers 408 for a body that does not arrive in time; the runtime never sees it", async () => {
    const { port, seen } = await setUp((_req, _body, res) => res.end("no"), { bodyTimeoutMs: 300 });
    const answer = await send(port, CALL, {
      slow: true,
      headers: { "content-length": String(CALL.length) },
    });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: { code: "body_timeout", fix: expect.stringContaining("whole body") },
    });
    expect(seen).toEqual([]);
  });

  it("ends an event stream cut off mid-way with the JSON-RPC error for its request", async () => {
    const { port } = await setUp((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
      // The runtime dies under the stream.
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const answer = await send(port, CALL);
    expect(answer.status).toBe(200);
    const events = answer.text.split("\n\n").filter((e) => e.includes("data:"));
    const last = JSON.parse(events.at(-1)!.split("data: ")[1]!);
    expect(last).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32603,
        message: expect.stringMatching(/^the runtime was restarted because .*; retry$/),
      },
    });
  });

  it("passes an event stream's headers on at once, before its first event comes", async () => {
    // The front sends headers together with a first event that is already there (fewer writes):
    // a stream whose first event is late must still have its headers at once, or its client
    // (an SDK awaiting fetch's response) waits for the event.
    let sendEvent = () => {};
    const { port } = await setUp((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      sendEvent = () => res.end('event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n');
    });
    const headersAt = await new Promise<{ status: number; rest: Promise<string> }>((resolve) => {
      const req = request(
        { host: "127.0.0.1", port, method: "POST", path: "/mcp", headers: {} },
        (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          const rest = new Promise<string>((r) => res.on("end", () => r(text)));
          resolve({ status: res.statusCode ?? 0, rest });
        },
      );
      req.end(CALL);
    });
    // The headers are here while the event has not been sent yet.
    expect(headersAt.status).toBe(200);
    sendEvent();
    expect(await headersAt.rest).toContain('"id":7');
  });

  it("answers 503 with the JSON-RPC error when the runtime is cut off before it answered", async () => {
    const { port, front, runtime } = await setUp(() => {
      // never answers: the supervisor replaces the runtime meanwhile
    });
    const pending = send(port, CALL);
    await new Promise((r) => setTimeout(r, 100));
    front.cutOff(runtime, "it stopped answering");
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 7,
      error: { message: "the runtime was restarted because it stopped answering; retry" },
    });
  });
  it("sends a request again on a new connection when the kept-alive one was closed under it", async () => {
    // workerd closes a connection idle for 5 s; a request sent on it at that moment met a reset
    // and its client got "the runtime was restarted because its connection broke" (CI, e2e
    // runaway) with the runtime well. The stand-in closes every connection at its second
    // request, unread, as workerd does at its idle bound.
    const served: string[] = [];
    const runtimePort = await listen(
      createServer((req, res) => {
        const socket = req.socket as typeof req.socket & { requests?: number };
        socket.requests = (socket.requests ?? 0) + 1;
        if (socket.requests > 1) return socket.destroy();
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          served.push(body);
          res.writeHead(200, { "content-type": "application/json" });
          res.end(body);
        });
      }),
    );
    const runtime = { name: "runtime 1", port: runtimePort, killedBecause: undefined } as never;
    const port = await listen(createFront({ target: async () => runtime }).server);
    const first = await send(port, CALL);
    const second = await send(port, CALL.replace('"id":7', '"id":8'));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(JSON.parse(second.text)).toMatchObject({ id: 8 });
    // Each served once: the closed connection never read the second request.
    expect(served.map((b) => JSON.parse(b).id)).toEqual([7, 8]);
  });

  it("does not send a request again when its runtime broke the connection while serving it", async () => {
    // A new connection that breaks before an answer is a runtime that went away mid-request:
    // the request may have done its work, so its client gets the cut-off error, never a resend.
    let requests = 0;
    const { port } = await setUp((req) => {
      requests++;
      req.socket.destroy();
    });
    const answer = await send(port, CALL);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 7,
      error: { message: "the runtime was restarted because its connection broke; retry" },
    });
    expect(requests).toBe(1);
  });

  it("answers 503 with the JSON-RPC error when the runtime dies after its headers, mid-body", async () => {
    // A JSON answer's headers went out, then the runtime was killed before its body's end (e2e
    // heal saw this as a bare "terminated" on the client): the front held the answer, so the
    // client still gets the clear error.
    const { port } = await setUp((_req, _body, res) => {
      res.writeHead(201, { "content-type": "application/json", "content-length": "100" });
      res.write('{"jsonrpc":"2.0","id":7,');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const answer = await send(port, CALL);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 7,
      error: { message: expect.stringMatching(/^the runtime was restarted because .*; retry$/) },
    });
  });

  it("passes a JSON answer on whole, and one past the held size as it streams", async () => {
    const big = "x".repeat(5 * 1_048_576);
    const { port } = await setUp((req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.headers["x-size"] === "big") res.write(JSON.stringify(big.slice(0, 3)));
      res.end(req.headers["x-size"] === "big" ? big : '{"ok":true}');
    });
    expect((await send(port, CALL)).text).toBe('{"ok":true}');
    const large = await send(port, CALL, { headers: { "x-size": "big" } });
    expect(large.status).toBe(200);
    expect(large.text.length).toBe(5 + big.length);
  });

  it("answers every request it refuses itself in the product's one HTTP error shape", async () => {
    // 413, 408, and a non-MCP request cut off by a runtime replacement (an MCP request keeps
    // its JSON-RPC error, above): each body is exactly { error: { code, message, fix } }.
    const shapes: Record<string, string[]> = {};
    const keys = (text: string) => {
      const body = JSON.parse(text) as { error: Record<string, unknown> };
      expect(Object.keys(body)).toEqual(["error"]);
      for (const v of Object.values(body.error)) expect(typeof v).toBe("string");
      return Object.keys(body.error).toSorted();
    };
    const big = await setUp((_req, _body, res) => res.end("no"), { maxBodyBytes: 10 });
    const tooLarge = await send(big.port, "x".repeat(100));
    shapes[`${tooLarge.status}`] = keys(tooLarge.text);
    const slow = await setUp((_req, _body, res) => res.end("no"), { bodyTimeoutMs: 200 });
    const timedOut = await send(slow.port, CALL, {
      slow: true,
      headers: { "content-length": String(CALL.length) },
    });
    shapes[`${timedOut.status}`] = keys(timedOut.text);
    const { port, front, runtime } = await setUp(() => {});
    const pending = send(port, "not json-rpc");
    await new Promise((r) => setTimeout(r, 100));
    front.cutOff(runtime, "it stopped answering");
    const cut = await pending;
    shapes[`${cut.status}`] = keys(cut.text);
    expect(JSON.parse(cut.text).error).toMatchObject({
      code: "runtime_restarted",
      message: "the runtime was restarted because it stopped answering; retry",
      fix: expect.stringContaining("Retry"),
    });
    expect(shapes).toEqual({
      "408": ["code", "fix", "message"],
      "413": ["code", "fix", "message"],
      "503": ["code", "fix", "message"],
    });
  });
});
