/**
 * Maps an executor outcome to the MCP tool result the client sees. One place, shared by the
 * `code`, `search` and `execute` tools, so every tool reports results, truncation, logs and
 * errors the same way.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { toWire } from "../../sandbox/codec";
import type { ExecutionOutcome, LogEntry } from "../executor/types";

/**
 * Builds the tool result: the returned value as JSON text (strings as is), a note when it was
 * truncated, then the console output; `isError` for every status but `ok`.
 * @param outcome - the executor's outcome
 */
export function outcomeToToolResult(outcome: ExecutionOutcome): CallToolResult {
  const parts: string[] = [];
  if (outcome.status === "ok" || outcome.result !== undefined) {
    parts.push(renderResult(outcome.result));
    if (outcome.truncated) {
      parts.push(
        `[The result was ${outcome.resultBytes} bytes and was truncated where marked with …; return only the fields you need.]`,
      );
    }
  }
  if (outcome.status !== "ok" && outcome.error) {
    const where =
      outcome.error.line === undefined
        ? ""
        : ` (line ${outcome.error.line}${outcome.error.column === undefined ? "" : `, column ${outcome.error.column}`})`;
    parts.push(
      `${outcome.status.toUpperCase()}: ${outcome.error.name}: ${outcome.error.message}${where}`,
    );
  }
  const logs = renderLogs(outcome.logs, outcome.droppedLogs);
  if (logs) parts.push(logs);
  return {
    content: [{ type: "text", text: parts.join("\n\n") }],
    ...(outcome.status === "ok" ? {} : { isError: true }),
  };
}

function renderResult(result: unknown): string {
  if (result === undefined) return "undefined (the code returned no value; `return` what you need)";
  if (typeof result === "string") return result;
  // On the host, over what the host decoded from the sandbox's result text (at most
  // maxResultBytes, checked before decoding: src/executor/sandbox-response.ts): a tree of the
  // host's own values with the host's prototypes, none shared, so this walk is linear in that
  // text and no program's method runs in it.
  return JSON.stringify(toWire(result));
}

function renderLogs(logs: readonly LogEntry[], dropped: number): string {
  if (logs.length === 0 && dropped === 0) return "";
  const lines = logs.map((entry) =>
    entry.level === "log" ? entry.message : `[${entry.level}] ${entry.message}`,
  );
  if (dropped > 0) lines.push(`… ${dropped} more console lines dropped (log limit)`);
  return `Console output:\n${lines.join("\n")}`;
}
