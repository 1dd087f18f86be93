/**
 * A full garbage collection of the host isolate after every {@link COLLECT_EVERY_REQUESTS}
 * requests (a light one, a `ping` or a probe, counting as 1/{@link LIGHT_REQUESTS_PER_COUNT}),
 * where the runtime exposes V8's `gc` function: only the local server's host runtime when its
 * sandboxes run in runner processes (cli/local-server/v8-flags.mjs, `--expose-gc`).
 * Elsewhere (Cloudflare, `wrangler dev`, the test pool, a local server without runners) there
 * is no `gc` and this does nothing.
 *
 * Why: the host's resident memory rose for tens of thousands of calls although its live heap
 * stays ~20 MB (issue #28, bench/README.md, "Memory over time"). What grows is memory that
 * only a full collection gives back: native memory held by the wrappers of finished requests,
 * streams and RPC results, which V8 counts as small and so collects late, and the heap pages
 * of objects that lived past a young collection. Measured under the soak's mix (concurrency 4,
 * demo, 3 runners, idle machine): without it the host went 182 → 286 MiB from 2,000 to 24,000
 * calls; with a plain collection every 1,000 requests, 190 → 226.
 *
 * Every 250 requests: in the full e2e soak (2,000 + 18,000 calls, 2 busy processes) the host
 * grew +100 MiB after warm-up with a collection every 1,000 requests and +59 MiB every 250.
 * A collection of the host's ~20–35 MB heap takes tens of milliseconds (every ~2.5 s at 100
 * requests a second: about 1–2 % of the host's thread); the local bench's throughput did not
 * move beyond its noise. It runs after the request that reached the count has been answered,
 * never inside it.
 */

/** Requests between two full collections of the host isolate (light ones count less). */
export const COLLECT_EVERY_REQUESTS = 250;

/**
 * How many light requests ({@link isLightRequest}) count as one request toward
 * {@link COLLECT_EVERY_REQUESTS}: a `ping`, a `/health` probe or a notification counts 1/8.
 *
 * Why (issue #43, host CPU per `ping` ≤ 0.5 ms): the count was of requests, so a `ping`, which
 * runs no program, reads no spec and calls no runner or Durable Object, paid for a collection
 * as often as an `execute` does: in the host's profile of 1,500 pings, collections were 43 % of
 * the samples (~0.19 ms per request on average), against 12 % of a trivial `execute`'s. What
 * made the host grow (the soak's mix of `search` and `execute`, "Memory over time" in
 * bench/README.md) is counted as before, once per request; light requests still count, so a
 * server that gets only pings collects too, once per 2,000 of them. Measured (bench/README.md,
 * "The host's collections weighted by the request", 2026-12-06, base and this alternately,
 * load 5–6): host CPU per `ping` 0.685 → 0.60 ms (medians of 24 rounds; range 0.5–1.07 →
 * 0.37–0.73), per `execute` 2.17 → 2.23 (noise); e2e `soak` 750 + 750 calls +0.1 % and +0.2 %,
 * 2,000 + 6,000 calls +4.7 % and +6.3 % (host workerd +3 and +7 MiB), the same collections.
 */
export const LIGHT_REQUESTS_PER_COUNT = 8;

/**
 * Bodies shorter than this are light ({@link isLightRequest}): a `ping` with a UUID for its id
 * is 77 bytes, the shortest `tools/call` (`search` of the code `1`) 98.
 */
export const LIGHT_BODY_BYTES = 96;

/**
 * Whether a request is light for the count ({@link LIGHT_REQUESTS_PER_COUNT}): a `/health`
 * probe, or a request that declares a body shorter than {@link LIGHT_BODY_BYTES} (a `ping`, a
 * notification, `tools/list`, a page: no program can be in it). A body of unknown length (no
 * `Content-Length`; the local server's front always sends one) counts in full.
 * @param probe - whether it is a `/health` probe
 * @param contentLength - the request's `Content-Length` header, or null
 */
export function isLightRequest(probe: boolean, contentLength: string | null): boolean {
  if (probe) return true;
  if (contentLength === null || !/^\d{1,9}$/.test(contentLength)) return false;
  return Number(contentLength) < LIGHT_BODY_BYTES;
}

