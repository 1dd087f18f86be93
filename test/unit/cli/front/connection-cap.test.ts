/**
 * The front's connection bound, decision by decision (cli/local-server/front/connection-cap.mjs,
 * long-wait.mjs): a fake server and fake sockets, the clock injected, no network, no timing.
 */
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  callerShare,
  capConnections,
  PENDING_MS,
  PENDING_POLL_MS,
} from "../../../../cli/local-server/front/connection-cap.mjs";
import {
  callerWaitShare,
  isLongWait,
  maxWaits,
  waitsLong,
} from "../../../../cli/local-server/front/long-wait.mjs";

/** A socket the cap can watch: `destroy()` marks it and emits "close" (as Node does, later). */
class FakeSocket extends EventEmitter {
  destroyed = false;
  writableNeedDrain = false;
  destroy() {
    this.destroyed = true;
    return this;
  }
  /** The "close" Node emits after a destroy or the client's close. */
  closed() {
    this.destroyed = true;
    this.emit("close");
  }
}

/**
 * A server stand-in capped at `max` by `options`, and helpers to connect, request and answer.
 * @param callers - where `connect(key)` files the caller `key` of the socket it opens (read by
 *   `options.callerOf`, if any)
 */
function fakeServer(
  max: number,
  options: Parameters<typeof capConnections>[2],
  callers = new Map<unknown, string>(),
) {
  const server = new EventEmitter() as EventEmitter & { maxConnections?: number };
  const cap = capConnections(server as never, max, options);
  const connect = (key?: string) => {
    const socket = new FakeSocket();
    if (key !== undefined) callers.set(socket, key);
    server.emit("connection", socket);
    return socket;
  };
  /** A request on `socket` under way; the function returned ends it (its answer's "close"). */
  const request = (socket: FakeSocket) => {
    const res = new EventEmitter();
    server.emit("request", { socket }, res);
    return () => res.emit("close");
  };
  return { cap, connect, request, as: (s: FakeSocket) => s as unknown as Socket };
}

/** A server stand-in with a cap of `max` and the clock `now`. */
function capped(max: number, now = () => 0) {
  return fakeServer(max, { now });
}

describe("connection cap", () => {
  it("keeps a connection past the bound out of the idle ones (no 503/200 turns)", () => {
    // Every place holds a request under way that is never cut (a long wait).
    const { cap, connect, request, as } = capped(3);
    const busy = [connect(), connect(), connect()];
    for (const socket of busy) request(socket);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const probe = connect();
      // The probe's request is answered 503 with `Connection: close`; its socket lingers open
      // (LINGER_MS) after the answer ends. The next probe comes meanwhile.
      outcomes.push(cap.over(as(probe)) ? "503" : "200");
      request(probe)();
    }
    // Before the fix: 503, 200, 503, 200… each second probe closed the lingering one and
    // took a place that was not free.
    expect(outcomes).toEqual(["503", "503", "503", "503", "503", "503"]);
    expect(busy.some((s) => s.destroyed)).toBe(false);
  });

  it("counts places, not lingering refused sockets, and frees one when a holder closes", () => {
    const { cap, connect, request, as } = capped(2);
    const a = connect();
    const b = connect();
    request(a);
    request(b);
    const refused = connect();
    expect(cap.over(as(refused))).toBe(true);
    expect(cap.open()).toBe(3);
    a.closed();
    const next = connect();
    expect(cap.over(as(next))).toBe(false);
    expect(refused.destroyed).toBe(false);
  });

  it("closes the oldest idle connection to make room, once per new connection", () => {
    const { cap, connect, as } = capped(2);
    const a = connect();
    const b = connect();
    // Two new connections in one burst, before either closed socket's "close": one each.
    const c = connect();
    const d = connect();
    expect([a.destroyed, b.destroyed]).toEqual([true, true]);
    expect([cap.over(as(c)), cap.over(as(d))]).toEqual([false, false]);
    const e = connect();
    expect(cap.over(as(e))).toBe(false);
    expect(c.destroyed).toBe(true);
    expect(d.destroyed).toBe(false);
  });

  it("refuses the oldest body still arriving when none is idle", () => {
    const { cap, connect, request, as } = capped(1);
    const a = connect();
    request(a);
    let made = 0;
    cap.reading(as(a), () => made++);
    const b = connect();
    expect(made).toBe(1);
    expect(cap.over(as(b))).toBe(false);
  });

  it("takes the place of a client that left its answer unread for 2 s, by the clock", () => {
    let t = 0;
    const { cap, connect, request, as } = capped(1, () => t);
    const a = connect();
    request(a);
    a.writableNeedDrain = true;
    // First seen unread now: not yet.
    expect(cap.over(as(connect()))).toBe(true);
    t = 1_999;
    expect(cap.over(as(connect()))).toBe(true);
    t = 2_000;
    const c = connect();
    expect(a.destroyed).toBe(true);
    expect(cap.over(as(c))).toBe(false);
  });

  it("gives long waits 3/4 of the places: the rest stay for other clients", () => {
    expect(maxWaits(1_000)).toBe(750);
    expect(maxWaits(4)).toBe(3);
    expect(maxWaits(1)).toBe(1);
    const { cap } = capped(4);
    const given = [cap.waiting(), cap.waiting(), cap.waiting()];
    expect(given.every((g) => typeof g === "function")).toBe(true);
    expect(cap.waiting()).toBeUndefined();
    // Given back twice counts once.
    given[0]!();
    given[0]!();
    const again = cap.waiting();
    expect(again).toBeTypeOf("function");
    expect(cap.waiting()).toBeUndefined();
  });

  it("serves new clients while waits hold their whole share", () => {
    const { cap, connect, request, as } = capped(4);
    // Three waits hold their share; a fourth connection's wait is refused and it goes idle.
    for (let i = 0; i < 3; i++) {
      request(connect());
      expect(cap.waiting()).toBeTypeOf("function");
    }
    const fourth = connect();
    const end = request(fourth);
    expect(cap.waiting()).toBeUndefined();
    end();
    // A new client takes the refused wait's idle place, and so does the next one.
    for (let i = 0; i < 5; i++) {
      const probe = connect();
      expect(cap.over(as(probe))).toBe(false);
      request(probe)();
    }
  });
});

