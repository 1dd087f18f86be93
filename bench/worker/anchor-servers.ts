/**
 * Side B, the anchor: `@cloudflare/codemode`'s `openApiMcpServer` and `codeMcpServer` with its
 * `DynamicWorkerExecutor`, served statelessly over the SDK v1 Web-standard Streamable HTTP
 * transport: a fresh server and transport per POST, no session ids (its servers are SDK v1
 * `McpServer`s, which connect to one transport at a time).
 */
import { DynamicWorkerExecutor } from "@cloudflare/codemode";
import { codeMcpServer, openApiMcpServer } from "@cloudflare/codemode/mcp";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { installAnchorAjvShim } from "./anchor-ajv-shim";
import specText from "./cloudflare-spec.js";
import githubText from "./github-spec.js";
import { mockApi } from "./mock-api";
import { RUN_TIMEOUT_MS } from "./our-servers";
import { v1ToolServer } from "./tool-fixtures";

installAnchorAjvShim();

let spec: Record<string, unknown> | undefined;
let github: Record<string, unknown> | undefined;

function executor(env: Cloudflare.Env): DynamicWorkerExecutor {
  return new DynamicWorkerExecutor({ loader: env.LOADER, timeout: RUN_TIMEOUT_MS });
}

async function anchorServer(path: string, env: Cloudflare.Env): Promise<McpServer | undefined> {
  if (path === "/anchor/openapi") {
    spec ??= JSON.parse(specText) as Record<string, unknown>;
    return openApiMcpServer({
      spec,
      executor: executor(env),
      request: async (options) => {
        const reply = mockApi(options);
        return reply.body;
      },
    });
  }
  if (path === "/anchor/openapi-github") {
    github ??= JSON.parse(githubText) as Record<string, unknown>;
    return openApiMcpServer({
      spec: github,
      executor: executor(env),
      request: async (options) => ({ path: options.path }),
    });
  }
  const n = /^\/anchor\/code\/(\d+)$/.exec(path)?.[1];
  if (n === undefined) return undefined;
  // Its codeMcpServer connects to the upstream in memory and lists its tools when built.
  return codeMcpServer({ server: v1ToolServer(Number(n)), executor: executor(env) });
}

/**
 * Serves one request to `/anchor/openapi` or `/anchor/code/<n>`, or undefined for another path.
 * @param request - the HTTP request
 * @param env - bindings (the LOADER)
 */
export async function anchorFetch(
  request: Request,
  env: Cloudflare.Env,
): Promise<Response | undefined> {
  const path = new URL(request.url).pathname;
  if (!path.startsWith("/anchor/")) return undefined;
  if (request.method !== "POST") return new Response("Method not allowed", { status: 405 });
  const server = await anchorServer(path, env);
  if (!server) return undefined;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close().catch(() => {});
  }
}
