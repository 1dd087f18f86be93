/**
 * Lazy `$ref` resolution over a compact spec. A view is a plain object whose nested values are
 * materialized on first read (a caching accessor), so a search program that reads ten operations
 * pays for ten operations, not for the 23 MB a fully inlined Cloudflare spec would take. `$ref`s read as their target's view; a ref whose target is
 * already being expanded above it reads as `{ $circular: "<pointer>" }`, which keeps every view a
 * finite tree (JSON.stringify and structured clone terminate).
 *
 * Cycles, and why expansion stays linear: a ref whose target belongs to a ref cycle group (a
 * strongly connected component of the ref graph) reads as `{ $circular: "<pointer>" }` when it is
 * reached from inside the same group; reached from anywhere else, the target expands once, with
 * its own refs into the group marked. Marking only at the first repetition on a path (the other
 * obvious rule) makes views exponential in the group's size: Stripe's specs have groups of
 * hundreds of schemas, and one `JSON.stringify` never finished. To follow a marked ref, read the
 * schema it names (`components.schemas.X`).
 *
 * Memoization: a node's view depends only on the group of the target that encloses it, so views
 * are memoized per (node, enclosing group): at most one view per node and group.
 *
 * Shared means read-only: what a `$ref` reaches is one object for every place that names it (that
 * is the reuse: a whole-spec walk builds each schema's view once, not once per place, which kept
 * the Stripe spec inside the operation budget). So those views are frozen: a program that assigns
 * into one gets a TypeError instead of silently changing every other place that names the same
 * schema. The frozen view is wrapped in a Proxy whose write traps (set, add, delete, define,
 * prototype) throw that TypeError with the cause and the fix ({@link readOnlyMessage}): the
 * engine's own words for a frozen object name neither, and only a trap knows the object written
 * is a shared view (a hint added to every frozen-object TypeError also misled programs that
 * froze objects of their own). Reads have no trap: they go to the frozen view as before, but
 * through the engine's proxy path. Measured on the Cloudflare spec (search runs in workerd, 3
 * each, on a loaded machine): a walk reading every operation's parameters and JSON body
 * properties, no change beyond noise in either executor (0.2–0.5 s isolate-per-run, 2.2–3.6 s
 * shared worker); serializing the whole document (`JSON.stringify(await codemode.spec())`,
 * every shared view once per place) 3.7–4.5 s → 4.8–5.0 s isolate-per-run (the shared worker
 * runs out of memory on it either way). In plain Node that serialization takes about twice as
 * long. `components` is viewed the same way ({@link LazyResolver.shared}): it is what refs
 * point to, and separate mutable copies of it cost a whole-spec walk about a fifth more time and
 * memory. The rest of the document (paths, operations and their inline parts) is made per place
 * and stays the program's to change. Views with a copy per place were tried (d2400bd) and
 * reverted: a Stripe-sized walk in the shared worker went past its operation budget.
 */
import { getAtPointer } from "./json-pointer";
import type { CircularMarker } from "./types";

/**
 * The cycle group of the ref target enclosing a node, or {@link SHARED} for a target outside
 * every group; `undefined` for a node no `$ref` reached (made for one place, mutable).
 */
interface Context {
  group: number;
  key: string;
}

/** The context of a `$ref` target outside every cycle group: shared, so read-only. */
const SHARED: Context = { group: -1, key: "shared" };

type Node = Record<string, unknown> | unknown[];

/** Raw objects whose values are getters to call only when the value is read. */
const DEFERRED = new WeakSet<object>();

/**
 * Makes a raw object whose values are computed on first read (e.g. decoded from a packed spec)
 * and that views read lazily, without touching values the program never reads.
 * @param entries - key → function computing the raw value (called at most once)
 */
export function deferredObject(
  entries: Iterable<[string, () => unknown]>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, compute] of entries) {
    let value: unknown = UNSET;
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get: () => (value === UNSET ? (value = compute()) : value),
    });
  }
  DEFERRED.add(out);
  return out;
}

/** Marks an accessor that has not materialized yet (`undefined` is a legitimate view). */
const UNSET: unique symbol = Symbol("unset");

/**
 * Defines `key` on `target` as an enumerable accessor that computes its value once and calls
 * `tick` on every read; assigning replaces it with a plain data property holding the new value,
 * or, on a read-only view, throws a TypeError that says why and what to do.
 * @param target - the object (or array) to define the property on
 * @param key - the property name
 * @param compute - produces the value on first read
 * @param tick - called on every read (the sandbox's operation budget)
 * @param readOnly - the view is shared by several `$ref` places (it is frozen after its fields
 *   are defined)
 */
