/**
 * A remote upstream's reusable state is kept per authorization context (issue #16): with
 * `headers` computed per outer caller, two callers with different credentials never share a
 * 2025-era upstream session or a tool list, each caller's warm runs still skip the handshake,
 * `reuseSession: false` makes every run handshake, and computed header values are redacted.
 */
import { env } from "cloudflare:workers";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import type { CodeUpstream } from "../../../../src/codemode/upstream/upstream-connection";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler, type StatelessMcpHandler } from "../../../../src/index";
import { recordedLegacyUpstream, type Seen, type UpstreamFetch } from "./recorder";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({
    loader: env.LOADER,
    limits: { timeoutMs: 10_000 },
  });

  const ONE_CALL = "async () => (await codemode.list_projects({})).projects.length";
  const TOKEN_A = "token-of-caller-a-1234";
  const TOKEN_B = "token-of-caller-b-5678";

  /** An outer client that identifies itself with `x-caller-token` (forwarded by `headers`). */
  async function connectAs(handler: StatelessMcpHandler, token: string): Promise<Client> {
    const client = new Client(
      { name: "test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    const fetch = (url: string | URL | Request, init?: RequestInit) => {
      const request = new Request(url, init);
      request.headers.set("x-caller-token", token);
      return handler.fetch(request);
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch,
      }),
    );
    return client;
  }

  function forwardingUpstream(
    fetch: UpstreamFetch,
    extra: Partial<Extract<CodeUpstream, { url: unknown }>> = {},
  ): CodeUpstream {
    return {
      url: "http://upstream.local/mcp",
      fetch,
      headers: ({ request }) => ({
        authorization: `Bearer ${request?.headers.get("x-caller-token") ?? "missing"}`,
      }),
      ...extra,
    };
  }

  async function run(client: Client, code = ONE_CALL) {
    const result = await client.callTool({ name: "code", arguments: { code } });
    expect(result.isError, text(result)).toBeFalsy();
    return text(result);
  }

  describe("remote upstream sessions per caller", () => {
    it("two callers with different credentials never share an upstream session or tool list", async () => {
      const seen: Seen[] = [];
      const handler = createMcpHandler(
        codeMcpServer({
          upstream: forwardingUpstream(recordedLegacyUpstream(seen)),
          executor,
        }),
      );
      const a = await connectAs(handler, TOKEN_A);
      const b = await connectAs(handler, TOKEN_B);
      await run(a);
      await run(b);
      const warm = seen.length;
      await run(a);
      await run(b);

      const sessionsOf = (token: string) =>
        new Set(
          seen.filter((s) => s.auth === `Bearer ${token}` && s.session).map((s) => s.session),
        );
      const [ofA, ofB] = [sessionsOf(TOKEN_A), sessionsOf(TOKEN_B)];
      expect(ofA.size).toBe(1);
      expect(ofB.size).toBe(1);
      expect([...ofA].some((id) => ofB.has(id))).toBe(false);
      // Each credential listed the tools itself (in its own session), and handshook exactly once.
      for (const token of [TOKEN_A, TOKEN_B]) {
        const mine = seen.filter((s) => s.auth === `Bearer ${token}`);
        expect(mine.filter((s) => s.what === "POST initialize")).toHaveLength(1);
        expect(mine.filter((s) => s.what === "POST tools/list" && s.session)).toHaveLength(1);
      }
      expect(seen.every((s) => s.auth !== "Bearer missing")).toBe(true);
      // The era is a property of the upstream: the second credential skips the discover probe.
      expect(seen.filter((s) => s.what === "POST server/discover")).toHaveLength(1);
      // Warm: each caller's run sends only its call, in its own session.
      expect(seen.slice(warm).map((s) => s.what)).toEqual(["POST tools/call", "POST tools/call"]);
      expect(seen.slice(warm).map((s) => s.auth)).toEqual([
        `Bearer ${TOKEN_A}`,
        `Bearer ${TOKEN_B}`,
      ]);
      await Promise.all([a.close(), b.close()]);
    });

    it("the same credential from two clients reuses one session", async () => {
      const seen: Seen[] = [];
      const handler = createMcpHandler(
        codeMcpServer({
          upstream: forwardingUpstream(recordedLegacyUpstream(seen)),
          executor,
        }),
      );
      const first = await connectAs(handler, TOKEN_A);
      await run(first);
      const start = seen.length;
      const second = await connectAs(handler, TOKEN_A);
      await run(second);
      expect(seen.slice(start).map((s) => s.what)).toEqual(["POST tools/call"]);
      expect(new Set(seen.map((s) => s.session).filter(Boolean)).size).toBe(1);
      await Promise.all([first.close(), second.close()]);
    });

    it("reuseSession: false makes every run open its own upstream session", async () => {
      const seen: Seen[] = [];
      const handler = createMcpHandler(
        codeMcpServer({
          upstream: forwardingUpstream(recordedLegacyUpstream(seen), {
            reuseSession: false,
          }),
          executor,
        }),
      );
      const client = await connectAs(handler, TOKEN_A);
      const runs: Seen[][] = [];
      for (let i = 0; i < 2; i++) {
        const start = seen.length;
        await run(client);
        runs.push(seen.slice(start));
      }
      for (const requests of runs) {
        expect(requests.map((s) => s.what)).toContain("POST initialize");
        expect(requests.at(-1)!.what).toBe("POST tools/call");
      }
      const callSessions = runs.map((r) => r.at(-1)!.session);
      expect(callSessions[0]).not.toBe(callSessions[1]);
      await client.close();
    });

    it("the caller's computed credential is redacted from what the upstream echoes", async () => {
      const echo = () => {
        const server = new McpServer({ name: "echo", version: "1.0.0" });
        server.registerTool("whoami", { description: "Echoes the credential." }, async () => ({
          content: [{ type: "text", text: "ECHO_AUTH" }],
        }));
        return server;
      };
      const upstream = createMcpHandler(echo);
      // The stand-in upstream echoes the authorization header it received into its answers.
      const fetch = async (input: string | URL | Request, init?: RequestInit) => {
        const request = new Request(input, init);
        const response = await upstream.fetch(request);
        const body = (await response.text()).replaceAll(
          "ECHO_AUTH",
          request.headers.get("authorization") ?? "",
        );
        return new Response(body, {
          status: response.status,
          headers: response.headers,
        });
      };
      const handler = createMcpHandler(
        codeMcpServer({ upstream: forwardingUpstream(fetch), executor }),
      );
      const client = await connectAs(handler, TOKEN_B);
      const out = await run(client, "async () => await codemode.whoami({})");
      expect(out).not.toContain(TOKEN_B);
      expect(out).toContain("[REDACTED]");
      await client.close();
    });

    it("a failing headers function is a clear error and the server keeps serving", async () => {
      const seen: Seen[] = [];
      const handler = createMcpHandler(
        codeMcpServer({
          upstream: {
            url: "http://upstream.local/mcp",
            fetch: recordedLegacyUpstream(seen),
            headers: ({ request }) => {
              const token = request?.headers.get("x-caller-token");
              if (token !== TOKEN_A) throw new Error("this caller has no upstream credential");
              return { authorization: `Bearer ${token}` };
            },
          },
          executor,
        }),
      );
      const refused = await connectAs(handler, "someone-else-000");
      const listed = await refused.listTools();
      expect(listed.tools[0]!.description).toMatch(/^Unavailable for this caller/);
      const result = await refused.callTool({
        name: "code",
        arguments: { code: ONE_CALL },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /`headers` function failed: this caller has no upstream credential\. Return the headers/,
      );
      expect(seen).toEqual([]);
      const client = await connectAs(handler, TOKEN_A);
      expect(await run(client)).toMatch(/^\d+$/);
      await Promise.all([client.close(), refused.close()]);
    });
  });
});
