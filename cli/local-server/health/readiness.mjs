/**
 * Waiting for a started runtime (runtime.mjs) to be of use: to listen on its sockets (its
 * workerd said so on the control pipe, workerd-launch.mjs), and for the host also to answer its
 * first health probe (health-probe.mjs). From then on the watchdog (watchdog.mjs) keeps asking.
 */
import { probe } from "./health-probe.mjs";

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 */

/**
 * Waits until the runtime reports ready (it listens on its sockets), or it exits, or `timeoutMs`
 * passes; its `/health` is not asked (a runner's watchdog asks from then on, runner-pool.mjs).
 * @param {Runtime} runtime
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} whether it listens
 */
export async function waitListening(runtime, timeoutMs) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const listening = await Promise.race([
    runtime.ready,
    new Promise((r) => (timer = setTimeout(r, timeoutMs, false))),
  ]);
  clearTimeout(timer);
  return listening === true && runtime.isRunning();
}

/**
 * Waits until the runtime reports ready and its `/health` answers, or it exits, or `timeoutMs`
 * passes.
 * @param {Runtime} runtime
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} whether it is ready
 */
export async function waitReady(runtime, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const started = await Promise.race([
    runtime.ready,
    new Promise((r) => setTimeout(r, timeoutMs, false)),
  ]);
  if (!started) return false;
  while (runtime.isRunning() && Date.now() < deadline) {
    if (await probe(runtime.socket, 5_000)) {
      runtime.lastAnswer = Date.now();
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}
