/**
 * The front's bound on connections open at once (`FRONT_MAX_CONNECTIONS`). The body budget
 * bounds what the connections' bodies hold (body-budget.mjs), but each connection costs a
 * socket, a file descriptor and an HTTP parser too, and a client could open them without end
 * until the process ran out of descriptors, after which no client could connect at all.
 *
 * Past the bound a connection is still accepted, and its first request is answered at once
 * (`503 server_busy`, `Retry-After: 1`, then closed), from its headers, its body unread: a
 * client hears why instead of seeing its connection reset. Past twice the bound, Node drops new
 * connections unanswered (`server.maxConnections`), so even connections that never send a
 * request (each closed by the front's headers timeout) cannot pile up.
 */

/**
 * Connections open at once when the front is given no bound: the settings table's default for
 * `FRONT_MAX_CONNECTIONS` (src/app/config/setting-table.ts; a unit test keeps them equal).
 */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/**
 * Counts `server`'s open connections and marks each one accepted past `max`.
 * @param {import("node:http").Server} server
 * @param {number} max
 * @returns {{ over: (socket: import("node:net").Socket) => boolean, open: () => number }}
 *   `over`: whether the connection came past the bound (its requests get 503)
 */
export function capConnections(server, max) {
  /** @type {WeakSet<import("node:net").Socket>} */
  const past = new WeakSet();
  let open = 0;
  server.maxConnections = 2 * max;
  server.prependListener("connection", (/** @type {import("node:net").Socket} */ socket) => {
    if (open >= max) past.add(socket);
    open++;
    socket.once("close", () => open--);
  });
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
