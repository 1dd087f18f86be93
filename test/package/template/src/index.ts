// One Worker serving each kind of server on its own path.
import { AddAgent } from "./add-agent";
import { apiHandler } from "./openapi-server";
import { codeHandler } from "./code-server";
import { helloHandler } from "./hello-server";

export { AddAgent };

const agent = AddAgent.serve("/agent", { binding: "ADD_AGENT" });

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/agent") return agent.fetch(request, env, ctx);
    if (pathname === "/hello") return helloHandler(request, env, ctx);
    if (pathname === "/code") return codeHandler(request, env, ctx);
    if (pathname === "/api") return apiHandler(request, env, ctx);
    return new Response("Not found\n", { status: 404 });
  },
} satisfies ExportedHandler<Cloudflare.Env>;
