// A Worker that serves only the openApiMcpServer (see wrangler.openapi-only.jsonc).
import { apiHandler } from "./openapi-server";

export default {
  fetch: (request, env, ctx) => apiHandler(request, env, ctx),
} satisfies ExportedHandler<Cloudflare.Env>;
