// What a spec costs a model before any call: the OpenAPI server's tools/list (names, descriptions,
// input schemas), listed by a real MCP client over an in-memory pair, counted in o200k tokens
// (the tokenizer of current OpenAI models; other models' counts are close).
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { openApiMcpServer } from "../../src/codemode/openapi-mcp-server";
import { loadSpec } from "../../src/openapi/openapi-spec";

/** Listing tools never runs code; an executor that would fail loudly proves it. */
const noExecutor = { execute: () => Promise.reject(new Error("not used")) };

/**
 * Lists the tools `/mcp` would serve for a compiled spec and counts their tokens.
 * @param {string} compactText - a compiled spec (JSON text)
 * @returns {Promise<{ tools: string[], tokens: number }>}
 */
export async function measureToolsList(compactText) {
  const server = openApiMcpServer({
    spec: loadSpec(compactText),
    executor: noExecutor,
    request: () => ({ status: 500 }),
  })();
  const client = new Client({ name: "code-mode-mcp-check", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  const listed = JSON.stringify(
    tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  );
  return { tools: tools.map((t) => t.name), tokens: countTokens(listed) };
}