/**
 * A capped server whose connections have callers: `connect(key)` opens one of caller `key`
 * (`callers.set` re-files it: a look that came); the waits between asks for a caller held aside
 * end only on `tick()`.
 */
function cappedByCaller(max: number) {
  const callers = new Map<unknown, string>();
  const sleeping: (() => void)[] = [];
  const served = fakeServer(
    max,
    {
      callerOf: (socket) => callers.get(socket) ?? "unknown",
      sleep: () => new Promise<void>((resolve) => sleeping.push(resolve)),
    },
    callers,
  );
  /** Ends the waits asleep now, and lets what follows them run. */
  const tick = async () => {
    for (const wake of sleeping.splice(0)) wake();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    ...served,
    connect: (key: string) => served.connect(key),
    callers,
    tick,
    asleep: () => sleeping.length,
  };
}

describe("connection cap, by caller (issue #40, fair share)", () => {
  it("gives each caller half of the places, and half of the waits' share", () => {
    expect(callerShare(1_000)).toBe(500);
    expect(callerShare(1)).toBe(1);
    expect(callerWaitShare(1_000)).toBe(375);
    expect(callerWaitShare(1)).toBe(1);
  });

  it("refuses a caller holding its share instead of closing another caller's idle connection", () => {
    const { cap, connect, request, as } = cappedByCaller(4);
    const victim = connect("process:1");
    for (let i = 0; i < 3; i++) request(connect("process:2"));
    // Before: the new connection closed the oldest idle one, the victim's, and was placed.
    const fresh = connect("process:2");
    expect(victim.destroyed).toBe(false);
    expect(cap.over(as(fresh))).toBe(true);
  });

  it("lets a caller holding its share make room among its own connections", () => {
    const { cap, connect, request, as } = cappedByCaller(4);
    const victim = connect("process:1");
    const own = connect("process:2");
    for (let i = 0; i < 2; i++) request(connect("process:2"));
    const fresh = connect("process:2");
    expect(own.destroyed).toBe(true);
    expect(victim.destroyed).toBe(false);
    expect(cap.over(as(fresh))).toBe(false);
  });

  it("takes room from the caller holding the most, not the oldest", () => {
    const { cap, connect, as } = cappedByCaller(4);
    const oldest = connect("process:1");
    const most = [connect("process:2"), connect("process:2"), connect("process:2")];
    const fresh = connect("process:3");
    // Before: the oldest idle connection, the lone caller's, was closed.
    expect(oldest.destroyed).toBe(false);
    expect(most.map((s) => s.destroyed)).toEqual([true, false, false]);
    expect(cap.over(as(fresh))).toBe(false);
  });

  it("holds a new connection of a caller not known yet aside, and decides once it is known", async () => {
    const { cap, callers, connect, request, tick, as } = cappedByCaller(4);
    const victim = connect("process:1");
    for (let i = 0; i < 3; i++) request(connect("process:2"));
    // The attacker's new connection: its caller not looked up yet. Before: it closed the
    // victim's idle connection at once (every 40 ms, attack26).
    const fresh = connect("unknown");
    const decided = cap.over(as(fresh));
    expect(decided).toBeInstanceOf(Promise);
    // Its request waits for the decision; meanwhile nothing is closed.
    request(fresh);
    await tick();
    expect(victim.destroyed).toBe(false);
    callers.set(fresh, "process:2");
    await tick();
    expect(await decided).toBe(true);
    expect(victim.destroyed).toBe(false);
    expect(cap.over(as(fresh))).toBe(true);
    // An honest new caller, once known, may take the place of an idle connection.
    const honest = connect("unknown");
    const let_in = cap.over(as(honest));
    callers.set(honest, "process:3");
    await tick();
    expect(await let_in).toBe(false);
    expect(victim.destroyed).toBe(true);
  });

  it("counts a caller never known as `unknown` after its asks, and places one when room frees", async () => {
    const { cap, connect, request, tick, as } = cappedByCaller(2);
    const holders = [connect("unknown"), connect("unknown")];
    for (const holder of holders) request(holder);
    const fresh = connect("unknown");
    const decided = cap.over(as(fresh));
    for (let i = 0; i < PENDING_MS / PENDING_POLL_MS; i++) await tick();
    // `unknown` holds both places: its share; none of its own is idle.
    expect(await decided).toBe(true);
    // A place that frees while one is held aside goes to it.
    const next = connect("unknown");
    const placed = cap.over(as(next));
    holders[0]!.closed();
    await tick();
    expect(await placed).toBe(false);
  });

  it("asks for every connection held aside on one timer", async () => {
    const { cap, callers, connect, request, tick, asleep, as } = cappedByCaller(2);
    for (let i = 0; i < 2; i++) request(connect("process:1"));
    // A flood of new connections at the bound: one wake-up per ask for all, not one each.
    const flood = Array.from({ length: 50 }, () => connect("unknown"));
    expect(asleep()).toBe(1);
    for (const socket of flood) callers.set(socket, "process:1");
    await tick();
    const over = await Promise.all(flood.map((s) => cap.over(as(s))));
    expect(over.every((o) => o === true)).toBe(true);
    expect(asleep()).toBe(0);
  });

  it("gives no caller more than its share of the waits, re-filed once known", () => {
    // 8 places: 6 for waits, 3 for one caller.
    const { cap, callers, connect, as } = cappedByCaller(8);
    const a = [connect("process:1"), connect("unknown"), connect("process:1")];
    const given = a.map((s) => cap.waiting(as(s)));
    expect(given.every((g) => typeof g === "function")).toBe(true);
    // The unknown one is found to be process:1: it holds 3 already.
    callers.set(a[1], "process:1");
    expect(cap.waiting(as(connect("process:1")))).toBeNull();
    // Another caller still gets its own.
    const other = cap.waiting(as(connect("process:2")));
    expect(other).toBeTypeOf("function");
    given[0]!();
    expect(cap.waiting(as(connect("process:1")))).toBeTypeOf("function");
  });

  it("goes oldest first, as before, where no caller is named", () => {
    const { cap, connect, as } = cappedByCaller(2);
    const a = connect("");
    connect("");
    const fresh = connect("");
    expect(a.destroyed).toBe(true);
    expect(cap.over(as(fresh))).toBe(false);
  });
});

