// README example "Connect clients" (SDK v1, with an API key). Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "my-agent", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp/code"), {
    requestInit: { headers: { authorization: `Bearer ${process.env.MCP_API_KEY}` } },
  }),
);
// One `code` tool; its description declares every upstream tool with input and output types.
const blocked = await client.callTool({
  name: "code",
  arguments: {
    code: `async () => {
      const { items } = await codemode.list_tasks({ status: "blocked" });
      return items.map((t) => t.title);
    }`,
  },
});
console.log(blocked.content);
await client.close();
