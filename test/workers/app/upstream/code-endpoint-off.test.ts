/**
 * `/mcp/code` serves the demo upstream only with the demo spec (issue #32): with a spec of one's
 * own and no `UPSTREAM_MCP_URL` it is off, answers `404 code_endpoint_off` with the fix, and the
 * status page and `/api/status` say so and how to turn it on; `/mcp` serves the spec as before.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../../../src/openapi/compile-spec";
import { connect } from "../../../helpers/clients/mcp-client";
import { configured } from "../helpers";

const OWN = JSON.stringify(
  compileSpec({
    openapi: "3.0.3",
    info: { title: "Own", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths: {
      "/things": {
        get: { operationId: "listThings", responses: { "200": { description: "ok" } } },
      },
    },
  }),
);

describe("/mcp/code with a spec of one's own", () => {
  it("is off without UPSTREAM_MCP_URL, and says how to turn it on", async () => {
    const worker = configured({ SPEC: "own" }, { own: OWN });
    const response = await worker("http://localhost/mcp/code", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as { error: { code: string; fix: string } };
    expect(error.code).toBe("code_endpoint_off");
    expect(error.fix).toContain("UPSTREAM_MCP_URL");
    expect(error.fix).toContain("--upstream");

    const status = (await (await worker("http://localhost/api/status")).json()) as {
      upstream: { kind: string };
      endpoints: { route: string }[];
    };
    expect(status.upstream.kind).toBe("off");
    expect(status.endpoints.map((e) => e.route)).toEqual(["/mcp"]);
    const page = await (await worker("http://localhost/")).text();
    expect(page).toContain("Off: no upstream MCP server is configured");
    expect(page).toContain("UPSTREAM_MCP_URL=https://mcp.example.com/mcp");

    const client = await connect(worker, "/mcp");
    expect((await client.listTools()).tools.map((t) => t.name).toSorted()).toEqual([
      "execute",
      "search",
    ]);
    await client.close();
  });

  it("the demo spec keeps the demo upstream", async () => {
    const status = (await (await configured({})("http://localhost/api/status")).json()) as {
      upstream: { kind: string };
      endpoints: { route: string }[];
    };
    expect(status.upstream.kind).toBe("demo");
    expect(status.endpoints.map((e) => e.route)).toEqual(["/mcp", "/mcp/code"]);
  });
});
