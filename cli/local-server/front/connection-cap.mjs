/**
 * The front's bound on connections open at once (`FRONT_MAX_CONNECTIONS`). The body budget
 * bounds what the connections' bodies hold (body/budget.mjs), but each connection costs a
 * socket, a file descriptor and an HTTP parser too, and a client could open them without end
 * until the process ran out of descriptors, after which no client could connect at all.
 *
 * At the bound, a new connection first takes the place of the oldest connection that has no
 * request under way (it has sent none yet, or sits idle between two): that one is closed. Such
 * connections hold nothing, and one local process opening the bound's worth of sockets that
 * never send a request locked every client out (`503`) for ~30 s a round, with no key (issue
 * #40 review). With none idle, the oldest connection whose request's body is still arriving
 * makes room: its request is refused (`408`, request-body.mjs) and the connection closed. A
 * local client sends its body in milliseconds, so one still arriving when the bound is reached
 * is a slow one: ~1,000 requests trickling their bodies a byte at a time held every place for
 * the front's whole body time (10 s) and locked every other client out meanwhile (issue #40
 * review). Then the oldest connection whose client has not read its answer for
 * {@link NOT_READING_MS} (the answer waits in the front, more than the system takes): a client
 * that never reads held its place for good, and ~1,000 such connections locked every other
 * client out for as long as they stayed open (attackf review). Any other request whose body was
 * read whole (its runtime serves it) is never cut. Only when every connection has one is the new
 * connection past the bound: it is still accepted, and its
 * first request is answered at once (`503 server_busy`, `Retry-After: 1`, then closed), from its
 * headers, its body unread: a client hears why instead of seeing its connection reset. Past
 * twice the bound, Node drops new connections unanswered (`server.maxConnections`).
 *
 * A request that waits long by design (MCP `tasks/result`, long-wait.mjs) is never cut either,
 * but such requests together hold at most {@link maxWaits} places: one past that is refused at
 * once (`503 server_busy`, in JSON-RPC, `Retry-After: 1`), so the rest of the places stay for
 * requests that end by themselves and for idle connections a new client may take.
 *
 * Each caller (the local process at the other end, callers/peer-owners.mjs) gets a share of the
 * places ({@link callerShare}) and of the waits ({@link callerWaitShare}) (issue #40, "fair
 * share"): one process that held 750 waits and opened a new connection every 40 ms closed, each
 * time, the oldest idle connection, another process's kept alive between two requests, and 76 of
 * that process's 165 searches got `503` (attack26). At the bound, a caller holding its share
 * already makes room among its own connections only, else it is refused (the same `503`); a
 * caller under its share takes the place of the caller holding the most (its oldest idle one,
 * else body arriving, else unread answer). A new connection's caller is not known yet when it
 * comes (its look comes within ~200 ms): at the bound it is held aside, neither placed nor
 * refused, until its caller is known (at most {@link PENDING_MS}; then it counts as `unknown`), and
 * its first request waits for that. Where no caller can be named (`""`: no /proc), everything
 * goes as before, oldest first.
 */
import { systemClock } from "../clock.mjs";
import { UNKNOWN } from "./callers/peer-owners.mjs";
import { callerWaitShare, maxWaits } from "./long-wait.mjs";

/**
 * Connections open at once when the front is given no bound: the settings table's default for
 * `FRONT_MAX_CONNECTIONS` (src/app/config/launcher-settings.ts; a unit test keeps them equal).
 */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/**
 * How long a connection's client may leave its answer unread (more of it waiting in the front
 * than the system takes) before, at the bound, its place goes to a new connection. A local
 * client that reads at all drains its answer in milliseconds.
 */
export const NOT_READING_MS = 2_000;
/**
 * The most places of the bound one caller holds before, at the bound, it may make room among its
 * own connections only: half of them, so one process never takes the others' idle connections.
 * @param {number} max
 * @returns {number}
 */
