/**
 * The supervisor's clock: what its parts (health/watchdog.mjs, host-pair.mjs, runner-pool.mjs)
 * read the time and wait with. Injected so that every decision they make (replace, retire, a
 * deadline) is unit-tested in milliseconds with a clock the test moves (test/unit/cli/supervisor/fake-clock.ts),
 * while the server uses the system's.
 */

/**
 * @typedef {object} Clock
 * @property {() => number} now - milliseconds, as Date.now()
 * @property {(ms: number) => Promise<void>} sleep - resolves after `ms`
 */

/** The real clock. @type {Clock} */
export const systemClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
