/**
 * The front's hop to a runtime (issue #43): the request head it writes by hand
 * (cli/local-server/front/exchange.mjs `requestHead`) and its kept-alive connections
 * (cli/local-server/front/runtime-connections.mjs), over a real Unix socket: reused while fresh,
 * never past the idle bound, never after the runtime was ended, and never with a head that could
 * carry a second request.
 */
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { CLUSTER_SECRET_HEADER } from "../../../../cli/local-server/cluster-secret.mjs";
import { requestHead } from "../../../../cli/local-server/front/request-head.mjs";
import { SUPERVISOR_SECRET_HEADER } from "../../../../cli/local-server/runners/host-forget-request.mjs";
import {
  IDLE_MS,
  runtimeConnections,
  type RuntimeConnection,
} from "../../../../cli/local-server/front/runtime-connections.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listenRuntime } = testServers();

/** A client's request as Node's server hands it over (its `Connection` lines joined, as Node does). */
function clientRequest(method: string, url: string, rawHeaders: string[]) {
  const connection = rawHeaders.filter(
    (_, i) => i % 2 === 1 && /^connection$/i.test(rawHeaders[i - 1]!),
  );
  const headers = connection.length > 0 ? { connection: connection.join(", ") } : {};
  return {
    method,
    url,
    rawHeaders,
    headers,
    socket: { remoteAddress: "::ffff:127.0.0.1" },
  } as never;
}

describe("the head the front writes for a runtime", () => {
  it("keeps the client's headers as sent, sets the body's length, the address and the secret", () => {
    const head = requestHead(
      clientRequest("POST", "/mcp?x=1", [
        "Host",
        "localhost:8787",
        "X-Case",
        "Kept",
        "content-length",
        "999",
        "Transfer-Encoding",
        "chunked",
        "CF-Connecting-IP",
        "6.6.6.6",
        CLUSTER_SECRET_HEADER,
        "forged",
        SUPERVISOR_SECRET_HEADER,
        "forged-too",
      ]),
      12,
    );
    expect(head).toMatch(
      new RegExp(
        `^POST /mcp\\?x=1 HTTP/1\\.1\\r\\nHost: localhost:8787\\r\\nX-Case: Kept\\r\\nContent-Length: 12\\r\\nCF-Connecting-IP: 127\\.0\\.0\\.1\\r\\n${CLUSTER_SECRET_HEADER}: [^\\r\\n]+\\r\\n\\r\\n$`,
      ),
    );
    expect(head).not.toContain("forged");
    expect(head).not.toContain("6.6.6.6");
  });

  it("drops hop-by-hop headers and every name a client lists in Connection (RFC 9110 §7.6.1)", () => {
    // They speak of the client's connection to the front, not of the front's kept-alive one to
    // the runtime: `Connection: close` closed the pooled connection, `Upgrade: h2c` asked workerd
    // to switch protocols on it, and a listed secret header asked any hop that honours the list
    // to drop the front's own secret.
    const head = requestHead(
      clientRequest("POST", "/mcp", [
        "Host",
        "localhost:8787",
        "Connection",
        "close, X-Local-Cluster-Secret, X-Drop-Me",
        "connection",
        " x-drop-too , Host",
        "Keep-Alive",
        "timeout=5",
        "TE",
        "trailers",
        "Trailer",
        "X-Later",
        "Upgrade",
        "h2c",
        "Proxy-Connection",
        "keep-alive",
        "Proxy-Authorization",
        "Basic c2VjcmV0",
        "Expect",
        "100-continue",
        "X-Drop-Me",
        "1",
        "X-Drop-Too",
        "2",
        "X-Kept",
        "3",
      ]),
      2,
    )!;
    const names = head
      .split("\r\n")
      .slice(1, -2)
      .map((line) => line.slice(0, line.indexOf(":")).toLowerCase());
    expect(names).toEqual([
      "host",
      "x-kept",
      "content-length",
      "cf-connecting-ip",
      CLUSTER_SECRET_HEADER,
    ]);
    // The front's own secret goes as ever, after everything the client sent.
    expect(head).toMatch(new RegExp(`\\r\\n${CLUSTER_SECRET_HEADER}: [A-Za-z0-9_-]+\\r\\n\\r\\n$`));
  });

  it("sends no length for a bodiless GET, and 0 for a bodiless POST", () => {
    expect(requestHead(clientRequest("GET", "/health", []), 0)).not.toMatch(/content-length/i);
    expect(requestHead(clientRequest("POST", "/mcp", []), 0)).toContain("Content-Length: 0\r\n");
  });

  it("refuses a head whose parts could end a line: no second request rides on it", () => {
    const smuggled = "x\r\nContent-Length: 0\r\n\r\nPOST /mcp HTTP/1.1";
    expect(requestHead(clientRequest("POST", "/mcp", ["X-A", smuggled]), 0)).toBeUndefined();
    expect(requestHead(clientRequest("POST", "/mcp", ["X-A", "a\nb"]), 0)).toBeUndefined();
    expect(requestHead(clientRequest("POST", "/mcp", ["X-A", "a\0b"]), 0)).toBeUndefined();
    expect(requestHead(clientRequest("POST", "/mcp", ["X\r\nB", "1"]), 0)).toBeUndefined();
    expect(requestHead(clientRequest("POST", "/m cp", []), 0)).toBeUndefined();
    expect(requestHead(clientRequest("PO ST", "/mcp", []), 0)).toBeUndefined();
    // A tab and bytes past ASCII are values Node passes: so does the front.
    expect(requestHead(clientRequest("POST", "/mcp", ["X-A", "a\tb\u00e9"]), 0)).toContain(
      "X-A: a\tb\u00e9\r\n",
    );
  });
});

