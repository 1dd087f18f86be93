/**
 * Hostile programs through the real tools (issue #13, hole 1): `/mcp` search and execute over
 * the Cloudflare spec, and `/mcp/code` over an MCP upstream, each driven by a real MCP client.
 * Every program tries to reach the host bridge's stub or to push unbounded data at the host;
 * each must end in a clear, bounded tool result, and the same server must answer a normal
 * program right after.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { codeMcpServer } from "../../../src/codemode/code-mcp-server";
import { openApiMcpServer } from "../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../src/index";
import {
  HOOK_PROTOTYPES,
  PROTOTYPE_NAMES,
  TAKE_OVER_LOG_BUFFER,
} from "../executor/hostile/snippets";
import { CANARY, cloudflare, cloudflareUpstream } from "./cloudflare";
import { BLOCKED_TASKS, BLOCKED_TASKS_PROGRAM, v2Upstream } from "./fixtures";
import { connect } from "../../helpers/clients/mcp-client";
import { text } from "../../helpers/clients/tool-result";

describeExecutors((Executor) => {
  const limits = { maxLogBytes: 2_000, maxResultBytes: 4_000, maxHostCalls: 30 };
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const openApi = createMcpHandler(
    openApiMcpServer({
      spec: cloudflare,
      executor,
      request: cloudflareUpstream().handler,
      secrets: [CANARY],
      limits,
    }),
  );
  const code = createMcpHandler(codeMcpServer({ upstream: v2Upstream(), executor, limits }));

  /** Per tool: its server, a host call its programs can make, and a normal program's answer. */
  const TOOLS = {
    search: {
      handler: openApi,
      route: "http://localhost/mcp",
      hostCall: `codemode.declaration("dns-records-for-a-zone-create-dns-record")`,
      bigCall: `codemode.declaration("x".repeat(5e6))`,
      normal: `const s = await codemode.spec(); return Object.keys(s.paths).some((p) => p.startsWith("/zones/{zone_id}/dns_records"))`,
      expected: (answer: string) => expect(answer).toBe("true"),
    },
    execute: {
      handler: openApi,
      route: "http://localhost/mcp",
      hostCall: `codemode.request({ method: "GET", path: "/zones" })`,
      bigCall: `codemode.request({ method: "POST", path: "/zones", body: { name: "x".repeat(5e6) } })`,
      normal: `const r = await codemode.request({ method: "GET", path: "/zones" }); return r.result.length`,
      expected: (answer: string) => expect(answer).toBe("60"),
    },
    code: {
      handler: code,
      route: "http://localhost/mcp",
      hostCall: `codemode.list_projects({ status: "active" })`,
      bigCall: `codemode.list_projects({ status: "x".repeat(5e6) })`,
      normal: BLOCKED_TASKS_PROGRAM,
      expected: (answer: string) => expect(JSON.parse(answer)).toEqual(BLOCKED_TASKS),
    },
  } as const;
  type ToolName = keyof typeof TOOLS;

  async function call(tool: ToolName, program: string) {
    const { handler, route } = TOOLS[tool];
    const client = await connect(handler, route);
    try {
      const result = await client.callTool({ name: tool, arguments: { code: program } });
      return { isError: result.isError === true, text: text(result) };
    } finally {
      await client.close();
    }
  }

  /** The whole tool result stays small: result + logs + messages within the limits. */
  function expectBounded(answer: { text: string }): void {
    expect(answer.text.length).toBeLessThanOrEqual(
      limits.maxResultBytes + limits.maxLogBytes + 10_000,
    );
  }

  async function expectStillServing(tool: ToolName): Promise<void> {
    const answer = await call(tool, TOOLS[tool].normal);
    expect(answer.isError, answer.text).toBe(false);
    TOOLS[tool].expected(answer.text.split("\n\nConsole output:")[0]!);
  }

  describe.each(Object.keys(TOOLS) as ToolName[])("hostile programs on the %s tool", (tool) => {
    const { hostCall, bigCall } = TOOLS[tool];

    it("prototype getters on every name the harness touches find no stub", async () => {
      const answer = await call(
        tool,
        `${HOOK_PROTOTYPES}
      const hooks = hookPrototypes(${JSON.stringify(PROTOTYPE_NAMES)});
      let failure;
      try { await ${hostCall}; console.log("called"); await ${hostCall}; } catch (e) { failure = String(e && e.message) }
      hooks.restore();
      const stubs = hooks.stubs();
      for (const stub of stubs) {
        try { await stub.call("codemode", "x", "L".repeat(1e6), [{ level: "log", message: "L".repeat(1e6) }]) } catch {}
      }
      return { stubs: stubs.length, failure: failure ?? null };`,
      );
      expect(answer.isError, answer.text).toBe(false);
      expect(JSON.parse(answer.text.split("\n\nConsole output:")[0]!)).toEqual({
        stubs: 0,
        failure: null,
      });
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("a program that takes over the log buffer is held to maxLogBytes", async () => {
      const answer = await call(
        tool,
        `${TAKE_OVER_LOG_BUFFER}
      for (let i = 0; i < 30; i++) push.call(buffer, { level: "log", message: "A".repeat(1e6) });
      await ${hostCall};
      for (let i = 0; i < 30; i++) push.call(buffer, { level: "log", message: "B".repeat(1e6) });
      return "flooded";`,
      );
      expect(answer.text).toMatch(
        /^flooded\n\nConsole output:\nfirst\nA+…\[log truncated\]\n… \d+ more console lines dropped \(log limit\)$/,
      );
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("a result that tries to defeat the sandbox's byte counting comes back cut", async () => {
      // The harness counts with the engine's own encoder and accessors (sandbox/truncate.ts):
      // before, it counted this 9 KB result as 1 byte and the host refused it by its size.
      const answer = await call(
        tool,
        `TextEncoder.prototype.encode = function () { return { byteLength: 1 } };
      Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), "byteLength", { get: () => 1 });
      return "R".repeat(3000) + "é".repeat(3000);`,
      );
      expect(answer.isError).toBeFalsy();
      expect(answer.text).toMatch(
        /^R+…\[\+\d+ chars\]\n\n\[The result was 9002 bytes and was truncated/,
      );
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("an error with a 20 MB message comes back cut", async () => {
      const answer = await call(tool, `throw new Error("m".repeat(20 * 1024 * 1024))`);
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^ERROR: Error: m+…\[\+\d+ chars\]/);
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("an argument flood is refused with an error naming the limit", async () => {
      const answer = await call(tool, `await ${bigCall}`);
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(
        /^ERROR: RangeError: codemode\.\w+\(\) arguments are more than 4194304 bytes \(the limit, maxCallBytes\); encoding stopped there\. Send less data per call\./,
      );
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("a flood of concurrent host calls stops at maxHostCalls", async () => {
      const answer = await call(
        tool,
        `const all = await Promise.allSettled(Array.from({ length: 500 }, () => ${hostCall}));
      return all.filter((r) => r.status === "rejected").length;`,
      );
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/LIMIT: LimitError: Host call limit of 30 reached/);
      expectBounded(answer);
      await expectStillServing(tool);
    });

    it("replacing the globals the harness uses still ends in a bounded answer", async () => {
      const answer = await call(
        tool,
        `await ${hostCall};
      JSON.stringify = () => "x".repeat(5e6);
      JSON.parse = () => { throw new Error("no JSON") };
      Object.keys = Object.entries = () => { throw new Error("no keys") };
      Promise.prototype.then = function () { throw new Error("no then") };
      globalThis.console = null;
      return { kept: "q".repeat(100) };`,
      );
      expect(answer.isError, answer.text).toBe(false);
      expect(JSON.parse(answer.text)).toEqual({ kept: "q".repeat(100) });
      await expectStillServing(tool);
    });
  });
});
