/**
 * openApiMcpServer over GitHub's REST API spec (`@octokit/openapi` 23.0.2's
 * api.github.com.json, fetched by `npm run fixtures` into test/.fixtures/, never committed): 13 MB of JSON, 1,223 operations, long descriptions and
 * many shared components. One search (the index and one operation's request body, refs
 * resolved), one execute that reaches a mock upstream, and one request the spec refuses.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import githubText from "../../../.fixtures/api.github.com.json?raw";
import type { ApiRequest, ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const seen: ApiRequest[] = [];
  const upstream: ApiRequestHandler = (request) => {
    seen.push(request);
    return { status: 201, body: { number: 7, title: (request.body as { title?: string }).title } };
  };
  const handler = createMcpHandler(
    openApiMcpServer({
      spec: githubText as string,
      executor: new Executor({ loader: env.LOADER, limits: { timeoutMs: 30_000 } }),
      request: upstream,
    }),
  );

  async function call(tool: "search" | "execute", code: string) {
    const client = await connect(handler);
    try {
      return await client.callTool({ name: tool, arguments: { code } });
    } finally {
      await client.close();
    }
  }

  describe("the GitHub spec", () => {
    it("searches the index and an operation's request body", async () => {
      const result = await call(
        "search",
        `async () => {
        const s = await codemode.spec();
        let ops = 0, create;
        for (const item of Object.values(s.paths)) for (const op of Object.values(item)) {
          ops++;
          if (op.operationId === "issues/create") create = op;
        }
        const schema = create.requestBody.content["application/json"].schema;
        return { ops, paths: Object.keys(s.paths).length, required: schema.required, title: schema.properties.title.oneOf.map((x) => x.type), params: create.parameters.map((p) => p.name + ":" + p.in), created: Object.keys(create.responses).includes("201") };
      }`,
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({
        ops: 1223,
        paths: 811,
        required: ["title"],
        title: ["string", "integer"],
        params: ["owner:path", "repo:path"],
        created: true,
      });
    });

    it("executes a checked request against the upstream and refuses one the spec forbids", async () => {
      const result = await call(
        "execute",
        `async () => codemode.request({ method: "POST", path: "/repos/octo/hello/issues", body: { title: "Found a bug", labels: ["bug"] } })`,
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({ number: 7, title: "Found a bug" });
      expect(seen.at(-1)).toMatchObject({ method: "POST", path: "/repos/octo/hello/issues" });

      const before = seen.length;
      const refused = await call(
        "execute",
        `async () => codemode.request({ method: "POST", path: "/repos/octo/hello/issues", body: { labels: ["bug"] } })`,
      );
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/title/);
      expect(seen.length).toBe(before);
    });
  });
});
