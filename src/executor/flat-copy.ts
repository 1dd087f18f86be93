/**
 * A fresh, flat copy of a string. V8 represents `big.slice(0, n)` as a view that keeps `big`
 * alive; text the host keeps from a huge sandbox value (a cut log line or error message) is
 * copied so the huge original can be collected.
 */

/**
 * Copies `text` into a new sequential string (cost: one pass over `text`, which callers keep
 * small).
 * @param text - a short string, possibly a slice of a huge one
 */
export function flatCopy(text: string): string {
  // JSON round trip: parse builds a new string from the escaped text, sharing nothing.
  return JSON.parse(JSON.stringify(text)) as string;
}
