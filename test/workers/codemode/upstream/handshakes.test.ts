/**
 * A `code` run against a remote upstream pays for its calls, not for handshakes (issue #16): the
 * negotiated era (the 2026-07-28 `server/discover` result, or a 2025-era session id) is reused
 * across runs of an isolate, so a warm run sends exactly its `tools/call` requests; a run opens
 * no stream it does not need; a session the upstream forgot is re-established once, and the
 * call is retried only when the upstream never saw it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createLegacyMcpHandler, createMcpHandler } from "../../../../src/index";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { v1Upstream, v2Upstream } from "../fixtures";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

  /** Every HTTP request the upstream received: `POST tools/call`, `GET`, `DELETE`, … */
  type Log = string[];

  /** A fetch to `handle` that records each request's HTTP method and JSON-RPC method. */
  function recording(handle: (request: Request) => Promise<Response>, log: Log) {
    return async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      let what = request.method;
      if (request.method === "POST") {
        const body = (await request.clone().json()) as { method?: string } | { method?: string }[];
        const methods = (Array.isArray(body) ? body : [body]).map((m) => m.method ?? "response");
        what = `POST ${methods.join(",")}`;
      }
      log.push(what);
      return handle(request);
    };
  }

  const ONE_CALL = "async () => (await codemode.list_projects({})).projects.length";

  async function runTwice(fetch: ReturnType<typeof recording>, log: Log) {
    const client = await connect(
      createMcpHandler(
        codeMcpServer({ upstream: { url: "http://upstream.local/mcp", fetch }, executor }),
      ),
    );
    await client.listTools();
    const cold = log.length;
    const first = await client.callTool({ name: "code", arguments: { code: ONE_CALL } });
    expect(first.isError).toBeFalsy();
    const warmStart = log.length;
    const second = await client.callTool({ name: "code", arguments: { code: ONE_CALL } });
    expect(text(second)).toBe(text(first));
    await client.close();
    return {
      listing: log.slice(0, cold),
      first: log.slice(cold, warmStart),
      warm: log.slice(warmStart),
    };
  }

  describe("remote upstream handshakes", () => {
    it("a 2026-07-28 upstream: one discover per isolate, then only the calls", async () => {
      const log: Log = [];
      const handler = createMcpHandler(v2Upstream);
      const { listing, first, warm } = await runTwice(
        recording((r) => handler.fetch(r), log),
        log,
      );
      expect(listing.filter((m) => m === "POST server/discover")).toHaveLength(1);
      expect(first).toEqual(["POST tools/call"]);
      expect(warm).toEqual(["POST tools/call"]);
    });

    it("a 2025-era upstream with sessions: the session is reused, no initialize per run", async () => {
      const log: Log = [];
      const handler = createLegacyMcpHandler(v1Upstream());
      const { first, warm } = await runTwice(
        recording((r) => handler.fetch(r), log),
        log,
      );
      expect(first.filter((m) => m.includes("initialize"))).toEqual([]);
      expect(warm).toEqual(["POST tools/call"]);
    });

    it("a session the upstream forgot is re-established once and the call sent again", async () => {
      const log: Log = [];
      // The upstream restarts between the listing and the run: it answers the old id with 404 (as
      // the spec says for an ended session), and a new instance serves the new session.
      let handler = createLegacyMcpHandler(v1Upstream());
      let ended: string | null | undefined;
      const fetch = recording(async (r) => {
        const id = r.headers.get("mcp-session-id");
        if (!ended || id !== ended) return handler.fetch(r);
        ended = null;
        handler = createLegacyMcpHandler(v1Upstream());
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
          { status: 404 },
        );
      }, log);
      let lastSession: string | null = null;
      const seen = recording(async (r) => {
        lastSession = r.headers.get("mcp-session-id") ?? lastSession;
        return fetch(r);
      }, []);
      const client = await connect(
        createMcpHandler(
          codeMcpServer({ upstream: { url: "http://upstream.local/mcp", fetch: seen }, executor }),
        ),
      );
      await client.listTools();
      ended = lastSession;
      const start = log.length;
      const result = await client.callTool({ name: "code", arguments: { code: ONE_CALL } });
      expect(result.isError, `${text(result)} ${JSON.stringify(log.slice(start))}`).toBeFalsy();
      expect(Number(text(result))).toBeGreaterThan(0);
      const run = log.slice(start);
      expect(run[0]).toBe("POST tools/call");
      expect(run.filter((m) => m === "POST initialize")).toHaveLength(1);
      expect(run.at(-1)).toBe("POST tools/call");
      await client.close();
    });

    it("a strict upstream refusing requests before notifications/initialized: listed again, then calls", async () => {
      // Like servers that gate requests on the notification: the first listing overtakes it (the
      // notification is held back here) and is refused; the listing is repeated once it landed,
      // and no call goes out before the notification was answered.
      const log: Log = [];
      const handler = createLegacyMcpHandler(v1Upstream());
      const ready = new Set<string>();
      const fetch = recording(async (r) => {
        const id = r.headers.get("mcp-session-id") ?? "";
        const body = r.method === "POST" ? ((await r.clone().json()) as { method?: string }) : {};
        if (body.method === "notifications/initialized") {
          await new Promise((resolve) => setTimeout(resolve, 30));
          ready.add(id);
        } else if (id && body.method !== undefined && !ready.has(id))
          return Response.json({
            jsonrpc: "2.0",
            error: {
              code: -32602,
              message: "Received request before initialization was complete",
            },
            id: (body as { id?: number }).id ?? null,
          });
        return handler.fetch(r);
      }, log);
      const client = await connect(
        createMcpHandler(
          codeMcpServer({
            upstream: { url: "http://upstream.local/mcp", fetch },
            executor,
          }),
        ),
      );
      const result = await client.callTool({
        name: "code",
        arguments: { code: ONE_CALL },
      });
      expect(result.isError, `${text(result)} ${JSON.stringify(log)}`).toBeFalsy();
      expect(Number(text(result))).toBeGreaterThan(0);
      expect(log.slice(log.indexOf("POST notifications/initialized"))).toEqual([
        "POST notifications/initialized",
        "POST tools/list",
        "POST tools/list",
        "POST tools/call",
      ]);
      await client.close();
    });

    it("a 2025-era upstream without sessions: its era is remembered, later listings skip the probe", async () => {
      const log: Log = [];
      // A stateless SDK v1 server (no session ids): nothing negotiated is reusable but the era.
      const fetch = recording(async (request) => {
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await v1Upstream().connect(transport);
        return transport.handleRequest(request);
      }, log);
      const client = await connect(
        createMcpHandler(
          codeMcpServer({
            upstream: { url: "http://upstream.local/mcp", fetch },
            executor,
            toolsTtlMs: 0,
          }),
        ),
      );
      expect(log).toContain("POST server/discover");
      await new Promise((resolve) => setTimeout(resolve, 5));
      const start = log.length;
      // The cached list is stale (TTL 0): this request lists again, as a known 2025-era server.
      const result = await client.callTool({ name: "code", arguments: { code: ONE_CALL } });
      expect(result.isError, text(result)).toBeFalsy();
      const later = log.slice(start);
      expect(later).not.toContain("POST server/discover");
      expect(later.filter((m) => m === "POST initialize").length).toBeGreaterThan(0);
      expect(later.filter((m) => m === "POST tools/list")).toHaveLength(1);
      await client.close();
    });
  });
});
