/**
 * The `onRun` recorder of openApiMcpServer and codeMcpServer: one record per run, built from
 * what the run did, with no configured secret anywhere in it (program, logs, calls' errors,
 * result), bounded in size, and never able to fail the run it describes.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { captureConsole } from "../../helpers/console-capture";
import { z } from "zod";
import { describeExecutors } from "../../helpers/executor/executor-matrix";
import {
  codeMcpServer,
  createMcpHandler,
  openApiMcpServer,
  RUN_RECORD_LIMITS,
  type RunRecord,
} from "../../../src/index";
import { COMPACT_SPECS } from "../../../src/app/generated/specs";
import { modernRequest, rpcBody } from "../mcp/fixtures";

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const CANARY = `run-canary-${crypto.randomUUID()}`;

  async function settled(records: RunRecord[], count: number): Promise<RunRecord[]> {
    for (let i = 0; i < 400 && records.length < count; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(records).toHaveLength(count);
    return records;
  }

  function call(handler: ReturnType<typeof createMcpHandler>, tool: string, code: string) {
    return handler
      .fetch(modernRequest("tools/call", { name: tool, arguments: { code } }))
      .then(rpcBody);
  }

  describe("onRun records", () => {
    it("carry no configured secret from an execute run (callback answers, errors, logs, result, program)", async () => {
      const records: RunRecord[] = [];
      const handler = createMcpHandler(
        openApiMcpServer({
          spec: COMPACT_SPECS["demo-api"],
          executor,
          secrets: [CANARY],
          onRun: (record) => void records.push(record),
          request: (request) => {
            if (request.path === "/projects/2") throw new Error(`upstream refused key ${CANARY}`);
            return { status: 200, body: { echo: CANARY, path: request.path } };
          },
        }),
      );
      const body = await call(
        handler,
        "execute",
        `async () => {
        // a program that names the key: ${CANARY}
        const one = await codemode.request({ method: "GET", path: "/projects/1" });
        console.log("echo", one.echo);
        try { await codemode.request({ method: "GET", path: "/projects/2" }); } catch (e) { console.warn(e.message); }
        throw new Error("failing with " + one.echo);
      }`,
      );
      expect(body.result.isError).toBe(true);
      const [record] = await settled(records, 1);
      expect(JSON.stringify(record)).not.toContain(CANARY);
      expect(JSON.stringify(record)).toContain("[REDACTED]");
      expect(record!.outcome).toBe("error");
      expect(record!.tool).toBe("execute");
      expect(record!.calls.map((c) => [c.kind, c.ok])).toEqual([
        ["request", true],
        ["request", false],
      ]);
    });

    it("carry no configured secret from a code run (tool results and tool errors)", async () => {
      const records: RunRecord[] = [];
      const upstream = () => {
        const server = new McpServer({ name: "up", version: "1.0.0" });
        server.registerTool("whoami", { inputSchema: z.object({}) }, async () => ({
          content: [{ type: "text", text: `token ${CANARY}` }],
        }));
        server.registerTool("fail", { inputSchema: z.object({}) }, async () => ({
          content: [{ type: "text", text: `denied for ${CANARY}` }],
          isError: true,
        }));
        return server;
      };
      const handler = createMcpHandler(
        codeMcpServer({
          upstream: { server: upstream },
          executor,
          secrets: [CANARY],
          onRun: (record) => void records.push(record),
        }),
      );
      const body = await call(
        handler,
        "code",
        `async () => { let e; try { await codemode.fail({}); } catch (x) { e = x.message; } return [await codemode.whoami({}), e]; }`,
      );
      expect(body.result.isError).toBeFalsy();
      const [record] = await settled(records, 1);
      expect(JSON.stringify(record)).not.toContain(CANARY);
      expect(record!.calls).toEqual([
        expect.objectContaining({ kind: "tool", name: "fail", ok: false }),
        expect.objectContaining({ kind: "tool", name: "whoami", ok: true }),
      ]);
      expect(record!.result).toContain("[REDACTED]");
    });

    it("are bounded, and a failing recorder does not fail the run", async () => {
      const warnings = captureConsole("warn");
      const records: RunRecord[] = [];
      const handler = createMcpHandler(
        openApiMcpServer({
          spec: COMPACT_SPECS["demo-api"],
          executor,
          limits: { maxHostCalls: 400 },
          onRun: (record) => {
            records.push(record);
            throw new Error("the store is down");
          },
          request: () => ({ status: 204 }),
        }),
      );
      const padding = "x".repeat(RUN_RECORD_LIMITS.codeChars);
      const body = await call(
        handler,
        "execute",
        `async () => { const pad = "${padding}"; for (let i = 0; i < 250; i++) await codemode.request({ method: "GET", path: "/projects" }); return pad.length; }`,
      );
      expect(body.result.isError).toBeFalsy();
      const [record] = await settled(records, 1);
      await vi.waitFor(() => expect(warnings()).toContain("code-mode: onRun failed: "));
      expect(warnings()).toContain("the store is down");
      expect(record!.calls).toHaveLength(RUN_RECORD_LIMITS.calls);
      expect(record!.droppedCalls).toBe(250 - RUN_RECORD_LIMITS.calls);
      // The first and the last calls are kept; the dropped ones were between them.
      expect(record!.droppedCallsAt).toBe(RUN_RECORD_LIMITS.calls / 2);
      expect(record!.code.length).toBeLessThanOrEqual(RUN_RECORD_LIMITS.codeChars + 40);
      expect(record!.code).toMatch(
        /^async \(\) => \{ const pad = "x+\n… \[\d+ characters cut\] …\n/,
      );
      expect(record!.code).toMatch(/return pad\.length; \}$/);
      expect(record!.clipped).toBe(true);
    });

    it("is at most 64 KiB for a hostile run (long refused paths, long errors, long logs)", async () => {
      // The issue's run wrote 726,699 bytes: 220 refused requests with 500-character paths whose
      // refusals quote them, 2,000-character errors, and a long program.
      const records: RunRecord[] = [];
      const handler = createMcpHandler(
        openApiMcpServer({
          spec: COMPACT_SPECS["demo-api"],
          executor,
          limits: { maxHostCalls: 400 },
          onRun: (record) => void records.push(record),
          request: (request) => {
            throw new Error(`refused ${request.path} ${"e".repeat(3_000)}`);
          },
        }),
      );
      const padding = "y".repeat(RUN_RECORD_LIMITS.codeChars);
      const body = await call(
        handler,
        "execute",
        `async () => { const pad = "${padding}";
          for (let i = 0; i < 220; i++) {
            try { await codemode.request({ method: "GET", path: "/projects/" + i + "z".repeat(500) }); }
            catch (e) { console.log(e.message.slice(0, 400)); }
          }
          throw new Error("done " + "m".repeat(5000)); }`,
      );
      expect(body.result.isError).toBe(true);
      const [record] = await settled(records, 1);
      const bytes = new TextEncoder().encode(JSON.stringify(record)).byteLength;
      expect(bytes).toBeLessThanOrEqual(RUN_RECORD_LIMITS.recordBytes);
      expect(record!.calls.length + record!.droppedCalls).toBe(220);
      const paths = record!.calls.map((c) => (c.kind === "request" ? c.path : ""));
      expect(paths[0]).toMatch(/^\/projects\/0z/);
      expect(paths.at(-1)).toMatch(/^\/projects\/219z/);
      expect(record!.code).toMatch(/^async \(\) => \{ const pad/);
      expect(record!.code).toMatch(/"m"\.repeat\(5000\)\); \}$/);
      expect(record!.clipped).toBe(true);
    });
  });
});
