// What the fresh project's servers must answer, asked by real MCP clients over HTTP: SDK v1 for
// the McpAgent (2025-era sessions, as agents users connect) and SDK v2 for the stateless servers.
import { Client as V2Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * @param {boolean} ok
 * @param {string} message
 */
function check(ok, message) {
  if (!ok) throw new Error(`fresh-project: ${message}`);
}

/** @param {any} result @returns {string} the first text block */
function text(result) {
  return result?.content?.[0]?.text ?? "";
}

/** @param {any} client @returns {Promise<string>} the sorted tool names, comma-separated */
async function toolNames(client) {
  return (await client.listTools()).tools
    .map((/** @type {{ name: string }} */ t) => t.name)
    .toSorted()
    .join(",");
}

/** @param {URL} url */
async function v2(url) {
  const client = new V2Client(
    { name: "fresh-project", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/**
 * Calls every server of the template's src/index.ts; throws on the first wrong answer.
 * @param {string} base - e.g. http://127.0.0.1:8787
 * @returns {Promise<string[]>} one line per server, for the log
 */
export async function checkServers(base) {
  const lines = [];

  const agent = new V1Client({ name: "fresh-project", version: "1.0.0" });
  await agent.connect(new V1Transport(new URL(`${base}/agent`)));
  const agentTools = await toolNames(agent);
  check(agentTools === "add,square", `McpAgent tools are ${agentTools}`);
  const sum = await agent.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  check(text(sum) === "5", `McpAgent add(2, 3) → ${JSON.stringify(sum)}`);
  await agent.close();
  lines.push(`McpAgent /agent: tools ${agentTools}, add(2, 3) = ${text(sum)}`);

  const hello = await v2(new URL(`${base}/hello`));
  const helloTools = await toolNames(hello);
  check(helloTools === "hello", `createMcpHandler tools are ${helloTools}`);
  const greeting = await hello.callTool({ name: "hello", arguments: { name: "World" } });
  check(text(greeting) === "Hello, World!", `hello → ${JSON.stringify(greeting)}`);
  await hello.close();
  lines.push(`createMcpHandler /hello: tools ${helloTools}, "${text(greeting)}"`);

  const code = await v2(new URL(`${base}/code`));
  const codeTools = await toolNames(code);
  check(codeTools === "code", `codeMcpServer tools are ${codeTools}`);
  const ran = await code.callTool({
    name: "code",
    arguments: {
      code: `async () => {
        const f = await codemode.get_forecast({ city: "Lisbon" });
        return f.city + " " + f.celsius;
      }`,
    },
  });
  check(!ran.isError && text(ran).includes("Lisbon 18"), `code → ${JSON.stringify(ran)}`);
  await code.close();
  lines.push(`codeMcpServer /code: tools ${codeTools}, code → ${text(ran)}`);

  const api = await v2(new URL(`${base}/api`));
  const apiTools = await toolNames(api);
  check(apiTools === "execute,search", `openApiMcpServer tools are ${apiTools}`);
  const search = await api.callTool({
    name: "search",
    arguments: { code: `async () => Object.keys((await codemode.spec()).paths)` },
  });
  check(!search.isError && text(search).includes("/pets"), `search → ${JSON.stringify(search)}`);
  const executed = await api.callTool({
    name: "execute",
    arguments: {
      // As the docs write it: request() resolves to the response body.
      code: `async () => {
        const pets = await codemode.request({ method: "GET", path: "/pets" });
        return pets.map((p) => p.name).join("+");
      }`,
    },
  });
  check(
    !executed.isError && text(executed).includes("Rex+Tom"),
    `execute → ${JSON.stringify(executed)}`,
  );
  await api.close();
  lines.push(
    `openApiMcpServer /api: tools ${apiTools}, search → ${text(search)}, execute → ${text(executed)}`,
  );
  return lines;
}
