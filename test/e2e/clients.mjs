// Done-when (1): `npm start`, then an SDK v2 client and an SDK v1 client, over HTTP, each list
// tools and run a search, an execute that creates then reads a task, and a `code` program.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CODE, EXECUTE, SEARCH, text } from "./support/programs.mjs";
import { check, withServer } from "./support/server.mjs";

/** @type {Record<string, (url: URL) => Promise<any>>} */
const CLIENTS = {
  "SDK v2": async (url) => {
    const client = new V2Client(
      { name: "e2e-v2", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new V2Transport(url));
    return client;
  },
  "SDK v1": async (url) => {
    const client = new V1Client({ name: "e2e-v1", version: "1.0.0" });
    await client.connect(new V1Transport(url));
    return client;
  },
};

await withServer({}, async ({ url }) => {
  for (const [name, open] of Object.entries(CLIENTS)) {
    const api = await open(new URL(`${url}/mcp`));
    const tools = (await api.listTools()).tools.map((/** @type {any} */ t) => t.name).toSorted();
    check(JSON.stringify(tools) === '["execute","search"]', `${name}: /mcp tools are ${tools}`);
    const search = await api.callTool({ name: "search", arguments: { code: SEARCH } });
    check(
      !search.isError && text(search).includes("POST /tasks createTask"),
      `${name}: search → ${text(search)}`,
    );
    const title = `${name} e2e task`;
    const executed = await api.callTool({ name: "execute", arguments: { code: EXECUTE(title) } });
    const task = JSON.parse(text(executed));
    check(
      !executed.isError && task.title === title && task.status === "todo",
      `${name}: execute → ${text(executed)}`,
    );
    await api.close();

    const code = await open(new URL(`${url}/mcp/code`));
    const codeTools = (await code.listTools()).tools;
    check(codeTools.length === 1 && codeTools[0].name === "code", `${name}: /mcp/code tools`);
    const ran = await code.callTool({ name: "code", arguments: { code: CODE } });
    check(
      !ran.isError && text(ran).includes("Push notification certificates"),
      `${name}: code → ${text(ran)}`,
    );
    await code.close();
    console.log(`e2e clients: ${name}: tools, search, execute (task ${task.id}), code — ok`);
  }
});