export function lazyField(
  target: object,
  key: string,
  compute: () => unknown,
  tick?: () => void,
  readOnly = false,
): void {
  let value: unknown = UNSET;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      tick?.();
      return value === UNSET ? (value = compute()) : value;
    },
    set: (next: unknown) => {
      if (readOnly) refuseWrite("set", key);
      Object.defineProperty(target, key, {
        value: next,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    },
  });
}

/**
 * What a program that writes into a shared view is told (the frozen view's engine message says
 * less; this one names the cause and the fix).
 * @param key - the property assigned, added, deleted or defined
 * @param verb - what the program tried (`set`, `delete`, `define`)
 */
export function readOnlyMessage(key: string, verb: "set" | "delete" | "define" = "set"): string {
  return `Cannot ${verb} "${key}": this part of codemode.spec() is reached through a $ref and shared by every place that names the same target, so it is read-only. Copy what you change: { ...value } (one level) or JSON.parse(JSON.stringify(value)).`;
}

/**
 * The intrinsics as this module loaded: in the sandbox this module is evaluated before the
 * program, which may replace the globals (`TypeError`, `Proxy`) and the built-in prototypes'
 * methods (`WeakSet.prototype.has`) later.
 */
const IntrinsicTypeError = TypeError;
const ProxyClass = Proxy;
const { freeze } = Object;
const { apply, set: reflectSet } = Reflect;
const { add: weakAdd, has: weakHas } = WeakSet.prototype;

/**
 * Throws the read-only TypeError for a write into a shared view.
 * @param verb - what the program tried
 * @param key - the property
 */
function refuseWrite(verb: "set" | "delete" | "define", key: string | symbol): never {
  throw new IntrinsicTypeError(readOnlyMessage(String(key), verb));
}

/**
 * The shared views handed out (the proxies): a `set` whose receiver is one of them is a write
 * into a shared view; any other receiver inherits from one (`Object.create(view)`) and gets what
 * a frozen prototype gives it. A WeakSet of this module's, not a mark on the object: the
 * program can change a view's prototype chain, never this set.
 */
const SHARED_VIEWS = new WeakSet<object>();

/** The write traps of a shared view (reads have none: they reach the frozen view directly). */
const READ_ONLY: ProxyHandler<object> = {
  // No prototype: a trap a program adds to Object.prototype (`ownKeys`, `get`, …) must not
  // become one of this handler's (an `ownKeys` there made every read of a shared view throw).
  __proto__: null,
  set: (target, key, value, receiver) =>
    apply(weakHas, SHARED_VIEWS, [receiver])
      ? refuseWrite("set", key)
      : reflectSet(target, key, value, receiver),
  deleteProperty: (_target, key) => refuseWrite("delete", key),
  defineProperty: (_target, key) => refuseWrite("define", key),
  setPrototypeOf: () => refuseWrite("set", "__proto__"),
} as ProxyHandler<object>;

/**
 * `out` frozen, behind the write traps that say why it cannot change.
 * @param out - a view just made (its fields defined)
 */
function readOnlyView<T extends object>(out: T): T {
  const view = new ProxyClass(freeze(out), READ_ONLY) as T;
  apply(weakAdd, SHARED_VIEWS, [view]);
  return view;
}

/**
 * Creates lazy views of values of one document. Create one per run (views are mutable by the code
 * that reads them; a fresh resolver keeps one run's edits away from the next).
 */
export class LazyResolver {
  readonly #root: unknown;
  readonly #groupOf: Map<string, number>;
  readonly #free = new WeakMap<object, unknown>();
  readonly #scoped = new Map<string, WeakMap<object, unknown>>();

  readonly #tick: (() => void) | undefined;
  readonly #lookup: ((pointer: string) => unknown) | undefined;

