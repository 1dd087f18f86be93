/**
 * The sessionful lanes' cancel relay (src/mcp/sessions/legacy/cancel-relay.ts, issue #40): a
 * cancel, or the session's end, served by another server than its request's is handed to the
 * request's own server, under the id that server knows it by, and never to another session's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CANCEL_BATCH_MAX_WATCHED,
  CANCEL_BOARD_MAX_ENTRIES,
  CANCEL_KEY_MAX_CHARS,
  CANCEL_POLL_MS,
} from "../../../src/mcp/common/cancel-board";
import {
  markCancels,
  markSessionEnded,
  relayCancels,
  sessionCancelBoard,
  sessionKeyPrefix,
} from "../../../src/mcp/sessions/legacy/cancel-relay";

const call = (id: string | number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: {} });
const cancelOf = (requestId: string | number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId },
});

/** The requests a relay handed its server a cancel for. */
function relayed(prefix: string, original: unknown, sent: unknown = original, owner = "") {
  const cancelled: unknown[] = [];
  const relay = relayCancels(
    prefix,
    original,
    sent,
    (message) => cancelled.push((message as { params: { requestId: unknown } }).params.requestId),
    owner,
  );
  return { cancelled, relay };
}

describe("session cancel relay", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("hands a cancel of a request to the server serving it, under the id it got", async () => {
    const session = await sessionKeyPrefix("session-a");
    const other = await sessionKeyPrefix("session-b");
    const mine = relayed(session, [call(1), call(2)], [call("alias-of-1"), call(2)]);
    const theirs = relayed(other, call(1));
    markCancels(session, cancelOf(1));
    vi.advanceTimersByTime(CANCEL_POLL_MS);
    expect(mine.cancelled).toEqual(["alias-of-1"]);
    expect(theirs.cancelled).toEqual([]);
    mine.relay.stop();
    theirs.relay.stop();
    expect(sessionCancelBoard.size).toBe(0);
  });

  it("a session's end cancels every request of it, and no other session's", async () => {
    const session = await sessionKeyPrefix("session-c");
    const other = await sessionKeyPrefix("session-d");
    const first = relayed(session, call(1));
    const second = relayed(session, call("two"));
    const theirs = relayed(other, call(1));
    markSessionEnded(session);
    vi.advanceTimersByTime(CANCEL_POLL_MS);
    expect([first.cancelled, second.cancelled, theirs.cancelled]).toEqual([[1], ["two"], []]);
    for (const each of [first, second, theirs]) each.relay.stop();
  });

  it("keys a session by a digest: an id carrying a whole initialize record is still watched", async () => {
    const session = await sessionKeyPrefix(`uuid.${"r".repeat(4 * CANCEL_KEY_MAX_CHARS)}`);
    expect(session.length).toBeLessThan(100);
    const { cancelled, relay } = relayed(session, call(9));
    markCancels(session, [cancelOf(9)]);
    vi.advanceTimersByTime(CANCEL_POLL_MS);
    expect(cancelled).toEqual([9]);
    relay.stop();
  });

  it("watches no request of a batch larger than the SDK serves (a body of tiny requests)", async () => {
    const session = await sessionKeyPrefix("session-f");
    const batch = Array.from({ length: CANCEL_BATCH_MAX_WATCHED + 1 }, (_, id) => call(id));
    const { relay } = relayed(session, batch);
    expect(sessionCancelBoard.size).toBe(0);
    relay.stop();
    const { relay: largest } = relayed(session, batch.slice(1));
    expect(sessionCancelBoard.size).toBe(CANCEL_BATCH_MAX_WATCHED);
    largest.stop();
  });

  it("a stranger's sessions, flooding the board, do not push an honest request off (attack23)", async () => {
    const honest = await sessionKeyPrefix("session-honest");
    const mine = relayed(honest, call(1), call(1), '["","192.0.2.10"]');
    // Sessions cost a stranger one initialize each: a session is not an owner of its own.
    const floods = [];
    for (let n = 0; n < (CANCEL_BOARD_MAX_ENTRIES * 2) / CANCEL_BATCH_MAX_WATCHED; n++) {
      const batch = Array.from({ length: CANCEL_BATCH_MAX_WATCHED }, (_, id) => call(id));
      const prefix = await sessionKeyPrefix(`stranger-${n}`);
      floods.push(relayed(prefix, batch, batch, '["","203.0.113.7"]').relay);
    }
    markCancels(honest, cancelOf(1));
    // The flood ends before the clock moves (thousands of fake timers are slow to step).
    for (const relay of floods) relay.stop();
    vi.advanceTimersByTime(CANCEL_POLL_MS);
    mine.relay.stop();
    expect(mine.cancelled).toEqual([1]);
    expect(sessionCancelBoard.size).toBe(0);
  });

  it("stops watching once the answer is sent", async () => {
    const session = await sessionKeyPrefix("session-e");
    const { relay } = relayed(session, call(1));
    expect(sessionCancelBoard.size).toBe(1);
    await relay.answered(new Response("done")).text();
    expect(sessionCancelBoard.size).toBe(0);
  });
});
