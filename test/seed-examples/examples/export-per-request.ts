// Seed example: "Invoke the handler" (a handler per request, from the Worker's object export).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#invoke-the-handler
// Verbatim; only import paths changed. Imports are scaffolding (the snippet has none).
import { createMcpHandler } from "code-mode-mcp/mcp/server"; // scaffolding import
import { createServer } from "../support/hello-server"; // scaffolding import

export default {
  fetch(request, env, ctx) {
    return createMcpHandler(createServer)(request, env, ctx);
  },
} satisfies ExportedHandler;
