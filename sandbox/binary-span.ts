/**
 * A binary value of the program's (a typed array, a DataView, an ArrayBuffer) read for the
 * wire: which bytes it holds, found by the engine's own accessors, and those bytes copied into a
 * fresh buffer. Runs in the sandbox (both harnesses) and on the host (codec.ts).
 *
 * Why not the value's own properties: `length`, `byteLength`, `buffer` and `byteOffset` are
 * looked up through a prototype chain the program can change (or shadowed by its own getters),
 * and a Proxy answers whatever its traps say. The codec read a typed array's `length` and then
 * every index: a getter answering 10⁹ kept the harness's encoder (uncharged, not instrumented)
 * busy until the run's end, and a Proxy's traps chose the bytes. The accessors captured here
 * when the module loads read the engine's internal slots, which no program can change: a Proxy
 * or an object that only inherits from a typed array's prototype has none, so it is refused.
 */

const { getOwnPropertyDescriptor, getPrototypeOf } = Object;
const { apply } = Reflect;
const { isView } = ArrayBuffer;
const TypeErrorClass = TypeError;
// Captured before any program runs: the sandbox charges a program's own typed-array
// constructions (native-charges.ts), not the codec's copies of what crosses.
const Bytes = Uint8Array;
const Buffer = ArrayBuffer;
const DataViewClass = DataView;
const Shared: (new (length: number) => object) | undefined =
  typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : undefined;

/** The getter of `name` on `prototype`, as the engine defines it. */
function getter(prototype: object, name: string): (...args: unknown[]) => unknown {
  const get = getOwnPropertyDescriptor(prototype, name)?.get;
  if (!get) throw new TypeErrorClass(`The engine has no ${name} accessor.`);
  return get as (...args: unknown[]) => unknown;
}

const typedPrototype = getPrototypeOf(Bytes.prototype) as object;
const typedBuffer = getter(typedPrototype, "buffer");
const typedOffset = getter(typedPrototype, "byteOffset");
const typedLength = getter(typedPrototype, "byteLength");
const viewBuffer = getter(DataViewClass.prototype, "buffer");
const viewOffset = getter(DataViewClass.prototype, "byteOffset");
const viewLength = getter(DataViewClass.prototype, "byteLength");
// Throws for anything but an ArrayBuffer: a SharedArrayBuffer, a Proxy, a typed array.
const bufferLength = getter(Buffer.prototype, "byteLength");
const typedSet = typedPrototype["set" as keyof object] as (...args: unknown[]) => unknown;

/** Where a binary value's bytes are, read from the engine's internal slots. */
export interface BinarySpan {
  /** `bytes` for a typed array or a DataView (it decodes as a Uint8Array), else `arraybuffer`. */
  kind: "bytes" | "arraybuffer";
  buffer: ArrayBuffer;
  offset: number;
  length: number;
}

/**
 * The span of `value` when it is binary data, undefined when it is not. Throws a
 * TypeError for what only looks like binary data (a Proxy of a typed array, an
 * object made from a typed array's prototype) and for shared memory, which cannot be copied at
 * one moment the program cannot change.
 * @param value - any object of the program's
 */
export function binarySpan(value: object): BinarySpan | undefined {
  if (isView(value)) {
    let buffer: unknown;
    let offset: number;
    let length: number;
    try {
      buffer = apply(typedBuffer, value, []);
      offset = apply(typedOffset, value, []) as number;
      length = apply(typedLength, value, []) as number;
    } catch {
      // Not a typed array (`isView` answers true only for those and DataViews), or one whose
      // buffer an engine refuses to describe once detached.
      try {
        buffer = apply(viewBuffer, value, []);
        offset = apply(viewOffset, value, []) as number;
        length = apply(viewLength, value, []) as number;
      } catch {
        throw refusal(DETACHED);
      }
    }
    unshared(buffer);
    return { kind: "bytes", buffer: buffer as ArrayBuffer, offset, length };
  }
  // `instanceof` only decides whether the value claims to be binary data (it may call a Proxy's
  // traps, which is the program's own code in its own realm); the accessors decide what it is.
  if (value instanceof Buffer) {
    let length: number;
    try {
      length = apply(bufferLength, value, []) as number;
    } catch {
      throw refusal(LOOKALIKE);
    }
    return { kind: "arraybuffer", buffer: value, offset: 0, length };
  }
  if (Shared && value instanceof Shared) throw refusal(SHARED);
  if (value instanceof Bytes || value instanceof DataViewClass) {
    throw refusal(LOOKALIKE);
  }
  return undefined;
}

/** Refuses a view's buffer when it is shared memory (its length accessor throws for it). */
function unshared(buffer: unknown): void {
  try {
    apply(bufferLength, buffer, []);
  } catch {
    throw refusal(SHARED);
  }
}

/**
 * A view of the span's bytes (no copy), as a Uint8Array the codec made. Throws a
 * TypeError when the buffer is detached (transferred): its bytes are gone, and
 * sending none would be a silent wrong answer.
 * @param span - from {@link binarySpan}
 */
export function spanBytes(span: BinarySpan): Uint8Array {
  try {
    return new Bytes(span.buffer, span.offset, span.length);
  } catch {
    throw refusal(DETACHED);
  }
}

/**
 * A fresh ArrayBuffer holding a copy of the span's bytes: of exactly their length (never the
 * rest of a larger buffer a view looks into), fixed in size, owned by no program.
 * @param span - from {@link binarySpan}
 */
export function copySpan(span: BinarySpan): ArrayBuffer {
  const source = spanBytes(span);
  const out = new Buffer(span.length);
  apply(typedSet, new Bytes(out), [source]);
  return out;
}

/** The error a program's call throws for binary data that cannot cross: its message says why. */
function refusal(message: string): TypeError {
  return new TypeErrorClass(message);
}

const LOOKALIKE =
  "A value that looks like binary data but is not a real typed array, DataView or ArrayBuffer (a Proxy?) cannot be sent to the host: copy it into a new Uint8Array first.";
const SHARED =
  "Shared memory (a SharedArrayBuffer or a view of one) cannot be sent to the host: copy it into a new Uint8Array first.";
const DETACHED =
  "A detached ArrayBuffer (or a view of one) cannot be sent to the host: its bytes were transferred away.";
