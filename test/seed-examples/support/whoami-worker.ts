/**
 * The whoami seed served as the docs deploy it: createMcpHandler behind OAuthProvider
 * (`apiHandlers: { "/mcp": … }`), with the app's `/authorize` (support/auth-handler.ts).
 */
import { OAuthProvider } from "@cloudflare/workers-oauth-provider";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import { createServer } from "../examples/whoami";
import { AuthHandler } from "./auth-handler";

const handler = createMcpHandler(createServer);

/** The OAuth-protected Worker serving the whoami server at `/mcp`. */
export default new OAuthProvider({
  apiHandlers: {
    "/mcp": {
      fetch: (request: Request, env: unknown, ctx: ExecutionContext) => handler(request, env, ctx),
    },
  },
  authorizeEndpoint: "/authorize",
  tokenEndpoint: "/token",
  clientRegistrationEndpoint: "/register",
  defaultHandler: AuthHandler,
  resourceMetadata: { resource: "http://localhost", resource_name: "whoami" },
});
