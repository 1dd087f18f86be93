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
import { MAX_CODE_BYTES } from "./stable-code-request.mjs";

// Not `import … from "node:http"` (front/node-http.mjs).
const { request } = http;

/** The host's route (stable-code-answer.ts `STABLE_CODE_PATH`). */
export const STABLE_CODE_PATH = "/runners/stable";
/** The answer's header naming the code's hash (stable-code-answer.ts `STABLE_HASH_HEADER`). */
export const STABLE_HASH_HEADER = "x-stable-hash";
/** Time allowed without a byte (the host builds ~1 MB once; a loaded machine is slow). */
const HOST_CODE_MS = 10_000;
/**
 * Time allowed to the whole read. The per-byte timeout alone let an answer that trickled a byte
 * now and then go on for good (attack22): the server's readiness no longer waits for it past
 * its own bound (first-warmth.mjs), but the read would have held its connection and bytes.
 */
export const HOST_CODE_TOTAL_MS = 15_000;

/**
 * The host's stable worker code and its hash, or null: none with its executor (the per-run
 * isolate), or no good answer (not a 200 with a well-formed hash, past {@link MAX_CODE_BYTES},
 * or not whole within {@link HOST_CODE_TOTAL_MS}).
 * @param {string} socket - the host runtime's HTTP socket (Runtime.socket)
 * @param {{ totalMs?: number, maxBytes?: number }} [bounds] - tests' smaller bounds
 * @returns {Promise<{ hash: string, code: Buffer } | null>}
 */
export function readHostCode(
  socket,
  { totalMs = HOST_CODE_TOTAL_MS, maxBytes = MAX_CODE_BYTES } = {},
) {
  return new Promise((resolve) => {
    /** @type {NodeJS.Timeout | undefined} */
    let whole;
    /** @param {{ hash: string, code: Buffer } | null} value */
    const settle = (value) => {
      clearTimeout(whole);
      resolve(value);
    };
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
        let bytes = 0;
        answer.on("data", (part) => {
          bytes += part.length;
          if (bytes <= maxBytes) return void parts.push(part);
          settle(null);
          sent.destroy(new Error("too large"));
        });
        answer.on("error", () => settle(null));
        answer.on("end", () => {
          const hash = answer.headers[STABLE_HASH_HEADER];
          settle(
            answer.statusCode === 200 && typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash)
              ? { hash, code: Buffer.concat(parts) }
              : null,
          );
        });
      },
    );
    whole = setTimeout(() => {
      settle(null);
      sent.destroy(new Error("timed out"));
    }, totalMs);
    sent.on("timeout", () => sent.destroy(new Error("timed out")));
    sent.on("error", () => settle(null));
    sent.end();
  });
}
