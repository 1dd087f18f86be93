/**
 * The benchmark Worker (bench/wrangler.jsonc): both code-mode implementations side by side in
 * one workerd, on the same spec, mock upstream and tool fixtures.
 *
 * Routes: `/ours/openapi`, `/ours/code/<n>`, `/anchor/openapi`, `/anchor/code/<n>` (n = 5, 50,
 * 500), `/ours/openapi-github` and `/anchor/openapi-github` (the GitHub spec), `/floor` (the RPC
 * floor of one request, see worker/rpc-floor.ts), `/health`, and the remote-upstream routes of
 * worker/remote-upstream.ts.
 */
import { anchorFetch } from "./worker/anchor-servers";
import { ourHandler } from "./worker/our-servers";
import { remoteUpstreamFetch } from "./worker/remote-upstream";
import { rpcFloor } from "./worker/rpc-floor";

export default {
  async fetch(request, env, ctx): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/health") return Response.json({ ok: true });
    if (path === "/floor") return rpcFloor(request, env);
    const remote = await remoteUpstreamFetch(request, env, ctx);
    if (remote) return remote;
    const ours = ourHandler(path, env);
    if (ours) return ours(request, env, ctx);
    return (await anchorFetch(request, env)) ?? new Response("Not found\n", { status: 404 });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
