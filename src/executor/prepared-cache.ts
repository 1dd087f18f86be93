/**
 * A bounded cache of prepared programs by their exact text (issue #43). Preparing a program
 * (fence blanking, acorn's parse, the TypeScript retry, the budget instrumentation) is a pure
 * function of the code and the prelude: no clock, no settings, no randomness, nothing of the
 * caller. So the same text prepared again gives the same module, and a retried, approved or
 * repeated program need not be parsed again. The host's CPU per trivial `execute` was ~4.5 %
 * this work, most of it acorn's set-up for even the smallest program.
 *
 * Every run that hits an entry reads the same object, so the caller keeps only frozen values
 * (prepare-code.ts freezes the preparation and its insertions). The bound is both a count and
 * the characters held (key, and what `weigh` counts of the value: the source and the module), so
 * a few large programs cannot hold the host's memory; a program over a quarter of the budget is
 * prepared every time and never kept. The least recently used entry goes first.
 */

/** How much the cache may hold. */
export interface PreparedCacheBounds {
  /** Most entries kept. */
  entries: number;
  /** Most characters kept over all entries: code, prelude and the prepared module. */
  chars: number;
}

/** The host's bounds: a few dozen programs, at most ~1 MiB of text (2 bytes a character). */
export const PREPARED_CACHE_BOUNDS: PreparedCacheBounds = { entries: 64, chars: 512 * 1024 };

/** A bounded LRU of preparations (`V`) keyed by the exact code and prelude. */
export class PreparedCache<V> {
  readonly #bounds: PreparedCacheBounds;
  readonly #weigh: (value: V) => number;
  /** Map order is use order: the first key is the least recently used. */
  readonly #entries = new Map<string, { value: V; chars: number }>();
  #chars = 0;

  /**
   * @param weigh - the characters a value holds beyond its key
   * @param bounds - the count and character bounds (PREPARED_CACHE_BOUNDS on the host)
   */
  constructor(weigh: (value: V) => number, bounds: PreparedCacheBounds = PREPARED_CACHE_BOUNDS) {
    this.#weigh = weigh;
    this.#bounds = bounds;
  }

  /**
   * The preparation of `code` with `prelude`: the kept one, or `prepare()`'s result, kept when
   * it fits.
   * @param code - the program text, exactly as sent
   * @param prelude - the trusted text placed first, or undefined
   * @param prepare - prepares it (called only on a miss); its value must be frozen
   * @returns the preparation, shared with every other hit
   */
  get(code: string, prelude: string | undefined, prepare: () => V): V {
    const key = keyOf(code, prelude);
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      // Most recently used: to the end of the order.
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      return kept.value;
    }
    const value = prepare();
    const chars = key.length + this.#weigh(value);
    if (chars > this.#bounds.chars / 4 || this.#bounds.entries < 1) return value;
    this.#entries.set(key, { value, chars });
    this.#chars += chars;
    while (this.#entries.size > this.#bounds.entries || this.#chars > this.#bounds.chars) {
      const [oldest, entry] = this.#entries.entries().next().value as [string, { chars: number }];
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
    return value;
  }

  /** Entries and characters held now (for tests and diagnostics). */
  get size(): { entries: number; chars: number } {
    return { entries: this.#entries.size, chars: this.#chars };
  }
}

/**
 * The key: the prelude's length first, so no code/prelude pair can spell another pair's key
 * (`undefined` and an empty prelude differ: "-" against "0").
 */
function keyOf(code: string, prelude: string | undefined): string {
  return prelude === undefined ? `-:${code}` : `${prelude.length}:${prelude}${code}`;
}
