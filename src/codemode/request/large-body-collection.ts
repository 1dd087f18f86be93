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
 * at load 17). A run earns {@link COLLECTIONS_PER_MIB} forced collections per MiB of large
 * bodies it has redacted (earned as each body's redaction starts, so that body's own
 * collections can spend it), and the host runs at most one per {@link MIN_COLLECTION_GAP_MS}
 * whoever asks; past either, V8 collects when it decides to. So a run's collections cost the
 * host's thread in proportion to what it read, never more per MiB than four bodies may
 * (the fixed 24 a run this replaced: a run reading eight random 4 MiB bodies spent it by the
 * fifth, and the garbage of the rest grew the host +124/+126 MiB against 3 × 32 = 96).
 *
 * What bounds a run's collections, then, is what bounds its reading: its timeout
 * (`timeoutMs`, 30 s by default: src/executor/limits.ts) and its host calls (`maxHostCalls`,
 * 1,000), and the bytes it may read (`maxResponseBytes` a body and `maxResponseBytesPerRun` a
 * run: ./response-budget.ts; what a program sends is capped by ./sent-check.ts). Time bounds it hardest: the host's thread spends ~130–360 ms per
 * MiB redacting a large body (test/e2e/heavy-bodies.mjs), and the host-wide gap allows at most
 * 4 forced collections a second whatever runs ask, so a 30 s run forces at most ~120 however
 * much it reads (bodies fetched before its end are redacted after it too, at the same rate).
 */

/**
 * Bodies from this size on are followed by a collection. Smaller ones earn none, however many a
 * run reads: measured in the real host, 200 × 100 KiB grew it +21…+31 MiB for 19.5 MiB read and
 * 1,000 × 60 KiB (the most a run may call) +49…+122 MiB for 58.6 MiB, all under 3× the bytes,
 * where each forced collection would hold the thread for every client (bench/README.md, "API
 * answers read within limits").
 */
export const COLLECT_AFTER_BYTES = 1_048_576;

/**
 * Pauses of a sliced redaction (../redaction/slices.ts) between two collections during a large
 * body's redaction: ~6 million positions decoded or read.
 *
 * Why not more often: the run's budget ({@link COLLECTIONS_PER_MIB}; until 2026-12-07 a fixed
 * 24 a run, which had to last four bodies) covers a body's collections only at about this
 * rate. A 4 MiB body of random bytes pauses ~950 times (the most per MiB of the bodies
 * measured: its views are made of stretches in many short passes; a `%25` flood ~490).
 * Every 64 pauses it asked for ~15 collections a body, so the budget was spent during the
 * second body and the third and fourth got none: their garbage piled up to V8's own limits, and
 * the host grew +65…+121 MiB for four such bodies (bound +48). Every 192 pauses a random body
 * takes 4 and one after it (`collectAfterLargeBody`), so four bodies took 20 of the 24; the host
 * grew +37…+39 MiB, and a `%25` body's growth did not move while it spent less CPU on
 * collections (bench/README.md, "Random bytes: the byte view not made, collections spread").
 */
export const COLLECT_EVERY_PAUSES = 192;

/** V8's `gc` as `--expose-gc` installs it; read once, when this module loads. */
const exposedGc: unknown = (globalThis as { gc?: unknown }).gc;

/**
 * Forced collections a run earns per MiB (1,048,576 bytes) of large bodies redacted
 * ({@link COLLECT_AFTER_BYTES} or more each): 24 for the 16 MiB of four 4 MiB bodies, what the
 * fixed budget of a run allowed them before, so the thread's time per MiB spent on collections
 * stays what it was for those four bodies. A random 4 MiB body asks for 5 (4 during its
 * redaction, {@link COLLECT_EVERY_PAUSES}, and one after it) and a `%25` body for 3, so every
 * body of such a run gets its collections however many it reads; a run of 30 bodies of 1 MiB
 * (one after each) earns 45 and takes 30. Whole collections only: a run that read 1 MiB earns 1.
 */
export const COLLECTIONS_PER_MIB = 1.5;

/** Bytes in the MiB of {@link COLLECTIONS_PER_MIB}. */
const MIB = 1_048_576;

/**
 * The least time between two forced collections of the host, whichever runs ask: with a
 * collection costing up to ~100 ms of the thread, forced ones take at most about a third of it.
 */
export const MIN_COLLECTION_GAP_MS = 250;

/** What {@link mayCollect} decides on: one run's collections and reading, and the host's last. */
export interface CollectionState {
  /** Forced collections this run caused so far. */
  used: number;
  /** Bytes of large bodies this run has redacted so far (each counted as its redaction starts). */
  read: number;
  /** When the host last ran a forced collection (ms, the clock's), shared by every run. */
  readonly host: { lastAt: number };
}

/**
 * Whether a forced collection may run now: the run has earned another one by what it read
 * ({@link COLLECTIONS_PER_MIB}) and the host's last one is at least {@link MIN_COLLECTION_GAP_MS}
 * ago.
 * @param state - the run's collections and reading, and the host's last collection
 * @param now - the clock's time now (ms)
 * @param perMiB - collections earned per MiB read (default {@link COLLECTIONS_PER_MIB})
 * @param gap - the host's least gap (default {@link MIN_COLLECTION_GAP_MS})
 */
export function mayCollect(
  state: CollectionState,
  now: number,
  perMiB = COLLECTIONS_PER_MIB,
  gap = MIN_COLLECTION_GAP_MS,
): boolean {
  const earned = Math.floor((state.read / MIB) * perMiB);
  return state.used < earned && now - state.host.lastAt >= gap;
}

/** The forced collections of one run: ask before each, and it is counted when it runs. */
export interface CollectionBudget {
  /** Forced collections this run caused so far. */
  readonly used: number;
  /** Bytes of large bodies this run has redacted so far (see {@link CollectionState.read}). */
  readonly read: number;
  /**
   * Counts a large body whose redaction starts: what earns the run its collections.
   * @param bytes - the body's size
   */
  earn(bytes: number): void;
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
 * @param perMiB - collections earned per MiB read (default {@link COLLECTIONS_PER_MIB})
 */
export function collectionBudget(
  clock: () => number = Date.now,
  host: { lastAt: number } = HOST,
  perMiB: number = COLLECTIONS_PER_MIB,
): CollectionBudget {
  const state: CollectionState = { used: 0, read: 0, host };
  return {
    get used() {
      return state.used;
    },
    get read() {
      return state.read;
    },
    earn(bytes) {
      state.read += bytes;
    },
    collect(collect) {
      const now = clock();
      if (!mayCollect(state, now, perMiB)) return false;
      state.used++;
      host.lastAt = now;
      collect();
      return true;
    },
  };
}

/**
 * Collects the host's garbage when a body of `bytes` was large enough to leave much of it, and
 * the run's budget allows it. The body earned its share of the budget when its redaction
 * started ({@link collectingPause}); this spends it and earns nothing.
 * @param bytes - the body's size
 * @param budget - the run's forced collections (default: a budget of its own, which has earned
 *   nothing: a body's collections come from the budget its pause earned into)
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
 * not pile up to the end. Made once per body as its redaction starts: a large body earns the
 * run its share of collections here ({@link CollectionBudget.earn}).
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
  budget.earn(bytes);
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