export function callerShare(max) {
  return Math.max(1, Math.floor(max / 2));
}
/** The longest a new connection at the bound is held aside while its caller is looked up. */
export const PENDING_MS = 1_000;
/** How often a connection held aside asks whether its caller is known. */
export const PENDING_POLL_MS = 25;

/**
 * The front's view of its connections (see {@link capConnections}).
 * @typedef {object} ConnectionCap
 * @property {(socket: import("node:net").Socket) => boolean | Promise<boolean>} over - whether
 *   the connection came past the bound (its requests get 503); a promise while it is held aside
 *   until its caller is known
 * @property {() => number} open - connections open now (those past the bound too)
 * @property {(socket: import("node:net").Socket, makeRoom: () => void) => () => void} reading -
 *   says that the connection's request body is arriving; `makeRoom` is called (once) when a new
 *   connection needs its place (it must refuse the request and close the connection); the
 *   function returned says the body is read (or refused): the connection may no longer be
 *   taken for room
 * @property {(socket?: import("node:net").Socket) => (() => void) | null | undefined} waiting - asks a
 *   place in the long waits' share ({@link maxWaits}, long-wait.mjs) for a request that waits
 *   long (a `tasks/result`) on `socket`; the function returned gives it back when the request
 *   ends; `undefined`: the share is full; `null`: its caller holds its own share of it
 *   ({@link callerWaitShare}); either way the request must be refused (retryable)
 */

/**
 * Counts `server`'s open connections, closes the oldest idle one (else refuses the oldest body
 * still arriving) to make room at the bound, and marks each one accepted past it.
 * @param {import("node:http").Server} server
 * @param {number} max
 * @param {object} [options]
 * @param {() => number} [options.now] - the clock that times unread answers (tests)
 * @param {(ms: number) => Promise<void>} [options.sleep] - waits between asks for the caller of
 *   a connection held aside (tests)
 * @param {(socket: import("node:net").Socket) => string} [options.callerOf] - the caller of a
 *   connection (callers/peer-owners.mjs `of`); default none named (`""`): oldest first
 * @returns {ConnectionCap}
 */
