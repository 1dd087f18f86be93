/**
 * Hostile (issue #40): what a program sends is searched for the credential on the host (issue
 * #41), and the program chooses how much it sends. A program that calls an upstream tool again and
 * again with arguments of nearly `maxCallBytes` had every one searched synchronously, as long as
 * it liked, on the thread that serves every client. Now every search is charged to the run
 * (src/codemode/request/sent-check.ts): past the run's budget a call is refused with a
 * `LimitError` naming it, and nothing is sent. Before: all 9 calls reached the upstream. The
 * next run has a budget of its own.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMcpServer } from "../../../../src/codemode/code-mcp-server";
import { MAX_SENT_CHARS_PER_RUN } from "../../../../src/codemode/request/sent-check";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../../src/index";
import { ECHO_SECRET } from "../../../helpers/redaction/credential-echoes";
import { connect, direct } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const AUTH = `Bearer ${ECHO_SECRET}`;

// Arguments just under the default maxCallBytes (4 MiB), sent `calls` times: 9 are 36 MiB of
// arguments, each searched as its values and as the whole call (72 Mi characters > the run's 64 Mi).
const program = (calls: number) => `async () => {
  const data = "a".repeat(4 * 1048576 - 4096);
  const notes = [];
  for (let i = 0; i < ${calls}; i++) {
    try {
      await codemode.upload({ data });
      notes.push("sent");
    } catch (error) {
      notes.push(error.name + ": " + error.message);
    }
  }
  return notes;
}`;

describe("a run that sends more than its budget", () => {
  // The budget is the host's (the same runCode on both executors); on the shared worker the
  // program itself takes ~30 s to build and encode 36 MiB of arguments on a busy machine, so
  // this runs on the isolate-per-run executor only.
  const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 30_000 } });

  it("a flood of large tool arguments is refused past the run's budget, nothing sent", async () => {
    let received = 0;
    const upstream = () => {
      const server = new McpServer({ name: "files", version: "1.0.0" });
      server.registerTool(
        "upload",
        { description: "Stores a file.", inputSchema: z.object({ data: z.string() }) },
        async () => {
          received++;
          return { content: [{ type: "text", text: "stored" }] };
        },
      );
      return server;
    };
    const factory = codeMcpServer({
      upstream: {
        url: "http://files.local/mcp",
        headers: { authorization: AUTH },
        fetch: (url: string | URL | Request, init?: RequestInit) =>
          direct(createMcpHandler(upstream))(url, init),
      },
      executor,
      secrets: [AUTH, ECHO_SECRET],
    });
    const client = await connect(createMcpHandler(factory));
    const run = (calls: number) =>
      client.callTool({ name: "code", arguments: { code: program(calls) } });
    const first = text(await run(9));
    expect(first).toMatch(/^\[/);
    const notes = JSON.parse(first) as string[];
    const sent = notes.filter((note) => note === "sent").length;
    expect(sent).toBe(received);
    expect(sent).toBeGreaterThanOrEqual(7);
    expect(sent).toBeLessThan(9);
    for (const note of notes.slice(sent))
      expect(note).toMatch(
        new RegExp(
          `^LimitError: codemode\\.upload\\(\\) was not sent: .*${MAX_SENT_CHARS_PER_RUN} characters`,
        ),
      );
    // The next run has a budget of its own: one call of the size the first run was refused
    // (what it left of its budget cannot take one) is sent. Nine again, as before, spent ~8 s
    // more of the serial workerd chain to show the same.
    expect(JSON.parse(text(await run(1)))).toEqual(["sent"]);
    expect(received).toBe(sent + 1);
    await client.close();
  });
});
