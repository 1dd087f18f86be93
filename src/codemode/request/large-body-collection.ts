/**
 * Full collections of the host isolate during and after the redaction of a large response body,
 * where the runtime exposes V8's `gc` (only the local server's host with runner processes:
 * cli/local-server/v8-flags.mjs; elsewhere this does nothing, as in src/app/host-collection.ts,
 * whose collection after every 250 requests this complements).
 *
 * Why: a program chooses how many large bodies an API returns, and redacting one leaves tens of
 * megabytes of garbage (its decoded views, their maps, copies of the body) in the old
 * generation, where V8 collects late. Reading 4 bodies of 4 MiB of `%25` escapes grew the host
 * by 168 MiB; with a collection after each, by 54; with collections during each too, by 40
 * (issue #40, test/e2e/heavy-bodies.mjs under 2 busy processes). A collection of the host's
 * heap takes tens of milliseconds; only bodies of {@link COLLECT_AFTER_BYTES} or more pay it,
 * whose redaction costs several times that.
 */

/** Bodies from this size on are followed by a collection. */
export const COLLECT_AFTER_BYTES = 1_048_576;

/**
 * Pauses of a sliced redaction (../redaction/slices.ts) between two collections during a large
 * body's redaction: ~2 million positions decoded or read, about half of a 4 MiB body's
 * garbage.
 */
export const COLLECT_EVERY_PAUSES = 64;

/** V8's `gc` as `--expose-gc` installs it; read once, when this module loads. */
const exposedGc: unknown = (globalThis as { gc?: unknown }).gc;

/**
 * Collects the host's garbage when a body of `bytes` was large enough to leave much of it.
 * @param bytes - the body's size
 * @param gc - the collection (default: the runtime's exposed `gc`, when there is one)
 * @returns whether a collection ran
 */
export function collectAfterLargeBody(bytes: number, gc: unknown = exposedGc): boolean {
  if (bytes < COLLECT_AFTER_BYTES || typeof gc !== "function") return false;
  plainCollection(gc as (options?: object) => void);
  return true;
}

/**
 * The pause for a sliced redaction of a body of `bytes`: gives the thread away (`yieldThread`)
 * and, for a large body where `gc` is exposed, collects every {@link COLLECT_EVERY_PAUSES}
 * pauses first, so the garbage of views already searched does not pile up to the end.
 * @param bytes - the body's size
 * @param yieldThread - how the thread is given away
 * @param gc - the collection (default: the runtime's exposed `gc`, when there is one)
 */
export function collectingPause(
  bytes: number,
  yieldThread: () => Promise<void>,
  gc: unknown = exposedGc,
): () => Promise<void> {
  if (bytes < COLLECT_AFTER_BYTES || typeof gc !== "function") return yieldThread;
  let pauses = 0;
  const collect = gc as (options?: object) => void;
  return () => {
    if (++pauses % COLLECT_EVERY_PAUSES === 0) plainCollection(collect);
    return yieldThread();
  };
}

/**
 * One full collection (a V8 too old for the options object: a plain `gc()`). Not V8's
 * memory-reducing one (src/app/host-collection.ts runs that every 250 requests): it repeats
 * until nothing more is freed, and each of those held the thread while other clients waited;
 * freed garbage is reused by the next body, which is what bounds the peak.
 */
function plainCollection(collect: (options?: object) => void): void {
  try {
    collect({ type: "major", execution: "sync" });
  } catch {
    collect();
  }
}
