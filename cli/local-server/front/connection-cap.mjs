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

/** Connections open at once when `FRONT_MAX_CONNECTIONS` is not set. */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/** The setting's range. */
const MIN = 16;
const MAX = 60_000;

/**
 * `FRONT_MAX_CONNECTIONS` (a whole number from 16 to 60000), or the default when unset.
 * @param {string | undefined} setting
 * @returns {{ ok: true, connections: number } | { ok: false, message: string }}
 */
export function maxConnectionsSetting(setting) {
  if (setting === undefined || setting.trim() === "")
    return { ok: true, connections: DEFAULT_MAX_CONNECTIONS };
  const connections = Number(setting.trim());
  if (!Number.isInteger(connections) || connections < MIN || connections > MAX)
    return {
      ok: false,
      message: `- FRONT_MAX_CONNECTIONS: "${setting}" is not a whole number from ${MIN} to ${MAX}.\n  Fix: FRONT_MAX_CONNECTIONS=${DEFAULT_MAX_CONNECTIONS} (connections the server keeps open at once; past it a request gets 503 and is asked to retry).`,
    };
  return { ok: true, connections };
}

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
