// Seed example: "Elicitation", "Form mode" (`this.server.server.elicitInput` in a tool handler).
// Source: https://developers.cloudflare.com/agents/model-context-protocol/apis/agent-api/#form-mode
// (cloudflare-docs src/content/docs/agents/model-context-protocol/apis/agent-api.mdx).
// The snippet is the body of a tool handler: it is kept verbatim between the BEGIN/END markers;
// the agent and tool around it and the final `return` are scaffolding.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "code-mode-mcp/mcp";

/** Scaffolding: an agent whose `increase` tool runs the snippet. */
export class FormElicitationMcp extends McpAgent<Env, { counter: number }> {
  server = new McpServer({ name: "form-elicitation", version: "1.0.0" });
  initialState = { counter: 0 };

  async init() {
    this.server.tool("increase", "Increase the counter", async (extra) => {
      // BEGIN seed snippet
      const result = await this.server.server.elicitInput(
        {
          mode: "form",
          message: "By how much do you want to increase the counter?",
          requestedSchema: {
            type: "object",
            properties: {
              amount: {
                type: "number",
                title: "Amount",
                minimum: 1,
                maximum: 100,
              },
            },
            required: ["amount"],
          },
        },
        { relatedRequestId: extra.requestId },
      );

      if (result.action !== "accept" || !result.content) {
        return { content: [{ type: "text", text: "Counter unchanged." }] };
      }

      const amount = Number(result.content.amount);
      // END seed snippet
      this.setState({ counter: this.state.counter + amount });
      return { content: [{ type: "text", text: `Counter is now ${this.state.counter}.` }] };
    });
  }
}
