/**
 * One small request from the supervisor to a runtime's own HTTP socket (its `/health` probes, a
 * runner's counts, `/retire`), over kept-alive connections. The socket is a Unix socket in the
 * server's private folder (runtime.mjs): no other user can reach it or take its name, so
 * neither the secret below nor a retry after a runtime's exit can reach anyone else. Each runtime
 * is asked about twice a second for as long as the server runs: with `fetch`, every probe opened
 * a new connection and tore it down with an error (undici), ~20 ms of the supervisor's CPU a
 * second on an idle server, plus the runtimes' side of it. With `node:http`'s client, a runner's
 * probe still opened a connection each time: a runner answers `HEAD /health` without a
 * `Content-Length`, and that client keeps no connection whose answer has neither length nor
 * chunks, though a `HEAD` answer has no body (it asks before it knows the request was a `HEAD`).
 * So they go over the front's own connections and answer reader (front/runtime-connections.mjs,
 * front/answer-parser.mjs), which keep it.
 *
 * Each carries this server's cluster secret (cluster-secret.mjs): a runtime answers nothing
 * without it.
 */
import { CLUSTER_SECRET_HEADER, clusterSecret } from "./cluster-secret.mjs";
import { AnswerParser } from "./front/answer-parser.mjs";
import { runtimeConnections } from "./front/runtime-connections.mjs";

/**
 * @typedef {{ status: number, headers: import("node:http").IncomingHttpHeaders }} HealthAnswer
 */

/**
 * What every request of the supervisor to a runtime's own socket is addressed with: the Unix
 * socket, the host name its Worker sees, and this server's cluster secret (a runtime answers
 * nothing without it; set last, so no header given beside it can replace it). The supervisor's
 * other requests to runners (runners/stable-code-request.mjs) take it too.
 * @param {string} socket - the runtime's HTTP socket (Runtime.socket)
 * @param {string} method
 * @param {string} path
 * @param {import("node:http").OutgoingHttpHeaders} [headers] - more headers (a body's type, length)
 * @returns {import("node:http").RequestOptions}
 */
export function runtimeRequestOptions(socket, method, path, headers = {}) {
  return {
    socketPath: socket,
    // What the Worker sees as its URL's host: a loopback name, as it was over TCP.
    host: "127.0.0.1",
    method,
    path,
    headers: { ...headers, [CLUSTER_SECRET_HEADER]: clusterSecret },
  };
}

/**
 * Sends `method path` to the Unix socket `socket` and resolves to the answer's status and headers
 * (its body read and dropped), or null when none came within `timeoutMs` or the connection
 * failed. A kept-alive connection that turns out closed before any answer (the runtime was
 * replaced, or closed it idle) is tried once more on a fresh one: these requests ask for nothing
 * that could be done twice (a probe, the counts, a retirement asked again).
 * @param {string} socket
 * @param {{ method: "HEAD" | "GET" | "POST", path: string, timeoutMs: number }} options
 * @returns {Promise<HealthAnswer | null>}
 */
export async function healthRequest(socket, options) {
  const first = await once(socket, options);
  if (first !== "stale") return first;
  const again = await once(socket, options, true);
  return again === "stale" ? null : again;
}

/**
 * The kept-alive connections to the runtime sockets asked most recently, the latest last. Every
 * runtime has sockets of its own name (socket-folder.mjs: an id is never used twice), so the
 * pools of runtimes long gone are let go: past {@link MAX_POOLS}, the least recently asked.
 * @type {Map<string, import("./front/runtime-connections.mjs").RuntimeConnections>}
 */
const pools = new Map();
/** More than a cluster's runtimes (host pair, runners, their replacements being started). */
export const MAX_POOLS = 64;

/**
 * The pool for `socket`, made on first use, the most recently asked from now.
 * @param {string} socket
 */
function poolOf(socket) {
  let pool = pools.get(socket);
  if (pool) pools.delete(socket);
  else pool = runtimeConnections(socket);
  pools.set(socket, pool);
  if (pools.size > MAX_POOLS) {
    const [oldest, gone] = /** @type {[string, typeof pool]} */ (pools.entries().next().value);
    pools.delete(oldest);
    gone.destroy();
  }
  return pool;
}

/**
 * @param {string} socket
 * @param {{ method: string, path: string, timeoutMs: number }} options
 * @param {boolean} [fresh] - on a new connection
 * @returns {Promise<HealthAnswer | "stale" | null>}
 */
function once(socket, { method, path, timeoutMs }, fresh = false) {
  const connections = poolOf(socket);
  return new Promise((resolve) => {
    const connection = connections.take(fresh);
    let answered = false;
    /** @type {HealthAnswer | undefined} */
    let answer;
    /** @param {HealthAnswer | "stale" | null} outcome */
    const settle = (outcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    // No second try after a timeout: the runtime's bound is the whole wait.
    const timer = setTimeout(() => {
      connection.destroy();
      settle(null);
    }, timeoutMs);
    const parser = new AnswerParser(
      {
        head: ({ status, rawHeaders }) => (answer = { status, headers: headersOf(rawHeaders) }),
        data: () => {},
        end: () => {},
      },
      { head: method === "HEAD" },
    );
    connection.send(
      {
        data: (bytes) => {
          answered = true;
          try {
            parser.feed(bytes);
          } catch {
            connection.destroy();
            return settle(null);
          }
          if (!parser.done) return;
          connections.giveBack(connection, parser.reusable);
          settle(answer ?? null);
        },
        closed: () => {
          try {
            // A body that lasts until the connection closes ends here.
            parser.close();
            return settle(answer ?? null);
          } catch {
            // cut short
          }
          settle(!answered && connection.reused && !fresh ? "stale" : null);
        },
      },
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${method === "POST" ? "Content-Length: 0\r\n" : ""}${CLUSTER_SECRET_HEADER}: ${clusterSecret}\r\n\r\n`,
      Buffer.alloc(0),
    );
  });
}

/**
 * Header names (lower-cased) and values as Node's `IncomingMessage.headers` gives them: a name
 * given twice has its values joined with ", ".
 * @param {string[]} rawHeaders
 * @returns {import("node:http").IncomingHttpHeaders}
 */
function headersOf(rawHeaders) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = String(rawHeaders[i]).toLowerCase();
    const value = String(rawHeaders[i + 1]);
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}
