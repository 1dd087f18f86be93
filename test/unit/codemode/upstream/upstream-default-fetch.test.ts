/**
 * A library user's remote upstream without a `fetch` of its own (`codeMcpServer({ upstream: {
 * url, headers } })`): its headers go only to its own origin (the default fetch in
 * src/codemode/upstream/upstream-connection.ts). Before, the default was the bare `fetch`, which
 * follows every redirect and drops only `Authorization` on one to another origin: the user's
 * `X-API-Key` went on, with the `initialize` body, to wherever the upstream redirected. Real HTTP
 * servers on two origins (127.0.0.1 and localhost), the real MCP client and Node's fetch inside.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openUpstream } from "../../../../src/codemode/upstream/upstream-connection";
import { CodeModeError } from "../../../../src/errors";

const KEY = "library-users-upstream-key-0123456789";
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server under `host`'s name; `keys` holds the `X-API-Key` of every request it got. */
async function server(
  host: "127.0.0.1" | "localhost",
  answer: (url: string) => [number, Record<string, string>],
): Promise<{ origin: string; keys: (string | undefined)[] }> {
  const keys: (string | undefined)[] = [];
  const s = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      keys.push(req.headers["x-api-key"] as string | undefined);
      const [status, headers] = answer(req.url ?? "/");
      res.writeHead(status, headers).end();
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return { origin: `http://${host}:${(s.address() as AddressInfo).port}`, keys };
}

describe("a remote upstream's default fetch", () => {
  it("sends its headers to no other origin the upstream redirects to", async () => {
    const elsewhere = await server("localhost", () => [404, {}]);
    const upstream = await server("127.0.0.1", (url) => [
      307,
      { location: `${elsewhere.origin}${url}` },
    ]);
    const opened = openUpstream({ url: `${upstream.origin}/mcp` }, () => {}, {
      headers: { "x-api-key": KEY },
    });
    const error = await opened.then(
      (session) => (void session.close(), undefined),
      (e: unknown) => e,
    );
    // Before: [KEY, …] (the key went with every request the redirect carried there).
    expect(elsewhere.keys).toEqual([]);
    expect(error).toBeInstanceOf(CodeModeError);
    expect((error as CodeModeError).code).toBe("upstream_unreachable");
    expect((error as Error).message).toContain("to another origin");
    expect((error as Error).message).not.toContain(KEY);
    expect(upstream.keys.length).toBeGreaterThan(0);
    expect(new Set(upstream.keys)).toEqual(new Set([KEY]));
  });
});
