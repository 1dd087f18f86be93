/**
 * P1 and P2: what each server costs the model's context before any code runs.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { withClient } from "./clients.mjs";

/** The part of `tools/list` a model sees: names, descriptions, input schemas. */
function visible(tools) {
  return JSON.stringify(
    tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  );
}

/**
 * P1: `tools/list` of the OpenAPI server on the Cloudflare spec, in o200k tokens.
 * @param {string} base
 * @param {"ours" | "anchor"} side
 */
export async function toolsListTokens(base, side) {
  const tools = await withClient(side, `${base}/${side}/openapi`, (c) => c.listTools());
  return { tokens: countTokens(visible(tools)), tools: tools.map((t) => t.name) };
}

/**
 * P2: the `code` tool's description at `n` upstream tools.
 * @param {string} base
 * @param {"ours" | "anchor"} side
 * @param {number} n
 */
export async function codeDescription(base, side, n) {
  const tools = await withClient(side, `${base}/${side}/code/${n}`, (c) => c.listTools());
  const description = tools.find((t) => t.name === "code")?.description ?? "";
  return { chars: description.length, tokens: countTokens(description) };
}
