/**
 * A `--stdio` server's port answers only its bridge (cli/local-server/front/bridge-only.mjs),
 * over real sockets: the front refuses every request without this launch's secret, on every
 * route, from its headers (a body that never arrives does not delay the refusal), and the
 * secret never reaches the runtime. Before, with `FORWARD_CALLER_TOKEN=on` (no key beside it), a
 * stranger's keyless `tools/call` on the port ran with the user's `API_TOKEN`. The "runtime"
 * behind the front is a plain Node HTTP server standing in for workerd.
 */
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { BRIDGE_HEADER, newBridgeSecret } from "../../../../cli/local-server/front/bridge-only.mjs";
import { createFront } from "../../../../cli/local-server/front/front.mjs";
import { testServers } from "../../../helpers/cli/test-servers.js";

const { listen, listenRuntime } = testServers();

/** A runtime stand-in that records the heads it gets, and a front for `secret` before it. */
async function setUp(secret: string) {
  const seen: IncomingHttpHeaders[] = [];
  const runtime = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on("end", () => res.end("ran"));
  });
  const socket = await listenRuntime(runtime);
  const target = { name: "runtime 1", socket, killedBecause: undefined } as never;
  const front = createFront({ target: async () => target, bridgeSecret: secret });
  return { port: await listen(front.server), seen };
}

/**
 * Sends a request; with `bodyNeverEnds` only the headers and one byte of the declared body go
 * out, so an answer proves the front did not wait for the body.
 */
function send(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: [string, string][];
    bodyNeverEnds?: boolean;
  },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} });
    const method = options.method ?? "POST";
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: options.path ?? "/mcp",
        headers: [
          ["host", "localhost"],
          ["content-type", "application/json"],
          ...(method === "POST" ? [["content-length", String(body.length)]] : []),
          ...(options.headers ?? []),
        ].flat(),
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    if (method !== "POST") req.end();
    else if (options.bodyNeverEnds) req.write(body.slice(0, 1));
    else req.end(body);
  });
}

describe("a --stdio server's front", () => {
  const secret = newBridgeSecret();

  it("refuses a request without the secret before its body, on every route", async () => {
    const { port, seen } = await setUp(secret);
    const strangers = [
      send(port, { bodyNeverEnds: true }),
      send(port, { headers: [[BRIDGE_HEADER, `${secret}x`]], bodyNeverEnds: true }),
      send(port, { headers: [[BRIDGE_HEADER, secret.slice(0, 20)]] }),
      // The secret and a second value: one header only, as the bridge sends it.
      send(port, {
        headers: [
          [BRIDGE_HEADER, secret],
          [BRIDGE_HEADER, "other"],
        ],
      }),
      send(port, { headers: [["authorization", `Bearer ${secret}`]] }),
      send(port, { method: "GET", path: "/" }),
      send(port, { method: "GET", path: "/health" }),
    ];
    for (const answer of await Promise.all(strangers)) {
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text).error.code).toBe("forbidden");
      expect(answer.text).not.toContain(secret.slice(0, 20));
    }
    expect(seen).toEqual([]);
  });

  it("passes the bridge's requests on without the secret", async () => {
    const { port, seen } = await setUp(secret);
    const answer = await send(port, { headers: [["X-Code-Mode-Stdio-Bridge", secret]] });
    expect(answer).toEqual({ status: 200, text: "ran" });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[BRIDGE_HEADER]).toBeUndefined();
    expect(JSON.stringify(seen[0])).not.toContain(secret);
  });

  it("closes a stranger's upgrade without passing it on", async () => {
    const { port, seen } = await setUp(secret);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () =>
        socket.write(
          "GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
        ),
      );
      let text = "";
      socket.on("data", (c) => (text += c));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(seen).toEqual([]);
  });
});
