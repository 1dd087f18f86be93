/**
 * The stateless handler's watch of a batch (src/mcp/stateless/cancel-watch.ts, issue #40): each
 * request of a batch the SDK serves is on the board; a larger body of tiny requests is not, so
 * it can neither take a timer per request nor push other clients' requests off the board.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CANCEL_BATCH_MAX_WATCHED,
  CANCEL_BOARD_MAX_ENTRIES,
  CANCEL_POLL_MS,
  cancelBoard,
} from "../../../src/mcp/common/cancel-board";
import { watchedRequest } from "../../../src/mcp/stateless/cancel-watch";

const batchOf = (count: number) =>
  Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/call" }));
const post = () => new Request("http://localhost/mcp", { method: "POST" });

describe("watchedRequest, batches", () => {
  it("watches each request of a batch the SDK serves", () => {
    const { watch } = watchedRequest(post(), batchOf(CANCEL_BATCH_MAX_WATCHED), undefined);
    expect(cancelBoard.size).toBe(CANCEL_BATCH_MAX_WATCHED);
    watch?.stop();
    expect(cancelBoard.size).toBe(0);
  });

  it("watches none of a larger batch", () => {
    const { watch } = watchedRequest(post(), batchOf(CANCEL_BATCH_MAX_WATCHED + 1), undefined);
    expect(watch).toBeUndefined();
    expect(cancelBoard.size).toBe(0);
  });
});

describe("watchedRequest, a stranger's flood (attack23)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const from = (address: string, body?: unknown) =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "cf-connecting-ip": address, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it("batches dropped by another address do not push an honest request off the board", async () => {
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call" };
    const read = from("192.0.2.10", call);
    await read.text();
    const honest = watchedRequest(read, call, undefined);
    // A stranger's batches of 100 whose POSTs are dropped: their watches never stop.
    const strangers = [];
    for (let at = 0; at < CANCEL_BOARD_MAX_ENTRIES * 2; at += CANCEL_BATCH_MAX_WATCHED) {
      const batch = batchOf(CANCEL_BATCH_MAX_WATCHED).map((message) => ({
        ...message,
        id: at + message.id,
      }));
      strangers.push(watchedRequest(from("203.0.113.7"), batch, undefined).watch);
    }
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } };
    watchedRequest(from("192.0.2.10"), cancel, undefined);
    // The flood ends before the clock moves (thousands of fake timers are slow to step).
    for (const watch of strangers) watch?.stop();
    vi.advanceTimersByTime(CANCEL_POLL_MS);
    const aborted = honest.forward.signal.aborted;
    honest.watch?.stop();
    expect(aborted).toBe(true);
    expect(cancelBoard.size).toBe(0);
  });
});
