// Seed example: "MCP server with authentication" (OAuthProvider `apiRoute` + `apiHandler:
// createMcpHandler(createServer)`).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/protocol/transport/
// (cloudflare-docs src/content/docs/agents/model-context-protocol/protocol/transport.mdx).
// Verbatim; only import paths changed. The snippet elides the provider's other settings
// ("// ... other OAuth configuration"): they are filled in, marked "scaffolding", as are the
// imports. See oauth-api-handler.test.ts: the pinned provider refuses a callable handler.
import { OAuthProvider } from "@cloudflare/workers-oauth-provider"; // scaffolding import
import { createMcpHandler } from "code-mode-mcp/mcp/server"; // scaffolding import
import { AuthHandler } from "../support/auth-handler"; // scaffolding import
import { createServer } from "../support/hello-server"; // scaffolding import

/** Builds the seed's provider (a function, so the test can observe the constructor's answer). */
export function build() {
  return new OAuthProvider({
    apiRoute: "/mcp",
    apiHandler: createMcpHandler(createServer),
    // ... other OAuth configuration
    authorizeEndpoint: "/authorize", // scaffolding
    tokenEndpoint: "/token", // scaffolding
    clientRegistrationEndpoint: "/register", // scaffolding
    defaultHandler: AuthHandler, // scaffolding
    resourceMetadata: { resource: "http://localhost", resource_name: "hello" }, // scaffolding
  });
}
