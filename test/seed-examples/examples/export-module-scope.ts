// Seed example: "Keep one handler for notifications" (the handler created once at module scope).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#keep-one-handler-for-notifications
// Verbatim; only import paths changed. Imports are scaffolding (the snippet has none); the
// handler is also exported so the test can call `handler.notify`.
import { createMcpHandler } from "code-mode-mcp/mcp/server"; // scaffolding import
import { createServer } from "../support/hello-server"; // scaffolding import

const handler = createMcpHandler(createServer);

export default {
  fetch(request, env, ctx) {
    return handler(request, env, ctx);
  },
} satisfies ExportedHandler;

export { handler }; // scaffolding
