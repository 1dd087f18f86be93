/**
 * The deployable Worker entry: wiring only. Product routes land here as the layers arrive.
 */

/** Bindings this Worker expects (declared in src/env.d.ts, configured in wrangler.jsonc). */
export type Env = Cloudflare.Env;

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/health") {
      return Response.json({ ok: true, name: "code-mode-mcp" });
    }
    return new Response("Not found. Try /health.\n", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
