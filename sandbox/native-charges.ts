/**
 * Charges the run's budget for built-ins whose native work grows with their data, in both
 * sandboxes. Each counts too little of it on its own:
 *
 * - The shared worker's engine counts one step per call, and calls its interrupt handler only
 *   every ~10,000 steps: one `'x'.repeat(1e5)` is one step and ~0.8 ms, so a loop of them held
 *   the shared worker for hours on the default budget, and a memory fill for many seconds.
 * - The per-run V8 isolate's operation budget counts the program's loop iterations and calls
 *   (sandbox/runtime.ts), two a turn of `while (true) a.set(b)`: with a 16 MiB copy of ~3 ms a
 *   turn, that loop held its runner until the runner's watchdog replaced it (10 s), ending every
 *   other run on it (issue #28, e2e runaway).
 *
 * Each wrapped built-in reports the size of what it produced or scanned, and that is charged in
 * interrupts' worth (one per {@link UNITS_PER_INTERRUPT} units): the engine's runner adds them
 * to its interrupt count (`__cm$charge`), and once the run's budget is spent the charge throws
 * and the next step check ends the run as the step budget would; the V8 harness adds
 * {@link OPERATIONS_PER_INTERRUPT} operations for each, and the program's next counted
 * operation ends the run.
 *
 * Evaluated inside the sandbox by its harness, after the run's extensions are installed and
 * before any user code exists. The wrappers keep each method's name, length and property
 * attributes; what they cost per call is a few steps.
 */

/**
 * Operations one interrupt unit of native work is worth in the V8 isolate's budget: as the
 * shared worker maps the same budget (10,000 engine steps an interrupt, 4 steps an operation;
 * src/executor/shared-worker/shared-worker-executor.ts), so a program's native work costs it
 * the same share of `maxOperations` on either executor. The default budget (20 million) then
 * allows ~8,000 interrupts' worth a run (~130 million characters, ~2 GiB of typed-array copies:
 * about a second of native work), instead of no bound at all.
 */
export const OPERATIONS_PER_INTERRUPT = 2_500;

/** Units (characters or elements) worth one interrupt-handler call: see {@link installCharges}. */
export const UNITS_PER_INTERRUPT = 16_384;
/** The most units one call is charged: above any real length (arrays stop at 2³² − 1). */
const MAX_UNITS_PER_CALL = 2 ** 32;

type Method = (this: unknown, ...args: unknown[]) => unknown;
/** How many units one call touched, from its receiver, result and arguments. */
type Units = (self: unknown, result: unknown, args: unknown[]) => number;

const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf } = Object;
const { apply, construct } = Reflect;
const ProxyClass = Proxy;
const { isArray } = Array;
const { floor } = Math;

const resultLength: Units = (_self, result) =>
  typeof result === "string" || isArray(result) ? result.length : 0;
const selfLength: Units = (self) =>
  typeof self === "string" || isArray(self) ? (self as string | unknown[]).length : 0;
const both: Units = (self, result, args) =>
  selfLength(self, result, args) + resultLength(self, result, args);
const textArgument: Units = (_self, _result, args) =>
  typeof args[0] === "string" ? args[0].length : 0;

/**
 * Typed-array bytes worth one unit: a 16 MiB `set` or `fill` is a few milliseconds of memcpy
 * (measured ~3 ms), so 16 bytes a unit charges such a call ~64 interrupts (~11 ms of tight-loop
 * budget): a loop of them ends within the budget instead of holding the worker for minutes.
 */
export const TYPED_BYTES_PER_UNIT = 16;
// Captured before any user code: a program that redefines `byteLength` cannot shrink its charge.
const TYPED_ARRAY_PROTOTYPE = getPrototypeOf(Uint8Array.prototype) as object;
const typedByteLength = getOwnPropertyDescriptor(TYPED_ARRAY_PROTOTYPE, "byteLength")?.get;
const typedLength = getOwnPropertyDescriptor(TYPED_ARRAY_PROTOTYPE, "length")?.get;
const bufferByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")?.get;
/** What a captured getter reads on `value`; 0 when it throws there (not that kind of object). */
const read = (getter: (() => unknown) | undefined, value: unknown): number => {
  if (!getter) return 0;
  try {
    return apply(getter, value, []) as number;
  } catch {
    return 0;
  }
};
/** `value`'s size in units, read with a captured `byteLength` getter; 0 when it throws on it. */
const byteUnits = (getter: (() => unknown) | undefined, value: unknown): number =>
  floor(read(getter, value) / TYPED_BYTES_PER_UNIT);
