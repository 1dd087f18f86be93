// The Worker: the OpenAPI tools at /mcp, for callers that send the key (src/caller-check.ts). (To
// add a code tool over an MCP server at /mcp/code, run `npx code-mode-mcp init --upstream <url>`
// in an empty folder and copy its src/code.ts.)
import { apiHandler } from "./api";
import { refuseCaller } from "./caller-check";

export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp")
      return (await refuseCaller(request, env)) ?? apiHandler(request, env, ctx);
    return new Response("MCP endpoint: /mcp (search, execute)\n", {
      status: pathname === "/" ? 200 : 404,
    });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
