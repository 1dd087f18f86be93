/**
 * The shared worker's read-only store of large extension data (a packed spec is 4 MB): kept once
 * per worker, keyed by its content digest, so a run's request carries the key instead of the
 * bytes. Runs never get the stored value itself: each run's engine receives a copy in its own
 * heap (a memcpy, not a parse), so nothing a run does can change what the next run reads.
 *
 * Bounded: least recently used entries are dropped past {@link MAX_BYTES}; a dropped or never
 * seen key makes the runner answer `missing`, and the host sends the data once more.
 */

/** Bytes of extension data kept per worker (a few specs; the isolate has 128 MB). */
const MAX_BYTES = 48 * 1_048_576;

const entries = new Map<string, string | Uint8Array>();
let total = 0;

function size(value: string | Uint8Array): number {
  return typeof value === "string" ? value.length * 2 : value.byteLength;
}

/**
 * Stores data under its key (a copy of bytes, so the host's later writes cannot reach it).
 * @param key - the content digest the host computed
 * @param value - the data
 * @returns the stored value
 */
export function storeData(key: string, value: string | Uint8Array): string | Uint8Array {
  const existing = readData(key);
  if (existing !== undefined) return existing;
  const stored = typeof value === "string" ? value : value.slice();
  entries.set(key, stored);
  total += size(stored);
  for (const [oldKey, old] of entries) {
    if (total <= MAX_BYTES || oldKey === key) break;
    entries.delete(oldKey);
    total -= size(old);
  }
  return stored;
}

/**
 * The data stored under `key`, marked as recently used; `undefined` when not stored.
 * @param key - the content digest
 */
export function readData(key: string): string | Uint8Array | undefined {
  const value = entries.get(key);
  if (value === undefined) return undefined;
  entries.delete(key);
  entries.set(key, value);
  return value;
}
