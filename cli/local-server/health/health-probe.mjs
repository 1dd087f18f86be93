/**
 * One health probe of a runtime: the supervisor's question "are you alive?", asked of the
 * runtime's own socket (health-request.mjs). The readiness waits (readiness.mjs) ask it until a
 * started runtime answers; the watchdog (watchdog.mjs) asks it for as long as the runtime runs.
 */
import { healthRequest } from "../health-request.mjs";

/**
 * One health probe: the Worker's `/health` answer when it came within `timeoutMs` and shows the
 * runtime alive, else null. A 503 (a configuration problem the Worker reports there, as JSON)
 * still means the runtime is alive.
 * @param {string} socket - the runtime's (Runtime.socket)
 * @param {number} timeoutMs
 * @returns {Promise<import("../health-request.mjs").HealthAnswer | null>}
 */
export async function probe(socket, timeoutMs) {
  const answer = await healthRequest(socket, { method: "HEAD", path: "/health", timeoutMs });
  if (!answer) return null;
  const json = String(answer.headers["content-type"] ?? "").startsWith("application/json");
  return answer.status === 200 || (answer.status === 503 && json) ? answer : null;
}
