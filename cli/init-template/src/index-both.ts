// The Worker: the OpenAPI tools at /mcp, the code tool at /mcp/code.
import { apiHandler } from "./api";
import { codeHandler } from "./code";

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp") return apiHandler(request, env, ctx);
    if (pathname === "/mcp/code") return codeHandler(request, env, ctx);
    return new Response("MCP endpoints: /mcp (search, execute) and /mcp/code (code)\n", {
      status: pathname === "/" ? 200 : 404,
    });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
