// Runs examples.test.ts in workerd over the docs' examples, with the secrets and the spec text
// the examples read from `env` (test values: nothing here reaches a real API). The codeMcpServer
// examples name https://mcp.example.com/mcp: the Worker's outbound requests to that host reach a
// real MCP server (SDK v2) running here in Node, which checks the example's bearer token.
import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { greetUpstream } from "../example-support/greet-upstream";

const spec = readFileSync(new URL("./openapi.json", import.meta.url), "utf8");
const UPSTREAM_TOKEN = "docs-example-upstream-token";

const upstream = greetUpstream("example-upstream");

/** The Worker's outbound requests: mcp.example.com is the upstream above; anything else is refused. */
async function outbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname !== "mcp.example.com")
    return new Response(`no network in this test: ${url.hostname}`, { status: 502 });
  // The README's example sends it as x-api-key, docs/library.md's as a bearer token.
  const sent =
    request.headers.get("x-api-key") ??
    request.headers.get("authorization")?.replace(/^Bearer /, "");
  if (sent !== UPSTREAM_TOKEN) return new Response("unauthorized", { status: 401 });
  return upstream(request);
}

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./examples/wrangler.jsonc" },
      miniflare: {
        bindings: {
          SPEC: spec,
          API_TOKEN: "docs-example-api-token",
          UPSTREAM_TOKEN,
          STATE_KEY: "docs-example-request-state-key-0123456789",
        },
        outboundService: outbound,
      },
    }),
  ],
  test: { include: ["examples/**/*.test.ts"], testTimeout: 30_000 },
});
