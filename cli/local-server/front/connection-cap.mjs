/**
 * The front's bound on connections open at once (`FRONT_MAX_CONNECTIONS`). The body budget
 * bounds what the connections' bodies hold (body-budget.mjs), but each connection costs a
 * socket, a file descriptor and an HTTP parser too, and a client could open them without end
 * until the process ran out of descriptors, after which no client could connect at all.
 *
 * At the bound, a new connection first takes the place of the oldest connection that has no
 * request under way (it has sent none yet, or sits idle between two): that one is closed. Such
 * connections hold nothing, and one local process opening the bound's worth of sockets that
 * never send a request locked every client out (`503`) for ~30 s a round, with no key (issue
 * #40 review). A request under way is never cut. Only when every connection has one is the new
 * connection past the bound: it is still accepted, and its first request is answered at once
 * (`503 server_busy`, `Retry-After: 1`, then closed), from its headers, its body unread: a
 * client hears why instead of seeing its connection reset. Past twice the bound, Node drops new
 * connections unanswered (`server.maxConnections`).
 */

/**
 * Connections open at once when the front is given no bound: the settings table's default for
 * `FRONT_MAX_CONNECTIONS` (src/app/config/launcher-settings.ts; a unit test keeps them equal).
 */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/**
 * Counts `server`'s open connections, closes the oldest idle one to make room at the bound, and
 * marks each one accepted past it.
 * @param {import("node:http").Server} server
 * @param {number} max
 * @returns {{ over: (socket: import("node:net").Socket) => boolean, open: () => number }}
 *   `over`: whether the connection came past the bound (its requests get 503)
 */
export function capConnections(server, max) {
  /** @type {WeakSet<import("node:net").Socket>} */
  const past = new WeakSet();
  /**
   * Connections with no request under way, oldest idle first (a Map keeps insertion order).
   * @type {Map<import("node:net").Socket, true>}
   */
  const idle = new Map();
  /** @type {WeakMap<import("node:net").Socket, number>} requests under way per connection */
  const underWay = new WeakMap();
  let open = 0;
  server.maxConnections = 2 * max;
  server.prependListener("connection", (/** @type {import("node:net").Socket} */ socket) => {
    if (open >= max) {
      const oldest = idle.keys().next().value;
      if (oldest) {
        idle.delete(oldest);
        oldest.destroy();
      } else past.add(socket);
    }
    open++;
    idle.set(socket, true);
    socket.once("close", () => {
      open--;
      idle.delete(socket);
    });
  });
  server.prependListener("request", (req, res) => {
    const socket = req.socket;
    idle.delete(socket);
    underWay.set(socket, (underWay.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const left = (underWay.get(socket) ?? 1) - 1;
      underWay.set(socket, left);
      // Idle again (kept alive for its next request): last in the order.
      if (left === 0 && !socket.destroyed) idle.set(socket, true);
    });
  });
  // An upgraded connection (a WebSocket) is a stream under way for as long as it lasts.
  server.prependListener("upgrade", (req) => void idle.delete(req.socket));
  return { over: (socket) => past.has(socket), open: () => open };
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
