// README example "Connect clients" (SDK v2). Kept in sync with README.md by
// test/unit/docs-examples.test.ts and compiled by the typecheck.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const client = new Client(
  { name: "my-agent", version: "1.0.0" },
  { versionNegotiation: { mode: "auto" } },
);
await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8787/mcp")));

// search: explore the spec inside the sandbox; only the returned subset comes back.
const operations = await client.callTool({
  name: "search",
  arguments: { code: `async () => Object.keys((await codemode.spec()).paths)` },
});

// execute: call the API; the host adds credentials, the code never sees them.
const task = await client.callTool({
  name: "execute",
  arguments: {
    code: `async () => {
      const created = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 1, title: "Ship it" } });
      return await codemode.request({ method: "GET", path: "/tasks/" + created.id });
    }`,
  },
});
console.log(operations.content, task.content);
await client.close();
