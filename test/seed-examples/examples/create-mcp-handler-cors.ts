// Seed example: "Origin validation and CORS" (a custom domain's Host and a concrete CORS origin).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/handler-api/#origin-validation-and-cors
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/handler-api.mdx).
// Verbatim; only import paths changed. `createServer` is the page's hello factory (scaffolding
// imports). The page exports the handler itself; the same page later says to wrap it in an
// object export (see export-per-request.ts), and a function default export still runs here
// because the test calls it directly.
import { createMcpHandler } from "code-mode-mcp/mcp/server"; // scaffolding import
import { createServer } from "../support/hello-server"; // scaffolding import

export default createMcpHandler(createServer, {
  allowedHostnames: ["mcp.example.com"],
  corsOptions: {
    origin: "https://app.example.com",
  },
});