/**
 * Bytes of request bodies (as declared by `Content-Length`) after which a collection runs even
 * before {@link COLLECT_EVERY_REQUESTS} requests: the count is of requests, and a client picks
 * how large each one is.
 *
 * Why (issue #40, host memory a client controls): every MCP body leaves garbage of about twice
 * its bytes (the bytes read, their text, what the parse and the answer copy), large strings that
 * V8 collects late, so 60 POSTs of 3 MiB (each under the front's caps, 60 requests: no count
 * reached) grew the host runtime 120 → 496 MiB whether the 3 MiB were an id or an argument
 * (bench/README.md, "Long JSON-RPC ids"). A collection every 16 MiB of bodies costs tens of
 * milliseconds per 16 MiB, which already took the host longer than that to read and decode.
 */
export const COLLECT_EVERY_BODY_BYTES = 16 * 1_048_576;

/**
 * The bytes a request's `Content-Length` declares, for {@link COLLECT_EVERY_BODY_BYTES}; 0 when
 * it declares none or nonsense (the local server's front always sends one).
 * @param contentLength - the request's `Content-Length` header, or null
 */
export function declaredBodyBytes(contentLength: string | null): number {
  if (contentLength === null || !/^\d{1,12}$/.test(contentLength)) return 0;
  return Number(contentLength);
}

/**
 * Every how many collections one is memory-reducing ({@link REDUCING_COLLECTION}); the others
 * are plain full collections ({@link PLAIN_COLLECTION}). So the garbage, and the native memory
 * its wrappers hold, is freed every 250 requests as before, and freed heap pages go back to the
 * system every 1,000.
 *
 * Why not every collection memory-reducing (the setting until 2026-12-06): V8 runs a
 * memory-reducing collection as several full collections in a row, so it costs 2–3× a plain
 * one (Node 22, a 34 MB heap like the host's, load ~19 on 2 cores: 89 against 34 ms of CPU,
 * median of 20), and the host's CPU per call is what issue #43 cuts (its profile: collections
 * were ~20 % of the samples of a trivial `execute` and most of a `ping`'s). Per 1,000 requests
 * that is 3 × 34 + 89 ≈ 190 ms of the host's thread instead of 4 × 89 ≈ 360: ~0.17 ms less per
 * request. What it gives up is the heap pages of up to 750 requests, a few MiB on a 20–35 MB
 * heap; the native memory, which was what grew (bench/README.md), is freed as often as before.
 */
export const REDUCE_EVERY_COLLECTIONS = 4;

/**
 * How long the host must have served only `/health` (the supervisor's probes, every 500 ms)
 * after some work before it runs one memory-reducing collection ({@link REDUCING_COLLECTION})
 * of its own, once per quiet spell.
 *
 * Why (issue #43, memory that follows the work): the count alone gives back what a burst of
 * work left only up to ~8 minutes later on an idle server (the probes reach 250 requests every
 * ~2 minutes, and only every 4th collection is memory-reducing), and what the start-up left
 * (the Worker's bundle and the spec parsed, with their garbage) ~2 minutes after it. Measured
 * through the inspector with Cloudflare's spec, idle 40 s after the start (2026-12-06): the
 * host's heap 35 → 25 MB used and its resident memory 130 → 118 MiB after one such collection.
 * Its cost, tens of milliseconds of the host's thread, comes at most once per spell of work, and
 * only once that work has stopped.
 */
export const QUIET_COLLECT_MS = 10_000;

/** V8's `gc` as `--expose-gc` installs it; read once, when this module loads. */
const exposedGc: unknown = (globalThis as { gc?: unknown }).gc;

/**
 * V8's memory-reducing full collection (`flavor: "last-resort"`, what V8 itself runs before it
 * gives up on an allocation): besides the garbage, it gives the heap's freed and pooled pages
 * back to the system. A plain full collection frees the garbage but keeps those pages: under the
 * soak's mix with 2 busy processes, after 12,000–14,000 calls with a collection every 1,000
 * requests, the host held ~238 MiB with plain ones and ~201 with these (V8's committed heap
 * 46 → 33 MB). A V8 too old for the options object refuses it; a plain collection is then the
 * next best.
 */
export const REDUCING_COLLECTION = { type: "major", execution: "sync", flavor: "last-resort" };

/** A plain full collection: the garbage is freed, the heap's pages are kept for reuse. */
export const PLAIN_COLLECTION = { type: "major", execution: "sync", flavor: "regular" };

