/**
 * The stateless handler's watch of a batch (src/mcp/stateless/cancel-watch.ts, issue #40): each
 * request of a batch the SDK serves is on the board; a larger body of tiny requests is not, so
 * it can neither take a timer per request nor push other clients' requests off the board.
 */
import { describe, expect, it } from "vitest";
import { CANCEL_BATCH_MAX_WATCHED, cancelBoard } from "../../../src/mcp/common/cancel-board";
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
