// Hostile (issue #40): a program asks the API for an answer that never ends (an upstream that
// streams, an export, an echo of a huge request). The host read every body whole before it
// redacted it, so it held all of it for as long as the upstream sent. Now a body is read within
// `maxResponseBytes` (16 MiB by default) and a run's bodies within `maxResponseBytesPerRun`: past
// either the stream is cancelled and the program gets a LimitError saying what to do, and the
// server goes on serving. Real workerd, real executors, real client. The upstream stand-in
// counts what it was asked for (the bytes the host pulled: what it could have held), never times
// it; its streams error after a bound so a regression fails instead of hanging.
// Before the fix: the endless body ran into the stand-in's guard (the host kept reading).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer, type OpenApiMcpServerOptions } from "code-mode-mcp/codemode";
import { createMcpHandler } from "code-mode-mcp/mcp/server";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const MIB = 1_048_576;
const CHUNK = 64 * 1_024;
const TOKEN = "response-cap-token-3c9b1e";

const SPEC = {
  openapi: "3.0.3",
  info: { title: "streams", version: "1" },
  paths: {
    "/endless": { get: { operationId: "endless", responses: { 200: { description: "ok" } } } },
    "/blob": { get: { operationId: "blob", responses: { 200: { description: "ok" } } } },
    "/bytes/{size}": {
      parameters: [{ name: "size", in: "path", required: true, schema: { type: "integer" } }],
      get: { operationId: "bytes", responses: { 200: { description: "ok" } } },
    },
    "/small": { get: { operationId: "small", responses: { 200: { description: "ok" } } } },
  },
};

