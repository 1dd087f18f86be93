/**
 * The wire codec's own trees (codec.ts), built and written running none of the program's code:
 * in the sandbox, Array.prototype and Object.prototype are the program's, and a setter or a
 * `toJSON` there would see (and could change) what the harness sends.
 */

/** A JSON value: what the wire tree is made of. */
export type Wire = null | boolean | number | string | Wire[] | { [key: string]: Wire };

/** The key that marks a tagged object in a wire tree. */
export const TAG = "$cm";

// Captured when the module loads (in the sandbox: before any user code): see codec.ts.
const { stringify } = JSON;
const {
  keys,
  hasOwn,
  getPrototypeOf,
  defineProperty,
  getOwnPropertyNames,
  getOwnPropertyDescriptor,
} = Object;
const { isArray } = Array;
const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;

/**
 * Whether JSON would write a wire tree's arrays and objects as they are: no `toJSON` on their
 * prototypes (in the sandbox a program may define one, which JSON would call for every array).
 */
export function plainPrototypes(): boolean {
  return (
    getPrototypeOf(arrayPrototype) === objectPrototype &&
    !hasOwn(arrayPrototype, "toJSON") &&
    !hasOwn(objectPrototype, "toJSON")
  );
}

/**
 * Defines a plain data property, as an assignment would make it, running none of the program's code.
 * @param target - the encoder's own array or object
 * @param key - the property
 * @param value - its value
 */
export function defineData(target: object, key: string | number, value: unknown): void {
  // A descriptor without a prototype: `get` or `set` on Object.prototype (the program's) would
  // be read as part of it.
  defineProperty(target, key, {
    __proto__: null,
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  } as PropertyDescriptor);
}

/**
 * Whether assigning to a fresh array or object runs nothing of the program's: Array.prototype
 * and Object.prototype hold only writable data properties (Object.prototype's `__proto__` aside)
 * and Array.prototype still inherits from Object.prototype. About 50 property looks.
 */
export function assignable(): boolean {
  // Each prototype looked at by name, not by a for-of over a list: that would walk with
  // Array.prototype[Symbol.iterator], which the program may have emptied.
  return (
    getPrototypeOf(arrayPrototype) === objectPrototype &&
    onlyWritableData(arrayPrototype, false) &&
    onlyWritableData(objectPrototype, true)
  );
}

/** Whether every own property of `proto` is a writable data property (`__proto__` aside if asked). */
function onlyWritableData(proto: object, skipProto: boolean): boolean {
  const names = getOwnPropertyNames(proto);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (skipProto && name === "__proto__") continue;
    const d = getOwnPropertyDescriptor(proto, name);
    if (!d || hasOwn(d, "get") || hasOwn(d, "set") || d.writable !== true) return false;
  }
  return true;
}

/**
 * The JSON text of a wire tree the encoder made, written without JSON's walk, which would call a
 * `toJSON` found on Array.prototype or Object.prototype. Only primitives go through JSON (it calls
 * no `toJSON` for them). Slower than JSON.stringify: used only while such a `toJSON` may exist.
 * @param wire - a tree the encoder made
 */
export function writeWire(wire: Wire): string {
  if (wire === null || typeof wire !== "object") return stringify(wire);
  let text = "";
  if (isArray(wire)) {
    for (let i = 0; i < wire.length; i++) text += (i === 0 ? "" : ",") + writeWire(wire[i] ?? null);
    return `[${text}]`;
  }
  const names = keys(wire);
  for (let i = 0; i < names.length; i++) {
    const key = names[i] as string;
    text += `${i === 0 ? "" : ","}${stringify(key)}:${writeWire(wire[key] ?? null)}`;
  }
  return `{${text}}`;
}
