// Seed example: "Elicitation", "Handle responses" (the `switch` over accept/decline/cancel).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#handle-responses
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// The snippet handles the `result` of an elicitation inside a tool handler: it is kept verbatim
// between the BEGIN/END markers; the agent, the tool, the form request that produces `result`
// (the page's form-mode request) and the final `return` are scaffolding.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "code-mode-mcp/mcp";

/** Scaffolding: an agent whose `ask` tool elicits a form and runs the snippet on the answer. */
export class SwitchElicitationMcp extends McpAgent {
  server = new McpServer({ name: "switch-elicitation", version: "1.0.0" });

  async init() {
    this.server.tool("ask", "Ask for an amount", async (extra) => {
      const result = await this.server.server.elicitInput(
        {
          message: "By how much do you want to increase the counter?",
          requestedSchema: {
            type: "object",
            properties: { amount: { type: "number", title: "Amount" } },
            required: ["amount"],
          },
        },
        { relatedRequestId: extra.requestId },
      );
      // BEGIN seed snippet
      switch (result.action) {
        case "accept":
          // For form mode, validate and process result.content.
          break;
        case "decline":
          return { content: [{ type: "text", text: "Request declined." }] };
        case "cancel":
          return { content: [{ type: "text", text: "Request dismissed." }] };
      }
      // END seed snippet
      return { content: [{ type: "text", text: `Accepted ${JSON.stringify(result.content)}.` }] };
    });
  }
}
