/**
 * The supervisor's small requests to a runtime's own socket (cli/local-server/health-request.mjs):
 * over one kept-alive connection, null when no answer comes within the bound (asked once: the
 * bound is the whole wait), and answered again when the runtime behind the socket was replaced.
 * The "runtime" is a plain Node HTTP server on a Unix socket, as the runtimes serve.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { healthRequest } from "../../../cli/local-server/health-request.mjs";
import { listenUnix } from "../../helpers/unix-socket.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

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
  servers.push(server);
  return { server, seen, socket: await listenUnix(server, path) };
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

  it("gives null when no answer comes within the bound, and asks only once", async () => {
    const { socket, seen } = await runtime(false);
    const started = Date.now();
    expect(await healthRequest(socket, { ...HEAD, timeoutMs: 300 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(1_500);
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

  it("gives null when nothing listens on the socket", async () => {
    const { server, socket } = await runtime(true);
    await new Promise((r) => server.close(r));
    expect(await healthRequest(socket, HEAD)).toBeNull();
  });
});
