/**
 * `/mcp/code` over an upstream MCP URL where nothing listens (issue #32): the client gets a named
 * error (the host, the reason, the setting to check) as a JSON-RPC error, not an HTTP 500
 * "Internal server error"; the same holds for `tools/call`, and the upstream's fetch failure is
 * named as the API's is (src/codemode/request/network-error.ts).
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../../helpers/clients/mcp-client";
import { configured } from "../helpers";

// Port 9 (discard) on the loopback: nothing listens there, so the connection is refused.
const worker = configured({ UPSTREAM_MCP_URL: "http://127.0.0.1:9/mcp" });
const post = (body: unknown) =>
  worker("http://localhost/mcp/code", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify(body),
  });

describe("an unreachable upstream MCP server", () => {
  it("is a named JSON-RPC error for tools/list and tools/call, never a 500", async () => {
    for (const [id, method, params] of [
      [1, "tools/list", {}],
      [2, "tools/call", { name: "code", arguments: { code: "async () => 1" } }],
    ] as const) {
      const response = await post({ jsonrpc: "2.0", id, method, params });
      expect(response.status, method).toBe(200);
      const body = (await response.json()) as {
        id: number;
        error: { code: number; message: string; data: { code: string } };
      };
      expect(body.id).toBe(id);
      expect(body.error.data.code).toBe("upstream_unreachable");
      expect(body.error.message).toContain("127.0.0.1:9");
      expect(body.error.message).toContain("connection refused");
      expect(body.error.message).toContain("nothing was sent");
      expect(body.error.message).toContain("UPSTREAM_MCP_URL");
    }
  });

  it("reaches a real MCP client as that message", async () => {
    const error = await connect(worker, "/mcp/code").then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(
      /upstream MCP server at http:\/\/127\.0\.0\.1:9: .*connection refused to 127\.0\.0\.1:9 .*Check that the upstream MCP server is running and UPSTREAM_MCP_URL is right\./,
    );
    expect(error?.message).not.toContain("Internal server error");
  });
});
