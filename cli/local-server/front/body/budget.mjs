/**
 * The front's memory budget for request bodies and the answers it holds: every body it holds at
 * once, counted together, as its bytes arrive. Each connection may hold at most one route's limit
 * (../route-bodies.mjs), and there is no cap on connections, so without a total any number of
 * clients could make the front hold any amount (120 connections held 2.1 GB before this budget;
 * issue #40). Past the total, the request whose bytes would cross it is refused with 503 and its
 * bytes given back; the others go on.
 *
 * Answers held whole (../exchange.mjs holds a JSON answer until its end, so that a runtime lost
 * mid-answer still gets its client a clear error) count in the same total, from their first byte
 * until Node has handed their last to the system: a client that never reads its answers kept
 * each one (up to 4 MiB) in the front's memory, outside any bound. They take at most
 * {@link ANSWER_SHARE} of the total and never end a body to make room (so clients that never
 * read cannot keep others' requests out); an answer that does not fit is passed on as it comes
 * instead, read from the runtime only as fast as its client reads it.
 */

/**
 * The total when `FRONT_BODY_BUDGET_MB` is not set: 64 MiB, 16 MCP bodies of the largest size.
 * The setting (its default and its range, 8–4096) is a row of src/app/config/launcher-settings.ts;
 * a unit test keeps this default equal to that row's.
 */
export const DEFAULT_BODY_BUDGET_BYTES = 64 * 1_048_576;

/** The part of the total that answers held whole may take at most, together. */
export const ANSWER_SHARE = 0.5;

/**
 * What one answer holds of the budget: bytes added while it is held whole, all given back at
 * once by `release()` (idempotent).
 * @typedef {object} AnswerHold
 * @property {(bytes: number) => boolean} add - counts `bytes` more; false (nothing counted) when
 *   they would cross the total or the answers' share (the answer is then passed on as it comes)
 * @property {() => void} release - gives back everything this answer holds
 */

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
  /** Bytes of answers held whole (a part of `used`). */
  let answers = 0;
  const answerLimit = Math.floor(totalBytes * ANSWER_SHARE);
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
    /** Bytes held now by all requests together (bodies and answers). */
    used: () => used,
    /** Bytes of answers held now. */
    answersHeld: () => answers,
    /** An answer's share, empty at first. @returns {AnswerHold} */
    answerHold() {
      let mine = 0;
      let released = false;
      return {
        add(bytes) {
          // Never a body ended for it: an answer that does not fit is passed on as it comes.
          if (released || used + bytes > totalBytes || answers + bytes > answerLimit) return false;
          used += bytes;
          answers += bytes;
          mine += bytes;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          used -= mine;
          answers -= mine;
          mine = 0;
        },
      };
    },
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
