/**
 * Secret redaction for MCP tool results: an upstream's result before the sandbox sees it, and
 * every tool's final result before the client does.
 *
 * Redaction belongs to payload, never to the structure of a result: the keys the spec defines, a
 * block's known `type` value, the result's `isError` and other envelope fields stay as they are
 * (a secret that happens to equal "resource" or "mimeType" must not turn a valid result into an
 * invalid one). Redacted: the text, uri, names and `mimeType` of content blocks, the decoded bytes
 * of base64 `data` and `blob`, block keys the spec does not define, annotations and `_meta` (keys
 * and values), `structuredContent` (keys and values), and the `message` of pending input requests
 * (the approval prompt). A block's own fields are payload too: the sandbox receives the blocks as
 * they are, so an upstream echoing its credential into `mimeType`, an unknown key or a `_meta`
 * key would otherwise hand it to the program.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Redactor } from "./redaction";

/** Keys the spec defines for content blocks, resource contents and annotations: structure. */
const KNOWN_KEYS = new Set(
  (
    "type mimeType text data blob resource uri name title description annotations _meta size " +
    "icons audience priority lastModified"
  ).split(" "),
);
/** Block types kept as they are (any other `type` value is payload an upstream chose). */
const BLOCK_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"]);
const BASE64 = new Set(["data", "blob"]);
/** Objects inside a block whose keys are the spec's (redacted like a block). */
const NESTED = new Set(["resource", "annotations"]);

/**
 * A copy of a tool result with the secrets removed from its payload only.
 * @param result - an upstream's `tools/call` result, or a tool's own result
 * @param redactor - the configured secrets
 */
export function redactToolResult<T extends CallToolResult>(result: T, redactor: Redactor): T {
  if (!redactor.active || !result || typeof result !== "object") return result;
  const out: Record<string, unknown> = { ...result };
  if (Array.isArray(result.content))
    out["content"] = result.content.map((block) => redactBlock(block, redactor));
  if (result.structuredContent !== undefined)
    out["structuredContent"] = redactor.data(result.structuredContent);
  const pending = (result as Record<string, unknown>)["inputRequests"];
  if (pending !== undefined) out["inputRequests"] = redactMessages(pending, redactor);
  return out as T;
}

/** One content block (or the `resource` or `annotations` inside one): payload fields only. */
function redactBlock(block: unknown, redactor: Redactor): unknown {
  if (!block || typeof block !== "object" || Array.isArray(block)) return redactor.data(block);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(block)) {
    const name = KNOWN_KEYS.has(key) ? key : redactor.text(key);
    if (key === "type" && BLOCK_TYPES.has(value as string)) out[name] = value;
    else if (BASE64.has(key) && typeof value === "string") out[name] = redactor.base64(value);
    else if (NESTED.has(key)) out[name] = redactBlock(value, redactor);
    else if (typeof value === "string") out[name] = redactor.text(value);
    else out[name] = redactor.data(value);
  }
  return out;
}

/** The human-readable `message` fields of pending input requests (elicitation prompts). */
function redactMessages(value: unknown, redactor: Redactor, depth = 0): unknown {
  if (depth > 20 || !value || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactMessages(item, redactor, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === "message" && typeof item === "string"
        ? redactor.text(item)
        : redactMessages(item, redactor, depth + 1),
    ]),
  );
}
