// createMcpHandler's legacy lane, protocol errors, and refused configuration.
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { CodeModeError } from "../../../src/errors";
import { createMcpHandler } from "../../../src/index";
import { createLegacyMcpHandler } from "../../../src/mcp/index";
import { captureConsole } from "../../helpers/console-capture";
import { buildServer, LEGACY, legacyRequest, modernRequest, rpcBody, URL_LOCAL } from "./fixtures";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: LEGACY,
    capabilities: { elicitation: {} },
    clientInfo: { name: "raw", version: "1" },
  },
};
const call = (name: string, args: Record<string, unknown> = {}, id = 2) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("legacy lane (stateless, default)", () => {
  const handler = createMcpHandler(buildServer);

  it("answers initialize without a session id", async () => {
    const response = await handler.fetch(legacyRequest(initialize));
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = await rpcBody(response);
    expect(body.result.protocolVersion).toBe(LEGACY);
    expect(body.result.serverInfo.name).toBe("fixture");
  });

  it("answers GET and DELETE with 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await handler.fetch(
        new Request(URL_LOCAL, {
          method,
          headers: { accept: "text/event-stream", "mcp-session-id": "abc" },
        }),
      );
      expect(response.status, method).toBe(405);
      expect((await response.json<any>()).error.message).toBe("Method not allowed.");
    }
  });

  it("serves a tool call on a fresh server per POST", async () => {
    const body = await rpcBody(await handler.fetch(legacyRequest(call("echo", { text: "old" }))));
    expect(body.result.content[0].text).toBe("old");
  });

  it.each(["ask_push", "sample_push", "roots_push"])(
    "fails a server-to-client request at once, pointing to inputRequired (%s)",
    async (tool) => {
      const started = Date.now();
      const body = await rpcBody(await handler.fetch(legacyRequest(call(tool))));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toContain("inputRequired(");
    },
  );

  it("answers an unknown method with -32601", async () => {
    const body = await rpcBody(
      await handler.fetch(legacyRequest({ jsonrpc: "2.0", id: 3, method: "no/such" })),
    );
    expect(body.error.code).toBe(-32601);
  });

  it("answers malformed JSON with -32700", async () => {
    const response = await handler.fetch(legacyRequest("{not json"));
    expect(response.status).toBe(400);
    expect((await response.json<any>()).error.code).toBe(-32700);
  });
});

describe("aborted requests", () => {
  it("a POST whose client is already gone gets 499 and no server is built, on both lanes", async () => {
    let built = 0;
    const handler = createMcpHandler((ctx) => {
      built++;
      return buildServer(ctx);
    });
    for (const request of [legacyRequest(initialize), modernRequest("tools/list")]) {
      const controller = new AbortController();
      controller.abort();
      const response = await handler.fetch(new Request(request, { signal: controller.signal }));
      expect(response.status).toBe(499);
    }
    expect(built).toBe(0);
  });
});

describe('legacy: "reject"', () => {
  const handler = createMcpHandler(buildServer, { legacy: "reject" });

  it("refuses 2025-era requests with the supported revisions", async () => {
    const body = await rpcBody(await handler.fetch(legacyRequest(initialize)));
    expect(body.error.code).toBe(-32022);
    expect(JSON.stringify(body.error.data)).toContain("2026-07-28");
  });

  it("still serves 2026-07-28 requests", async () => {
    const body = await rpcBody(
      await handler.fetch(
        modernRequest("tools/call", { name: "echo", arguments: { text: "new" } }),
      ),
    );
    expect(body.result.content[0].text).toBe("new");
  });

  it("answers malformed JSON with -32700", async () => {
    const response = await handler.fetch(legacyRequest("{not json"));
    expect((await response.json<any>()).error.code).toBe(-32700);
  });
});

describe("the sessionful lane (createLegacyMcpHandler)", () => {
  it("refuses a body past the shape limits before parsing it, as the stateless one does", async () => {
    // Before: WorkerTransport parsed every POST body whole, however deep (issue #40).
    const handler = createLegacyMcpHandler(new V1McpServer({ name: "s", version: "1.0.0" }));
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const response = await handler.fetch(legacyRequest(`{"jsonrpc":"2.0","id":3,"a":${deep}}`));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32600 } });
  });
});

