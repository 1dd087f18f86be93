// The Worker: the OpenAPI tools at /mcp, for clients that signed in with OAuth (src/oauth.ts);
// /authorize is where the owner approves a client (src/consent.ts).
import { apiHandler } from "./api";
import { withOAuth } from "./oauth";

// The Durable Object that counts consent attempts (wrangler.jsonc durable_objects).
export { ConsentAttempts } from "./attempt-limiter";

export default withOAuth(
  { "/mcp": apiHandler },
  "MCP endpoint: /mcp (search, execute), for clients that sign in with OAuth\n",
);
