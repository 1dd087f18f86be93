/**
 * Requests a client sends several at once on one connection (HTTP/1.1 pipelining). Node's server
 * starts every request it has parsed, though each response waits, with no socket of its own,
 * for the ones before it to go out: a few KiB of pipelined requests (a `GET` is ~30 bytes, ~2,000
 * in one read) started as many exchanges at once, each with its own runtime connection and its
 * answer waiting whole in the front's memory behind a client that need never read (issue #40,
 * "a front with a memory budget"). So:
 * - a request is served in its turn only ({@link waitForTurn}): one at a time per connection, as
 *   their answers go out;
 * - a connection with {@link MAX_QUEUED} requests waiting is read no further until they are
 *   fewer, and one with more than {@link MAX_QUEUED_AT_ONCE} (sent in one piece, before reading
 *   could stop) is closed ({@link closeQueuedWithConnection}). Node stops reading a connection
 *   only when the answers queued on it hold bytes, and a request waiting its turn has written
 *   none: a client pipelining bodiless `GET`s (~20 bytes each) made the front start 63,000
 *   requests in 2 s, 210 MB of heap, and more for as long as it kept sending (attackf review);
 * - a response queued behind another hears "close" when its connection closes first
 *   ({@link closeQueuedWithConnection}): Node emits it for the connection's current response
 *   only, so what the front gives back on "close" (a request's bytes in the budget, its place
 *   among the requests under way and in the connection bound) stayed taken for good.
 */

/** Requests waiting their turn on one connection at which it is read no further. */
export const MAX_QUEUED = 32;
/**
 * Requests waiting their turn on one connection past which it is closed: more than one piece of
 * bytes held before reading stopped (a 64 KiB piece holds up to ~3,600 bodiless requests). A
 * client that pipelines at all rarely sends more than a few at once.
 */
export const MAX_QUEUED_AT_ONCE = 256;

/**
 * Resolves once `res` is its connection's current response; undefined when it is already (the
 * usual case: nothing to wait for). Never resolves when the connection closes first.
 * @param {import("node:http").ServerResponse} res
 * @returns {Promise<void> | undefined}
 */
export function waitForTurn(res) {
  if (res.socket) return undefined;
  return new Promise((resolve) => res.once("socket", () => resolve()));
}

/**
 * Makes `server` emit "close" on each queued response whose connection closed before its turn,
 * and bounds how many wait on one connection ({@link MAX_QUEUED}, {@link MAX_QUEUED_AT_ONCE}).
 * Costs nothing for a response that has its connection.
 * @param {import("node:http").Server} server
 */
export function closeQueuedWithConnection(server) {
  /** @type {WeakMap<import("node:net").Socket, Set<import("node:http").ServerResponse>>} */
  const queued = new WeakMap();
  /** @type {WeakSet<import("node:net").Socket>} connections paused here for their queue */
  const paused = new WeakSet();
  server.prependListener("request", (req, res) => {
    // The connection's current response: Node tells it itself.
    if (res.socket) return;
    const socket = req.socket;
    let waiting = queued.get(socket);
    if (!waiting) {
      const responses = new Set();
      queued.set(socket, (waiting = responses));
      socket.once("close", () => {
        for (const response of responses) response.emit("close");
        responses.clear();
      });
    }
    waiting.add(res);
    if (waiting.size > MAX_QUEUED_AT_ONCE) return void socket.destroy();
    if (waiting.size >= MAX_QUEUED) {
      paused.add(socket);
      socket.pause();
    }
    // Its turn came and it ended: Node told it.
    res.once("close", () => {
      waiting.delete(res);
      if (waiting.size < MAX_QUEUED && paused.delete(socket) && !socket.destroyed) socket.resume();
    });
  });
}
