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
 *
 * Bounded per run ({@link collectionBudget}): a program that reads large bodies in a row chose
 * every one of those collections, and each holds the host's thread for every client (~100 ms
 * at load 17). A run may force at most {@link MAX_COLLECTIONS_PER_RUN}, and the host at most one
 * per {@link MIN_COLLECTION_GAP_MS} whoever asks; past that, V8 collects when it decides to.
 */

/** Bodies from this size on are followed by a collection. */
export const COLLECT_AFTER_BYTES = 1_048_576;

/**
 * Pauses of a sliced redaction (../redaction/slices.ts) between two collections during a large
 * body's redaction: ~6 million positions decoded or read.
 *
 * Why not more often: the run's budget ({@link MAX_COLLECTIONS_PER_RUN}) must last the bodies
 * a program reads. A 4 MiB body of random bytes pauses ~950 times (the most per MiB of the
 * bodies measured: its views are made of stretches in many short passes; a `%25` flood ~490).
 * Every 64 pauses it asked for ~15 collections a body, so the budget was spent during the
 * second body and the third and fourth got none: their garbage piled up to V8's own limits, and
 * the host grew +65…+121 MiB for four such bodies (bound +48). Every 192 pauses a random body
 * takes 4 and one after it (`collectAfterLargeBody`), so four bodies take 20 of the 24; the host
 * grew +37…+39 MiB, and a `%25` body's growth did not move while it spent less CPU on
 * collections (bench/README.md, "Random bytes: the byte view not made, collections spread").
 */
export const COLLECT_EVERY_PAUSES = 192;

/** V8's `gc` as `--expose-gc` installs it; read once, when this module loads. */
const exposedGc: unknown = (globalThis as { gc?: unknown }).gc;

/** Forced collections one run may cause (4 random bodies of 4 MiB take 20: {@link COLLECT_EVERY_PAUSES}). */
export const MAX_COLLECTIONS_PER_RUN = 24;

/**
 * The least time between two forced collections of the host, whichever runs ask: with a
 * collection costing up to ~100 ms of the thread, forced ones take at most about a third of it.
 */
export const MIN_COLLECTION_GAP_MS = 250;

/** What {@link mayCollect} decides on: one run's collections, and the host's last one. */
export interface CollectionState {
  /** Forced collections this run caused so far. */
  used: number;
  /** When the host last ran a forced collection (ms, the clock's), shared by every run. */
  readonly host: { lastAt: number };
}

/**
 * Whether a forced collection may run now: the run has budget left and the host's last one is
 * at least {@link MIN_COLLECTION_GAP_MS} ago.
 * @param state - the run's collections and the host's last
 * @param now - the clock's time now (ms)
 * @param max - the run's budget (default {@link MAX_COLLECTIONS_PER_RUN})
 * @param gap - the host's least gap (default {@link MIN_COLLECTION_GAP_MS})
 */
export function mayCollect(
  state: CollectionState,
  now: number,
  max = MAX_COLLECTIONS_PER_RUN,
  gap = MIN_COLLECTION_GAP_MS,
): boolean {
  return state.used < max && now - state.host.lastAt >= gap;
}

/** The forced collections of one run: ask before each, and it is counted when it runs. */
export interface CollectionBudget {
  /** Forced collections this run caused so far. */
  readonly used: number;
  /**
   * Runs a collection when the budget allows it (see {@link mayCollect}).
   * @param collect - the collection
   * @returns whether it ran
   */
  collect(collect: () => void): boolean;
}

/** The host's last forced collection: one host isolate, one record, whichever run asked. */
const HOST = { lastAt: Number.NEGATIVE_INFINITY };

/**
 * A budget for one run (build one per run: ../api-requester.ts).
 * @param clock - the time now in ms (default `Date.now`: workerd's clock stands still while
 *   JavaScript runs, but moves at each pause of a sliced redaction, which is I/O)
 * @param host - the host's last collection (default: this isolate's)
 */
export function collectionBudget(
  clock: () => number = Date.now,
  host: { lastAt: number } = HOST,
): CollectionBudget {
  const state: CollectionState = { used: 0, host };
  return {
    get used() {
      return state.used;
    },
    collect(collect) {
      const now = clock();
      if (!mayCollect(state, now)) return false;
      state.used++;
      host.lastAt = now;
      collect();
      return true;
    },
  };
}

/**
 * Collects the host's garbage when a body of `bytes` was large enough to leave much of it, and
 * the run's budget allows it.
 * @param bytes - the body's size
 * @param budget - the run's forced collections (default: a budget of its own, bounded only by
 *   the host's gap between collections)
 * @param gc - the collection (default: the runtime's exposed `gc`, when there is one)
 * @returns whether a collection ran
 */
export function collectAfterLargeBody(
  bytes: number,
  budget: CollectionBudget = collectionBudget(),
  gc: unknown = exposedGc,
): boolean {
  if (bytes < COLLECT_AFTER_BYTES || typeof gc !== "function") return false;
  return budget.collect(() => plainCollection(gc as (options?: object) => void));
}

/**
 * The pause for a sliced redaction of a body of `bytes`: gives the thread away (`yieldThread`)
 * and, for a large body where `gc` is exposed, collects every {@link COLLECT_EVERY_PAUSES}
 * pauses first (when the run's budget allows), so the garbage of views already searched does
 * not pile up to the end.
 * @param bytes - the body's size
 * @param yieldThread - how the thread is given away
 * @param budget - the run's forced collections (default: a budget of its own)
 * @param gc - the collection (default: the runtime's exposed `gc`, when there is one)
 */
export function collectingPause(
  bytes: number,
  yieldThread: () => Promise<void>,
  budget: CollectionBudget = collectionBudget(),
  gc: unknown = exposedGc,
): () => Promise<void> {
  if (bytes < COLLECT_AFTER_BYTES || typeof gc !== "function") return yieldThread;
  let pauses = 0;
  const collect = () => plainCollection(gc as (options?: object) => void);
  return () => {
    if (++pauses % COLLECT_EVERY_PAUSES === 0) budget.collect(collect);
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
