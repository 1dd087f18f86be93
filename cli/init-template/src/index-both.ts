// The Worker: the OpenAPI tools at /mcp, the code tool at /mcp/code, both for callers that send
// the key (src/caller-check.ts).
import { apiHandler } from "./api";
import { refuseCaller } from "./caller-check";
import { codeHandler } from "./code";

export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp")
      return (await refuseCaller(request, env)) ?? apiHandler(request, env, ctx);
    if (pathname === "/mcp/code")
      return (await refuseCaller(request, env)) ?? codeHandler(request, env, ctx);
    return new Response("MCP endpoints: /mcp (search, execute) and /mcp/code (code)\n", {
      status: pathname === "/" ? 200 : 404,
    });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
