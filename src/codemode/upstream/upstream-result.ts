/**
 * How an upstream tool's result appears to sandbox code (documented in the `code` tool):
 * - `isError: true` → an exception (`name` "UpstreamToolError", message = the result's text),
 *   which the code can catch;
 * - `structuredContent` present → that object;
 * - text only → one text block is parsed as JSON when it is JSON, else the string; several text
 *   blocks → an array of those values;
 * - any image, audio, resource or resource link → the `content` array as is (blocks with their
 *   `type`, base64 `data` and `mimeType`), so nothing is lost.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { HostFunction } from "../../executor/types";
import type { Redactor } from "../redaction/redaction";
import { SandboxError } from "../../errors";

/** The error sandbox code sees for an upstream `isError` result. */
export class UpstreamToolError extends SandboxError {
  /** @param message - the tool's name and the text of its error result */
  constructor(message: string) {
    super("UpstreamToolError", message);
  }
}

/**
 * Converts an upstream tool result into the value sandbox code receives.
 * @param toolName - the upstream tool (for the error message)
 * @param result - the upstream's `tools/call` result
 * @throws UpstreamToolError when the result has `isError`
 */
export function upstreamResultValue(toolName: string, result: CallToolResult): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const text = content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    throw new UpstreamToolError(
      `${toolName} failed: ${text || "the tool reported an error without a message"}`,
    );
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (content.some((block) => block.type !== "text")) return content;
  const values = content.map((block) =>
    block.type === "text" ? parseMaybeJson(block.text) : block,
  );
  return values.length === 1 ? values[0] : values;
}

function parseMaybeJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!/^[[{"\d-]|^(true|false|null)\b/.test(trimmed)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * An upstream tool's host function whose errors reach the sandbox with the configured secrets
 * removed (a failed call's message may quote the credential: an upstream echoing its headers).
 * @param redactor - the configured secrets
 * @param fn - the host function
 */
export function redactingErrors(redactor: Redactor, fn: HostFunction): HostFunction {
  return async (args, call) => {
    try {
      return await fn(args, call);
    } catch (error) {
      throw redactor.error(error);
    }
  };
}
