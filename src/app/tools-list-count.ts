/**
 * One token count for what a client sees at an MCP endpoint: the o200k tokens of its `tools/list`
 * (each tool's name, description and input schema, as JSON). The tokenizer runs only in Node
 * (`code-mode-mcp check`, the spec build step, the local launcher: cli/product/tools-list-tokens.mjs);
 * the Worker ships none (its ranks would double the bundle). The Worker instead looks its listed
 * text up by digest among the counts made in Node for that very text, so a figure it shows as
 * o200k is the exact count of what it serves, and anything else is shown as an estimate.
 */
import { LAUNCH_TOKENS_VAR } from "./config/setting-names";

/** A tool as `tools/list` returns it (only what a model reads is counted). */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/** o200k counts of one `tools/list` text. */
export interface ToolsListTokens {
  /** The whole list ({@link toolsListText}). */
  tokens: number;
  /** Each tool's entry ({@link toolEntryText}), by tool name. */
  tools: Readonly<Record<string, number>>;
}

/** Counts made in Node, keyed by the {@link toolsListDigest} of the text they counted. */
export type ToolsListCounts = Readonly<Record<string, ToolsListTokens>>;

/**
 * The counted text of one tool: its name, description and input schema as JSON, object keys
 * sorted. Sorted because the same server's schemas arrive with keys in another order over HTTP
 * than over an in-memory pair (`$schema` first or last): the text, its count and its digest
 * must not depend on the transport.
 * @param tool - a listed tool
 */
export function toolEntryText(tool: ListedTool): string {
  return JSON.stringify(
    sortedKeys({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
  );
}

/** The value with every object's keys in code-point order (arrays keep theirs). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .toSorted()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * The counted text of a whole `tools/list`: the entries of {@link toolEntryText} as one JSON array.
 * @param tools - the listed tools, in the server's order
 */
export function toolsListText(tools: readonly ListedTool[]): string {
  return `[${tools.map(toolEntryText).join(",")}]`;
}

/**
 * SHA-256 of a `tools/list` text, as hex: the key under which Node's count of it is kept. The same
 * Web Crypto call runs in Node and in workerd.
 * @param text - from {@link toolsListText}
 */
export async function toolsListDigest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads counts handed over as JSON text (the launcher's var): anything malformed counts nothing,
 * so the page falls back to its labelled estimate rather than showing a wrong figure.
 * @param text - JSON: digest → {@link ToolsListTokens}
 */
export function parseToolsListCounts(text: unknown): ToolsListCounts {
  if (typeof text !== "string" || text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return {};
  const counts: Record<string, ToolsListTokens> = {};
  for (const [digest, value] of Object.entries(parsed)) {
    const v = value as Partial<ToolsListTokens> | null;
    if (
      /^[0-9a-f]{64}$/.test(digest) &&
      typeof v?.tokens === "number" &&
      v.tools &&
      typeof v.tools === "object" &&
      Object.values(v.tools).every((n) => typeof n === "number")
    )
      counts[digest] = { tokens: v.tokens, tools: { ...v.tools } };
  }
  return counts;
}

let memo: { text: string; base: object; counts: ToolsListCounts } | undefined;

/**
 * The counts the status page can show: `base` (made by the build step) plus those the launcher
 * made at start ({@link LAUNCH_TOKENS_VAR}), if any.
 * @param base - the counts built into the Worker (`TOOLS_LIST_TOKENS`)
 * @param env - the Worker's env
 */
export function toolsListCountsWithLaunch(
  base: ToolsListCounts,
  env: Cloudflare.Env,
): ToolsListCounts {
  const text = (env as unknown as Record<string, unknown>)[LAUNCH_TOKENS_VAR];
  if (typeof text !== "string" || text === "") return base;
  if (memo?.text === text && memo.base === base) return memo.counts;
  memo = { text, base, counts: { ...base, ...parseToolsListCounts(text) } };
  return memo.counts;
}
