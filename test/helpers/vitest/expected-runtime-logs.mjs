/**
 * Drops the runtime log lines that tests provoke on purpose, so a passing `npm test` prints no
 * warnings and a new runtime complaint stands out. workerd writes these itself (the pool passes
 * its structured logs to the test process's stderr) even though the code under test handled the
 * failure; nothing in JavaScript can stop them. Each entry names the tests and why the line is
 * noise. Anything else workerd logs is printed.
 *
 * 1. A request to a port nothing listens on (test/workers/app/upstream/api-network-errors.test.ts, the
 *    product's "connection refused" error): workerd logs the refused connect, then twice that
 *    the fetch failed with "Network connection lost." (an "uncaught exception" although the
 *    caller's `await fetch(…)` caught it: a bare `fetch().catch()` logs the same). Dropped only
 *    within a second after a refused connect.
 * 2. A sandbox program that awaits a promise nothing settles (the executor suites' "never
 *    settles" and "never-settling thenable" cases): the executor reports a timeout; workerd then
 *    cancels the abandoned isolate's request as hung and logs that as an "uncaught exception".
 * 3. A client that goes away in the middle of a streamed answer (test/agent: fault-injection's
 *    100 random mid-stream disconnects, serve/sse, streams, durability): workerd logs the
 *    stream pump it cancels ("disconnected: abortRead() has been called", "pump canceled",
 *    "read end of pipe was aborted", "fixed-length pipe ended prematurely"). The pool already
 *    drops the same kind of line for WebSockets ("disconnected: WebSocket peer disconnected").
 */

const REFUSED = /disconnected: connect\(\): Connection refused/;
const LOST_AFTER_REFUSED = /^uncaught exception; .*Network connection lost\./;
const HUNG =
  /^uncaught exception; exception = workerd\/io\/io-context\.c\+\+:\d+: failed: jsg\.Error: The Workers runtime canceled this request because it detected that your Worker's code had hung/;
const CLIENT_WENT_AWAY =
  /^exception = \S+: disconnected: (abortRead\(\) has been called|pump canceled|read end of pipe was aborted|fixed-length pipe ended prematurely)$/;
// The address list workerd prints after an exception (its own frames, no JavaScript).
const WORKERD_STACK = /^stack:( \S+workerd@[0-9a-f]+)+\s*$/;
const AFTER_REFUSED_MS = 1_000;

/**
 * Whether one runtime log message (one or more lines) is expected noise. `now` and the state
 * are parameters so the rule is testable without a clock.
 * @param {string} message
 * @param {{ refusedAt: number, droppedAt: number }} state - when the last refused connect was
 *   seen and the last message dropped
 * @param {number} now
 * @returns {boolean}
 */
export function isExpectedRuntimeLog(message, state, now) {
  const lines = message.split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) return false;
  const [first = "", ...rest] = lines;
  if (!rest.every((l) => WORKERD_STACK.test(l))) return false;
  if (REFUSED.test(first)) {
    state.refusedAt = now;
    return true;
  }
  if (LOST_AFTER_REFUSED.test(first)) return now - state.refusedAt <= AFTER_REFUSED_MS;
  if (HUNG.test(first) || CLIENT_WENT_AWAY.test(first)) return true;
  // A stack list on its own, written right after a dropped message.
  return WORKERD_STACK.test(first) && rest.length === 0 && now - state.droppedAt <= 100;
}

/**
 * Filters the test process's stdout and stderr (where the pool writes workerd's logs, by their
 * level) with {@link isExpectedRuntimeLog}. Call once, from the vitest config.
 */
export function dropExpectedRuntimeLogs() {
  const state = { refusedAt: -Infinity, droppedAt: -Infinity };
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = /** @type {typeof stream.write} */ (
      (chunk, ...args) => {
        const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
        const now = Date.now();
        if (isExpectedRuntimeLog(text, state, now)) {
          state.droppedAt = now;
          const done = args.find((a) => typeof a === "function");
          if (done) queueMicrotask(() => done());
          return true;
        }
        return write(chunk, .../** @type {[any]} */ (args));
      }
    );
  }
}