describe("protocol errors", () => {
  it("answers an oversized body with 413 before building a server", async () => {
    let built = 0;
    const handler = createMcpHandler(
      () => {
        built++;
        return buildServer();
      },
      { maxRequestBodySize: 1024 },
    );
    const big = "x".repeat(4096);
    for (const request of [
      legacyRequest(call("echo", { text: big })),
      modernRequest("tools/call", { name: "echo", arguments: { text: big } }),
    ]) {
      const response = await handler.fetch(request);
      expect(response.status).toBe(413);
    }
    expect(built).toBe(0);
  });

  it("answers an unknown modern method with -32601", async () => {
    const handler = createMcpHandler(buildServer);
    const body = await rpcBody(await handler.fetch(modernRequest("no/such")));
    expect(body.error.code).toBe(-32601);
  });

  it("reports factory failures to onerror and answers 500, even when onerror throws", async () => {
    const seen: string[] = [];
    const handler = createMcpHandler(
      () => {
        throw new Error("factory broke");
      },
      {
        onerror: (error) => {
          seen.push(error.message);
          throw new Error("reporter broke");
        },
      },
    );
    const response = await handler.fetch(modernRequest("tools/list"));
    expect(response.status).toBe(500);
    expect((await response.json<any>()).error.code).toBe(-32603);
    expect(seen).toContain("factory broke");
  });

  it("names an unreachable upstream of the factory as a JSON-RPC error, not a 500, on both lanes", async () => {
    const message =
      "Could not connect to the upstream MCP server at http://127.0.0.1:9: connection refused to 127.0.0.1:9; nothing was sent.";
    const handler = createMcpHandler(() => {
      throw new CodeModeError("upstream_unreachable", message);
    });
    for (const request of [
      modernRequest("tools/list", {}, { id: 5 }),
      legacyRequest({ ...call("code", {}, 5) }),
    ]) {
      const response = await handler.fetch(request);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32603, message, data: { code: "upstream_unreachable" } },
      });
    }
    // Any other failure keeps the SDK's 500 and says nothing of what broke.
    const other = createMcpHandler(() => {
      throw new CodeModeError("upstream_headers_failed", "headers of caller x broke");
    });
    const response = await other.fetch(modernRequest("tools/list"));
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("caller x");
  });

  it('responseMode "json" answers with one JSON body where "auto" would stream', async () => {
    const warnings = captureConsole("warn");
    const progressCall = () =>
      modernRequest("tools/call", { name: "progress", _meta: { progressToken: "p1" } });
    const auto = await createMcpHandler(buildServer).fetch(progressCall());
    expect(auto.headers.get("content-type")).toContain("text/event-stream");
    expect(await auto.text()).toContain("notifications/progress");
    const json = await createMcpHandler(buildServer, { responseMode: "json" }).fetch(
      progressCall(),
    );
    expect(json.headers.get("content-type")).toContain("application/json");
    expect((await json.json<any>()).result.content[0].text).toBe("done");
    // The SDK says once what "json" gives up.
    expect(warnings()).toContain("responseMode: 'json' drops mid-call notifications.");
  });
});

describe("refused configuration", () => {
  it.each([
    ["transport", /createLegacyMcpHandler|McpAgent/],
    ["storage", /Durable Object/],
    ["sessionIdGenerator", /no session ids/],
    ["eventStore", /DurableObjectEventStore/],
    ["enableJsonResponse", /responseMode: "json"/],
    ["onsessioninitialized", /no sessions/],
    ["onsessionclosed", /no sessions/],
    ["enableDnsRebindingProtection", /always on/],
    ["allowedHosts", /allowedHostnames/],
    ["allowedOrigins", /allowedOriginHostnames/],
    ["retryInterval", /retryIntervalMs/],
  ])("refuses the SDK v1 option %s with its fix", (option, fix) => {
    let thrown: unknown;
    try {
      createMcpHandler(buildServer, {
        [option]: option === "sessionIdGenerator" ? () => "id" : true,
      } as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CodeModeError);
    expect((thrown as CodeModeError).code).toBe("unsupported_option");
    expect((thrown as Error).message).toContain(`\`${option}\``);
    expect((thrown as Error).message).toMatch(fix);
  });

  it("refuses a server instance where a factory belongs", () => {
    const server = new McpServer({ name: "shared", version: "1" });
    expect(() => createMcpHandler(server as never)).toThrow(/factory/);
  });

  it("refuses a bad legacy value and a relative route", () => {
    expect(() => createMcpHandler(buildServer, { legacy: "sessions" as never })).toThrow(/legacy/);
    expect(() => createMcpHandler(buildServer, { route: "mcp" })).toThrow(/route/);
  });
});
