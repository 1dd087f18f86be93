/**
 * The upstream MCP server's credential goes only to its own origin
 * (src/codemode/upstream/same-origin-redirects.ts). `fetch` follows every redirect and drops only
 * `Authorization` on one to another origin: a credential in another header
 * (`UPSTREAM_MCP_AUTH_HEADER=X-API-Key`) went on with the request's body to wherever the
 * upstream redirected (so in workerd, which the product's upstream fetch used as it is). Real
 * HTTP servers on two origins (127.0.0.1 and localhost), Node's fetch inside.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_REDIRECTS,
  sameOriginRedirects,
} from "../../../../src/codemode/upstream/same-origin-redirects";

const KEY = "upstream-api-key-0123456789";
const TARGET = { what: "the upstream MCP server", setting: "UPSTREAM_MCP_URL" };
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

type Seen = { method: string; url: string; key: string | undefined; body: string };

/** A server on `host` answering each request with `answer`; what it got is in the array. */
async function server(
  host: "127.0.0.1" | "localhost",
  answer: (req: IncomingMessage) => [number, Record<string, string>],
): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        key: req.headers["x-api-key"] as string | undefined,
        body,
      });
      const [status, headers] = answer(req);
      res.writeHead(status, headers).end(status === 200 ? "ok" : "");
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return { origin: `http://${host}:${(s.address() as AddressInfo).port}`, seen };
}

const post = { method: "POST", headers: { "x-api-key": KEY }, body: '{"jsonrpc":"2.0"}' };

describe("sameOriginRedirects", () => {
  it("refuses a redirect to another origin: nothing, the credential least of all, is sent there", async () => {
    const elsewhere = await server("localhost", () => [200, {}]);
    const upstream = await server("127.0.0.1", () => [
      307,
      { location: `${elsewhere.origin}/collect?x=1` },
    ]);
    const send = sameOriginRedirects(fetch, TARGET);
    const refused = await send(`${upstream.origin}/mcp`, post).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).name).toBe("NetworkError");
    expect((refused as Error).message).toBe(
      `the upstream MCP server redirected the request (307) to another origin, ${elsewhere.origin}; it was not sent there, so its credential stays with UPSTREAM_MCP_URL. Set UPSTREAM_MCP_URL to the address it redirects to if that is right.`,
    );
    expect(upstream.seen).toHaveLength(1);
    expect(elsewhere.seen).toEqual([]);
  });

  it("(what fetch alone does: the key and the body reach the other origin)", async () => {
    const elsewhere = await server("localhost", () => [200, {}]);
    const upstream = await server("127.0.0.1", () => [307, { location: `${elsewhere.origin}/c` }]);
    await fetch(`${upstream.origin}/mcp`, post);
    expect(elsewhere.seen).toEqual([
      { method: "POST", url: "/c", key: KEY, body: '{"jsonrpc":"2.0"}' },
    ]);
  });

  it("follows a redirect within the origin, the method, headers and body kept (307/308)", async () => {
    const upstream = await server("127.0.0.1", (req) =>
      req.url === "/mcp" ? [308, { location: "/mcp/" }] : [200, {}],
    );
    const response = await sameOriginRedirects(fetch, TARGET)(`${upstream.origin}/mcp`, post);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    expect(upstream.seen.map((s) => [s.method, s.url, s.key, s.body])).toEqual([
      ["POST", "/mcp", KEY, '{"jsonrpc":"2.0"}'],
      ["POST", "/mcp/", KEY, '{"jsonrpc":"2.0"}'],
    ]);
  });

  it("follows a 303 with a GET without the body, and stops after MAX_REDIRECTS", async () => {
    const upstream = await server("127.0.0.1", (req) =>
      req.url === "/a" ? [303, { location: "/b" }] : [200, {}],
    );
    const send = sameOriginRedirects(fetch, TARGET);
    expect((await send(`${upstream.origin}/a`, post)).status).toBe(200);
    expect(upstream.seen[1]).toMatchObject({ method: "GET", url: "/b", body: "" });
    const looping = await server("127.0.0.1", () => [302, { location: "/again" }]);
    const last = await send(`${looping.origin}/x`, {});
    expect(last.status).toBe(302);
    expect(looping.seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("leaves a redirect to a caller that asked for it", async () => {
    const elsewhere = await server("localhost", () => [200, {}]);
    const upstream = await server("127.0.0.1", () => [307, { location: `${elsewhere.origin}/` }]);
    const response = await sameOriginRedirects(fetch, TARGET)(`${upstream.origin}/`, {
      ...post,
      redirect: "manual",
    });
    expect(response.status).toBe(307);
    expect(elsewhere.seen).toEqual([]);
  });
});
