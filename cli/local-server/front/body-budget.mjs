/**
 * The front's memory budget for request bodies: every body it holds at once, counted together,
 * as its bytes arrive. Each connection may hold at most one route's limit (route-bodies.mjs),
 * and there is no cap on connections, so without a total any number of clients could make the
 * front hold any amount (120 connections held 2.1 GB before this budget; issue #40). Past the
 * total, the request whose bytes would cross it is refused with 503 and its bytes given back;
 * the others go on.
 */

/**
 * The total when `FRONT_BODY_BUDGET_MB` is not set: 64 MiB, 16 MCP bodies of the largest size.
 * The setting (its default and its range, 8–4096) is a row of src/app/config/launcher-settings.ts;
 * a unit test keeps this default equal to that row's.
 */
export const DEFAULT_BODY_BUDGET_BYTES = 64 * 1_048_576;

/**
 * What one request holds of the budget: bytes added as they arrive, all given back at once by
 * `release()` (idempotent: a request ends in one way, but may be told so more than once).
 * @typedef {object} BodyHold
 * @property {(bytes: number) => boolean} add - counts `bytes` more; false (nothing counted) when
 *   they would cross the total and no larger body being read can make room
 * @property {() => void} release - gives back everything this request holds
 * @property {() => number} held - bytes this request holds
 * @property {(() => void) | undefined} onEvict - set while its body is being read: called when
 *   the budget refuses this request to make room for a smaller one (it must then release)
 */

/**
 * The budget: one counter shared by every request.
 *
 * Who is refused when a body's bytes would cross the total: the largest body still being read,
 * when it is larger than what the arriving one would then hold, else the arriving one. So a
 * client that fills the budget with large bodies cannot keep small requests (an MCP `ping`, a
 * tool call) out: they make room by ending the largest upload instead.
 * @param {number} totalBytes - the most all bodies together may hold
 */
export function createBodyBudget(totalBytes) {
  let used = 0;
  /** @type {Set<BodyHold>} the holds whose body is being read (they may be evicted) */
  const reading = new Set();
  /**
   * The hold being read that holds the most, other than `except`.
   * @param {BodyHold} except
   */
  const largest = (except) => {
    /** @type {BodyHold | undefined} */
    let found;
    for (const hold of reading)
      if (hold !== except && hold.onEvict && (!found || hold.held() > found.held())) found = hold;
    return found;
  };
  return {
    totalBytes,
    /** Bytes held now by all requests together. */
    used: () => used,
    /** A request's share, empty at first. @returns {BodyHold} */
    hold() {
      let mine = 0;
      let released = false;
      /** @type {BodyHold} */
      const hold = {
        onEvict: undefined,
        add(bytes) {
          if (released) return false;
          // Each turn evicts one body being read (its release lowers `used`), or gives up.
          for (;;) {
            if (used + bytes <= totalBytes) break;
            const victim = largest(hold);
            if (!victim || victim.held() <= mine + bytes) return false;
            const evict = /** @type {() => void} */ (victim.onEvict);
            reading.delete(victim);
            victim.onEvict = undefined;
            evict();
            // An evicted hold that did not give its bytes back must not loop here forever.
            victim.release();
          }
          used += bytes;
          mine += bytes;
          if (hold.onEvict) reading.add(hold);
          return true;
        },
        release() {
          reading.delete(hold);
          hold.onEvict = undefined;
          if (released) return;
          released = true;
          used -= mine;
          mine = 0;
        },
        held: () => mine,
      };
      return hold;
    },
  };
}

/** @typedef {ReturnType<typeof createBodyBudget>} BodyBudget */
