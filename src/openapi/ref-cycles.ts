/**
 * Finds the `$ref` targets of a document that take part in cycles (strongly connected components
 * of the "target T contains a ref to U" graph). Lazy views use this once per spec: a target outside
 * every cycle expands the same way wherever it is reached, so its view can be shared; only targets
 * inside a cycle need to know which of their cycle-mates are already being expanded above them.
 */
import { getAtPointer } from "./json-pointer";

/**
 * Collects the `$ref` strings inside a value without following them.
 * @param node - any JSON value
 * @param out - the set refs are added to
 */
export function collectRefs(node: unknown, out: Set<string>): Set<string> {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === "object") stack.push(item);
      continue;
    }
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string") out.add(ref);
    for (const key in value) {
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === "object") stack.push(child);
    }
  }
  return out;
}

/**
 * Returns the cyclic groups of `$ref` targets reachable from `entries`, each group sorted, groups
 * sorted by their first member (deterministic output for the compact form).
 * @param root - the document refs are resolved against
 * @param entries - the values whose refs start the walk (operations, components)
 */
export function findRefCycles(root: unknown, entries: readonly unknown[]): string[][] {
  const edges = new Map<string, string[]>();
  const pending: string[] = [];
  const seed = new Set<string>();
  for (const entry of entries) collectRefs(entry, seed);
  for (const ref of seed) pending.push(ref);
  while (pending.length > 0) {
    const target = pending.pop()!;
    if (edges.has(target)) continue;
    const out = [...collectRefs(getAtPointer(root, target), new Set())];
    edges.set(target, out);
    for (const next of out) if (!edges.has(next)) pending.push(next);
  }
  return stronglyConnected(edges);
}

/** Iterative Tarjan: specs like Stripe's have long ref chains; recursion could overflow. */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = edges.get(frame.node) ?? [];
      if (frame.next < out.length) {
        const next = out[frame.next++]!;
        if (!edges.has(next)) continue;
        if (!index.has(next)) {
          index.set(next, counter);
          low.set(next, counter++);
          stack.push(next);
          onStack.add(next);
          work.push({ node: next, next: 0 });
        } else if (onStack.has(next)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(next)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.node);
      const selfLoop = group.length === 1 && (edges.get(frame.node) ?? []).includes(frame.node);
      if (group.length > 1 || selfLoop) groups.push(group.toSorted());
    }
  }
  return groups.toSorted((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}
