// The Worker: the OpenAPI tools at /mcp, the code tool at /mcp/code, both for clients that signed
// in with OAuth (src/oauth.ts); /authorize is where the owner approves a client (src/consent.ts).
import { apiHandler } from "./api";
import { codeHandler } from "./code";
import { withOAuth } from "./oauth";

// The Durable Object that counts consent attempts (wrangler.jsonc durable_objects).
export { ConsentAttempts } from "./attempt-limiter";

export default withOAuth(
  { "/mcp": apiHandler, "/mcp/code": codeHandler },
  "MCP endpoints: /mcp (search, execute) and /mcp/code (code), for clients that sign in with OAuth\n",
);