/** An upstream stand-in: an endless body, 1 MiB blobs and a small JSON answer, each counted. */
function upstream() {
  const seen = { pulled: 0, cancelled: 0, bodies: 0 };
  const stream = (limit: number, type?: "bytes") => {
    let sent = 0;
    seen.bodies++;
    const source = {
      // A byte stream is what a fetched body is: read a window at a time (readAtLeast).
      ...(type ? { type } : {}),
      pull(controller: ReadableStreamDefaultController<Uint8Array>) {
        // The runaway guard: far past any limit under test.
        if (sent >= Math.min(limit, 64 * MIB)) {
          if (limit === Number.POSITIVE_INFINITY)
            controller.error(new Error("runaway: the host never stopped reading"));
          else controller.close();
          return;
        }
        const size = Math.min(CHUNK, limit - sent);
        sent += size;
        seen.pulled += size;
        controller.enqueue(new Uint8Array(size).fill(0x25 + (sent % 7)));
      },
      cancel() {
        seen.cancelled++;
      },
    };
    return new ReadableStream<Uint8Array>(source as unknown as UnderlyingSource<Uint8Array>);
  };
  const handler: ApiRequestHandler = (request) => {
    const headers = { "content-type": "text/plain" };
    if (request.path === "/endless")
      return new Response(stream(Number.POSITIVE_INFINITY), { headers });
    if (request.path === "/blob") return new Response(stream(MIB), { headers });
    const size = /^\/bytes\/(\d+)$/.exec(request.path)?.[1];
    if (size !== undefined)
      return new Response(stream(size === "0" ? Number.POSITIVE_INFINITY : Number(size), "bytes"), {
        headers: { "content-type": "application/octet-stream" },
      });
    return Response.json({ fine: true });
  };
  return { handler, seen };
}

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  async function serve(options: Partial<OpenApiMcpServerOptions> = {}) {
    const api = upstream();
    const factory = openApiMcpServer({
      spec: SPEC,
      executor,
      request: api.handler,
      secrets: [TOKEN],
      ...options,
    });
    const client = await connect(createMcpHandler(factory));
    const run = (code: string) => client.callTool({ name: "execute", arguments: { code } });
    return { run, seen: api.seen, close: () => client.close() };
  }

  describe("an answer past maxResponseBytes", () => {
    it("is cancelled at the default 16 MiB, answered with a LimitError, and the server serves on", async () => {
      const { run, seen, close } = await serve();
      try {
        const caught = await run(`async () => {
  try {
    const body = await codemode.request({ method: "GET", path: "/endless" });
    return { got: typeof body, length: body.length };
  } catch (e) {
    return { name: e.name, message: e.message };
  }
}`);
        expect(caught.isError, text(caught)).toBeFalsy();
        const error = JSON.parse(text(caught)) as { name: string; message: string };
        expect(error.name).toBe("LimitError");
        expect(error.message).toMatch(/larger than the 16777216 bytes .* one response body/);
        expect(error.message).toMatch(/maxResponseBytes, MAX_RESPONSE_BYTES/);
        expect(error.message).toMatch(/Ask for less per request/);
        expect(seen.cancelled).toBe(1);
        // What the host pulled is what it could hold: the limit and a few chunks read ahead.
        expect(seen.pulled).toBeGreaterThan(16 * MIB);
        expect(seen.pulled).toBeLessThanOrEqual(16 * MIB + 4 * CHUNK);

        // Uncaught, the model reads the same message.
        const uncaught = await run(
          `async () => codemode.request({ method: "GET", path: "/endless" })`,
        );
        expect(uncaught.isError).toBe(true);
        expect(text(uncaught)).toMatch(/LimitError.*one response body/s);

        // The same server, the next run: served as before.
        const next = await run(`async () => codemode.request({ method: "GET", path: "/small" })`);
        expect(next.isError, text(next)).toBeFalsy();
        expect(JSON.parse(text(next))).toEqual({ fine: true });
      } finally {
        await close();
      }
    });

    it("follows a lower maxResponseBytes; a body under it arrives whole", async () => {
      const { run, seen, close } = await serve({ maxResponseBytes: 2 * MIB });
      try {
        const result = await run(`async () => {
  const blob = await codemode.request({ method: "GET", path: "/blob" });
  let endless;
  try {
    await codemode.request({ method: "GET", path: "/endless" });
  } catch (e) {
    endless = e.name + ": " + e.message.slice(0, 80);
  }
  return { blob: blob.length, endless };
}`);
        expect(result.isError, text(result)).toBeFalsy();
        expect(JSON.parse(text(result))).toEqual({
          blob: MIB,
          endless: expect.stringMatching(/^LimitError: .*2097152 bytes/),
        });
        expect(seen.pulled).toBeLessThanOrEqual(3 * MIB + 4 * CHUNK);
      } finally {
        await close();
      }
    });
  });

  it("reads a byte stream (a fetched body's kind) a window at a time, and cuts it at the limit", async () => {
    const { run, seen, close } = await serve({ maxResponseBytes: 3 * MIB });
    try {
      const result = await run(`async () => {
  const body = await codemode.request({ method: "GET", path: "/bytes/${3 * MIB - 5}" });
  let sum = 0;
  for (let i = 0; i < body.length; i += 4099) sum = (sum * 31 + body[i]) >>> 0;
  let endless;
  try {
    await codemode.request({ method: "GET", path: "/bytes/0" });
  } catch (e) {
    endless = e.name;
  }
  return { length: body.length, sum, endless };
}`);
      expect(result.isError, text(result)).toBeFalsy();
      // The same checksum over the bytes the stand-in sent: whole and in order.
      const sent = new Uint8Array(3 * MIB - 5);
      for (let at = 0; at < sent.length; at += CHUNK) {
        const size = Math.min(CHUNK, sent.length - at);
        sent.fill(0x25 + ((at + size) % 7), at, at + size);
      }
      let sum = 0;
      for (let i = 0; i < sent.length; i += 4099) sum = (sum * 31 + sent[i]!) >>> 0;
      expect(JSON.parse(text(result))).toEqual({
        length: 3 * MIB - 5,
        sum,
        endless: "LimitError",
      });
      expect(seen.cancelled).toBe(1);
      expect(seen.pulled).toBeLessThanOrEqual(6 * MIB + 4 * CHUNK);
    } finally {
      await close();
    }
  });

  describe("a run's answers together past maxResponseBytesPerRun", () => {
    it("a flood of concurrent requests reads at most the run's limit", async () => {
      const { run, seen, close } = await serve({ maxResponseBytesPerRun: 4 * MIB });
      try {
        const result = await run(`async () => {
  const settled = await Promise.allSettled(
    Array.from({ length: 24 }, () => codemode.request({ method: "GET", path: "/blob" })),
  );
  const names = {};
  for (const s of settled) {
    const key = s.status === "fulfilled" ? "whole " + s.value.length : s.reason.name;
    names[key] = (names[key] ?? 0) + 1;
  }
  const refused = settled.find((s) => s.status === "rejected");
  return { names, message: refused && refused.reason.message };
}`);
        expect(result.isError, text(result)).toBeFalsy();
        const { names, message } = JSON.parse(text(result)) as {
          names: Record<string, number>;
          message: string;
        };
        // 24 bodies of 1 MiB against 4 MiB: four whole at most, every other one refused.
        expect(names[`whole ${MIB}`] ?? 0).toBeLessThanOrEqual(4);
        expect((names[`whole ${MIB}`] ?? 0) + (names["LimitError"] ?? 0)).toBe(24);
        expect(message).toMatch(/4194304 bytes the host reads per run/);
        expect(message).toMatch(/read the rest in another run/);
        // What the upstream was asked for: the run's limit, and a chunk or two per body ahead.
        expect(seen.pulled).toBeLessThanOrEqual(4 * MIB + 24 * 2 * CHUNK);

        // The budget is the run's: the next run reads a body again.
        const next = await run(
          `async () => (await codemode.request({ method: "GET", path: "/blob" })).length`,
        );
        expect(next.isError, text(next)).toBeFalsy();
        expect(text(next)).toBe(String(MIB));
      } finally {
        await close();
      }
    });
  });

  it("refuses a limit out of range at start", () => {
    expect(() =>
      openApiMcpServer({
        spec: SPEC,
        executor,
        request: () => ({}),
        maxResponseBytes: 64 * MIB,
      }),
    ).toThrow(/maxResponseBytes must be a whole number of bytes from 1 to 33554432/);
  });
});
