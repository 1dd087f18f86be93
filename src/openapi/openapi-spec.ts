/**
 * A loaded spec: the compact form plus the indexes built from it once (operation by id, path
 * trie), and fresh lazy views of the document on demand. Build one per isolate and share it: it is
 * never mutated after construction.
 */
import { CodeModeError } from "../errors";
import { compileSpec } from "./compile-spec";
import { getAtPointer } from "./json-pointer";
import { LazyResolver, lazyField } from "./lazy-view";
import { PathMatcher } from "./path-matcher";
import {
  COMPACT_FORMAT,
  type CompactOperation,
  type CompactSpec,
  type HttpMethod,
  type JsonObject,
} from "./types";

/** The result of looking up a concrete request against the spec. */
export type OperationMatch =
  | { kind: "found"; operation: CompactOperation; params: Record<string, string> }
  | { kind: "unknown_path"; suggestions: string[] }
  | { kind: "method_not_allowed"; template: string; allowed: HttpMethod[] };

/**
 * Loads a spec for use at run time.
 * @param input - a {@link CompactSpec} (from the build step), a raw OpenAPI 2.0/3.0/3.1 document
 *   (checked with the lighter run-time check, then compiled), or either as JSON text
 * @throws CodeModeError `spec_invalid` naming the JSON pointer of each problem
 */
export function loadSpec(input: unknown): OpenApiSpec {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (error) {
      throw new CodeModeError(
        "spec_invalid",
        `The spec is not valid JSON: ${(error as Error).message}. Pass JSON text or a parsed object; for a YAML file, "npx code-mode-mcp init <folder> --spec FILE" writes it as JSON.`,
        { cause: error },
      );
    }
  }
  const compact = isCompactSpec(value) ? value : compileSpec(value);
  return new OpenApiSpec(compact);
}

/**
 * Tells a compact spec from a raw document.
 * @param value - anything
 */
export function isCompactSpec(value: unknown): value is CompactSpec {
  return (
    value !== null &&
    typeof value === "object" &&
    (value as { format?: unknown }).format === COMPACT_FORMAT
  );
}

/** A spec ready for search, lookups and request validation. */
export class OpenApiSpec {
  /** The compact form (do not mutate). */
  readonly compact: CompactSpec;
  #byId?: Map<string, CompactOperation>;
  #paths?: PathMatcher<Map<HttpMethod, CompactOperation>>;
  #basePath?: string;
  #document?: JsonObject;
  /** Pointer → raw target, filled as refs are followed (validation follows the same few refs per request). */
  readonly #targets = new Map<string, unknown>();

  /** @param compact - a compact spec; prefer {@link loadSpec} */
  constructor(compact: CompactSpec) {
    this.compact = compact;
  }

  /** Every operation, in spec order, refs unresolved. */
  get operations(): readonly CompactOperation[] {
    return this.compact.operations;
  }

  /**
   * A fresh lazy view of the whole document: `{ openapi, info, servers, tags, paths, components }`
   * with `paths[template][method]` the operations (path-level parameters merged in) and every
   * `$ref` resolved on read, cycles marked `{ $circular: pointer }`. Fresh per call so one run's
   * edits never leak into the next; unread parts cost nothing. `components` and everything a
   * `$ref` reaches are shared by every place that names them, so frozen (see lazy-view.ts).
   * @param tick - optional per-materialization counter (the sandbox's operation budget)
   */
  document(tick?: () => void): JsonObject {
    const resolver = this.resolver(tick);
    const { components, ...rest } = this.#rawDocument();
    const out = resolver.view(rest);
    // Read-only, as every ref target is (lazy-view.ts): the objects refs read are these.
    lazyField(out, "components", () => resolver.shared(components), tick);
    return out;
  }

  /**
   * A resolver for lazy views over this spec (one per run; see `document()`).
   * @param tick - optional per-materialization counter
   */
  resolver(tick?: () => void): LazyResolver {
    return new LazyResolver(this.compact, this.compact.cycles, tick);
  }

  /**
   * The raw value at a local pointer (`#/components/schemas/X`), refs inside unresolved.
   * @param ref - a local JSON pointer
   */
  raw(ref: string): unknown {
    return this.#target(ref);
  }

  /**
   * Follows `$ref`s of a raw value until it is not a reference (at most 32 hops).
   * @param value - a raw value that may be `{ $ref }`
   */
  deref<T = unknown>(value: unknown): T {
    let current = value;
    for (let hops = 0; hops < 32; hops++) {
      const ref =
        current !== null && typeof current === "object"
          ? (current as { $ref?: unknown }).$ref
          : undefined;
      if (typeof ref !== "string") break;
      current = this.#target(ref);
    }
    return current as T;
  }

  #target(ref: string): unknown {
    if (this.#targets.has(ref)) return this.#targets.get(ref);
    const target = getAtPointer(this.compact, ref);
    // Bounded by the spec's distinct pointers; unknown pointers from untrusted input are not kept.
    if (target !== undefined) this.#targets.set(ref, target);
    return target;
  }