/** A typed array's size in units; 0 for anything else. */
const typedUnits = (value: unknown): number => byteUnits(typedByteLength, value);
const typedSelf: Units = (self) => typedUnits(self);
/**
 * `%TypedArray%.from(source)`: from another typed array it is a bulk copy, charged by bytes; from
 * anything else (an array, an iterable) it reads element by element as `Array.from` does, and is
 * charged by elements as that is. By bytes, `Uint8Array.from(array)` of a million elements was
 * charged 62,500 units for what costs as much as `Array.from` of it (a loop of them ran 13 s on
 * a 2,000,000-operation budget where the other charged loops ended in 1–6 s).
 */
const typedFrom: Units = (_self, result, args) =>
  typedUnits(args[0]) > 0 ? typedUnits(result) : read(typedLength, result);
/** An ArrayBuffer result's size in units; 0 for anything else. */
const bufferResult: Units = (_self, result) => byteUnits(bufferByteLength, result);
/** `set(source)`: the copy is the source's size (an array source: its elements). */
const typedSource: Units = (_self, _result, args) =>
  isArray(args[0]) ? (args[0] as unknown[]).length : typedUnits(args[0]);

/**
 * `new Uint8Array(x)` and its kin: a length allocates (and zeroes) that many bytes, a typed array
 * is copied in bulk (by bytes), an array or iterable is read element by element (by elements, as
 * `Array.from`), and a buffer is only viewed (nothing). Uncharged, a loop of 16 MiB allocations
 * or copies held its runner until the watchdog replaced it (10 s), on both executors.
 */
const typedConstruct: Units = (_self, result, args) => {
  const source = args[0];
  if (source === null || typeof source !== "object") return typedUnits(result);
  if (read(bufferByteLength, source) > 0) return 0;
  return typedFrom(undefined, result, args);
};
/** The typed-array constructors (Float16Array where the engine has it). */
const TYPED_ARRAY_NAMES = [
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "Int16Array",
  "Uint16Array",
  "Int32Array",
  "Uint32Array",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "BigInt64Array",
  "BigUint64Array",
];

/**
 * Wraps the built-ins whose native cost grows with data and charges `charge(n)` interrupts per
 * {@link UNITS_PER_INTERRUPT} units (one interrupt is ~10,000 cheap engine steps, ~0.17 ms;
 * `'x'.repeat(16384)` measured ~0.13 ms). Small calls accumulate, so the native charge is called
 * once per unit's worth, not per call.
 * @param charge - the runner's charge: throws once the run's budget is spent
 */
