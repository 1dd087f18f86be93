// Seed example: "Data jurisdiction" (EU jurisdiction for GDPR compliance).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#data-jurisdiction
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// Verbatim; only import paths changed. `MyMCP` is the page's serve() example (scaffolding import).
import { MyMCP } from "./mcp-agent-square"; // scaffolding: the page's MyMCP

// EU jurisdiction for GDPR compliance
export default MyMCP.serve("/mcp", { jurisdiction: "eu" });
