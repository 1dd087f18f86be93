// What a spec costs a model before any call: the OpenAPI server's tools/list (names, descriptions,
// input schemas), listed by a real MCP client over an in-memory pair, counted in o200k tokens
// (the tokenizer of current OpenAI models; other models' counts are close). The one measure behind
// `check`, the spec build step (scripts/compile-spec.mjs) and the launcher (cli/serve.mjs); the
// Worker shows these counts by the digest of what it lists (src/app/tools-list-count.ts).
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { openApiMcpServer } from "../../src/codemode/openapi-mcp-server";
import { loadSpec } from "../../src/openapi/openapi-spec";
import { toolEntryText, toolsListDigest, toolsListText } from "../../src/app/tools-list-count";

/** Listing tools never runs code; an executor that would fail loudly proves it. */
const noExecutor = { execute: () => Promise.reject(new Error("not used")) };

/**
 * @typedef {object} ToolsListMeasure
 * @property {string[]} tools - the tool names, in order
 * @property {number} tokens - o200k tokens of the whole list
 * @property {Record<string, number>} perTool - o200k tokens of each tool's entry
 * @property {string} digest - the listed text's digest, the key the Worker looks the count up by
 */

/**
 * Lists the tools `/mcp` would serve for a compiled spec and counts their tokens.
 * @param {string | object} compactText - a compiled spec (JSON text, or the parsed object: the
 *   launcher has it parsed already, and a second parse of a large spec cost a launch ~0.1 s)
 * @param {{ description?: string, limits?: Record<string, number> }} [text] - what else shapes the
 *   tools' text, as the Worker passes it (src/app/api-tool-text.ts); none for `check`
 * @returns {Promise<ToolsListMeasure>}
 */
export function measureToolsList(compactText, text = {}) {
  return measureServerTools(
    openApiMcpServer({
      spec: loadSpec(compactText),
      executor: noExecutor,
      request: () => ({ status: 500 }),
      ...text,
    }),
  );
}

/**
 * Lists a server's tools through a real MCP client over an in-memory pair and counts them.
 * @param {() => any} factory - builds the McpServer, or a promise of it (a code mode server's factory)
 * @returns {Promise<ToolsListMeasure>}
 */
export async function measureServerTools(factory) {
  const server = await factory();
  const client = new Client({ name: "code-mode-mcp-check", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  // Loaded when first counted, not with the product module: its tables (~3 MB of source, a
  // 200,000-entry map built at load) cost every launch ~0.3 s of CPU, and a launch whose count
  // is kept counts nothing (cli/kept/tools-list-cache.mjs; issue #43).
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const listed = toolsListText(tools);
  return {
    tools: tools.map((t) => t.name),
    tokens: countTokens(listed),
    perTool: Object.fromEntries(tools.map((t) => [t.name, countTokens(toolEntryText(t))])),
    digest: await toolsListDigest(listed),
  };
}