  /**
   * The operation with this `operationId`, refs unresolved.
   * @param operationId - as written in the spec
   */
  operationById(operationId: string): CompactOperation | undefined {
    if (!this.#byId) {
      this.#byId = new Map();
      for (const op of this.compact.operations)
        if (op.operationId) this.#byId.set(op.operationId, op);
    }
    return this.#byId.get(operationId);
  }

  /**
   * Finds the operation serving a concrete request. Accepts paths with or without the server's
   * base path (`/client/v4/zones/1` and `/zones/1`) and ignores a query string.
   * @param method - any case
   * @param path - a concrete path such as `/zones/123/rulesets`
   */
  matchOperation(method: string, path: string): OperationMatch {
    const wanted = method.toLowerCase() as HttpMethod;
    // Every `codemode.request()` comes through here: no allocation unless there is a query,
    // fragment or base path to strip.
    const q = path.indexOf("?");
    const h = path.indexOf("#");
    const cut = q < 0 ? h : h < 0 ? q : Math.min(q, h);
    const bare = cut < 0 ? path : path.slice(0, cut);
    const base = this.#base();
    const accept = (methods: Map<HttpMethod, CompactOperation>) => methods.has(wanted);
    const found = this.#matcher().find(bare, accept);
    if (found) return { kind: "found", operation: found.value.get(wanted)!, params: found.params };
    const candidates = [bare];
    if (base && (bare === base || bare.startsWith(base + "/"))) {
      const stripped = bare.slice(base.length) || "/";
      candidates.push(stripped);
      const again = this.#matcher().find(stripped, accept);
      if (again)
        return { kind: "found", operation: again.value.get(wanted)!, params: again.params };
    }
    // Nothing serves this method: walk again for the error (rare, so it may be slower).
    let first: { template: string; allowed: HttpMethod[] } | undefined;
    for (const candidate of candidates) {
      for (const match of this.#matcher().matchAll(candidate)) {
        const operation = match.value.get(wanted);
        if (operation) return { kind: "found", operation, params: match.params };
        first ??= { template: match.template, allowed: [...match.value.keys()] };
      }
    }
    if (first) return { kind: "method_not_allowed", ...first };
    return { kind: "unknown_path", suggestions: this.#suggest(bare) };
  }

  #matcher(): PathMatcher<Map<HttpMethod, CompactOperation>> {
    if (this.#paths) return this.#paths;
    const byPath = new Map<string, Map<HttpMethod, CompactOperation>>();
    for (const op of this.compact.operations) {
      let methods = byPath.get(op.path);
      if (!methods) byPath.set(op.path, (methods = new Map()));
      methods.set(op.method, op);
    }
    const matcher = new PathMatcher<Map<HttpMethod, CompactOperation>>();
    for (const [path, methods] of byPath) matcher.add(path, methods);
    return (this.#paths = matcher);
  }

  /** The path part of the first server URL (`/client/v4`), or "" when there is none. */
  #base(): string {
    if (this.#basePath !== undefined) return this.#basePath;
    const url = this.compact.servers[0]?.url;
    let base = "";
    if (typeof url === "string") {
      const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
      base = path.replace(/\{[^}]*\}/g, "").replace(/\/+$/, "");
    }
    return (this.#basePath = base);
  }

  /**
   * Up to five templates closest to the path: per position, a literal match scores 2, a similar
   * literal (one a prefix of the other, e.g. a missing plural "s") 1.5, a parameter slot 1.
   */
  #suggest(path: string): string[] {
    const wanted = path.split("/").filter(Boolean);
    const scored: [number, string][] = [];
    const seen = new Set<string>();
    for (const op of this.compact.operations) {
      if (seen.has(op.path)) continue;
      seen.add(op.path);
      const parts = op.path.split("/").filter(Boolean);
      let score = parts.length === wanted.length ? 0.5 : 0;
      for (let i = 0; i < Math.min(parts.length, wanted.length); i++) {
        const part = parts[i]!;
        const word = wanted[i]!;
        if (part === word) score += 2;
        else if (part.startsWith("{")) score += 1;
        else if (
          Math.min(part.length, word.length) >= 3 &&
          (part.startsWith(word) || word.startsWith(part))
        )
          score += 1.5;
      }
      if (score >= 2) scored.push([score, op.path]);
    }
    scored.sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1));
    return scored.slice(0, 5).map(([, p]) => p);
  }

  /** The document shape over the index, built once; raw (views are made per call). */
  #rawDocument(): JsonObject {
    if (this.#document) return this.#document;
    const paths: JsonObject = {};
    for (const op of this.compact.operations) {
      const item = (paths[op.path] ??= {}) as JsonObject;
      const { method: _m, path: _p, ...rest } = op;
      item[op.method] = rest;
    }
    const c = this.compact;
    const doc: JsonObject = {
      openapi: c.version === "2.0" ? "3.0.3" : c.sourceVersion,
      info: c.info,
      servers: c.servers,
    };
    if (c.version === "2.0") doc["x-converted-from"] = "swagger 2.0";
    if (c.tags) doc.tags = c.tags;
    if (c.security) doc.security = c.security;
    doc.paths = paths;
    doc.components = c.components;
    return (this.#document = doc);
  }
}
