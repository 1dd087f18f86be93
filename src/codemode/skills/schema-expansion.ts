/**
 * How large a skill's JSON Schema is once every `$ref` is counted as a copy of what it points
 * to: the work the host's validator (@cfworker/json-schema) may do per value it checks. A skill's
 * schemas are a program's choice, and a small schema can stand for a huge one: 11 `$defs`, each
 * an `allOf` of four `$ref`s to the next, is 1,200 characters of JSON and 4^11 (four million)
 * subschemas, which held the host's only thread for 9 seconds at save (4^14, under 1,600
 * characters: ten minutes), and again at every call. So a skill's schema may refer only within
 * itself (`#…` JSON pointers), never to itself (a cycle: recursion driven by the input), and its
 * expansion is bounded.
 *
 * Does not do: bound upstream tool schemas (the operator's text; tool-input-schema.ts).
 */

/** Keywords whose value is data (a literal), never a schema: not walked. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

/** Keywords that move the base a `$ref` resolves against, or refer dynamically: not taken. */
const UNTAKEN = ["$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor"];

/**
 * Why `schema` expands past `maxSubschemas` or refers where this check cannot follow, or
 * undefined when it is fine.
 * @param schema - a JSON copy of the schema (plain objects and arrays)
 * @param maxSubschemas - most objects and arrays the schema may hold with its `$ref`s expanded
 */
export function schemaExpansionProblem(schema: unknown, maxSubschemas: number): string | undefined {
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  let problem: string | undefined;
  const fail = (message: string): number => {
    problem ??= message;
    return Infinity;
  };
  const size = (node: unknown, depth: number): number => {
    if (problem !== undefined) return Infinity;
    if (node === null || typeof node !== "object") return 0;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (open.has(node))
      return fail(
        "refers to itself through `$ref` (a recursive schema); a skill's schema must not, so checking an input stays bounded. Write the nesting out to the depth you need.",
      );
    open.add(node);
    let total = 1;
    const record = node as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      if (!Array.isArray(node)) {
        if (DATA_KEYWORDS.has(key)) continue;
        if (UNTAKEN.includes(key) && typeof item === "string")
          return fail(`uses \`${key}\`; a skill's schema refers only with \`$ref\` to "#/…".`);
        if (key === "$id" && typeof item === "string" && depth > 0)
          return fail("sets `$id` inside; a skill's schema may set it only at its top.");
        if (key === "$ref" && typeof item === "string") {
          const target = pointer(schema, item);
          if (target === undefined)
            return fail(
              `has \`$ref\` ${JSON.stringify(item.slice(0, 100))}, which is not a "#/…" pointer into the schema itself.`,
            );
          total += size(target, depth + 1);
          continue;
        }
      }
      total += size(item, depth + 1);
    }
    open.delete(node);
    // Capped: the sum of a bomb's sizes would otherwise overflow to Infinity on its own.
    const capped = Math.min(total, maxSubschemas + 1);
    sizes.set(node, capped);
    return capped;
  };
  const total = size(schema, 0);
  if (problem !== undefined) return problem;
  if (total > maxSubschemas)
    return `is more than ${maxSubschemas} subschemas once each \`$ref\` is counted as a copy of what it points to; the validator would check every one for each input. Refer less (a \`$ref\` inside \`allOf\`/\`anyOf\`/\`oneOf\` multiplies).`;
  return undefined;
}

/** The node a local `$ref` (`#`, `#/a/b`) points to, or undefined. */
function pointer(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split("/")) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "boolean" || (node !== null && typeof node === "object")
    ? node
    : undefined;
}
