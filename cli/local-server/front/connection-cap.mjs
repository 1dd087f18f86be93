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
 */
import { maxWaits } from "./long-wait.mjs";

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
 * The front's view of its connections (see {@link capConnections}).
 * @typedef {object} ConnectionCap
 * @property {(socket: import("node:net").Socket) => boolean} over - whether the connection came
 *   past the bound (its requests get 503)
 * @property {() => number} open - connections open now (those past the bound too)
 * @property {(socket: import("node:net").Socket, makeRoom: () => void) => () => void} reading -
 *   says that the connection's request body is arriving; `makeRoom` is called (once) when a new
 *   connection needs its place (it must refuse the request and close the connection); the
 *   function returned says the body is read (or refused): the connection may no longer be
 *   taken for room
 * @property {() => (() => void) | undefined} waiting - asks a place in the long waits' share
 *   ({@link maxWaits}, long-wait.mjs) for a request that waits long (a `tasks/result`); the
 *   function returned gives it back when the request ends; `undefined`: the share is full, the
 *   request must be refused (retryable)
 */

/**
 * Counts `server`'s open connections, closes the oldest idle one (else refuses the oldest body
 * still arriving) to make room at the bound, and marks each one accepted past it.
 * @param {import("node:http").Server} server
 * @param {number} max
 * @param {{ now?: () => number }} [clock] - the clock that times unread answers (tests)
 * @returns {ConnectionCap}
 */
export function capConnections(server, max, { now = Date.now } = {}) {
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
  /** Long waits under way (requests given a place in the waits' share). */
  let waits = 0;
  const waitsMax = maxWaits(max);
  /** The oldest connection whose client has left its answer unread for NOT_READING_MS. */
  const notReading = () => {
    const at = now();
    /** @type {import("node:net").Socket | undefined} */
    let found;
    for (const socket of placed) {
      if (!socket.writableNeedDrain) continue;
      const since = unread.get(socket);
      if (since === undefined) unread.set(socket, at);
      else if (!found && at - since >= NOT_READING_MS) found = socket;
    }
    return found;
  };
  /** @param {import("node:net").Socket} socket */
  const evict = (socket) => {
    placed.delete(socket);
    idle.delete(socket);
    arriving.delete(socket);
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
      const oldest = idle.keys().next().value;
      const slowest = arriving.entries().next().value;
      if (oldest) {
        evict(oldest);
        oldest.destroy();
      } else if (slowest) {
        evict(slowest[0]);
        slowest[1]();
      } else {
        const stuck = notReading();
        if (stuck) {
          evict(stuck);
          stuck.destroy();
        } else {
          past.add(socket);
          return;
        }
      }
    }
    placed.add(socket);
    idle.set(socket, true);
    socket.on("drain", () => unread.delete(socket));
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
  server.prependListener("upgrade", (req) => void idle.delete(req.socket));
  return {
    over: (socket) => past.has(socket),
    open: () => open,
    reading: (socket, makeRoom) => {
      arriving.set(socket, makeRoom);
      return () => {
        if (arriving.get(socket) === makeRoom) arriving.delete(socket);
      };
    },
    waiting: () => {
      if (waits >= waitsMax) return undefined;
      waits++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        waits--;
      };
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
