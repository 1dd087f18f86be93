// Programs and callbacks written from @cloudflare/codemode's docs run as written: `codemode.spec()`
// is also there in `execute`; `rawBody: true` means "send `body` as it is" (their flag); a host
// callback may return the parsed body (`return await res.json()`), which counts as a 200 answer.
import petstore from "@readme/oas-examples/3.0/json/petstore.json";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer, type ApiRequest, type ApiRequestHandler } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  async function execute(code: string, handler: ApiRequestHandler) {
    const client = await connect(
      createMcpHandler(
        openApiMcpServer({ spec: structuredClone(petstore), executor, request: handler }),
      ),
    );
    const result = await client.callTool({ name: "execute", arguments: { code } });
    await client.close();
    return result;
  }

  describe("@cloudflare/codemode programs and callbacks", () => {
    it("codemode.spec() works in execute too", async () => {
      const result = await execute(
        `async () => Object.keys((await codemode.spec()).paths).length`,
        () => ({ status: 200, body: null }),
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toBe(String(Object.keys(petstore.paths).length));
    });

    it("rawBody: true sends body as it is, not the text 'true'", async () => {
      const seen: ApiRequest[] = [];
      const result = await execute(
        `async () => codemode.request({ method: "POST", path: "/pet", body: '{"name":"rex","photoUrls":[]}', contentType: "application/json", rawBody: true })`,
        (request) => {
          seen.push(request);
          return { status: 200, body: { id: 1 } };
        },
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(seen[0]?.rawBody).toBe('{"name":"rex","photoUrls":[]}');
      expect(seen[0]?.body).toBeUndefined();
    });

    it("a callback that returns the parsed body (their docs' `return await res.json()`) is a 200 answer", async () => {
      const parsedBody = { id: 7, name: "rex", status: "available", tags: [] };
      const result = await execute(
        `async () => (await codemode.request({ method: "GET", path: "/pet/7" })).name`,
        // Typed as their callbacks are: whatever the API's JSON was.
        (async () => parsedBody) as unknown as ApiRequestHandler,
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toBe("rex");
    });
  });
});
