/**
 * Which pieces of the engine's memory hold anything: the template (warm-engine.ts) keeps a copy
 * of only those, and the rest of the 16 MB memory is zero right after the harness is compiled
 * (0.5 MB of it held bytes, 2026-12-07).
 *
 * Why not a plain loop alone: a fresh runner builds the template once, and a word-by-word loop
 * over 16 MB runs in V8's interpreter there (a fresh isolate has compiled none of it): ~55 ms of
 * the runner thread's ~100 ms for the whole engine load, in a profile of a fresh runner's
 * `POST /warm` (bench/README.md, "The engine's load in a fresh runner"). On a loaded machine a
 * runner started for a burst spends that while other clients wait for it. workerd has a native
 * comparison of two byte ranges (`crypto.subtle.timingSafeEqual`, non-standard): each page is
 * compared with a page of zeros there, a memcmp. Node has none; the loop stays for it.
 */

/** Compares two byte ranges of one length natively: true when every byte is equal. */
export type NativeEqual = (a: Uint8Array, b: Uint8Array) => boolean;

/** The platform's native comparison, where it has one (workerd), else undefined (Node). */
export function platformEqual(): NativeEqual | undefined {
  const subtle = crypto.subtle as unknown as { timingSafeEqual?: unknown };
  const equal = subtle.timingSafeEqual;
  return typeof equal === "function"
    ? (a, b) => (equal as (a: Uint8Array, b: Uint8Array) => boolean).call(subtle, a, b)
    : undefined;
}

/** One piece of memory that holds a nonzero byte, copied. */
export interface HeldPage {
  offset: number;
  bytes: Uint8Array;
}

/**
 * The pieces of `memory` (each `pageBytes` long, the last one maybe shorter) that hold a nonzero
 * byte, copied, in order.
 * @param memory - the engine's memory
 * @param pageBytes - bytes per piece
 * @param equal - the native comparison to use (by default the platform's); without one, or for
 *   a shorter last piece, a loop looks
 */
export function heldPages(
  memory: Uint8Array,
  pageBytes: number,
  equal: NativeEqual | undefined = platformEqual(),
): HeldPage[] {
  const zeros = new Uint8Array(pageBytes);
  const pages: HeldPage[] = [];
  for (let offset = 0; offset < memory.length; offset += pageBytes) {
    const page = memory.subarray(offset, Math.min(offset + pageBytes, memory.length));
    const zero = equal && page.length === pageBytes ? equal(page, zeros) : isZero(page);
    if (!zero) pages.push({ offset, bytes: page.slice() });
  }
  return pages;
}

/** Whether every byte of `bytes` is zero (the loop, for a platform without a native compare). */
export function isZero(bytes: Uint8Array): boolean {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  const count = words.length;
  for (let i = 0; i < count; i++) if (words[i] !== 0) return false;
  for (let i = count << 2; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
