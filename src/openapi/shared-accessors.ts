/**
 * Lazy properties without a closure per property: one getter and one setter per property name,
 * shared by every object that has a property of that name, finding the object's own state
 * through `this`. An opened packed spec (spec-pack.ts) defines these on its operations, in a
 * fresh isolate: every heavy field of each operation a program uses beyond its index fields
 * (lazy-operations.ts; all of them once a program serializes every operation).
 *
 * Why: a closure per property (value, getter, setter and the function computing the value) cost
 * three times as much to define: 7.5 vs 2.5 ms of CPU for the Cloudflare spec's ~6,900 fields
 * (Node, cold, per run), and identical getters let V8 share the objects' hidden classes. Tried in
 * the lazy schema views as well (lazy-view.ts): no gain there, since a view is read about as often
 * as it is made, and each read pays a lookup.
 *
 * Semantics, as the closures had them: the property is an enumerable, configurable accessor;
 * every read calls `tick` (the sandbox's operation budget); assigning replaces it with a plain
 * data property holding the new value. An object that inherits from one of these objects reads
 * the same values through it.
 */

const { defineProperty, getPrototypeOf } = Object;

/**
 * A family of lazy properties whose values come from per-object state.
 * @typeParam S - the state attached to each object
 */
export class SharedAccessors<S extends object> {
  readonly #states = new WeakMap<object, S>();
  readonly #descriptors = new Map<string, PropertyDescriptor>();
  readonly #read: (state: S, key: string) => unknown;
  readonly #tick: (() => void) | undefined;

  /**
   * @param read - computes (and caches, if it wants to) the value of `key` from an object's state
   * @param tick - called on every read
   */
  constructor(read: (state: S, key: string) => unknown, tick?: () => void) {
    this.#read = read;
    this.#tick = tick;
  }

  /**
   * Attaches state to an object (before or after its properties are defined).
   * @param target - the object
   * @param state - what the getters of its properties read
   */
  attach(target: object, state: S): void {
    this.#states.set(target, state);
  }

  /**
   * The shared descriptor of `key` (for `Object.defineProperties` with many keys at once).
   * @param key - the property name
   */
  descriptor(key: string): PropertyDescriptor {
    let descriptor = this.#descriptors.get(key);
    if (descriptor) return descriptor;
    const states = this.#states;
    const read = this.#read;
    const tick = this.#tick;
    descriptor = {
      enumerable: true,
      configurable: true,
      get(this: object) {
        tick?.();
        // `this` is the object read, or one inheriting from it (or anything, if the getter
        // is called by hand: then there is no state and the value is undefined).
        const state = stateOf(states, this);
        return state === undefined ? undefined : read(state, key);
      },
      set(this: object, value: unknown) {
        defineProperty(this, key, { value, writable: true, enumerable: true, configurable: true });
      },
    };
    this.#descriptors.set(key, descriptor);
    return descriptor;
  }
}

/** The state of `target` or of the nearest object it inherits from (the views' prototypes). */
function stateOf<S>(states: WeakMap<object, S>, target: unknown): S | undefined {
  for (let node = target; node != null; node = getPrototypeOf(node)) {
    const state = states.get(node as object);
    if (state !== undefined) return state;
  }
  return undefined;
}
