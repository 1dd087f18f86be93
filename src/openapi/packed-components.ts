/**
 * The components of a packed spec (see spec-pack.ts), as the lazy resolver reads them: a `$ref`
 * such as `#/components/schemas/Zone` decodes that one segment, found by name in a table built
 * on first use, without building the component tables a program never lists.
 *
 * Why: resolving refs through a raw `components` object meant defining an accessor for every
 * component first (3,716 schemas in the Cloudflare spec, two layers of closures each), so the
 * first `$ref` a search program followed cost more than the whole index walk. The raw object is
 * still there for a program that lists components, and both paths share one decoded value per
 * component, so a schema read through a ref and through `components.schemas` is the same view.
 */
import { getAtPointer, parsePointer } from "./json-pointer";
import { deferredObject, lazyField } from "./lazy-view";
import type { JsonObject } from "./types";

/** Per component type: names and segment lengths, in segment order. */
export type ComponentTables = Record<string, [names: string[], lengths: number[]]>;

interface TypeIndex {
  /** Name → position in `names`. */
  positions: Map<string, number>;
  /** Absolute byte offset of each component's segment. */
  offsets: number[];
  lengths: number[];
  decoded: unknown[];
}

/** Raw component values of one opened packed spec, decoded on demand and kept. */
export class PackedComponents {
  /** `{ components }` with every table deferred: what a pointer outside the fast path reads. */
  readonly root: JsonObject = {};
  readonly #tables: () => ComponentTables;
  readonly #start: number;
  readonly #decode: (at: number, length: number) => unknown;
  #index: Map<string, TypeIndex> | undefined;

  /**
   * @param tables - reads the component tables (called at most once, on first use)
   * @param start - absolute offset of the first component segment
   * @param decode - decodes the segment at an offset with a length
   */
  constructor(
    tables: () => ComponentTables,
    start: number,
    decode: (at: number, length: number) => unknown,
  ) {
    let read: ComponentTables | undefined;
    this.#tables = () => (read ??= tables());
    this.#start = start;
    this.#decode = decode;
    lazyField(this.root, "components", () => {
      const out: JsonObject = {};
      for (const [type, [names]] of Object.entries(this.#tables())) {
        out[type] = deferredObject(names.map((name) => [name, () => this.raw(type, name)]));
      }
      return out;
    });
  }

  /**
   * The raw value of one component, decoded once; `undefined` when there is none.
   * @param type - e.g. `schemas`
   * @param name - the component's name
   */
  raw(type: string, name: string): unknown {
    const index = this.#indexOf(type);
    const k = index?.positions.get(name);
    if (index === undefined || k === undefined) return undefined;
    if (!(k in index.decoded))
      index.decoded[k] = this.#decode(index.offsets[k]!, index.lengths[k]!);
    return index.decoded[k];
  }

  /**
   * The raw value at a local pointer, or `undefined` when nothing is there.
   * @param pointer - e.g. `#/components/schemas/Zone/properties/id`
   */
  lookup(pointer: string): unknown {
    const tokens = parsePointer(pointer);
    if (!tokens || tokens.length < 3 || tokens[0] !== "components")
      return getAtPointer(this.root, pointer);
    let node = this.raw(tokens[1]!, tokens[2]!);
    for (let i = 3; i < tokens.length; i++) {
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, tokens[i]!))
        return undefined;
      node = (node as Record<string, unknown>)[tokens[i]!];
    }
    return node;
  }

  #indexOf(type: string): TypeIndex | undefined {
    if (!this.#index) {
      this.#index = new Map();
      let offset = this.#start;
      for (const [name, [names, lengths]] of Object.entries(this.#tables())) {
        const offsets: number[] = [];
        for (const length of lengths) {
          offsets.push(offset);
          offset += length;
        }
        const positions = new Map<string, number>();
        names.forEach((component, k) => positions.set(component, k));
        this.#index.set(name, { positions, offsets, lengths, decoded: [] });
      }
    }
    return this.#index.get(type);
  }
}
