/**
 * The direct children of an ESTree node as acorn builds it, for the walkers that visit every
 * node they have no special case for (instrument.ts, src/codemode/skills/free-variables.ts).
 * A child is any value under a key, or item of an array under a key, that is an object with a
 * string `type`: an acorn run with `locations` or `ranges` yields the same children.
 */

/** Keys of a node that hold its type or position, never a child: not worth looking into. */
const POSITION_KEYS = new Set(["type", "start", "end", "loc", "range"]);

/**
 * Calls `fn` for every direct child node of `node`, in key order.
 * @param node - an ESTree node
 * @param fn - called once a child
 */
export function forEachChild<T extends { type: string }>(node: T, fn: (child: T) => void): void {
  for (const key of Object.keys(node)) {
    if (POSITION_KEYS.has(key)) continue;
    const value = (node as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode<T>(item)) fn(item);
    } else if (isNode<T>(value)) fn(value);
  }
}

/** Whether `value` is a node: an object with a string `type` (acorn builds no other kind). */
function isNode<T>(value: unknown): value is T {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}
