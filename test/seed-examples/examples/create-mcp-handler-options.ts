// Seed example: "createMcpHandler options" (every Worker option with its comment).
// Source: cloudflare/agents docs/agents/mcp-servers.md, "createMcpHandler options".
// Verbatim; only import paths changed. The snippet is a bare call: `export const handler =`
// before it, and the imports of `createMcpHandler` and `createServer`, are scaffolding.
import { createMcpHandler } from "code-mode-mcp/mcp/server"; // scaffolding import
import { createServer } from "../support/hello-server"; // scaffolding import

export const handler = // scaffolding
  createMcpHandler(() => createServer(), {
    route: "/mcp", // exact path to handle (default: "/mcp")
    corsOptions: {
      origin: "https://app.example.com",
    },
    allowedHostnames: ["mcp.example.com"], // custom-domain Host policy
    allowedOriginHostnames: ["app.example.com"], // browser Origin policy
    authContext: { props: {} }, // optional application props override
    legacy: "stateless", // upstream default; use "reject" for Stateless-only
    responseMode: "auto", // upstream SDK response shaping
  });