export function installCharges(charge: (interrupts: number) => void): void {
  let pending = 0;
  const pay = (units: number): void => {
    // A size can come from the program (a Proxy's `length`): only a positive number counts, at
    // most MAX_UNITS_PER_CALL. NaN kept in `pending` stopped every later charge, and in the V8
    // isolate made its operation count NaN, which never passes the budget again.
    if (!(units > 0)) return;
    pending += units < MAX_UNITS_PER_CALL ? units : MAX_UNITS_PER_CALL;
    if (pending < UNITS_PER_INTERRUPT) return;
    const interrupts = floor(pending / UNITS_PER_INTERRUPT);
    pending -= interrupts * UNITS_PER_INTERRUPT;
    charge(interrupts);
  };
  const wrap = (target: object, name: string, units: Units): void => {
    const descriptor = getOwnPropertyDescriptor(target, name);
    const original = descriptor?.value as Method | undefined;
    if (typeof original !== "function") return;
    // A method shorthand: named like the original, not a constructor, as built-ins are.
    const wrapped = {
      [name](this: unknown, ...args: unknown[]): unknown {
        const result = apply(original, this, args);
        pay(units(this, result, args));
        return result;
      },
    }[name]!;
    defineProperty(wrapped, "length", { value: original.length });
    defineProperty(target, name, { ...descriptor, value: wrapped });
  };
  /**
   * A constructor is wrapped in a Proxy that charges what each construction produced: it stays
   * a constructor for `new`, `instanceof`, subclasses and `Symbol.species` (its `prototype` is the
   * original's, whose `constructor` now names the wrapper, so `x.constructor === Uint8Array`
   * holds and species-made arrays are charged too). Calling it without `new` throws as before.
   */
  const wrapConstructor = (name: string, units: Units): void => {
    const descriptor = getOwnPropertyDescriptor(globalThis, name);
    const original = descriptor?.value as (new (...args: unknown[]) => object) | undefined;
    if (typeof original !== "function") return;
    // A handler without a prototype: traps the program adds to Object.prototype (`get`,
    // `apply`, …) would otherwise become this Proxy's traps, and the harness reads the wrapper too.
    const handler: ProxyHandler<new (...args: unknown[]) => object> = {
      __proto__: null,
      construct(target, args, newTarget) {
        const result = construct(target, args, newTarget);
        pay(units(undefined, result, args));
        return result;
      },
    } as ProxyHandler<new (...args: unknown[]) => object>;
    const wrapped = new ProxyClass(original, handler);
    defineProperty(globalThis, name, { ...descriptor, value: wrapped });
    const prototype = original.prototype as object;
    const named = getOwnPropertyDescriptor(prototype, "constructor");
    if (named) defineProperty(prototype, "constructor", { ...named, value: wrapped });
  };
  for (const name of ["repeat", "padStart", "padEnd"]) wrap(String.prototype, name, resultLength);
  for (const name of ["indexOf", "lastIndexOf", "includes", "split", "replace", "replaceAll"])
    wrap(String.prototype, name, both);
  for (const name of ["toUpperCase", "toLowerCase", "normalize", "concat"])
    wrap(String.prototype, name, resultLength);
  wrap(String.prototype, "localeCompare", both);
  // Not regex scans (`match`, `search`, `test`, `exec`): search programs grep large JSON with
  // them, and charged as well as the `JSON.stringify` that made the text, a scan of every schema
  // of a Stripe-sized spec went past the default budget. (`exec` also keeps V8's fast paths for
  // `replace`, `match` and `split`, which hold only while it is the original.)
  for (const name of [
    "fill",
    "indexOf",
    "lastIndexOf",
    "includes",
    "reverse",
    "sort",
    "splice",
    "unshift",
    "copyWithin",
    "toSorted",
    "toReversed",
    "toSpliced",
    "with",
  ])
    wrap(Array.prototype, name, selfLength);
  for (const name of ["join", "slice", "concat", "flat", "toString"])
    wrap(Array.prototype, name, both);
  wrap(Array, "from", resultLength);
  for (const name of ["keys", "values", "entries"]) wrap(Object, name, resultLength);
  wrap(JSON, "stringify", resultLength);
  wrap(JSON, "parse", textArgument);
  // Typed arrays: bulk copies, fills and scans run natively over every byte.
  wrap(TYPED_ARRAY_PROTOTYPE, "set", typedSource);
  wrap(getPrototypeOf(Uint8Array) as object, "from", typedFrom);
  wrap(ArrayBuffer.prototype, "slice", bufferResult);
  // Text to bytes (native in the V8 isolate; the engine's polyfill counts its own steps too).
  // Not `TextDecoder` `decode` nor `Object.fromEntries`: the spec extension decodes what a
  // search program reads with them (src/openapi/spec-pack.ts), reads the run already pays for
  // per value read, and charged again by size they stopped honest searches of large specs.
  if (typeof TextEncoder === "function") {
    for (const name of ["encode", "encodeInto"]) wrap(TextEncoder.prototype, name, textArgument);
  }
  for (const name of [
    "fill",
    "copyWithin",
    "indexOf",
    "lastIndexOf",
    "includes",
    "reverse",
    "sort",
    "join",
    "slice",
    "toSorted",
    "toReversed",
  ])
    wrap(TYPED_ARRAY_PROTOTYPE, name, typedSelf);
  // Last: the wrappers above reach the prototypes through the originals, captured already.
  for (const name of TYPED_ARRAY_NAMES) wrapConstructor(name, typedConstruct);
  wrapConstructor("ArrayBuffer", bufferResult);
}
