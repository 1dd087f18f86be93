/**
 * Matches concrete request paths (`/zones/123/dns_records`) against OpenAPI path templates
 * (`/zones/{zone_id}/dns_records`) with a segment trie: one lookup costs the path's depth, not the
 * number of templates (the Cloudflare spec has 965). Literal segments win over parameters, so
 * `/zones/{zone_id}/dns_records/export` is preferred to `/zones/{zone_id}/dns_records/{id}`;
 * the matcher backtracks when the literal branch fails deeper down.
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

interface ParamEdge<T> {
  /** Identity of the edge: the segment with its parameter names. */
  key: string;
  /** Names of the parameters inside the segment (one for `{id}`, more for `{a}.{b}`). */
  names: string[];
  /** Set for segments mixing text and parameters, e.g. `{key}.json`. */
  pattern?: RegExp;
  node: TrieNode<T>;
}

interface TrieNode<T> {
  literals: Map<string, TrieNode<T>>;
  params: ParamEdge<T>[];
  template?: string;
  value?: T;
}

const newNode = <T>(): TrieNode<T> => ({ literals: new Map(), params: [] });
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Splits a path into segments, ignoring one trailing slash. */
function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return trimmed.split("/").slice(1);
}

function decode(segment: string): string {
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
    for (const segment of segmentsOf(template)) {
      if (!segment.includes("{")) {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode()));
        node = next;
        continue;
      }
      let edge = node.params.find((e) => e.key === segment);
      if (!edge) {
        const names = namesOf(segment);
        const whole = /^\{[^{}]+\}$/.test(segment);
        edge = {
          key: segment,
          names,
          node: newNode(),
          ...(whole ? {} : { pattern: patternOf(segment) }),
        };
        // Whole-segment parameters go last: a partly literal segment is the more specific match.
        if (whole) node.params.push(edge);
        else node.params.unshift(edge);
      }
      node = edge.node;
    }
    node.template = template;
    node.value = value;
  }

  /**
   * Every template matching `path`, most specific first (literals before parameters).
   * @param path - a concrete path without query string
   */
  *matchAll(path: string): Generator<PathMatch<T>> {
    yield* this.#walk(this.#root, segmentsOf(path), 0, {});
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
    const segments = segmentsOf(path);
    const names: string[] = [];
    const values: string[] = [];
    const walk = (node: TrieNode<T>, i: number): PathMatch<T> | undefined => {
      if (i === segments.length) {
        if (node.template === undefined || !accept(node.value as T)) return undefined;
        const params: Record<string, string> = {};
        names.forEach((name, k) => (params[name] = values[k]!));
        return { template: node.template, value: node.value as T, params };
      }
      const segment = segments[i]!;
      const literal = node.literals.get(segment);
      if (literal) {
        const found = walk(literal, i + 1);
        if (found) return found;
      }
      if (segment === "") return undefined;
      for (const edge of node.params) {
        let captured: string[];
        if (edge.pattern) {
          const m = edge.pattern.exec(segment);
          if (!m) continue;
          captured = m.slice(1);
        } else captured = [segment];
        const depth = names.length;
        edge.names.forEach((name, k) => {
          names.push(name);
          values.push(decode(captured[k] ?? ""));
        });
        const found = walk(edge.node, i + 1);
        names.length = values.length = depth;
        if (found) return found;
      }
      return undefined;
    };
    return walk(this.#root, 0);
  }

  *#walk(
    node: TrieNode<T>,
    segments: string[],
    i: number,
    params: Record<string, string>,
  ): Generator<PathMatch<T>> {
    if (i === segments.length) {
      if (node.template !== undefined)
        yield { template: node.template, value: node.value as T, params: { ...params } };
      return;
    }
    const segment = segments[i]!;
    const literal = node.literals.get(segment);
    if (literal) yield* this.#walk(literal, segments, i + 1, params);
    if (segment === "") return;
    for (const edge of node.params) {
      let values: string[];
      if (edge.pattern) {
        const m = edge.pattern.exec(segment);
        if (!m) continue;
        values = m.slice(1);
      } else values = [segment];
      const next = { ...params };
      edge.names.forEach((name, k) => (next[name] = decode(values[k] ?? "")));
      yield* this.#walk(edge.node, segments, i + 1, next);
    }
  }
}

function namesOf(segment: string): string[] {
  return [...segment.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

function patternOf(segment: string): RegExp {
  const source = segment
    .split(/(\{[^{}]+\})/)
    .map((part) => (/^\{[^{}]+\}$/.test(part) ? "([^/]+?)" : escapeRegExp(part)))
    .join("");
  return new RegExp(`^${source}$`);
}
