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
 * without defining anything. Nothing else is made per operation: the handler is shared, and an
 * operation's position is a field of its index entry ({@link OPERATION_INDEX}). A handler per
 * operation cost about 1 ms more to open (one of eight fields 0.7 ms more than one of four).
 *
 * What a program sees is what the accessors gave it: the same keys in the same order,
 * enumerable and configurable, the same values, assignment replacing a field with a data
 * property, one operation object wherever it is read from. A proxy is not structured-cloneable
 * (`structuredClone(operation)` throws, as it already did on a `$ref`'s shared views); `JSON`,
 * the spread, `Object.keys` and the harness's own encoding read it as before.
 */

// The built-ins the traps call, as this module loaded: a program runs after the extension loads,
// and must not get to run inside them by replacing `Reflect`, `WeakSet` or `WeakMap` methods.
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
const { defineProperties, hasOwn } = Object;
const { apply } = Reflect;
const WeakSetClass = WeakSet;
const WeakMapClass = WeakMap;
const { add: weakAdd, has: weakHas } = WeakSet.prototype;
const { get: mapGet, set: mapSet } = WeakMap.prototype;

/**
 * The field of an operation's index entry (its last) holding its position among the operations:
 * the packer writes it (spec-pack.ts), and it is gone once the operation's heavy fields are
 * defined. No OpenAPI field is named so (the packer falls back to the plain form if one is).
 */
export const OPERATION_INDEX = "\u007f";

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
  /** Ties an operation's target to its state (`SharedAccessors.attach`). */
  attach: (target: object, state: OperationState) => void;
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
const offsets = new WeakMapClass<OperationTable, number[]>();

function offsetOf(table: OperationTable, index: number): number {
  let at = apply(mapGet, offsets, [table]) as number[] | undefined;
  if (at === undefined) {
    at = [];
    let offset = table.start;
    for (let i = 0; 2 * i < table.ops.length; i++) {
      at[i] = offset;
      offset += table.ops[2 * i + 1]!;
    }
    apply(mapSet, offsets, [table, at]);
  }
  return at[index]!;
}

/**
 * The traps every operation of one opened spec shares (one handler, no state of its own per
 * operation: an operation's position is its target's {@link OPERATION_INDEX} field until its
 * accessors are defined).
 * @param table - what the spec's operations share
 */
export function operationTraps(table: OperationTable): ProxyHandler<object> {
  return new OperationTraps(table) as ProxyHandler<object>;
}

/**
 * Makes the operation a program reads: a proxy over its index fields.
 * @param stub - the operation's index fields as parsed, {@link OPERATION_INDEX} last (kept as
 *   the proxy's target)
 * @param traps - from {@link operationTraps}, shared by the spec's operations
 */
export function lazyOperation(stub: object, traps: ProxyHandler<object>): object {
  return new ProxyClass(stub, traps);
}

/**
 * The proxy handler of a spec's operations. Its prototype has no prototype of its own (below):
 * a trap a program adds to `Object.prototype` (`isExtensible`, `getPrototypeOf`, …) must not
 * become one of this handler's.
 *
 * Until an operation's heavy fields are defined, its target's last field
 * ({@link OPERATION_INDEX}) is its position, which names its shape; the traps that need the
 * heavy fields define them first and delete that field (the target's last, so V8 takes the
 * object back to its previous map). A program never sees the field: every trap that lists,
 * reads or writes it defines the heavy fields first, and a field of that name the program sets
 * afterwards is its own (`realized` tells the two apart).
 */
class OperationTraps {
  readonly table: OperationTable;
  /** Targets whose heavy fields are defined. */
  readonly realized = new WeakSetClass<object>();

  constructor(table: OperationTable) {
    this.table = table;
  }

  /** The heavy fields' descriptors of a target whose accessors are not defined, or undefined. */
  pending(target: object): OperationShape | undefined {
    const index = (target as Record<string, unknown>)[OPERATION_INDEX];
    // Checked second: a target that never had an identity hash is not looked up.
    if (typeof index !== "number" || apply(weakHas, this.realized, [target])) return undefined;
    return this.table.shapes[this.table.ops[2 * index]!];
  }

  /** Defines the target's heavy fields, once: from then on, the traps forward. */
  realize(target: object): void {
    if (apply(weakHas, this.realized, [target])) return;
    apply(weakAdd, this.realized, [target]);
    const index = (target as Record<string, number>)[OPERATION_INDEX]!;
    reflectDelete(target, OPERATION_INDEX);
    const { table } = this;
    const state: OperationState = {
      index,
      at: offsetOf(table, index),
      length: table.ops[2 * index + 1]!,
    };
    table.attach(target, state);
    defineProperties(target, table.shapes[table.ops[2 * index]!] as PropertyDescriptorMap);
  }

  /**
   * Trap: an index field is answered as it is; a heavy field defines them all first. An own
   * property is read with the target as `this`: the accessors find their state by it.
   */
  get(target: object, key: string | symbol, receiver: unknown): unknown {
    const shape = this.pending(target);
    if (shape !== undefined) {
      if (key !== OPERATION_INDEX && shape[key] === undefined)
        return reflectGet(target, key, receiver);
      this.realize(target);
    }
    return reflectGet(target, key, hasOwn(target, key) ? target : receiver);
  }

  /** Trap: a heavy field is there before it is defined. */
  has(target: object, key: string | symbol): boolean {
    const shape = this.pending(target);
    if (shape !== undefined) {
      if (key === OPERATION_INDEX) this.realize(target);
      else if (shape[key] !== undefined) return true;
    }
    return reflectHas(target, key);
  }

  /** Trap. */
  set(target: object, key: string | symbol, value: unknown, receiver: unknown): boolean {
    this.realize(target);
    return reflectSet(target, key, value, receiver);
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
Object.setPrototypeOf(OperationTraps.prototype, null);
