/**
 * The supervisor's request to the active host about a kept runner it found unused
 * (unused-runner.mjs): `POST /runners/forget` on the host runtime's own socket. The host forgets
 * the slot's stale marks and says what it found (src/executor/runners/stale-slot.ts
 * `forgetAnswer`; the names below are that file's, which Node cannot import: a unit test keeps
 * them equal).
 *
 * Besides the cluster secret that every request to a runtime carries (health-request.mjs), it
 * carries the secret again under {@link SUPERVISOR_SECRET_HEADER}: the front adds the cluster
 * secret to every client request it passes on, whatever its path, so that secret alone cannot
 * tell the supervisor from a client here, and a client that had the host forget its runs could
 * slip past the per-caller cap of runners
 * (src/executor/runners/placement/runner-placement.ts). A client cannot send this one: it does
 * not know the secret.
 */
import { runtimeRequestOptions } from "../health-request.mjs";
import { clusterSecret } from "../cluster-secret.mjs";
import { http } from "../front/node-http.mjs";

// Not `import … from "node:http"` (front/node-http.mjs).
const { request } = http;

/** The host's route (stale-slot.ts `FORGET_RUNNER_PATH`). */
export const FORGET_RUNNER_PATH = "/runners/forget";
/** The header naming the supervisor as the sender (stale-slot.ts `SUPERVISOR_SECRET_HEADER`). */
export const SUPERVISOR_SECRET_HEADER = "x-local-supervisor-secret";
/** The answer's header saying the slot was marked cold (`FORGOT_COLD_HEADER`). */
export const FORGOT_COLD_HEADER = "x-forgot-cold";
/** The answer's header counting the stale runs dropped (`FORGOT_RUNS_HEADER`). */
export const FORGOT_RUNS_HEADER = "x-forgot-runs";
/** Time allowed to the host's answer (a host held that long is its watchdog's affair). */
const FORGET_TIMEOUT_MS = 5_000;

/**
 * Asks the host to forget runner slot `index`'s stale marks. Rare (once a window at most, only
 * for an unused runner): a connection of its own each time.
 * @param {string} socket - the active host runtime's HTTP socket (Runtime.socket)
 * @param {number} index - the slot, 1-based (the host's binding order)
 * @param {number} quietMs - how long the runner has begun no run and had none under way
 * @returns {Promise<import("./unused-runner.mjs").Forgotten | null>} what the host forgot, or
 *   null when it did not answer so
 */
export function askHostToForget(socket, index, quietMs) {
  const path = `${FORGET_RUNNER_PATH}?slot=${index}&quietMs=${Math.round(quietMs)}`;
  return new Promise((resolve) => {
    const sent = request(
      runtimeRequestOptions(socket, "POST", path, {
        "content-length": "0",
        [SUPERVISOR_SECRET_HEADER]: clusterSecret,
      }),
      (answer) => {
        answer.resume();
        resolve(
          answer.statusCode === 204
            ? {
                cold: answer.headers[FORGOT_COLD_HEADER] === "1",
                runs: Number(answer.headers[FORGOT_RUNS_HEADER]) || 0,
              }
            : null,
        );
      },
    );
    sent.setTimeout(FORGET_TIMEOUT_MS, () => sent.destroy());
    sent.on("error", () => resolve(null));
    sent.end();
  });
}