describe("long waits", () => {
  const body = (value: unknown) => Buffer.from(JSON.stringify(value));
  it("are tasks/result requests, alone or in a batch", () => {
    const wait = { jsonrpc: "2.0", id: 1, method: "tasks/result", params: { taskId: "t" } };
    expect(isLongWait(body(wait))).toBe(true);
    expect(isLongWait(body([{ jsonrpc: "2.0", id: 2, method: "tools/list" }, wait]))).toBe(true);
  });
  it("are not other requests, even naming the method elsewhere", () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { q: "tasks/result" } };
    expect(isLongWait(body(call))).toBe(false);
    expect(isLongWait(Buffer.from('{"method":"tasks/result"'))).toBe(false);
    expect(isLongWait(body({ jsonrpc: "2.0", id: 1, method: "tasks/get" }))).toBe(false);
  });
  it("are an MCP session's GET event stream too, not another GET", () => {
    const get = (url: string, accept: string) =>
      ({ method: "GET", url, headers: { accept } }) as never;
    const none = Buffer.alloc(0);
    expect(waitsLong(get("/mcp", "text/event-stream"), none)).toBe(true);
    expect(waitsLong(get("/mcp", "application/json"), none)).toBe(false);
    expect(waitsLong(get("/status", "text/event-stream"), none)).toBe(false);
    const post = { method: "POST", url: "/mcp", headers: {} } as never;
    expect(waitsLong(post, body({ jsonrpc: "2.0", id: 1, method: "tasks/result" }))).toBe(true);
    expect(waitsLong(post, body({ jsonrpc: "2.0", id: 1, method: "tools/call" }))).toBe(false);
  });
});