export function capConnections(
  server,
  max,
  { now = Date.now, sleep = systemClock.sleep, callerOf = () => "" } = {},
) {
  /** @type {WeakSet<import("node:net").Socket>} */
  const past = new WeakSet();
  /**
   * Connections with no request under way, oldest idle first (a Map keeps insertion order).
   * Never one past the bound: such a connection holds no place, so closing it makes none. It
   * lingers ~2 s after its `503` (cut-off-reply.mjs LINGER_MS); while it was listed here, the
   * next new connection closed it and took a place that was not free, so new clients got 503
   * and 200 in strict turns and the bound was passed by one each time (attack10 review).
   * @type {Map<import("node:net").Socket, true>}
   */
  const idle = new Map();
  /**
   * Connections whose request body is arriving, oldest first, each with what makes room.
   * @type {Map<import("node:net").Socket, () => void>}
   */
  const arriving = new Map();
  /** Connections upgraded (a WebSocket): under way for as long as they last. @type {WeakSet<import("node:net").Socket>} */
  const upgraded = new WeakSet();
  /** @type {WeakMap<import("node:net").Socket, number>} requests under way per connection */
  const underWay = new WeakMap();
  /**
   * Every connection that holds a place (not past the bound), oldest first; one closed to make
   * room leaves it at once, before its "close" event, so a burst of new connections closes one
   * each. @type {Set<import("node:net").Socket>}
   */
  const placed = new Set();
  /**
   * Connections seen at the bound with their answer unread, since when (a "drain" forgets one).
   * @type {Map<import("node:net").Socket, number>}
   */
  const unread = new Map();
  /**
   * Long waits under way (requests given a place in the waits' share), each with its connection:
   * its caller is read again at each count (re-filed once known).
   * @type {Set<{ socket?: import("node:net").Socket }>}
   */
  const waitsHeld = new Set();
  const waitsMax = maxWaits(max);
  const callerWaitsMax = callerWaitShare(max);
  /**
   * Connections whose client has left its answer unread for NOT_READING_MS, oldest first (each
   * one seen unread is timed from now).
   */
  const notReading = () => {
    const at = now();
    /** @type {import("node:net").Socket[]} */
    const found = [];
    for (const socket of placed) {
      if (!socket.writableNeedDrain) continue;
      const since = unread.get(socket);
      if (since === undefined) unread.set(socket, at);
      else if (at - since >= NOT_READING_MS) found.push(socket);
    }
    return found;
  };
  /** @param {import("node:net").Socket} socket */
  const evict = (socket) => {
    placed.delete(socket);
    idle.delete(socket);
    arriving.delete(socket);
  };
  const share = callerShare(max);
  /**
   * Places per caller now. Read again each time, so a connection counted under `unknown` when
   * it came counts under its own caller once known.
   */
  const placesByCaller = () => {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const socket of placed) {
      const caller = callerOf(socket);
      counts.set(caller, (counts.get(caller) ?? 0) + 1);
    }
    return counts;
  };
  /**
   * The connection of `pool` (oldest first) to take room from: `only`'s oldest when given, else
   * the oldest of the caller holding the most places (with no counts: the oldest).
   * @param {Iterable<import("node:net").Socket>} pool
   * @param {Map<string, number>} counts
   * @param {string | undefined} only
   */
  const pick = (pool, counts, only) => {
    /** @type {import("node:net").Socket | undefined} */
    let best;
    let most = -1;
    for (const socket of pool) {
      if (only !== undefined) {
        if (callerOf(socket) === only) return socket;
        continue;
      }
      const held = counts.size === 0 ? 0 : (counts.get(callerOf(socket)) ?? 0);
      if (held > most) {
        best = socket;
        most = held;
      }
    }
    return best;
  };
  /**
   * Makes a place for a new connection of `caller`, at the bound: closes an idle connection,
   * else refuses a body still arriving, else drops an unread answer. A caller holding its share
   * takes from its own only; `""` (no caller named) takes the oldest, as before callers.
   * @param {string} caller
   * @returns {boolean} whether a place was made
   */
  const roomFor = (caller) => {
    const counts = caller === "" ? new Map() : placesByCaller();
    const only = (counts.get(caller) ?? 0) >= share ? caller : undefined;
    const oldest = pick(idle.keys(), counts, only);
    if (oldest) {
      evict(oldest);
      oldest.destroy();
      return true;
    }
    const slowest = pick(arriving.keys(), counts, only);
    const refuse = slowest && arriving.get(slowest);
    if (slowest && refuse) {
      evict(slowest);
      refuse();
      return true;
    }
    const stuck = pick(notReading(), counts, only);
    if (stuck) {
      evict(stuck);
      stuck.destroy();
      return true;
    }
    return false;
  };
  /** @param {import("node:net").Socket} socket */
  const place = (socket) => {
    placed.add(socket);
    // Idle unless its first request came while it was held aside (and is still under way).
    if (!underWay.get(socket) && !upgraded.has(socket)) idle.set(socket, true);
    socket.on("drain", () => unread.delete(socket));
  };
  /**
   * Connections held aside at the bound until their caller is known: whether each ends past the
   * bound. @type {WeakMap<import("node:net").Socket, Promise<boolean>>}
   */
  const aside = new WeakMap();
  /**
   * Those still waiting for their caller, with the asks made and what tells the decision.
   * @type {Map<import("node:net").Socket, { asks: number, decide: (over: boolean) => void }>}
   */
  const asking = new Map();
  /** @param {import("node:net").Socket} socket @param {string} caller @returns {boolean} past */
  const decide = (socket, caller) => {
    if (socket.destroyed) return true;
    if (placed.size < max || roomFor(caller)) {
      place(socket);
      return false;
    }
    past.add(socket);
    return true;
  };
  /**
   * One ask for every connection held aside per PENDING_POLL_MS, on one timer: a flood held
   * aside (up to the bound's worth, Node drops more) costs one wake-up per ask, not one each.
   * Asks are counted, not timed: a clock the tests hold still never spins this for good.
   */
  let polling = false;
  const poll = async () => {
    polling = true;
    try {
      while (asking.size > 0) {
        await sleep(PENDING_POLL_MS);
        for (const [socket, entry] of asking) {
          const caller = callerOf(socket);
          // A place that frees meanwhile ends the wait: below the bound every one is placed.
          const done =
            caller !== UNKNOWN ||
            socket.destroyed ||
            placed.size < max ||
            ++entry.asks >= PENDING_MS / PENDING_POLL_MS;
          if (!done) continue;
          asking.delete(socket);
          let over = true;
          try {
            over = decide(socket, caller);
          } catch {
            past.add(socket);
          }
          aside.delete(socket);
          entry.decide(over);
        }
      }
    } finally {
      polling = false;
    }
  };
  /** @param {import("node:net").Socket} socket */
  const holdAside = (socket) => {
    /** @type {(over: boolean) => void} */
    let decided = () => {};
    aside.set(socket, new Promise((resolve) => (decided = resolve)));
    asking.set(socket, { asks: 0, decide: decided });
    if (!polling) void poll();
  };
  let open = 0;
  server.maxConnections = 2 * max;
  server.prependListener("connection", (/** @type {import("node:net").Socket} */ socket) => {
    open++;
    socket.once("close", () => {
      open--;
      evict(socket);
      unread.delete(socket);
    });
    if (placed.size >= max) {
      const caller = callerOf(socket);
      if (caller === UNKNOWN) return holdAside(socket);
      if (!roomFor(caller)) {
        past.add(socket);
        return;
      }
    }
    place(socket);
  });
  server.prependListener("request", (req, res) => {
    const socket = req.socket;
    if (past.has(socket)) return;
    idle.delete(socket);
    underWay.set(socket, (underWay.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const left = (underWay.get(socket) ?? 1) - 1;
      underWay.set(socket, left);
      // Idle again (kept alive for its next request): last in the order.
      if (left === 0 && !socket.destroyed && placed.has(socket)) idle.set(socket, true);
    });
  });
  // An upgraded connection (a WebSocket) is a stream under way for as long as it lasts.
  server.prependListener("upgrade", (req) => {
    upgraded.add(req.socket);
    idle.delete(req.socket);
  });
  return {
    over: (socket) => aside.get(socket) ?? past.has(socket),
    open: () => open,
    reading: (socket, makeRoom) => {
      arriving.set(socket, makeRoom);
      return () => {
        if (arriving.get(socket) === makeRoom) arriving.delete(socket);
      };
    },
    waiting: (socket) => {
      if (waitsHeld.size >= waitsMax) return undefined;
      const caller = socket ? callerOf(socket) : "";
      if (caller !== "") {
        let held = 0;
        for (const wait of waitsHeld) if (wait.socket && callerOf(wait.socket) === caller) held++;
        if (held >= callerWaitsMax) return null;
      }
      const wait = { socket };
      waitsHeld.add(wait);
      return () => void waitsHeld.delete(wait);
    },
  };
}

/**
 * The answer to a request on a connection past the bound.
 * @param {number} max
 * @returns {{ code: "server_busy", message: string, fix: string }}
 */
export function tooManyConnections(max) {
  return {
    code: "server_busy",
    message: `The server has ${max} connections open already (FRONT_MAX_CONNECTIONS), the most it keeps at once.`,
    fix: "Retry in a moment; close connections you do not use, or raise FRONT_MAX_CONNECTIONS.",
  };
}
