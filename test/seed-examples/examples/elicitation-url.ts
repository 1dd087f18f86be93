// Seed example: "Elicitation", "URL mode" (an out-of-band interaction with a unique elicitationId).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#url-mode
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// The snippet is the body of a tool handler: it is kept verbatim between the BEGIN/END markers;
// the agent and tool around it are scaffolding.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "code-mode-mcp/mcp";

/** Scaffolding: an agent whose `connect` tool runs the snippet. */
export class UrlElicitationMcp extends McpAgent {
  server = new McpServer({ name: "url-elicitation", version: "1.0.0" });

  async init() {
    this.server.tool("connect", "Connect your account", async (extra) => {
      // BEGIN seed snippet
      const elicitationId = crypto.randomUUID();
      const result = await this.server.server.elicitInput(
        {
          mode: "url",
          message: "Connect your account to continue.",
          url: `https://example.com/connect?elicitationId=${elicitationId}`,
          elicitationId,
        },
        { relatedRequestId: extra.requestId },
      );

      if (result.action !== "accept") {
        return { content: [{ type: "text", text: "Connection cancelled." }] };
      }

      return {
        content: [
          {
            type: "text",
            text: "Connection page opened. Complete it in your browser.",
          },
        ],
      };
      // END seed snippet
    });
  }
}
