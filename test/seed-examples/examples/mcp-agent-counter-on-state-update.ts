// Seed example: the counter as the earlier McpAgent API page showed it, with the older
// `onStateUpdate` callback name.
// Source: https://developers.cloudflare.com/agents/model-context-protocol/mcp-agent-api/
// (cloudflare-docs src/content/docs/agents/model-context-protocol/mcp-agent-api.mdx, earlier
// revision; the same counter appears in cloudflare/agents examples with `onStateUpdate`).
// Verbatim; only import paths changed ("agents/mcp" -> "code-mode-mcp/mcp").
import { McpAgent } from "code-mode-mcp/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

type State = { counter: number };

export class MyMCP extends McpAgent<Env, State, {}> {
  server = new McpServer({
    name: "Demo",
    version: "1.0.0",
  });

  initialState: State = {
    counter: 1,
  };

  async init() {
    this.server.resource(`counter`, `mcp://resource/counter`, (uri) => {
      return {
        contents: [{ uri: uri.href, text: String(this.state.counter) }],
      };
    });

    this.server.tool(
      "add",
      "Add to the counter, stored in the MCP",
      { a: z.number() },
      async ({ a }) => {
        this.setState({ ...this.state, counter: this.state.counter + a });

        return {
          content: [
            {
              type: "text",
              text: String(`Added ${a}, total is now ${this.state.counter}`),
            },
          ],
        };
      },
    );
  }

  onStateUpdate(state: State) {
    console.log({ stateUpdate: state });
  }
}
