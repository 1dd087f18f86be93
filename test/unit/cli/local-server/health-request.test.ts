/**
 * The supervisor's small requests to a runtime's own socket (cli/local-server/health-request.mjs):
 * over one kept-alive connection, null when no answer comes within the bound (asked once: the
 * bound is the whole wait), and answered again when the runtime behind the socket was replaced.
 * The "runtime" is a plain Node HTTP server on a Unix socket, as the runtimes serve.
 */
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { MAX_POOLS, healthRequest } from "../../../../cli/local-server/health-request.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";
import { socketPath } from "../../../helpers/cli/unix-socket.js";

const { listenRuntime } = testServers();

/** A stand-in runtime; `seen` counts its requests and connections. */
async function runtime(answer: boolean, path?: string) {
  const seen = { requests: 0, connections: 0 };
  // As workerd answers `/health`: a known length, no body for HEAD.
  const server = createServer((req, res) => {
    seen.requests++;
    if (answer)
      res
        .writeHead(200, { "x-runs-begun": "7", "content-length": "2" })
        .end(req.method === "HEAD" ? undefined : "ok");
  });
  server.on("connection", () => seen.connections++);
  return { server, seen, socket: await listenRuntime(server, path) };
}

const HEAD = { method: "HEAD", path: "/health", timeoutMs: 2_000 } as const;

describe("healthRequest", () => {
  it("answers status and headers, over one kept-alive connection", async () => {
    const { socket, seen } = await runtime(true);
    for (let i = 0; i < 3; i++)
      expect(await healthRequest(socket, HEAD)).toMatchObject({
        status: 200,
        headers: { "x-runs-begun": "7" },
      });
    expect(seen).toEqual({ requests: 3, connections: 1 });
  });

  it("keeps one connection for a runner's HEAD answer, which has no length", async () => {
    // A runner's workerd answers `HEAD /health` without a Content-Length: node:http's client
    // kept no such connection, so every probe (twice a second per runner) opened a new one.
    let connections = 0;
    let requests = 0;
    const server = createNetServer((socket) => {
      connections++;
      let text = "";
      socket.on("data", (bytes) => {
        text += String(bytes);
        for (let end = text.indexOf("\r\n\r\n"); end >= 0; end = text.indexOf("\r\n\r\n")) {
          text = text.slice(end + 4);
          requests++;
          socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-runs-begun: 7\r\n\r\n");
        }
      });
    });
    const socket = socketPath();
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      for (let i = 0; i < 3; i++)
        expect(await healthRequest(socket, HEAD)).toMatchObject({
          status: 200,
          headers: { "content-type": "text/plain", "x-runs-begun": "7" },
        });
      expect({ requests, connections }).toEqual({ requests: 3, connections: 1 });
    } finally {
      server.close();
    }
  });

  it("gives null when no answer comes within the bound, and asks only once", async () => {
    // The bound's timer on a fake clock (the socket stays real): null exactly when 300 ms have
    // passed, not before and not at some later fallback, with no time measured.
    const { server, socket, seen } = await runtime(false);
    const arrived = new Promise((r) => server.once("request", r));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let answer: unknown = "pending";
      void healthRequest(socket, { ...HEAD, timeoutMs: 300 }).then((a) => (answer = a));
      await arrived;
      await vi.advanceTimersByTimeAsync(299);
      expect(answer, "before the bound").toBe("pending");
      await vi.advanceTimersByTimeAsync(1);
      expect(answer, "at the bound").toBeNull();
    } finally {
      vi.useRealTimers();
    }
    expect(seen.requests).toBe(1);
  });

  it("reaches a runtime that replaced the one behind the socket, on a fresh connection", async () => {
    const first = await runtime(true);
    expect(await healthRequest(first.socket, HEAD)).toMatchObject({ status: 200 });
    first.server.closeAllConnections();
    await new Promise((r) => first.server.close(r));
    const second = await runtime(true, first.socket);
    expect(await healthRequest(first.socket, HEAD)).toMatchObject({ status: 200 });
    expect(second.seen.requests).toBe(1);
  });

  it("lets go of the connections to runtimes not asked for the longest, past its bound", async () => {
    // Every runtime has sockets of its own name: the pools of long-gone runtimes must not pile up.
    const kept = await runtime(true);
    const seen = { closed: false };
    kept.server.on("connection", (socket) => socket.once("close", () => (seen.closed = true)));
    expect(await healthRequest(kept.socket, HEAD)).toMatchObject({ status: 200 });
    // Others asked since (nothing listens there: each a quick null).
    for (let i = 0; i < MAX_POOLS - 1; i++)
      expect(await healthRequest(socketPath(), HEAD)).toBeNull();
    expect(seen.closed).toBe(false);
    expect(await healthRequest(socketPath(), HEAD)).toBeNull();
    for (let i = 0; i < 100 && !seen.closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.closed).toBe(true);
  });

  it("gives null when nothing listens on the socket", async () => {
    const { server, socket } = await runtime(true);
    await new Promise((r) => server.close(r));
    expect(await healthRequest(socket, HEAD)).toBeNull();
  });
});
