/**
 * Seed example examples/codemode-search.ts: the model's `search` program, verbatim, against the
 * real Cloudflare API document in openApiMcpServer. Only the ruleset paths and their methods come
 * back; the document stays in the sandbox.
 */
import { env } from "cloudflare:workers";
import { openApiMcpServer, WorkerLoaderExecutor } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { describe, expect, it } from "vitest";
import { program } from "./examples/codemode-search";
import { connectV1, connectV2, text, viaWorker } from "./support/clients";
import { CLOUDFLARE_SPEC, cloudflareApi } from "./support/cloudflare-api";

const handler = createMcpHandler(
  openApiMcpServer({
    spec: CLOUDFLARE_SPEC,
    executor: new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } }),
    request: cloudflareApi,
  }),
);

type Found = { path: string; methods: string[] }[];

function expectRulesetPaths(found: Found) {
  expect(found.length).toBeGreaterThan(5);
  expect(found.every(({ path }) => path.includes("/rulesets"))).toBe(true);
  expect(found).toContainEqual({
    path: "/zones/{zone_id}/rulesets",
    methods: expect.arrayContaining(["get", "post"]),
  });
}

describe("seed: the search program", () => {
  it("returns only the ruleset operations to an SDK v2 client", async () => {
    const client = await connectV2("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "search", arguments: { code: program } });
    expect(result.isError, text(result)).toBeFalsy();
    expectRulesetPaths(JSON.parse(text(result)) as Found);
    await client.close();
  });

  it("returns only the ruleset operations to an SDK v1 client", async () => {
    const { client } = await connectV1("http://localhost/mcp", viaWorker(handler));
    const result = await client.callTool({ name: "search", arguments: { code: program } });
    expect(result.isError, text(result)).toBeFalsy();
    expectRulesetPaths(JSON.parse(text(result)) as Found);
    await client.close();
  });
});
