/**
 * Matches concrete request paths (`/zones/123/dns_records`) against OpenAPI path templates
 * (`/zones/{zone_id}/dns_records`) with a segment trie: one lookup costs the path's depth, not the
 * number of templates (the Cloudflare spec has 965). Literal segments win over parameters, so
 * `/zones/{zone_id}/dns_records/export` is preferred to `/zones/{zone_id}/dns_records/{id}`;
 * the matcher backtracks when the literal branch fails deeper down.
 *
 * Whole-segment parameters share one wildcard child per node whatever their names (the
 * Cloudflare spec spells the zone `{zone_id}`, `{zone_identifier}`, `{identifier}` and more at the
 * same position), and names are attached to the templates at the leaves. With one child per
 * spelling, a lookup backtracked through every spelling; `codemode.request()` matches on every
 * call, so this is on the per-request path.
 */

/** A successful match. */
export interface PathMatch<T> {
  /** The template that matched, as written in the spec. */
  template: string;
  /** The value registered with the template. */
  value: T;
  /** Path parameters by name, percent-decoded. */
  params: Record<string, string>;
}

/** A template ending at a node: its parameter names in path order, and its value. */
interface Leaf<T> {
  template: string;
  names: string[];
  value: T;
}

/** A segment mixing text and parameters, e.g. `{name}.{ext}` (one capture per parameter). */
interface PatternEdge<T> {
  /** The segment with its parameter names erased: `{}.{}`. */
  key: string;
  pattern: RegExp;
  node: TrieNode<T>;
}

interface TrieNode<T> {
  literals: Map<string, TrieNode<T>>;
  patterns: PatternEdge<T>[];
  wildcard?: TrieNode<T>;
  leaves: Leaf<T>[];
}

type Visit<T> = (leaf: Leaf<T>, values: string[]) => boolean;

const newNode = <T>(): TrieNode<T> => ({ literals: new Map(), patterns: [], leaves: [] });
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const WHOLE = /^\{[^{}]+\}$/;

/**
 * Splits a path at its slashes, ignoring one trailing slash. The segments start at index 1 (index
 * 0 is what precedes the leading slash): lookups walk from 1 instead of copying the array.
 */
function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/");
}

/** The segments of a path (see {@link splitPath}). */
function segmentsOf(path: string): string[] {
  return splitPath(path).slice(1);
}

function decode(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A trie of path templates, each carrying a value (e.g. the operations of that path). */
export class PathMatcher<T> {
  readonly #root: TrieNode<T> = newNode();

  /**
   * Registers a template; registering the same template twice replaces its value.
   * @param template - an OpenAPI path template
   * @param value - what a match returns
   */
  add(template: string, value: T): void {
    let node = this.#root;
    const names: string[] = [];
    for (const segment of segmentsOf(template)) {
      if (!segment.includes("{")) {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode()));
        node = next;
      } else if (WHOLE.test(segment)) {
        names.push(segment.slice(1, -1));
        node = node.wildcard ??= newNode();
      } else {
        names.push(...namesOf(segment));
        const key = segment.replace(/\{[^{}]+\}/g, "{}");
        let edge = node.patterns.find((e) => e.key === key);
        if (!edge)
          node.patterns.push((edge = { key, pattern: patternOf(segment), node: newNode() }));
        node = edge.node;
      }
    }
    const existing = node.leaves.find((leaf) => leaf.template === template);
    if (existing) existing.value = value;
    else node.leaves.push({ template, names, value });
  }

  /**
   * Every template matching `path`, most specific first (literals before parameters).
   * @param path - a concrete path without query string
   */
  *matchAll(path: string): Generator<PathMatch<T>> {
    const all: PathMatch<T>[] = [];
    this.#walk(this.#root, splitPath(path), 1, [], (leaf, values) => {
      all.push(matchOf(leaf, values));
      return false;
    });
    yield* all;
  }

  /**
   * The most specific template matching `path`, or `undefined`.
   * @param path - a concrete path without query string
   */
  match(path: string): PathMatch<T> | undefined {
    return this.find(path, () => true);
  }

  /**
   * The most specific match whose value `accept`s, in {@link matchAll} order, without building
   * the matches it skips (the per-request path: `codemode.request()` resolves every call here).
   * @param path - a concrete path without query string
   * @param accept - whether a matching template's value will do (e.g. it has the wanted method)
   */
  find(path: string, accept: (value: T) => boolean): PathMatch<T> | undefined {
    let found: PathMatch<T> | undefined;
    this.#walk(this.#root, splitPath(path), 1, [], (leaf, values) => {
      if (!accept(leaf.value)) return false;
      found = matchOf(leaf, values);
      return true;
    });
    return found;
  }

  /** Depth-first in precedence order; stops as soon as `visit` returns true. */
  #walk(node: TrieNode<T>, segments: string[], i: number, values: string[], visit: Visit<T>) {
    if (i === segments.length) {
      for (const leaf of node.leaves) if (visit(leaf, values)) return true;
      return false;
    }
    const segment = segments[i]!;
    const literal = node.literals.get(segment);
    if (literal && this.#walk(literal, segments, i + 1, values, visit)) return true;
    if (segment === "") return false;
    const depth = values.length;
    for (const edge of node.patterns) {
      const m = edge.pattern.exec(segment);
      if (!m) continue;
      for (let k = 1; k < m.length; k++) values.push(m[k] ?? "");
      if (this.#walk(edge.node, segments, i + 1, values, visit)) return true;
      values.length = depth;
    }
    if (node.wildcard) {
      values.push(segment);
      if (this.#walk(node.wildcard, segments, i + 1, values, visit)) return true;
      values.length = depth;
    }
    return false;
  }
}

function matchOf<T>(leaf: Leaf<T>, values: string[]): PathMatch<T> {
  const params: Record<string, string> = {};
  for (let k = 0; k < leaf.names.length; k++) params[leaf.names[k]!] = decode(values[k] ?? "");
  return { template: leaf.template, value: leaf.value, params };
}

function namesOf(segment: string): string[] {
  return [...segment.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

function patternOf(segment: string): RegExp {
  const source = segment
    .split(/(\{[^{}]+\})/)
    .map((part) => (WHOLE.test(part) ? "([^/]+?)" : escapeRegExp(part)))
    .join("");
  return new RegExp(`^${source}$`);
}
