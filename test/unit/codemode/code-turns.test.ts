/**
 * One POST's code budget and turns (src/codemode/code-turns.ts, issue #40): a JSON-RPC batch's
 * `tools/call` members share one server, so they draw from one budget of characters, and each
 * after the first is admitted a turn of the event loop after the one before it.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { BATCH_CODE_LIMITS, CodeTurns } from "../../../src/codemode/code-turns";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import type { ExecuteRequest, Executor } from "../../../src/executor/types";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { oasExample } from "../openapi/fixtures";

/** A turn the test lets pass by hand, counting how many were asked for. */
function manualTurns() {
  const waiting: (() => void)[] = [];
  return {
    waiting,
    turn: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

describe("CodeTurns", () => {
  it("admits the first member at once and each later one a turn after the one before", async () => {
    const { waiting, turn } = manualTurns();
    const turns = new CodeTurns(1_000, turn);
    const admitted: number[] = [];
    const members = [0, 1, 2].map((n) => turns.admit("x".repeat(10)).then(() => admitted.push(n)));
    await Promise.resolve();
    await Promise.resolve();
    expect(admitted).toEqual([0]);
    expect(waiting).toHaveLength(1); // the second waits for its turn; the third for the second's
    waiting.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(admitted).toEqual([0, 1]);
    expect(waiting).toHaveLength(1);
    waiting.shift()!();
    await Promise.all(members);
    expect(admitted).toEqual([0, 1, 2]);
    expect(waiting).toHaveLength(0);
  });

  it("gives the budget back once the programs that arrived together are admitted", async () => {
    const { waiting, turn } = manualTurns();
    const turns = new CodeTurns(25, () => Promise.resolve(), turn);
    expect(await turns.admit("x".repeat(20))).toBeUndefined();
    expect((await turns.admit("x".repeat(20)))?.isError).toBe(true);
    waiting.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // A later request on the same server (an McpAgent session's): a budget of its own.
    expect(await turns.admit("x".repeat(20))).toBeUndefined();
  });

  it("refuses the members past the budget, naming it, and admits those that fit", async () => {
    const turns = new CodeTurns(25, () => Promise.resolve());
    const answers = await Promise.all([10, 10, 10, 5].map((n) => turns.admit("x".repeat(n))));
    expect(answers.map((a) => a?.isError ?? false)).toEqual([false, false, true, false]);
    expect(answers[2]!.content[0]).toEqual({
      type: "text",
      text:
        "ERROR: CodeModeError: This request's programs may hold 25 characters of code in all " +
        `(${BATCH_CODE_LIMITS} × maxCodeChars); this program is 10 characters and 5 are left. ` +
        "Send it in a request of its own, or fewer programs in one batch.",
    });
  });
});

/** An executor that counts the runs it was asked for and answers each with `"ran"`. */
function countingExecutor() {
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
  return { executor, asked };
}

/** `count` calls of `tool` at once on one server, as a batch's members reach it. */
async function batch(
  made: McpServer | Promise<McpServer>,
  tool: string,
  code: string,
  count: number,
) {
  const server = await made;
  const client = new Client({ name: "t", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const results = await Promise.all(
    Array.from({ length: count }, () => client.callTool({ name: tool, arguments: { code } })),
  );
  await client.close();
  return results.map((r) => (r as { isError?: boolean }).isError === true);
}

/** A program of exactly `n` characters. */
const program = (n: number) => `async () => "ran"${" ".repeat(n - 17)}`;

describe("one server's code tools share the budget", () => {
  it("execute and search run BATCH_CODE_LIMITS programs at the cap and refuse the rest", async () => {
    for (const tool of ["search", "execute"]) {
      const { executor, asked } = countingExecutor();
      const made = openApiMcpServer({
        spec: loadSpec(oasExample("3.0/json/petstore.json")),
        executor,
        request: () => ({ status: 200, body: {} }),
        limits: { maxCodeChars: 100 },
      })();
      const refused = await batch(made, tool, program(100), BATCH_CODE_LIMITS + 2);
      expect(refused.filter(Boolean)).toHaveLength(2);
      if (tool === "execute") expect(asked).toHaveLength(BATCH_CODE_LIMITS);
    }
  });

  it("a server kept for a session runs any number of programs sent one after another", async () => {
    const { executor, asked } = countingExecutor();
    const server = await openApiMcpServer({
      spec: loadSpec(oasExample("3.0/json/petstore.json")),
      executor,
      request: () => ({ status: 200, body: {} }),
      limits: { maxCodeChars: 100 },
    })();
    const client = new Client({ name: "t", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    const refused: boolean[] = [];
    for (let n = 0; n < BATCH_CODE_LIMITS * 3; n++) {
      const answer = await client.callTool({ name: "execute", arguments: { code: program(100) } });
      refused.push((answer as { isError?: boolean }).isError === true);
    }
    await client.close();
    expect(refused.filter(Boolean)).toHaveLength(0);
    expect(asked).toHaveLength(BATCH_CODE_LIMITS * 3);
  });

  it("code runs BATCH_CODE_LIMITS programs at the cap and refuses the rest", async () => {
    const { executor, asked } = countingExecutor();
    const upstream = () => {
      const server = new McpServer({ name: "up", version: "1" });
      server.registerTool("noop", { description: "nothing" }, () => ({ content: [] }));
      return server;
    };
    const made = codeMcpServer({
      upstream: { server: upstream },
      executor,
      limits: { maxCodeChars: 100 },
    })();
    const refused = await batch(made, "code", program(100), BATCH_CODE_LIMITS + 2);
    expect(refused.filter(Boolean)).toHaveLength(2);
    expect(asked).toHaveLength(BATCH_CODE_LIMITS);
  });
});
