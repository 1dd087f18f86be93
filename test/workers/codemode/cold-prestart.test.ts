/**
 * A cold `code` run (a fresh code server: nothing listed, nothing negotiated) starts loading its
 * sandbox while the upstream's tools are still being listed, instead of after: a 2026-07-28 call
 * of `code` shows no description, so its server is built without waiting for the list (issue
 * #16, P8: the cold overhead above the calls is one listing round trip, with the sandbox's
 * start-up inside it). Observed with an upstream whose `tools/list` answer is held until the
 * executor was asked to prestart (or 3 s passed, so the old order fails instead of hanging).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import type { Executor } from "../../../src/executor/types";
import { WorkerLoaderExecutor } from "../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler } from "../../../src/index";
import { connect, direct } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";
import { BLOCKED_TASKS, BLOCKED_TASKS_PROGRAM, v2Upstream } from "./fixtures";

const real = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 10_000 } });

describe("a cold code run", () => {
  it("loads its sandbox while the upstream's tools are listed", async () => {
    const events: string[] = [];
    let armed = false;
    let prestarted = () => {};
    const prestart = new Promise<void>((resolve) => (prestarted = resolve));
    const executor: Executor = {
      prestart(request) {
        events.push("prestart");
        prestarted();
        return real.prestart(request);
      },
      execute(request) {
        events.push("execute");
        return real.execute(request);
      },
    };
    const upstream = direct(createMcpHandler(v2Upstream));
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const listing = armed && (await request.clone().text()).includes('"tools/list"');
      if (listing)
        await Promise.race([prestart, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      const response = await upstream(request);
      if (listing) events.push("listed");
      return response;
    };
    // A new code server for every request: each one is as cold as a fresh isolate.
    const client = await connect({
      fetch: (request: Request) =>
        createMcpHandler(
          codeMcpServer({ upstream: { url: "http://upstream.local/mcp", fetch }, executor }),
        ).fetch(request),
    });
    armed = true;
    const result = await client.callTool({
      name: "code",
      arguments: { code: BLOCKED_TASKS_PROGRAM },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(BLOCKED_TASKS);
    expect(events).toEqual(["prestart", "listed", "execute"]);
    await client.close();
  });

  it("answers a call with an error result naming an unreachable upstream", async () => {
    let reachable = true;
    const upstream = direct(createMcpHandler(v2Upstream));
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      if (!reachable) throw new TypeError("connection refused");
      return upstream(new Request(input, init));
    };
    const client = await connect({
      fetch: (request: Request) =>
        createMcpHandler(
          codeMcpServer({ upstream: { url: "http://upstream.local/mcp", fetch }, executor: real }),
        ).fetch(request),
    });
    reachable = false;
    const result = await client.callTool({
      name: "code",
      arguments: { code: BLOCKED_TASKS_PROGRAM },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /Could not connect to the upstream MCP server at http:\/\/upstream\.local/,
    );
    await client.close();
  });

  it("still lists first for a 2025-era call (no Mcp-Method header to go by)", async () => {
    const events: string[] = [];
    const executor: Executor = {
      prestart(request) {
        events.push("prestart");
        return real.prestart(request);
      },
      execute(request) {
        events.push("execute");
        return real.execute(request);
      },
    };
    const handler = createMcpHandler(codeMcpServer({ upstream: v2Upstream(), executor }));
    const response = await handler.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "code", arguments: { code: BLOCKED_TASKS_PROGRAM } },
        }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Fix login");
    expect(events).toEqual(["execute"]);
  });
});
