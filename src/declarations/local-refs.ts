/**
 * Rewrites every `$ref` of a schema document that points inside the document into a local JSON
 * pointer from its root (`#/$defs/node`), so the emitter needs only one kind of reference. JSON
 * Schema lets a reference name its target through `$id`s (`"$ref": "node"` next to a subschema
 * with `"$id": "http://host/node"`), `$anchor`s (`#foo`), draft-07 fragment ids (`"$id": "#foo"`)
 * and pointers relative to a nested resource; each is resolved against the base URI in force
 * where the `$ref` stands, as the specification says. References the document cannot answer
 * (remote schemas) are left as they are; the emitter types them `unknown`.
 */
import { formatPointer, parsePointer } from "../openapi/json-pointer";

/** Base URI of a document without `$id` (never fetched: only a base to resolve against). */
const DEFAULT_BASE = "https://schema.invalid/root.json";

/** Keywords whose values are data, not schemas: never searched for `$id`/`$ref`. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);
/** Keywords whose values map names (which may be `enum`, `default`…) to schemas. */
const NAME_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

/** Whether `key` of an object holds data: a data keyword of a schema, not a name in a name map. */
function isData(key: string, inMap: boolean): boolean {
  return !inMap && DATA_KEYWORDS.has(key);
}

type Path = readonly string[];

/**
 * The document with its resolvable references as root-relative pointers (the input itself when
 * nothing needs rewriting: no `$id`, `$anchor` or non-pointer `$ref` anywhere).
 * @param root - a JSON Schema document
 */
export function localizeRefs(root: unknown): unknown {
  const resources = new Map<string, Path>();
  const anchors = new Map<string, Path>();
  let needed = false;
  // Pass 1: where every resource ($id) and anchor is, by absolute URI.
  walk(root, DEFAULT_BASE, [], (node, base, path) => {
    if (path.length === 0) resources.set(withoutFragment(base), path);
    if (typeof node.$id === "string") {
      needed = true;
      if (node.$id.startsWith("#")) anchors.set(withoutFragment(base) + node.$id, path);
      else resources.set(withoutFragment(base), path);
    }
    for (const key of ["$anchor", "$dynamicAnchor"])
      if (typeof node[key] === "string") {
        needed = true;
        anchors.set(`${withoutFragment(base)}#${node[key] as string}`, path);
      }
    if (typeof node.$ref === "string" && !node.$ref.startsWith("#/") && node.$ref !== "#")
      needed = true;
  });
  if (!needed) return root;
  // Pass 2: a copy with each resolvable `$ref` replaced by its target's pointer from the root.
  return rewrite(root, DEFAULT_BASE, (ref, base) => {
    let url: URL;
    try {
      url = new URL(ref, base);
    } catch {
      return ref;
    }
    const fragment = decodeURIComponent(url.hash.slice(1));
    const resource = resources.get(withoutFragment(url.href));
    if (resource === undefined) return ref;
    if (fragment === "" || fragment.startsWith("/")) {
      const tokens = parsePointer(`#${fragment}`);
      return tokens ? formatPointer([...resource, ...tokens]) : ref;
    }
    const anchor = anchors.get(`${withoutFragment(url.href)}#${fragment}`);
    return anchor ? formatPointer(anchor) : ref;
  });
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash < 0 ? uri : uri.slice(0, hash);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The base URI inside a schema object: its own `$id` (not a bare fragment) applied to the outer one. */
function baseOf(node: Record<string, unknown>, outer: string): string {
  if (typeof node.$id !== "string" || node.$id.startsWith("#")) return outer;
  try {
    return new URL(node.$id, outer).href;
  } catch {
    return outer;
  }
}

/** Visits every schema object with its base URI and path (data keywords skipped). */
function walk(
  node: unknown,
  outer: string,
  path: Path,
  visit: (node: Record<string, unknown>, base: string, path: Path) => void,
  inMap = false,
): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => walk(item, outer, [...path, String(i)], visit));
    return;
  }
  if (!isObject(node)) return;
  const base = inMap ? outer : baseOf(node, outer);
  if (!inMap) visit(node, base, path);
  for (const [key, value] of Object.entries(node))
    if (!isData(key, inMap)) walk(value, base, [...path, key], visit, !inMap && NAME_MAPS.has(key));
}

/** Copies the document, replacing each string `$ref` by `resolve(ref, base)`. */
function rewrite(
  node: unknown,
  outer: string,
  resolve: (ref: string, base: string) => string,
  inMap = false,
): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, outer, resolve));
  if (!isObject(node)) return node;
  const base = inMap ? outer : baseOf(node, outer);
  // fromEntries defines own properties, so a key named `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (!inMap && key === "$ref" && typeof value === "string") return [key, resolve(value, base)];
      if (isData(key, inMap)) return [key, value];
      return [key, rewrite(value, base, resolve, !inMap && NAME_MAPS.has(key))];
    }),
  );
}
