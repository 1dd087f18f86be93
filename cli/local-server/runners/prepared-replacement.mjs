/**
 * Prepared replacements (docs/local-runtime.md, "Runners on demand"): a runner that has not
 * answered its `/health` probe for {@link PREPARE_AFTER_MS} is most likely held by a program
 * blocking its thread, which the supervisor ends once the silence reaches
 * runner-pool.mjs's RUNNER_STUCK_MS (10 s). Its replacement is started beside it meanwhile, on
 * a socket of its own, and moved onto the slot's socket (a rename: the listening socket goes
 * with its file) the moment the held runner is ended, so the slot serves again at once instead
 * of after a start (0.3–1 s alone on a loaded 2-core machine, 1.5–3 s for three at once).
 *
 * Why it matters: with one client's blocking programs on every runner (e2e fair-share), the
 * supervisor ends them all within a second of each other, 10 s later; a second round of
 * blocking programs then met three runners starting at once and the other client's searches
 * waited for those starts. A runner that answers again gives its prepared replacement up.
 *
 * Pure: runner-pool.mjs holds the slots and the clock, asks here which slot to prepare for and
 * which prepared runner to end, and starts and ends the processes.
 */

/**
 * How long a runner may leave its `/health` probes unanswered before its replacement is
 * prepared: an honest runner answers a probe every 500 ms (an operation budget ends any
 * stretch of honest work within 0.1–2 s, and a loaded machine's probe was seen to take up to
 * ~3 s), so a silence this long is most often a program holding the thread; well within the
 * 10 s after which the runner is ended, for a start that takes up to ~3 s on a loaded machine.
 */
export const PREPARE_AFTER_MS = 4_000;

/**
 * @typedef {object} PreparableSlot
 * @property {{ lastAnswer: number, killedBecause: string | undefined, isRunning: () => boolean } | null} runtime
 * @property {boolean} retiring
 * @property {boolean} preparing - its replacement is being started
 * @property {unknown} prepared - its replacement, started and ready (null: none)
 */

/**
 * Whether `slot` needs its replacement prepared now: its runner runs, is not being retired or
 * ended, and has not answered for {@link PREPARE_AFTER_MS}; none is prepared or on its way.
 * @param {PreparableSlot} slot
 * @param {number} now
 */
export function needsPrepared(slot, now) {
  const runtime = slot.runtime;
  if (!runtime || runtime.killedBecause !== undefined || !runtime.isRunning()) return false;
  if (slot.retiring || slot.preparing || slot.prepared) return false;
  return now - runtime.lastAnswer >= PREPARE_AFTER_MS;
}

/**
 * Whether the replacement prepared for `slot` is no longer wanted: its runner answers again
 * (it was busy, not held), or the slot has no runner it could replace (ended, retired).
 * @param {PreparableSlot} slot
 * @param {number} now
 */
export function preparedUnwanted(slot, now) {
  const runtime = slot.runtime;
  if (!slot.prepared) return false;
  if (!runtime || runtime.killedBecause !== undefined || slot.retiring) return true;
  return now - runtime.lastAnswer < PREPARE_AFTER_MS;
}
