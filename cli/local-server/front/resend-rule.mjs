/**
 * When the front sends a request to a runtime again: its kept-alive connection closed before any
 * byte of the answer came, and sending it twice cannot do its work twice.
 *
 * Why a request ever meets a closed connection: workerd closes a connection idle for 5 s
 * (runtime-connections.mjs lets go of one at 4 s), and a request sent just as it does met a
 * closed pipe; its client got "the runtime was restarted because its connection broke" with the
 * runtime well (CI, e2e runaway). Such a request never reached the runtime.
 *
 * Why not every such request: a connection can also close after the runtime read the request
 * (a runtime that goes away mid-request, a reset with part of it read): a `tools/call` sent
 * again would then run twice. So:
 * - a request whose write failed at once (the connection was found closed: not one byte of it
 *   reached the runtime; connect(2)'d Unix sockets refuse a write to a closed peer outright) is
 *   sent again, whatever its method;
 * - one that was written and then met a reset or an orderly close before any answer is sent again
 *   only when its method is safe (RFC 9110 §9.2.1: GET, HEAD, OPTIONS), which may be repeated;
 * - never on a new connection (a runtime that closes a connection it just opened is going away),
 *   never a second time, never after a byte of the answer (the exchange checks those two).
 */

/** Methods that ask for nothing to be done (RFC 9110 §9.2.1): sending one twice is harmless. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** How a kept-alive connection the runtime closed shows: a reset, a closed pipe. */
const CLOSED_UNDER_IT = new Set(["ECONNRESET", "EPIPE"]);

/**
 * Whether a request written whole may still be sent again (before any byte of its answer): only
 * a safe method. The body of any other one is not needed once written.
 * @param {string} method
 */
export function mayResendWritten(method) {
  return SAFE_METHODS.has(method);
}

/**
 * Whether a request whose connection closed before any byte of its answer may be sent once more,
 * on a new connection.
 * @param {object} attempt
 * @param {string} attempt.method - the request's method
 * @param {boolean} attempt.reused - its connection carried a request before (kept alive)
 * @param {boolean} attempt.unsent - its write failed at once: no byte reached the runtime
 * @param {{ code?: string } | undefined} attempt.error - how the connection ended (undefined: an
 *   orderly close by the runtime)
 */
export function mayResend({ method, reused, unsent, error }) {
  if (!reused) return false;
  if (unsent) return true;
  return SAFE_METHODS.has(method) && (error === undefined || CLOSED_UNDER_IT.has(error.code ?? ""));
}
