// Runs readme-examples.test.ts in workerd over the library's four examples as pasted, with the
// secrets they read from `env` (test values). Their upstreams are stand-ins in the test's Node
// process: the Worker's outbound requests to api.example.com reach a small tasks API (example 1's
// request callback) and those to mcp.example.com a real MCP server, SDK v2 (example 2's
// upstream); each checks the credential the example sends, and any other host is refused.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { greetUpstream } from "../example-support/greet-upstream";

const API_TOKEN = "readme-example-api-token";
const UPSTREAM_TOKEN = "readme-example-upstream-token";

const upstream = greetUpstream("readme-upstream");

/** api.example.com: GET /tasks answers two tasks to the example's bearer token. */
function api(request: Request): Response {
  if (request.headers.get("authorization") !== `Bearer ${API_TOKEN}`)
    return new Response("unauthorized", { status: 401 });
  const url = new URL(request.url);
  if (request.method !== "GET" || url.pathname !== "/tasks")
    return new Response(`no ${request.method} ${url.pathname} here`, { status: 404 });
  const tasks = [
    { id: "t1", title: "write the docs", status: url.searchParams.get("status") ?? "open" },
    { id: "t2", title: "test the docs", status: url.searchParams.get("status") ?? "open" },
  ];
  return Response.json(tasks);
}

/** mcp.example.com: the MCP server above, for the example's x-api-key only. */
async function mcp(request: Request): Promise<Response> {
  if (request.headers.get("x-api-key") !== UPSTREAM_TOKEN)
    return new Response("unauthorized", { status: 401 });
  return upstream(request);
}

/** The Worker's outbound requests: the two stand-ins; anything else is refused. */
async function outbound(request: Request): Promise<Response> {
  const host = new URL(request.url).hostname;
  if (host === "api.example.com") return api(request);
  if (host === "mcp.example.com") return mcp(request);
  return new Response(`no network in this test: ${host}`, { status: 502 });
}

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./readme-examples/wrangler.jsonc" },
      miniflare: { bindings: { API_TOKEN, UPSTREAM_TOKEN }, outboundService: outbound },
    }),
  ],
  test: { include: ["readme-examples/**/*.test.ts"], testTimeout: 60_000 },
});
