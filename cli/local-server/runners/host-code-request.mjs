/**
 * The supervisor's request for the stable worker code the host's executor runs programs on (the
 * shared worker's engine): `GET /runners/stable` on the host runtime's own socket, with the
 * supervisor's secret (host-forget-request.mjs says why a second secret). The host builds it as
 * its executor does (src/executor/shared-worker/stable-code-answer.ts); the supervisor warms each
 * runner with it (stable-warmth.mjs), so a cold pool's runners hold the engine before a run asks:
 * the first shared-worker run on each fresh runner waited 1.4–2.2 s for it (bench/README.md,
 * "Fair share from a cold pool"). The names below are stable-code-answer.ts's (Node cannot import it).
 */
import { runtimeRequestOptions } from "../health-request.mjs";
import { clusterSecret } from "../cluster-secret.mjs";
import { http } from "../front/node-http.mjs";
import { SUPERVISOR_SECRET_HEADER } from "./host-forget-request.mjs";

// Not `import … from "node:http"` (front/node-http.mjs).
const { request } = http;

/** The host's route (stable-code-answer.ts `STABLE_CODE_PATH`). */
export const STABLE_CODE_PATH = "/runners/stable";
/** The answer's header naming the code's hash (stable-code-answer.ts `STABLE_HASH_HEADER`). */
export const STABLE_HASH_HEADER = "x-stable-hash";
/** Time allowed without a byte (the host builds ~1 MB once; a loaded machine is slow). */
const HOST_CODE_MS = 10_000;

/**
 * The host's stable worker code and its hash, or null: none with its executor (the per-run
 * isolate), or no good answer.
 * @param {string} socket - the host runtime's HTTP socket (Runtime.socket)
 * @returns {Promise<{ hash: string, code: Buffer } | null>}
 */
export function readHostCode(socket) {
  return new Promise((resolve) => {
    const sent = request(
      {
        ...runtimeRequestOptions(socket, "GET", STABLE_CODE_PATH, {
          [SUPERVISOR_SECRET_HEADER]: clusterSecret,
        }),
        agent: false,
        timeout: HOST_CODE_MS,
      },
      (answer) => {
        /** @type {Buffer[]} */
        const parts = [];
        answer.on("data", (part) => parts.push(part));
        answer.on("error", () => resolve(null));
        answer.on("end", () => {
          const hash = answer.headers[STABLE_HASH_HEADER];
          resolve(
            answer.statusCode === 200 && typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash)
              ? { hash, code: Buffer.concat(parts) }
              : null,
          );
        });
      },
    );
    sent.on("timeout", () => sent.destroy(new Error("timed out")));
    sent.on("error", () => resolve(null));
    sent.end();
  });
}
