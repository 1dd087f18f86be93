// A `notifications/cancelled` on the stateless lane reaches its request although another POST's
// server serves it (src/mcp/common/cancel-board.ts, issue #40): before, that server knew no
// such request and the SDK dropped the cancel, so a cancelled run went on until its timeout.
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { createMcpHandler } from "../../../src/index";
import { CANCEL_POLL_MS } from "../../../src/mcp/common/cancel-board";
import { legacyRequest } from "./fixtures";

/** How long a tool waits for its cancel before it answers anyway (the test's guard). */
const GUARD_MS = CANCEL_POLL_MS * 8;

/**
 * A server whose `wait` tool answers whether its request's signal aborted within the guard
 * (`seen.aborted` for the last call; `seen.byId` by request id).
 */
function waitingServer(seen: { aborted: boolean; started: number; byId?: Map<unknown, boolean> }) {
  const server = new McpServer({ name: "cancel-fixture", version: "1.0.0" });
  server.registerTool("wait", { description: "Waits for its cancel" }, async (ctx) => {
    seen.started++;
    const signal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      const guard = setTimeout(resolve, GUARD_MS);
      signal.addEventListener("abort", () => (clearTimeout(guard), resolve()), { once: true });
    });
    seen.aborted = signal.aborted;
    seen.byId?.set(ctx.mcpReq.id, signal.aborted);
    return { content: [{ type: "text", text: signal.aborted ? "aborted" : "not aborted" }] };
  });
  return server;
}

const callWait = (id: number, address: string) =>
  legacyRequest(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: {} } },
    { "cf-connecting-ip": address },
  );
const cancelOf = (id: number, address: string) =>
  legacyRequest(
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } },
    { "cf-connecting-ip": address },
  );

describe("stateless lane: notifications/cancelled in a POST of its own", () => {
  it("aborts the request it names, served by another POST", async () => {
    const seen = { aborted: false, started: 0 };
    const handler = createMcpHandler(() => waitingServer(seen));
    const call = handler.fetch(callWait(41, "10.1.1.1"));
    while (seen.started === 0) await new Promise((r) => setTimeout(r, 5));
    const cancelled = await handler.fetch(cancelOf(41, "10.1.1.1"));
    expect(cancelled.status).toBe(202);
    // An event stream answers at once: the tool is done once the stream is.
    await (await call).text();
    expect(seen.aborted).toBe(true);
  });

  it("does not abort another caller's request with the same id", async () => {
    const seen = { aborted: false, started: 0 };
    const handler = createMcpHandler(() => waitingServer(seen));
    const call = handler.fetch(callWait(42, "10.1.1.1"));
    while (seen.started === 0) await new Promise((r) => setTimeout(r, 5));
    await handler.fetch(cancelOf(42, "10.9.9.9"));
    // An event stream answers at once: the tool is done once the stream is.
    await (await call).text();
    expect(seen.aborted).toBe(false);
  });
});

describe("stateless lane: requests in a JSON-RPC batch (2025-03-26)", () => {
  it("a cancel in a POST of its own aborts the member it names, and no other", async () => {
    const seen = { aborted: false, started: 0, byId: new Map<unknown, boolean>() };
    const handler = createMcpHandler(() => waitingServer(seen));
    const member = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "wait", arguments: {} },
    });
    const batch = handler.fetch(
      legacyRequest([member(51), member(52)], {
        "cf-connecting-ip": "10.1.1.1",
        "mcp-protocol-version": "2025-03-26",
      }),
    );
    while (seen.started < 2) await new Promise((r) => setTimeout(r, 5));
    const cancelled = await handler.fetch(cancelOf(51, "10.1.1.1"));
    expect(cancelled.status).toBe(202);
    // The stream ends once both are answered: the cancelled one with an error (cancel-watch.ts).
    const answers = (await (await batch).text())
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)) as { id?: unknown; error?: unknown });
    expect(Object.fromEntries(seen.byId)).toEqual({ 51: true, 52: false });
    expect(answers.map((answer) => [answer.id, answer.error !== undefined])).toEqual([
      [51, true],
      [52, false],
    ]);
  });
});

describe("stateless lane: a cancel of a batch member already answered (attack23)", () => {
  it("leaves its answer alone: no second response for the id on the batch's stream", async () => {
    const seen = { aborted: false, started: 0 };
    const handler = createMcpHandler(() => {
      const server = waitingServer(seen);
      server.registerTool("quick", { description: "Answers at once" }, async () => ({
        content: [{ type: "text", text: "quick" }],
      }));
      return server;
    });
    const member = (id: number, name: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: {} },
    });
    const batch = await handler.fetch(
      legacyRequest([member(61, "wait"), member(62, "quick")], {
        "cf-connecting-ip": "10.1.1.2",
        "mcp-protocol-version": "2025-03-26",
      }),
    );
    // Read until the quick member is answered (its sibling waits GUARD_MS: the stream is open).
    const reader = batch.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes('"id":62')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    // The client cancels it as (or just after) it was answered: a race every client can lose.
    expect((await handler.fetch(cancelOf(62, "10.1.1.2"))).status).toBe(202);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const answers = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5)) as { id?: unknown; error?: unknown });
    // Before, the batch's POST answered 62 a second time, with an error, ~250 ms later: a client
    // that had reused 62 for a new request would have taken that error as its answer.
    expect(answers.filter((answer) => answer.id === 62)).toHaveLength(1);
    expect(answers.map((answer) => Number(answer.id)).toSorted((a, b) => a - b)).toEqual([61, 62]);
  });
});