  /**
   * @param root - the document refs are resolved against (the compact spec)
   * @param cycles - cyclic ref groups, as computed by `findRefCycles`
   * @param tick - called on every read of a lazy value; the sandbox passes its operation-budget
   *   counter, so a program that walks a huge spec is stopped like any other runaway loop
   * @param lookup - finds the raw value a `$ref` points to (default: read `root` at the pointer);
   *   a packed spec decodes just the component named instead
   */
  constructor(
    root: unknown,
    cycles: readonly (readonly string[])[],
    tick?: () => void,
    lookup?: (pointer: string) => unknown,
  ) {
    this.#tick = tick;
    this.#root = root;
    this.#lookup = lookup;
    this.#groupOf = new Map();
    cycles.forEach((group, i) => group.forEach((pointer) => this.#groupOf.set(pointer, i)));
  }

  /**
   * The lazy view of a value of the document (primitives are returned as they are).
   * @param value - a value reachable from the root (an operation, a schema, the root itself)
   */
  view<T = unknown>(value: T): T {
    return this.#view(value, undefined) as T;
  }

  /**
   * The read-only view of a value that `$ref`s point into (the `components` object): the same
   * frozen objects refs to its members read as.
   * @param value - a value reachable from the root
   */
  shared<T = unknown>(value: T): T {
    return this.#view(value, SHARED) as T;
  }

  /**
   * The lazy view of a `$ref` target, or `undefined` when the pointer resolves to nothing.
   * @param ref - a local pointer such as `#/components/schemas/X`
   */
  resolve(ref: string): unknown {
    return this.#enter(ref, undefined, undefined);
  }

  #view(value: unknown, ctx: Context | undefined): unknown {
    if (value === null || typeof value !== "object") return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string") return this.#enter(ref, value as Record<string, unknown>, ctx);
    const memo = this.#memo(ctx);
    const cached = memo.get(value);
    if (cached !== undefined) return cached;
    const made = Array.isArray(value)
      ? this.#array(value, ctx)
      : this.#object(value as Record<string, unknown>, ctx);
    memo.set(value, made);
    return made;
  }

  /** Follows a ref: a circular marker, or the target's view in the context the target opens. */
  #enter(
    ref: string,
    refNode: Record<string, unknown> | undefined,
    ctx: Context | undefined,
  ): unknown {
    const group = this.#groupOf.get(ref);
    if (group !== undefined && ctx?.group === group)
      return { $circular: ref } satisfies CircularMarker;
    let target = this.#lookup ? this.#lookup(ref) : getAtPointer(this.#root, ref);
    if (target === undefined) return refNode ? this.#object(refNode, ctx) : undefined;
    const next: Context = group === undefined ? SHARED : { group, key: String(group) };
    // OpenAPI 3.1 lets a reference carry its own summary/description (and a 3.1 schema may
    // carry any keyword beside $ref): siblings override the target's fields.
    if (refNode && target !== null && typeof target === "object" && !Array.isArray(target)) {
      const keys = Object.keys(refNode);
      if (keys.length > 1) {
        const memo = this.#memo(next);
        const cached = memo.get(refNode);
        if (cached !== undefined) return cached;
        const merged: Record<string, unknown> = { ...(target as Record<string, unknown>) };
        for (const key of keys) if (key !== "$ref") merged[key] = refNode[key];
        target = merged;
        const made = this.#object(merged, next);
        memo.set(refNode, made);
        return made;
      }
    }
    return this.#view(target, next);
  }

  #memo(ctx: Context | undefined): WeakMap<object, unknown> {
    if (!ctx) return this.#free;
    let memo = this.#scoped.get(ctx.key);
    if (!memo) this.#scoped.set(ctx.key, (memo = new WeakMap()));
    return memo;
  }

  #object(raw: Record<string, unknown>, ctx: Context | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const deferred = DEFERRED.has(raw);
    for (const key of Object.keys(raw)) {
      if (deferred) {
        // A raw object whose values are read on demand (see `deferredObject`): do not read them
        // now, so what the program never touches is never decoded.
        const read = Object.getOwnPropertyDescriptor(raw, key)?.get;
        if (read) {
          this.#lazyRead(out, key, () => read.call(raw), ctx);
          continue;
        }
      }
      const value = raw[key];
      if (value === null || typeof value !== "object") {
        if (key === "__proto__")
          Object.defineProperty(out, key, {
            value,
            writable: true,
            enumerable: true,
            configurable: true,
          });
        else out[key] = value;
      } else this.#lazy(out, key, value, ctx);
    }
    return ctx ? readOnlyView(out) : out;
  }

  #array(raw: unknown[], ctx: Context | undefined): unknown[] {
    const out: unknown[] = [];
    out.length = raw.length;
    for (let i = 0; i < raw.length; i++) {
      const value = raw[i];
      if (value === null || typeof value !== "object") out[i] = value;
      else this.#lazy(out, String(i), value, ctx);
    }
    return ctx ? readOnlyView(out) : out;
  }

  /**
   * Defines `key` on `out` as an accessor that materializes once and caches. It stays an accessor:
   * redefining it as a data property on first read was measured over 100x slower on wide objects (V8
   * drops the object's fast enumeration path on every redefinition). Assigning replaces it.
   */
  #lazy(out: Node, key: string, value: unknown, ctx: Context | undefined): void {
    this.#lazyRead(out, key, () => value, ctx);
  }

  #lazyRead(out: Node, key: string, read: () => unknown, ctx: Context | undefined): void {
    // Every read counts, not only the first: shared views can be traversed many times
    // (serializing a spec walks the same schema once per place it is used).
    lazyField(out, key, () => this.#view(read(), ctx), this.#tick, ctx !== undefined);
  }
}
