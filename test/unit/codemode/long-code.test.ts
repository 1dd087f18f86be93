/**
 * The tools refuse a program over `maxCodeChars` as their first step: the executor is never
 * asked (no prestart, no run), no run is traced, and the answer names the length and the limit.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import { refuseLongCode } from "../../../src/codemode/long-code";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { DEFAULT_LIMITS } from "../../../src/executor/limits";
import type { ExecuteRequest, Executor } from "../../../src/executor/types";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { oasExample } from "../openapi/fixtures";

/** An executor that records what it was asked and answers every run with `"ran"`. */
function recordingExecutor(limits?: Partial<Executor["limits"]>) {
  const asked: string[] = [];
  const executor: Executor = {
    ...(limits ? { limits: { ...DEFAULT_LIMITS, ...limits } } : {}),
    execute: (request: ExecuteRequest) => {
      asked.push(`execute ${request.code.length}`);
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
    prestart: (request) => {
      asked.push(`prestart ${request.code.length}`);
      return undefined;
    },
  };
  return { executor, asked };
}

async function call(made: McpServer | Promise<McpServer>, name: string, code: string) {
  const server = await made;
  const client = new Client({ name: "t", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  const result = await client.callTool({ name, arguments: { code } });
  await client.close();
  return result as { isError?: boolean; content: { type: string; text: string }[] };
}

/** A program of exactly `n` characters. */
const program = (n: number) => `async () => "ran"${" ".repeat(n - 17)}`;

describe("the tools' length cap", () => {
  it("search and execute run a program at the cap and refuse one past it, untraced", async () => {
    const { executor, asked } = recordingExecutor();
    const traced: string[] = [];
    const make = () =>
      openApiMcpServer({
        spec: loadSpec(oasExample("3.0/json/petstore.json")),
        executor,
        request: () => ({ status: 200, body: {} }),
        limits: { maxCodeChars: 100 },
        onRun: (record) => void traced.push(record.tool),
      })();
    for (const tool of ["search", "execute"]) {
      expect((await call(make(), tool, program(100))).isError).toBeUndefined();
      const refused = await call(make(), tool, program(101));
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toBe(
        "ERROR: CodeModeError: The program is 101 characters; the limit is 100 (maxCodeChars). " +
          "Send a shorter program: fetch data with codemode calls instead of writing it into the code.",
      );
    }
    expect(asked).toEqual(["execute 100", "execute 100"]);
    expect(traced).toEqual(["search", "execute"]);
  });

  it("code refuses a program past the cap before it prestarts or runs", async () => {
    const { executor, asked } = recordingExecutor();
    const upstream = () => {
      const server = new McpServer({ name: "up", version: "1" });
      server.registerTool("noop", { description: "nothing" }, () => ({ content: [] }));
      return server;
    };
    const make = () => codeMcpServer({ upstream: { server: upstream }, executor })();
    const refused = await call(make(), "code", program(DEFAULT_LIMITS.maxCodeChars + 1));
    expect(refused).toMatchObject({ isError: true });
    expect(refused.content[0]!.text).toMatch(/65537 characters; the limit is 65536/);
    expect(asked).toEqual([]);
    expect((await call(make(), "code", program(DEFAULT_LIMITS.maxCodeChars))).isError).toBe(
      undefined,
    );
    expect(asked.at(-1)).toBe(`execute ${DEFAULT_LIMITS.maxCodeChars}`);
  });

  it("applies the executor's own limit where the tool sets none, the tool's over it", () => {
    const { executor } = recordingExecutor({ maxCodeChars: 50 });
    expect(refuseLongCode(program(50), executor, {})).toBeUndefined();
    expect(refuseLongCode(program(51), executor, {})).toMatchObject({ isError: true });
    expect(refuseLongCode(program(51), executor, { maxCodeChars: 51 })).toBeUndefined();
    expect(refuseLongCode(program(65_536), {}, {})).toBeUndefined();
    expect(refuseLongCode(program(65_537), {}, {})).toMatchObject({ isError: true });
  });
});