/** One collection of the given kind, or V8's default one where it refuses the options. */
function collectWith(collect: (options?: object) => void, options: object): void {
  try {
    collect(options);
  } catch {
    collect();
  }
}

/** Counts requests (light ones as a share) and collects after every `every`-th one. */
export interface HostCollection {
  /** Whether collections run here (the runtime exposes `gc`). */
  readonly enabled: boolean;
  /** Full collections run so far. */
  readonly collections: number;
  /**
   * Counts one request; at the count, or on a probe after {@link QUIET_COLLECT_MS} without
   * other requests since some work, schedules a collection after the current turn.
   * @param ctx - the request's context: the collection is one of its `waitUntil` tasks
   * @param probe - whether it was only a `/health` request (no work)
   * @param light - whether it counts as 1/{@link LIGHT_REQUESTS_PER_COUNT} of a request
   *   (default: when it is a probe; see {@link isLightRequest})
   * @param bodyBytes - the bytes of its body ({@link declaredBodyBytes}), counted toward
   *   {@link COLLECT_EVERY_BODY_BYTES} (default 0)
   */
  afterRequest(
    ctx: Pick<ExecutionContext, "waitUntil">,
    probe?: boolean,
    light?: boolean,
    bodyBytes?: number,
  ): void;
}

/**
 * Creates the counter.
 * @param every - requests between collections, a light one counting
 *   1/{@link LIGHT_REQUESTS_PER_COUNT} (default {@link COLLECT_EVERY_REQUESTS})
 * @param gc - the collection (default: the runtime's exposed `gc`, when there is one)
 * @param reduceEvery - every how many collections one is memory-reducing (default
 *   {@link REDUCE_EVERY_COLLECTIONS}; the first one is)
 * @param now - the time (ms; a request's start time in workerd)
 * @param quietMs - see {@link QUIET_COLLECT_MS}
 * @param everyBodyBytes - see {@link COLLECT_EVERY_BODY_BYTES}
 */
export function hostCollection(
  every: number = COLLECT_EVERY_REQUESTS,
  gc: unknown = exposedGc,
  reduceEvery: number = REDUCE_EVERY_COLLECTIONS,
  now: () => number = Date.now,
  quietMs: number = QUIET_COLLECT_MS,
  everyBodyBytes: number = COLLECT_EVERY_BODY_BYTES,
): HostCollection {
  const collect = typeof gc === "function" ? (gc as (options?: object) => void) : undefined;
  /** Requests counted since the last counted collection, in shares of a light request. */
  let shares = 0;
  /** Body bytes counted since the last counted collection. */
  let bytes = 0;
  const sharesPerCollection = every * LIGHT_REQUESTS_PER_COUNT;
  let collections = 0;
  let counted = 0;
  /** When the last request that was not a probe came (the first request's time at first). */
  let lastWork: number | undefined;
  /** Whether work came since the last memory-reducing collection (the start-up's counts). */
  let workSinceReducing = true;
  return {
    enabled: collect !== undefined,
    get collections() {
      return collections;
    },
    afterRequest(ctx, probe = false, light = probe, bodyBytes = 0) {
      if (!collect) return;
      const time = now();
      if (!probe || lastWork === undefined) lastWork = time;
      if (!probe) workSinceReducing = true;
      shares += light ? 1 : LIGHT_REQUESTS_PER_COUNT;
      bytes += bodyBytes;
      const atCount = shares >= sharesPerCollection || bytes >= everyBodyBytes;
      const quiet = probe && workSinceReducing && time - lastWork >= quietMs;
      if (!atCount && !quiet) return;
      if (atCount) {
        shares = 0;
        bytes = 0;
      }
      // The counted collections keep their own turn of plain and reducing ones.
      const reducingTurn = atCount && counted++ % reduceEvery === 0;
      const reducing = quiet || reducingTurn;
      if (reducing) workSinceReducing = false;
      // After a macrotask: the answer that reached the count goes out first.
      ctx.waitUntil(
        new Promise<void>((resolve) =>
          setTimeout(() => {
            collectWith(collect, reducing ? REDUCING_COLLECTION : PLAIN_COLLECTION);
            collections++;
            resolve();
          }, 0),
        ),
      );
    },
  };
}
