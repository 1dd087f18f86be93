/**
 * When the front sends a request to its runtime a second time (cli/local-server/front/
 * resend-rule.mjs): only when doing so cannot do the request's work twice. A kept-alive
 * connection that workerd closed just as a request was written on it refused the write (not one
 * byte reached the runtime): that request goes again on a new connection, whatever its method
 * (CI's e2e runaway answered a trivial `search` "its connection broke" before this). A connection
 * that closes after the runtime read the request may have done its work: a `tools/call` then gets
 * the cut-off error, never a second run; a GET is sent again. The runtime stand-ins are plain
 * Node servers on Unix sockets; their "work" is counted as they read each request whole.
 */
import { createServer, request, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createFront } from "../../../../cli/local-server/front/front.mjs";
import { mayResend } from "../../../../cli/local-server/front/resend-rule.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listen, listenRuntime } = testServers();

const CALL = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "execute" } });

/**
 * A runtime stand-in that serves each request it reads whole (its "work", counted in `served`)
 * unless `serve` says otherwise, and a front before it. `beforeTaking` runs as the front takes a
 * connection for a request (its `target`), before anything is written.
 */
async function setUp(
  serve: (req: IncomingMessage, requests: number) => "answer" | "close" = () => "answer",
  beforeTaking: (sockets: Set<Socket>) => void = () => {},
) {
  const served: string[] = [];
  const sockets = new Set<Socket>();
  const runtimeServer = createServer((req, res) => {
    const socket = req.socket as Socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      served.push(`${req.method} ${body}`);
      if (serve(req, socket.requests ?? 0) === "close") return socket.destroy();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body || "{}");
    });
  });
  runtimeServer.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const path = await listenRuntime(runtimeServer);
  const runtime = { name: "runtime 1", socket: path, killedBecause: undefined } as never;
  const front = createFront({
    target: async () => {
      beforeTaking(sockets);
      return runtime;
    },
  });
  return { port: await listen(front.server), served };
}

/** Sends one request to the front; resolves with its status and body. */
function send(
  port: number,
  method: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: "/mcp",
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("when the front sends a request again", () => {
  it("decides from what reached the runtime: a refused write always, a read request only if safe", () => {
    const reset = { code: "ECONNRESET" };
    const pipe = { code: "EPIPE" };
    // Found closed as it was written: not one byte reached the runtime.
    for (const method of ["POST", "GET", "DELETE", "PATCH"])
      expect(mayResend({ method, reused: true, unsent: true, error: pipe })).toBe(true);
    // Written, then closed before any answer: the runtime may have read it.
    for (const error of [undefined, reset, pipe]) {
      for (const method of ["GET", "HEAD", "OPTIONS"])
        expect(mayResend({ method, reused: true, unsent: false, error })).toBe(true);
      for (const method of ["POST", "PUT", "DELETE", "PATCH"])
        expect(mayResend({ method, reused: true, unsent: false, error })).toBe(false);
    }
    // Another error, or a new connection (a runtime going away): never.
    expect(
      mayResend({ method: "GET", reused: true, unsent: false, error: { code: "ETIMEDOUT" } }),
    ).toBe(false);
    expect(mayResend({ method: "GET", reused: false, unsent: true, error: pipe })).toBe(false);
    expect(mayResend({ method: "GET", reused: false, unsent: false, error: undefined })).toBe(
      false,
    );
  });

  it("sends a POST again on a new connection when its kept-alive one was found closed as it was written", async () => {
    // workerd closes a connection idle for 5 s; here the stand-in closes its side just before
    // the front writes on the connection it took (the front has not yet heard of the close).
    let closeIdle = false;
    const { port, served } = await setUp(undefined, (sockets) => {
      if (!closeIdle) return;
      for (const socket of sockets) socket.destroy();
    });
    expect((await send(port, "POST", CALL(1))).status).toBe(200);
    closeIdle = true;
    const second = await send(port, "POST", CALL(2));
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text)).toMatchObject({ id: 2 });
    // Each done once: the closed connection took no byte of the second.
    expect(served).toEqual([`POST ${CALL(1)}`, `POST ${CALL(2)}`]);
  });

  it("never sends a tools/call twice when the runtime read it and closed without an answer", async () => {
    // Hostile: a kept-alive connection that the runtime closes after reading the request (here
    // at its second request) may have done its work; sending it again ran the call twice.
    const { port, served } = await setUp((_req, requests) => (requests > 1 ? "close" : "answer"));
    expect((await send(port, "POST", CALL(1))).status).toBe(200);
    const second = await send(port, "POST", CALL(2));
    expect(second.status).toBe(503);
    expect(JSON.parse(second.text)).toMatchObject({
      id: 2,
      error: { message: "the runtime was restarted because its connection broke; retry" },
    });
    expect(served).toEqual([`POST ${CALL(1)}`, `POST ${CALL(2)}`]);
  });

  it("sends a GET again in that case: it asks for nothing to be done", async () => {
    const { port, served } = await setUp((_req, requests) => (requests > 1 ? "close" : "answer"));
    expect((await send(port, "GET")).status).toBe(200);
    expect((await send(port, "GET")).status).toBe(200);
    expect(served).toEqual(["GET ", "GET ", "GET "]);
  });

  it("does not send a request again when its runtime broke a new connection while serving it", async () => {
    // A new connection that breaks before an answer is a runtime that went away mid-request.
    const { port, served } = await setUp(() => "close");
    const answer = await send(port, "GET");
    expect(answer.status).toBe(503);
    expect(served).toEqual(["GET "]);
  });
});