/** A runtime stand-in on a Unix socket that counts the connections it accepted. */
async function runtime() {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  server.on("connection", (socket: Socket) => {
    accepted++;
    sockets.add(socket);
  });
  const path = await listenRuntime(server);
  return { path, accepted: () => accepted, sockets };
}

/** Sends a GET on `connection` and resolves once its whole answer was read. */
function get(connection: RuntimeConnection): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    connection.send(
      {
        data: (bytes) => {
          text += bytes.toString();
          if (text.endsWith("ok")) resolve(text);
        },
        closed: (error) => reject(error ?? new Error("closed")),
      },
      "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
      Buffer.alloc(0),
    );
  });
}

describe("the front's kept-alive connections to a runtime", () => {
  it("reuses the most recently used idle connection, and opens one when none is idle", async () => {
    const { path, accepted } = await runtime();
    const pool = runtimeConnections(path);
    const a = pool.take();
    const b = pool.take();
    await Promise.all([get(a), get(b)]);
    expect(accepted()).toBe(2);
    pool.giveBack(a, true);
    pool.giveBack(b, true);
    const again = pool.take();
    expect(again).toBe(b);
    expect(again.reused).toBe(true);
    await get(again);
    expect(accepted()).toBe(2);
    expect(pool.take(true)).not.toBe(a); // `fresh`: a new one whatever is idle
  });

  it("does not use a connection idle for the bound or more: workerd may be closing it", async () => {
    const { path } = await runtime();
    let now = 1_000;
    const pool = runtimeConnections(path, { now: () => now });
    const a = pool.take();
    await get(a);
    pool.giveBack(a, true);
    now += IDLE_MS - 1;
    const same = pool.take();
    expect(same).toBe(a);
    pool.giveBack(same, true);
    now += IDLE_MS;
    const fresh = pool.take();
    expect(fresh).not.toBe(a);
    expect(fresh.reused).toBe(false);
    expect(a.destroyed).toBe(true);
  });

  it("drops a connection the runtime closed while it was idle, and one not reusable", async () => {
    const { path, sockets } = await runtime();
    const pool = runtimeConnections(path);
    const a = pool.take();
    await get(a);
    pool.giveBack(a, true);
    expect(pool.idleCount()).toBe(1);
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.idleCount()).toBe(0);
    const b = pool.take();
    await get(b);
    pool.giveBack(b, false);
    expect(b.destroyed).toBe(true);
    expect(pool.idleCount()).toBe(0);
  });

  it("closes every idle connection when its runtime is ended, and keeps none after", async () => {
    const { path } = await runtime();
    const pool = runtimeConnections(path);
    const a = pool.take();
    const b = pool.take();
    await Promise.all([get(a), get(b)]);
    pool.giveBack(a, true);
    pool.destroy();
    expect(a.destroyed).toBe(true);
    pool.giveBack(b, true);
    expect(b.destroyed).toBe(true);
    expect(pool.idleCount()).toBe(0);
  });
});
