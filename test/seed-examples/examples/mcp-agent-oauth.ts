// Seed example: "With OAuth authentication" (`apiHandlers: { "/mcp": MyMCP.serve("/mcp") }`).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#with-oauth-authentication
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed. The snippet names `MyMCP` (the page's serve() example)
// and `AuthHandler` (your /authorize UI) without defining them: the two imports marked
// "scaffolding" bring them in.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { MyMCP } from "./mcp-agent-square"; // scaffolding: the page's MyMCP
import { AuthHandler } from "../support/auth-handler"; // scaffolding: the app's /authorize

export default new OAuthProvider({
  apiHandlers: { "/mcp": MyMCP.serve("/mcp") },
  authorizeEndpoint: "/authorize",
  tokenEndpoint: "/token",
  clientRegistrationEndpoint: "/register",
  defaultHandler: AuthHandler,
  // Not in the seed: @cloudflare/workers-oauth-provider 1.2.x (the version this package pins)
  // refuses to start without the protected-resource metadata; the seed predates that.
  resourceMetadata: { resource: "http://localhost", resource_name: "MCP" }, // scaffolding
});
