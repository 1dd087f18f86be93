// Seed example: "Data jurisdiction", "With OAuth".
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#data-jurisdiction
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed. The snippet elides the rest of the provider's settings
// ("// ... other OAuth config"): they are filled in from the page's OAuth example, marked
// "scaffolding", as are the imports of `MyMCP` and `AuthHandler`.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { MyMCP } from "./mcp-agent-square"; // scaffolding: the page's MyMCP
import { AuthHandler } from "../support/auth-handler"; // scaffolding: the app's /authorize

export default new OAuthProvider({
  apiHandlers: {
    "/mcp": MyMCP.serve("/mcp", { jurisdiction: "eu" }),
  },
  // ... other OAuth config
  authorizeEndpoint: "/authorize", // scaffolding
  tokenEndpoint: "/token", // scaffolding
  clientRegistrationEndpoint: "/register", // scaffolding
  defaultHandler: AuthHandler, // scaffolding
  // Not in the seed: @cloudflare/workers-oauth-provider 1.2.x (the version this package pins)
  // refuses to start without the protected-resource metadata; the seed predates that.
  resourceMetadata: { resource: "http://localhost", resource_name: "MCP" }, // scaffolding
});
