/**
 * The one token count of the product: what a `tools/list` result costs a model, in o200k tokens
 * (the tokenizer of current OpenAI models; other models' counts are close). The status page
 * (`/`, `/api/status`) and `code-mode-mcp check` both count with this, over the same text: each
 * tool's name, description and input schema, as JSON.
 *
 * Why loaded lazily: the tokenizer's ranks are ~2.4 MB of JavaScript (~1 MB gzip in the Worker
 * bundle); importing them at start-up would slow every cold start, so only the first status page
 * of an isolate pays for loading them.
 */

/** The part of a listed tool that is counted. */
export interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
}

/** Token counts of one `tools/list` result. */
export interface ToolsListTokens {
  /** Per tool, in the order given. */
  perTool: number[];
  /** The whole list (counted as one text, so not quite the sum of the tools). */
  total: number;
}

/** The text counted for a list of tools: name, description and input schema of each, as JSON. */
export function listedText(tools: readonly ListedTool[]): string {
  return JSON.stringify(
    tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  );
}

/**
 * Counts a `tools/list` result in o200k tokens.
 * @param tools - the listed tools
 */
export async function countToolsListTokens(tools: readonly ListedTool[]): Promise<ToolsListTokens> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  return {
    perTool: tools.map((tool) => countTokens(listedText([tool]))),
    total: countTokens(listedText(tools)),
  };
}
