/**
 * Operations whose heavy fields are defined on first touch: each operation of an opened packed
 * spec (spec-pack.ts) is a proxy over its index fields, and its shared accessors
 * (shared-accessors.ts) are defined on the operation only when a program first does more with it
 * than read an index field: reads a heavy field, lists its keys, asks for a descriptor, assigns,
 * deletes, defines, freezes.
 *
 * Why: defining the ~8,100 accessors of the Cloudflare spec's 1,533 operations at open was most
 * of opening it in a run's fresh isolate. Measured as workerd CPU per call in the bench Worker
 * (2026-12-07, load 1.6–2.6): a search that only opens the spec cost 5.5 ms more than one that
 * does not, 2.1 ms with nothing done per operation. Search programs mostly read index fields of
 * many operations (`operationId`, `summary`, `tags`), which the proxy answers from its target
 * without defining anything. What is made per operation is kept small (the proxy and a handler
 * of four fields): in a fresh isolate whatever is allocated right after the index's parse
 * brings on the collection that copies the whole parsed index (a handler of eight fields cost
 * 0.7 ms more to open, measured as above).
 *
 * What a program sees is what the accessors gave it: the same keys in the same order,
 * enumerable and configurable, the same values, assignment replacing a field with a data
 * property, one operation object wherever it is read from. A proxy is not structured-cloneable
 * (`structuredClone(operation)` throws, as it already did on a `$ref`'s shared views); `JSON`,
 * the spread, `Object.keys` and the harness's own encoding read it as before.
 */

// The built-ins the traps call, as this module loaded: a program runs after the extension loads,
// and must not get to run inside them by replacing `Reflect` methods.
const ProxyClass = Proxy;
const {
  get: reflectGet,
  set: reflectSet,
  has: reflectHas,
  ownKeys: reflectOwnKeys,
  getOwnPropertyDescriptor: reflectDescriptor,
  defineProperty: reflectDefine,
  deleteProperty: reflectDelete,
  preventExtensions: reflectPreventExtensions,
} = Reflect;
const { defineProperties } = Object;

/** An operation's heavy fields: their shared descriptors, by name, with no prototype. */
export type OperationShape = Readonly<Record<string | symbol, PropertyDescriptor | undefined>>;

/** What every operation of one opened spec shares. */
export interface OperationTable {
  /** The distinct heavy-field lists, as descriptors. */
  shapes: readonly OperationShape[];
  /** Per operation in `paths` order: shape index, segment length (the header's `ops`). */
  ops: readonly number[];
  /** Offset of the first operation's segment. */
  start: number;
  /** Ties a realized operation to its state (`SharedAccessors.attach`). */
  attach: (operation: object, state: OperationState) => void;
}

/** What an operation's accessors read: where its heavy fields are, and what was decoded. */
export interface OperationState {
  /** Position among the operations (in the descriptions array). */
  index: number;
  /** Offset of the operation's segment in the packed bytes. */
  at: number;
  /** Byte length of that segment. */
  length: number;
  /** The heavy fields' JSON, once decoded. */
  heavy?: Record<string, unknown>;
  /** Each heavy field's view, once read. */
  views?: Map<string, unknown>;
}

/** Segment offsets of a table's operations, computed once per table on first need. */
const offsets = new WeakMap<OperationTable, number[]>();

function offsetOf(table: OperationTable, index: number): number {
  let at = offsets.get(table);
  if (at === undefined) {
    at = [];
    let offset = table.start;
    for (let i = 0; 2 * i < table.ops.length; i++) {
      at.push(offset);
      offset += table.ops[2 * i + 1]!;
    }
    offsets.set(table, at);
  }
  return at[index]!;
}

/**
 * Makes the operation a program reads: a proxy over its index fields.
 * @param stub - the operation's index fields, as parsed (kept as the proxy's target)
 * @param index - its position among the operations
 * @param table - what the spec's operations share
 */
export function lazyOperation(stub: object, index: number, table: OperationTable): object {
  const handler = new LazyOperation(index, table);
  return (handler.proxy = new ProxyClass(stub, handler as ProxyHandler<object>));
}

/**
 * The proxy handler of one operation: its position until the accessors are defined. Its
 * prototype has no prototype of its own (below): a trap a program adds to `Object.prototype`
 * (`isExtensible`, `getPrototypeOf`, …) must not become one of this handler's.
 */
class LazyOperation {
  /** The heavy fields' descriptors until they are defined on the operation. */
  shape: OperationShape | undefined;
  readonly index: number;
  readonly table: OperationTable;
  proxy: object | undefined;

  constructor(index: number, table: OperationTable) {
    this.shape = table.shapes[table.ops[2 * index]!];
    this.index = index;
    this.table = table;
    this.proxy = undefined;
  }

  /** Defines the heavy fields' accessors on the target, once: from then on, plain forwarding. */
  realize(target: object): void {
    const shape = this.shape;
    if (shape === undefined) return;
    this.shape = undefined;
    const { table, index } = this;
    const state: OperationState = {
      index,
      at: offsetOf(table, index),
      length: table.ops[2 * index + 1]!,
    };
    table.attach(this.proxy!, state);
    defineProperties(target, shape as PropertyDescriptorMap);
  }

  /** Trap: an index field is answered as it is; a heavy field defines them all first. */
  get(target: object, key: string | symbol, receiver: unknown): unknown {
    const shape = this.shape;
    if (shape !== undefined && shape[key] !== undefined) this.realize(target);
    return reflectGet(target, key, receiver);
  }

  /** Trap. */
  set(target: object, key: string | symbol, value: unknown, receiver: unknown): boolean {
    this.realize(target);
    return reflectSet(target, key, value, receiver);
  }

  /** Trap: a heavy field is there before it is defined. */
  has(target: object, key: string | symbol): boolean {
    const shape = this.shape;
    if (shape !== undefined && shape[key] !== undefined) return true;
    return reflectHas(target, key);
  }

  /** Trap. */
  ownKeys(target: object): (string | symbol)[] {
    this.realize(target);
    return reflectOwnKeys(target);
  }

  /** Trap. */
  getOwnPropertyDescriptor(target: object, key: string | symbol): PropertyDescriptor | undefined {
    this.realize(target);
    return reflectDescriptor(target, key);
  }

  /** Trap. */
  defineProperty(target: object, key: string | symbol, descriptor: PropertyDescriptor): boolean {
    this.realize(target);
    return reflectDefine(target, key, descriptor);
  }

  /** Trap. */
  deleteProperty(target: object, key: string | symbol): boolean {
    this.realize(target);
    return reflectDelete(target, key);
  }

  /** Trap: a frozen or sealed operation keeps its heavy fields. */
  preventExtensions(target: object): boolean {
    this.realize(target);
    return reflectPreventExtensions(target);
  }
}

// After the class: its methods stay on the prototype, which no longer inherits from Object.
Object.setPrototypeOf(LazyOperation.prototype, null);
