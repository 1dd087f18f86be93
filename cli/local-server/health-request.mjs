/**
 * One small request from the supervisor to a runtime's own HTTP socket (its `/health` probes, a
 * runner's counts, `/retire`), over kept-alive connections. The socket is a Unix socket in the
 * server's private folder (runtime.mjs): no other user can reach it or take its name, so
 * neither the secret below nor a retry after a runtime's exit can reach anyone else. Each runtime is asked about twice a
 * second for as long as the server runs: with `fetch`, every probe opened a new connection and
 * tore it down with an error (undici), ~20 ms of the supervisor's CPU a second on an idle server,
 * plus the runtimes' side of it.
 *
 * Each carries this server's cluster secret (cluster-secret.mjs): a runtime answers nothing
 * without it.
 */
import { Agent, request } from "node:http";
import { CLUSTER_SECRET_HEADER, clusterSecret } from "./cluster-secret.mjs";

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

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
 * failed. A kept-alive connection that turns out closed (the runtime was replaced) is tried once
 * more on a fresh one.
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
 * @param {string} socket
 * @param {{ method: string, path: string, timeoutMs: number }} options
 * @param {boolean} [fresh] - on a new connection
 * @returns {Promise<HealthAnswer | "stale" | null>}
 */
function once(socket, { method, path, timeoutMs }, fresh = false) {
  return new Promise((resolve) => {
    const req = request(
      { ...runtimeRequestOptions(socket, method, path), agent: fresh ? false : agent },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        res.on("error", () => resolve(null));
        res.on("close", () => resolve(null)); // cut before its end (a settled promise stays)
      },
    );
    let timedOut = false;
    // No second try after a timeout: the runtime's bound is the whole wait.
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error("timed out"));
    }, timeoutMs);
    req.on("close", () => clearTimeout(timer));
    req.on("error", () => resolve(req.reusedSocket && !fresh && !timedOut ? "stale" : null));
    req.end();
  });
}
