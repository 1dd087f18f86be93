/**
 * The stateless lane's cancel board (src/mcp/common/cancel-board.ts, issue #40): a
 * `notifications/cancelled` served by another POST's server than its request's reaches that
 * request, only one of the same caller and address, and leaves nothing behind.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CANCEL_BOARD_MAX_ENTRIES,
  CANCEL_ENTRY_MAX_MS,
  CANCEL_KEY_MAX_CHARS,
  CANCEL_LEASE_MS,
  CANCEL_POLL_MS,
  CancelBoard,
  cancelKey,
  cancelledIds,
  requestIdOf,
  watchCancel,
} from "../../../src/mcp/common/cancel-board";

describe("CancelBoard", () => {
  it("marks a request in flight under its key, and only that one", () => {
    const board = new CancelBoard();
    const mine = board.enter(cancelKey("user:a", "10.0.0.1", 3));
    const otherCaller = board.enter(cancelKey("user:b", "10.0.0.1", 3));
    const otherAddress = board.enter(cancelKey("user:a", "10.0.0.2", 3));
    const stringId = board.enter(cancelKey("user:a", "10.0.0.1", "3"));
    expect(board.cancel(cancelKey("user:a", "10.0.0.1", 3))).toBe(true);
    expect(mine.cancelled()).toBe(true);
    for (const other of [otherCaller, otherAddress, stringId])
      expect(other.cancelled()).toBe(false);
  });

  it("keeps nothing for a cancel of no request in flight, nor once its requests left", () => {
    const board = new CancelBoard();
    expect(board.cancel(cancelKey("", "", 1))).toBe(false);
    expect(board.size).toBe(0);
    const first = board.enter(cancelKey("", "", 1));
    const second = board.enter(cancelKey("", "", 1));
    first.leave();
    first.leave();
    expect(board.size).toBe(1);
    second.leave();
    expect(board.size).toBe(0);
  });

  it("a cancel reaches the requests in flight when it came, not a later one with that id", () => {
    const board = new CancelBoard();
    const key = cancelKey("", "", 7);
    const before = board.enter(key);
    board.cancel(key);
    const later = board.enter(key);
    expect(before.cancelled()).toBe(true);
    expect(later.cancelled()).toBe(false);
  });

  it("cancelAll marks the requests under a prefix (a session that ended), and only those", () => {
    const board = new CancelBoard();
    const a1 = board.enter('["a",1]');
    const a2 = board.enter('["a","x"]');
    const b1 = board.enter('["b",1]');
    expect(board.cancelAll('["a",')).toBe(2);
    expect([a1.cancelled(), a2.cancelled(), b1.cancelled()]).toEqual([true, true, false]);
  });

  it("lets go of entries whose POST never left (its context dropped)", () => {
    let now = 1_000_000;
    const board = new CancelBoard(() => now);
    board.enter(cancelKey("", "", 1));
    expect(board.size).toBe(1);
    now += CANCEL_ENTRY_MAX_MS + 1;
    board.enter(cancelKey("", "", 2));
    expect(board.size).toBe(1);
  });
});

describe("a watched request's entry, held while its POST lives (issue #40)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is let go within CANCEL_LEASE_MS once its POST's timers stop (workerd dropped it)", () => {
    vi.useFakeTimers();
    const board = new CancelBoard();
    const watch = watchCancel(board, cancelKey("", "127.0.0.1", 1), undefined, "local");
    // Its POST lives: its poll renews it, however long the run takes.
    vi.advanceTimersByTime(CANCEL_LEASE_MS * 4);
    board.enter(cancelKey("", "127.0.0.1", "probe")).leave();
    expect(board.size).toBe(1);
    // The client cut its request off: workerd cancels the POST's timers, and `stop()` never
    // comes. Before, the entry stayed for CANCEL_ENTRY_MAX_MS (an hour).
    // (clearAllTimers also sets the fake clock back to its start: the time is set again.)
    const at = Date.now();
    vi.clearAllTimers();
    vi.setSystemTime(at + CANCEL_LEASE_MS + 1);
    board.enter(cancelKey("", "127.0.0.1", "probe")).leave();
    expect(board.size).toBe(0);
    expect(watch.signal.aborted).toBe(false);
  });

  it("keeps an entry no POST renews (a board's own callers) until CANCEL_ENTRY_MAX_MS", () => {
    let now = 1_000_000;
    const board = new CancelBoard(() => now);
    board.enter(cancelKey("", "", 1));
    now += CANCEL_LEASE_MS + CANCEL_POLL_MS;
    board.enter(cancelKey("", "", 2)).leave();
    expect(board.size).toBe(1);
  });
});

describe("a board a client tries to fill", () => {
  it("holds no entry for a client's megabyte id (a dropped POST kept it for an hour)", () => {
    const board = new CancelBoard();
    const key = cancelKey("", "203.0.113.9", "x".repeat(4 * 1024 * 1024));
    const held = board.enter(key);
    expect(board.size).toBe(0);
    expect(board.cancel(key)).toBe(false);
    expect(held.cancelled()).toBe(false);
    held.leave();
    // An ordinary id is still watched.
    const short = cancelKey("", "203.0.113.9", "y".repeat(64));
    expect(short.length).toBeLessThanOrEqual(CANCEL_KEY_MAX_CHARS);
    const watched = board.enter(short);
    expect(board.cancel(short)).toBe(true);
    expect(watched.cancelled()).toBe(true);
  });

  it("stays bounded under requests whose POSTs never leave, letting the oldest go", () => {
    const board = new CancelBoard(() => 1_000_000);
    const first = board.enter(cancelKey("", "198.51.100.1", 0));
    for (let id = 1; id < CANCEL_BOARD_MAX_ENTRIES * 3; id++)
      board.enter(cancelKey("", "198.51.100.1", id));
    expect(board.size).toBe(CANCEL_BOARD_MAX_ENTRIES);
    // The newest are the ones still cancellable; the oldest was let go, and leaving it later
    // does not take a newer entry with it.
    const newest = cancelKey("", "198.51.100.1", CANCEL_BOARD_MAX_ENTRIES * 3 - 1);
    expect(board.cancel(cancelKey("", "198.51.100.1", 0))).toBe(false);
    first.leave();
    expect(board.size).toBe(CANCEL_BOARD_MAX_ENTRIES);
    expect(board.cancel(newest)).toBe(true);
  });
});

describe("a board a stranger fills (attack23)", () => {
  it("lets go of the largest owner's oldest entries, never a smaller owner's", () => {
    const board = new CancelBoard(() => 1_000_000);
    const honest = cancelKey("user:honest", "10.0.0.1", 1);
    const held = board.enter(honest, "user:honest@10.0.0.1");
    // A stranger's requests whose POSTs are dropped as soon as sent (never left): cheap, and
    // before, every 4,096 of them pushed every other caller's request off the board.
    for (let id = 0; id < CANCEL_BOARD_MAX_ENTRIES * 3; id++)
      board.enter(cancelKey("", "203.0.113.7", id), "@203.0.113.7");
    expect(board.size).toBe(CANCEL_BOARD_MAX_ENTRIES);
    expect(board.cancel(honest)).toBe(true);
    expect(held.cancelled()).toBe(true);
    // The stranger keeps its newest.
    expect(board.cancel(cancelKey("", "203.0.113.7", CANCEL_BOARD_MAX_ENTRIES * 3 - 1))).toBe(true);
  });

  it("a stranger of many owners with one entry each pushes off the oldest, as before", () => {
    const board = new CancelBoard(() => 1_000_000);
    const first = board.enter("a", "owner-a");
    board.enter("b1", "owner-b");
    board.enter("b2", "owner-b");
    for (let id = 0; id < CANCEL_BOARD_MAX_ENTRIES - 3; id++) board.enter(`c${id}`, `c${id}`);
    expect(board.size).toBe(CANCEL_BOARD_MAX_ENTRIES);
    // Full: owner-b holds the most, so its oldest goes, not owner-a's older entry.
    board.enter("d", "owner-d");
    expect(board.cancel("b1")).toBe(false);
    expect(board.cancel("a")).toBe(true);
    expect(first.cancelled()).toBe(true);
    // Ties: the oldest entry among the largest owners goes.
    board.enter("e", "owner-e");
    expect(board.cancel("a")).toBe(false);
    expect(board.size).toBe(CANCEL_BOARD_MAX_ENTRIES);
  });

  it("counts only the entries an owner still holds (a left entry frees its share)", () => {
    const board = new CancelBoard(() => 1_000_000);
    const left = [board.enter("m0", "me"), board.enter("m1", "me")];
    board.enter("m2", "me");
    for (const each of left) each.leave();
    board.enter("o0", "other");
    board.enter("o1", "other");
    for (let id = 0; board.size < CANCEL_BOARD_MAX_ENTRIES; id++) board.enter(`s${id}`, `s${id}`);
    // "other" holds two, "me" one: "other" pays.
    board.enter("late", "late");
    expect(board.cancel("o0")).toBe(false);
    expect(board.cancel("m2")).toBe(true);
  });
});

describe("what a body cancels and carries", () => {
  it("reads the ids of notifications/cancelled, alone or in a batch", () => {
    const cancel = (requestId: unknown) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId },
    });
    expect(cancelledIds(cancel(4))).toEqual([4]);
    expect(cancelledIds([cancel("a"), { method: "ping", id: 1 }, cancel(5)])).toEqual(["a", 5]);
    expect(cancelledIds(cancel({ no: 1 }))).toEqual([]);
    expect(cancelledIds({ method: "notifications/cancelled" })).toEqual([]);
    expect(cancelledIds(undefined)).toEqual([]);
  });

  it("knows a single request's id, not a notification's, a batch's or a response's", () => {
    expect(requestIdOf({ jsonrpc: "2.0", id: 9, method: "tools/call" })).toBe(9);
    expect(requestIdOf({ jsonrpc: "2.0", id: "x", method: "tools/call" })).toBe("x");
    expect(requestIdOf({ jsonrpc: "2.0", method: "notifications/cancelled" })).toBeUndefined();
    expect(requestIdOf([{ jsonrpc: "2.0", id: 9, method: "tools/call" }])).toBeUndefined();
    expect(requestIdOf({ jsonrpc: "2.0", id: 9, result: {} })).toBeUndefined();
  });
});

describe("watchCancel", () => {
  it("aborts with the request's own signal, and leaves the board then", () => {
    const board = new CancelBoard();
    const own = new AbortController();
    const watch = watchCancel(board, cancelKey("", "", 1), own.signal);
    expect(board.size).toBe(1);
    expect(watch.signal.aborted).toBe(false);
    own.abort();
    expect(watch.signal.aborted).toBe(true);
    expect(board.size).toBe(0);
  });

  it("leaves the board when stopped", () => {
    const board = new CancelBoard();
    const watch = watchCancel(board, cancelKey("", "", 1), undefined);
    watch.stop();
    expect(board.size).toBe(0);
    expect(watch.signal.aborted).toBe(false);
  });
});
