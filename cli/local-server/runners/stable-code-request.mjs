/**
 * The supervisor's two requests that carry stable worker code (stable-warmth.mjs): reading it
 * from a runner that holds it, and sending it to one to warm. Over the runner's own HTTP socket
 * (a Unix socket in the server's private folder), with this server's cluster secret.
 */
import { runtimeRequestOptions } from "../health-request.mjs";
import { http } from "../front/node-http.mjs";

// Not `import … from "node:http"` (front/node-http.mjs).
const { request } = http;

/** How long a copy may take (the shared worker's code is ~1 MB; its load takes ~1 s loaded). */
export const CODE_REQUEST_MS = 20_000;
/**
 * How long a read of a runner's code may go without a byte: a runner answers it from memory in
 * milliseconds, and one whose thread a program holds never does; given up, the next look reads
 * from another runner (stable-warmth.mjs).
 */
export const CODE_READ_MS = 4_000;

/**
 * The most bytes taken from a runner's answer: the shared worker's code is ~1 MB. Past it the
 * answer is given up at once, so one that never ends cannot grow the supervisor's memory (the
 * host's answer has the same bound: host-code-request.mjs).
 */
export const MAX_CODE_BYTES = 16 * 1024 * 1024;

/**
 * `method path` with `body` to the Unix socket `socket`: the answer's status and body, or null.
 * @param {string} socket
 * @param {"GET" | "POST"} method
 * @param {string} path
 * @param {Buffer} [body]
 * @param {number} [timeoutMs] - the most time without a byte
 * @returns {Promise<{ status: number, body: Buffer } | null>} null also past
 *   {@link MAX_CODE_BYTES}
 */
function send(socket, method, path, body, timeoutMs = CODE_REQUEST_MS) {
  return new Promise((resolve) => {
    const req = request(
      {
        ...runtimeRequestOptions(
          socket,
          method,
          path,
          body ? { "content-type": "application/json", "content-length": body.length } : {},
        ),
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        /** @type {Buffer[]} */
        const parts = [];
        let bytes = 0;
        res.on("data", (part) => {
          bytes += part.length;
          if (bytes <= MAX_CODE_BYTES) return void parts.push(part);
          resolve(null);
          req.destroy(new Error("too large"));
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
        res.on("error", () => resolve(null));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", () => resolve(null));
    req.end(body);
  });
}

/**
 * The stable code a runner holds under `hash`, as text (src/executor/runners/code-wire.ts).
 * @param {string} socket - the runner's HTTP socket (Runtime.socket)
 * @param {string} hash
 * @returns {Promise<Buffer | null>} null: it does not hold it, or did not answer
 */
export async function readStableCode(socket, hash) {
  const answer = await send(socket, "GET", `/stable?hash=${hash}`, undefined, CODE_READ_MS);
  return answer?.status === 200 ? answer.body : null;
}

/**
 * Sends `code` (as {@link readStableCode} read it) to a runner to load now.
 * @param {string} socket - the runner's HTTP socket (Runtime.socket)
 * @param {Buffer} code
 * @returns {Promise<boolean>} whether it loaded it
 */
export async function warmWith(socket, code) {
  const answer = await send(socket, "POST", "/warm", code);
  return answer?.status === 200;
}
