/**
 * A slot's prepared replacement (docs/local-runtime.md, "A held runner's replacement is ready
 * when it is ended"): started beside the slot's silent runner, given up when no longer wanted,
 * and swapped in when the runner is replaced. When a runner is silent enough to prepare for, and
 * when a prepared one is unwanted, is prepared-replacement.mjs's (pure); this holds the starts
 * and ends that follow, on the pool's slot list and clock. runner-pool.mjs builds it, looks
 * every {@link PREPARE_LOOK_MS}, and asks it for the replacement when it replaces a runner.
 */
import { needsPrepared, preparedUnwanted } from "./prepared-replacement.mjs";

/** How often the runners are looked at for a replacement to prepare, or one to give up. */
export const PREPARE_LOOK_MS = 500;

/**
 * @typedef {import("../runtime.mjs").Runtime} Runtime
 * @typedef {{ runtime: Runtime, promote: () => void }} Prepared - a runner started beside a
 *   slot's runner on a socket of its own; `promote` moves its socket onto the slot's address
 * @typedef {object} PreparingSlot
 * @property {Runtime | null} runtime - the slot's runner
 * @property {boolean} retiring - its runner is being retired (nothing is prepared for it)
 * @property {boolean} preparing - its replacement is being started
 * @property {Prepared | null} prepared - its replacement, started and ready beside it
 */

/**
 * @typedef {object} SlotPreparation
 * @property {() => void} look - one look at every slot: a replacement prepared for a silent
 *   runner, or one no longer wanted ended
 * @property {(slot: PreparingSlot) => Prepared | null} take - takes the slot's prepared
 *   replacement off it, before its runner is ended (once that runner is ended, a look would find
 *   the replacement unwanted and end it)
 * @property {(prepared: Prepared | null) => prepared is Prepared} swappable - whether a taken
 *   replacement can take its slot's place: it still runs and the server does not stop
 * @property {(prepared: Prepared) => Runtime | null} swapIn - the replacement, moved onto its
 *   slot's address (null: it could not be, and is ended)
 * @property {(prepared: Prepared | null) => Promise<void>} giveUp - ends a taken replacement its
 *   slot does not need (its runner was no longer the slot's)
 */

/**
 * The pool's prepared replacements, on its slots and clock.
 * @template {PreparingSlot} S
 * @param {object} options
 * @param {readonly S[]} options.slots - every slot of the pool
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {(slot: S, onCrash: (runtime: Runtime) => void) => Promise<Prepared | null>} [options.launchAside] -
 *   starts a replacement for the slot's runner beside it, on a socket of its own, and resolves
 *   once it answers (null: it did not start); without it, none is prepared
 * @param {(slot: S, runtime: Runtime, reason: string) => Promise<void>} options.replace - the
 *   pool's replacement of a slot's runner (a swapped-in replacement that crashes is replaced)
 * @param {(runtime: Runtime) => void} options.warm - warms a prepared runner (stable-warmth.mjs),
 *   so it serves warm once swapped in
 * @param {() => boolean} options.stopping - the server stops: nothing more is prepared or swapped
 * @param {(line: string) => void} options.log
 * @param {string} options.label
 * @returns {SlotPreparation}
 */
export function createSlotPreparation({
  slots,
  clock,
  launchAside,
  replace,
  warm,
  stopping,
  log,
  label,
}) {
  /**
   * Starts a replacement beside the slot's runner, which has not answered for a while; it takes
   * the slot's place if the runner is replaced.
   * @param {S} slot
   * @param {NonNullable<typeof launchAside>} launch
   */
  const prepare = async (slot, launch) => {
    slot.preparing = true;
    try {
      const aside = await launch(slot, (crashed) => {
        // Its crash callback serves it for life: swapped in, it is the slot's runner.
        if (slot.runtime === crashed) void replace(slot, crashed, "it crashed");
        else void crashed.kill("it crashed");
      });
      if (!aside) return;
      // Wanted only while the slot's runner is still silent: a start takes 0.3–7 s on a loaded
      // machine, and meanwhile the runner may have answered again, or been ended and followed
      // by a fresh one. Kept then, it was announced as standing ready beside a runner that
      // answers ("has not answered for 0 s") and ended at the next look.
      if (
        stopping() ||
        !slot.runtime ||
        preparedUnwanted({ ...slot, prepared: aside }, clock.now())
      ) {
        await aside.runtime.kill("it was not needed");
        return;
      }
      slot.prepared = aside;
      warm(aside.runtime);
      void aside.runtime.exited.then(() => {
        if (slot.prepared === aside) slot.prepared = null;
      });
      log(
        `${label}: ${slot.runtime.name} has not answered for ${Math.round((clock.now() - slot.runtime.lastAnswer) / 1000)} s; a replacement stands ready beside it.`,
      );
    } finally {
      slot.preparing = false;
    }
  };

  /** @type {SlotPreparation["swappable"]} */
  function swappable(prepared) {
    return !!prepared && prepared.runtime.isRunning() && !stopping();
  }

  return {
    look: () => {
      const now = clock.now();
      for (const slot of slots) {
        if (preparedUnwanted(slot, now)) {
          const unwanted = /** @type {Prepared} */ (slot.prepared);
          slot.prepared = null;
          // Said, or the output's last word on it is "a replacement stands ready beside it".
          const answers = !!slot.runtime && !slot.runtime.killedBecause && !slot.retiring;
          if (answers)
            log(
              `${label}: ${slot.runtime?.name} answers again; the replacement prepared for it (workerd pid ${unwanted.runtime.pid}) is ended.`,
            );
          // The reason names what happened: the runner answered, or the slot retires or lost it.
          void unwanted.runtime.kill(
            answers ? "its runner answers again" : "its runner is retired or ended",
          );
        } else if (launchAside && needsPrepared(slot, now)) void prepare(slot, launchAside);
      }
    },
    take: (slot) => {
      const prepared = slot.prepared;
      slot.prepared = null;
      return prepared;
    },
    swappable,
    swapIn: (prepared) => {
      try {
        prepared.promote();
        return prepared.runtime;
      } catch (error) {
        log(
          `${label}: the replacement prepared for ${prepared.runtime.name} could not take its place (${/** @type {Error} */ (error).message}); a fresh one is started.`,
        );
        void prepared.runtime.kill("it could not take its place");
        return null;
      }
    },
    giveUp: async (prepared) => {
      if (prepared) await prepared.runtime.kill("it was not needed");
    },
  };
}
