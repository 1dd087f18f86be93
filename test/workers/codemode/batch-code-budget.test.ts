/**
 * A JSON-RPC batch POST (2025-03-26) of code calls, served in workerd (src/codemode/code-turns.ts,
 * issue #40): its members share one budget of code (BATCH_CODE_LIMITS × maxCodeChars), so the
 * members past it are refused by name, and those within it run, each in its own turn.
 */
import { describe, expect, it } from "vitest";
import { BATCH_CODE_LIMITS } from "../../../src/codemode/code-turns";
import { createMcpHandler, openApiMcpServer } from "../../../src/index";
import { COMPACT_SPECS } from "../../../src/app/generated/specs";
import type { ExecuteRequest, Executor } from "../../../src/executor/types";
import { legacyRequest } from "../mcp/fixtures";

/** A program of exactly `n` characters. */
const program = (n: number) => `async () => "ran"${" ".repeat(n - 17)}`;

describe("a batch POST's code budget", () => {
  it("runs the members that fit and refuses the rest, each answered", async () => {
    const asked: number[] = [];
    const executor: Executor = {
      execute: (request: ExecuteRequest) => {
        asked.push(request.code.length);
        return Promise.resolve({
          status: "ok",
          result: "ran",
          logs: [],
          droppedLogs: 0,
          calls: 0,
          truncated: false,
          resultBytes: 5,
          operations: 0,
          durationMs: 0,
        });
      },
    };
    const handler = createMcpHandler(
      openApiMcpServer({
        spec: COMPACT_SPECS["demo-api"]!,
        executor,
        request: () => ({ status: 200, body: {} }),
        limits: { maxCodeChars: 100 },
      }),
    );
    const members = BATCH_CODE_LIMITS + 3;
    const response = await handler.fetch(
      legacyRequest(
        Array.from({ length: members }, (_, id) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "execute", arguments: { code: program(100) } },
        })),
        { "mcp-protocol-version": "2025-03-26" },
      ),
    );
    const text = await response.text();
    const answers = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .flatMap((line) => [JSON.parse(line.slice(5))].flat())
      .filter((message: { id?: unknown }) => message.id !== undefined);
    expect(answers).toHaveLength(members);
    const refused = answers.filter((a: { result?: { isError?: boolean } }) => a.result?.isError);
    expect(refused).toHaveLength(3);
    expect(refused[0].result.content[0].text).toMatch(
      /^ERROR: CodeModeError: This request's programs may hold 400 characters of code in all/,
    );
    expect(asked).toEqual(Array.from({ length: BATCH_CODE_LIMITS }, () => 100));
  });
});
