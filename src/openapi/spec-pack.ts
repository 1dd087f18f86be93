/**
 * The form a spec travels to the sandbox in: UTF-8 bytes of a small JSON header followed by one
 * JSON segment per operation body and per component. The sandbox decodes the header, builds the
 * document with deferred values, and decodes a segment only when the program reads it.
 *
 * Why: measured in local workerd on the Cloudflare spec (4.2 MB), sending the spec as a string
 * costs about 45 ms per run and `JSON.parse` of all of it about 40 ms, while most search
 * programs read only the index (paths, methods, ids, summaries, tags) and a few schemas. Bytes
 * cross RPC about 3× faster than a string, and the header is a fraction of the spec.
 *
 * Layout: `[4-byte big-endian header length][header JSON][descriptions JSON][component tables
 * JSON][segments…]`: everything an index-only program reads comes first, so the first
 * {@link packedIndexLength} bytes are a spec of their own (see {@link packedIndex}). Header:
 * `{ doc, paths: { [path]: { [method]: stub } }, shapes, ops, tables, descriptions, cycles }`
 * where `doc` holds the small top-level fields, `stub` the operation's short fields
 * (operationId, summary, tags, deprecated), `ops` each operation's shape (its heavy keys) and
 * segment length, `tables` the byte length of the component tables (`{ [type]: [names,
 * lengths] }`), which are decoded only when a program first reaches a component (a quarter of the
 * Cloudflare spec's header, which every run decodes), and `descriptions` the byte length of one
 * JSON array holding every operation's description (or null), in `paths` order.
 *
 * Descriptions are not in the header: they are most of its text (540 of the GitHub spec's 754 KB,
 * 132 of Cloudflare's 408) and few programs read them. An operation's `description` is one of
 * its shared accessors, and the first read decodes the array for all operations at once (a
 * program filtering on descriptions reads them all). Measured in Node, cold, per open (load ~18):
 * parsing the header and the first pass over it (mostly the scavenge of what was just parsed)
 * 6.2 → 3.8 ms on the Cloudflare spec and 5.6 → 3.0 ms on GitHub's.
 *
 * The index is the parsed header itself: `paths` comes out of `JSON.parse` as plain objects (V8's
 * fast properties), each operation wrapped in a proxy that defines its heavy fields as
 * accessors when a program first uses it beyond its index fields (lazy-operations.ts). A first version
 * wrapped every index field in two layers of accessors (a deferred raw object, then its lazy
 * view); building and walking those was most of a search run (40–100 ms per run for the
 * Cloudflare spec in Node, measured; the plain index takes a fraction of that).
 */
import {
  lazyOperation,
  OPERATION_INDEX,
  operationTraps,
  type OperationShape,
  type OperationState,
  type OperationTable,
} from "./lazy-operations";
import { LazyResolver, lazyField } from "./lazy-view";
import { PackedComponents, type ComponentTables } from "./packed-components";
import { SharedAccessors } from "./shared-accessors";
import type { CompactSpec, JsonObject } from "./types";

/**
 * The built-ins the opening walk calls, as this module loaded. In the sandbox this module is
 * evaluated before the program, and before the harness wraps `Object.values` to charge a
 * program's calls by their size (sandbox/native-charges.ts): the walk over every path of the
 * index is the extension's work, not the program's, and a program that replaced `Object.values`
 * before calling `spec()` does not get to run inside it.
 */
const { values, keys: ownKeys, create } = Object;

/** Operation fields kept in the header (small, and what searches filter on). */
const STUB_FIELDS = ["operationId", "summary", "tags", "deprecated"] as const;

/** The operation field kept in one array of its own (see the layout above). */
const DESCRIPTION = "description";

interface Header {
  doc: JsonObject;
  /** The index: operations' short fields, in the order their segments follow the header. */
  paths: Record<string, Record<string, JsonObject>>;
  /** The distinct lists of an operation's heavy keys (a few dozen for thousands of operations). */
  shapes: string[][];
  /** Per operation in `paths` order: shape index, segment length (offsets are cumulative). */
  ops: number[];
  /** Byte length of the component tables (a {@link ComponentTables} JSON after the descriptions). */
  tables: number;
  /** Byte length of the descriptions array (right after the header). */
  descriptions: number;
  cycles: string[][];
}

/**
 * Packs a compact spec (once per isolate; the result is immutable and shared by runs).
 * @param compact - the compact spec
 * @returns the packed bytes, or `undefined` when the spec needs the plain form (refs into `#/paths`)
 */
export function packSpec(compact: CompactSpec): Uint8Array | undefined {
  if (compact.paths) return undefined;
  if (compact.operations.some((op) => Object.hasOwn(op, OPERATION_INDEX))) return undefined;
  const encoder = new TextEncoder();
  const segments: Uint8Array[] = [];
  let size = 0;
  const add = (value: unknown): number => {
    const bytes = encoder.encode(asciiJson(value));
    segments.push(bytes);
    size += bytes.byteLength;
    return bytes.byteLength;
  };
  // Segments follow the order in which `paths` will be iterated, so offsets need not be stored.
  const byPath = new Map<string, Map<string, JsonObject>>();
  for (const op of compact.operations) {
    let methods = byPath.get(op.path);
    if (!methods) byPath.set(op.path, (methods = new Map()));
    methods.set(op.method, op as unknown as JsonObject);
  }
  const paths: Header["paths"] = {};
  const shapes: string[][] = [];
  const shapeIndex = new Map<string, number>();
  const ops: number[] = [];
  const descriptions: unknown[] = [];
  for (const [path, methods] of byPath) {
    const item: Record<string, JsonObject> = (paths[path] = {});
    for (const [method, op] of methods) {
      const stub: JsonObject = {};
      const heavy: JsonObject = {};
      for (const [key, value] of Object.entries(op)) {
        if (key === "method" || key === "path" || key === DESCRIPTION) continue;
        if ((STUB_FIELDS as readonly string[]).includes(key)) stub[key] = value;
        else heavy[key] = value;
      }
      // Last, so that deleting it takes the object back to its previous map (lazy-operations.ts).
      stub[OPERATION_INDEX] = ops.length / 2;
      item[method] = stub;
      // First of the accessors, so the field stays next to the short ones when listed.
      const described = Object.hasOwn(op, DESCRIPTION);
      descriptions.push(described ? op[DESCRIPTION] : null);
      const keys = described ? [DESCRIPTION, ...Object.keys(heavy)] : Object.keys(heavy);
      const id = JSON.stringify(keys);
      let shape = shapeIndex.get(id);
      if (shape === undefined) {
        shape = shapes.push(keys) - 1;
        shapeIndex.set(id, shape);
      }
      ops.push(shape, add(heavy));
    }
  }
  const components: ComponentTables = {};
  for (const [type, entries] of Object.entries(compact.components)) {
    if (!entries || typeof entries !== "object") continue;
    const names = Object.keys(entries as JsonObject);
    components[type] = [names, names.map((name) => add((entries as JsonObject)[name]))];
  }
  const doc: JsonObject = {
    openapi: compact.version === "2.0" ? "3.0.3" : compact.sourceVersion,
    info: compact.info,
    servers: compact.servers,
  };
  if (compact.version === "2.0") doc["x-converted-from"] = "swagger 2.0";
  if (compact.tags) doc["tags"] = compact.tags;
  if (compact.security) doc["security"] = compact.security;
  const tables = encoder.encode(asciiJson(components));
  const described = encoder.encode(asciiJson(descriptions));
  const header = encoder.encode(
    asciiJson({
      doc,
      paths,
      shapes,
      ops,
      tables: tables.byteLength,
      descriptions: described.byteLength,
      cycles: compact.cycles,
    } satisfies Header),
  );
  const out = new Uint8Array(
    4 + header.byteLength + tables.byteLength + described.byteLength + size,
  );
  new DataView(out.buffer).setUint32(0, header.byteLength);
  out.set(header, 4);
  out.set(described, 4 + header.byteLength);
  out.set(tables, 4 + header.byteLength + described.byteLength);
  let at = 4 + header.byteLength + tables.byteLength + described.byteLength;
  for (const segment of segments) {
    out.set(segment, at);
    at += segment.byteLength;
  }
  return out;
}

const NON_ASCII = /[\u0080-\uffff]/g;
const HAS_NON_ASCII = /[\u0080-\uffff]/;

/**
 * JSON text with every character above U+007F written as a `\uXXXX` escape (surrogate pairs as
 * two escapes, which `JSON.parse` joins again): the same value, in pure ASCII.
 *
 * Why: one em dash in the Cloudflare spec's header (14 non-ASCII bytes in 400 KB) made the whole
 * decoded header a two-byte string, which `JSON.parse` reads slower and whose strings take twice
 * the memory the first GC then copies. Measured in Node, cold, per run: decode + parse + first
 * pass over the index 5.9 ms with the em dashes, 3.1 ms escaped.
 * @param value - any JSON value
 */
function asciiJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!HAS_NON_ASCII.test(text)) return text;
  return text.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The byte length of a packed spec's index part: its header and descriptions, what a program
 * that reads only paths, methods and operations' short fields and descriptions ever decodes.
 * @param bytes - what {@link packSpec} produced
 */
export function packedIndexLength(bytes: Uint8Array): number {
  const { headerLength, header } = readHeader(bytes);
  return 4 + headerLength + header.descriptions;
}

/**
 * The operation fields a packed spec keeps out of its index part (`parameters`, `requestBody`,
 * `responses`, …): reading one of them, on any operation, needs the whole spec.
 * @param bytes - what {@link packSpec} produced
 */
export function packedOperationFields(bytes: Uint8Array): string[] {
  const fields = new Set(readHeader(bytes).header.shapes.flat());
  fields.delete(DESCRIPTION);
  return [...fields];
}

function readHeader(bytes: Uint8Array): { headerLength: number; header: Header } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0);
  const text = new TextDecoder().decode(bytes.subarray(4, 4 + headerLength));
  return { headerLength, header: JSON.parse(text) as Header };
}

/**
 * A packed spec cut after its index part ({@link packedIndexLength}): opened by
 * {@link openPackedSpec} it reads like the whole spec until a program reaches an operation's
 * other fields or a component, where the opener's `missing` is called.
 *
 * Why: each run copies what it is shipped into a fresh isolate, and the bench's search programs
 * mostly read the index. Measured as workerd CPU per call in the bench Worker (2026-12-06): a
 * search of `async () => 1` cost 3.5 ms more than a trivial `execute` with Cloudflare's whole
 * 4.2 MB pack shipped and 6–7 ms more with GitHub's 6.4 MB, 0.5–1 ms more with the index part
 * alone (0.39 and 0.74 MB).
 * @param bytes - what {@link packSpec} produced
 */
export function packedIndex(bytes: Uint8Array): Uint8Array {
  return bytes.slice(0, packedIndexLength(bytes));
}

/**
 * Opens packed bytes as the document a search program reads: `{ openapi, info, …, paths,
 * components }`. The index (paths, methods and each operation's short fields) is plain data;
 * an operation's other fields and every component are decoded on first read and come back as
 * lazy views (refs resolved on read, cycles marked; see lazy-view.ts), each read counted by
 * `tick`. Build one per run: paths and operations are mutable by the program that reads them
 * (`components` and everything a `$ref` reaches are shared, so frozen).
 * @param bytes - what {@link packSpec} produced, or its index part ({@link packedIndex})
 * @param tick - called on every read of a lazy value (the sandbox's operation budget)
 * @param missing - called (and expected to throw) when a program reads what the bytes do not
 *   hold: only with an index part; without it, such a read throws a `RangeError`
 */
export function openPackedSpec(
  bytes: Uint8Array,
  tick?: () => void,
  missing: () => never = cutShort,
): JsonObject {
  const decoder = new TextDecoder();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0);
  const header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headerLength))) as Header;
  const decode = (at: number, length: number): unknown => {
    if (at + length > bytes.byteLength) missing();
    return JSON.parse(decoder.decode(bytes.subarray(at, at + length)));
  };

  // Operations: each heavy field is an accessor shared by every operation (one getter and setter
  // per field name, see shared-accessors.ts), defined on an operation only when a program first
  // does more with it than read its index fields (lazy-operations.ts). Per-operation closures
  // were most of opening the Cloudflare spec in a fresh isolate (7–8 ms of CPU for ~7,000
  // fields, measured in Node; shared accessors 2.5 ms), and defining the shared ones up front
  // still was (3.4 of 5.5 ms in workerd).
  const descriptionsAt = 4 + headerLength;
  const tablesAt = descriptionsAt + header.descriptions;
  let descriptions: unknown[] | undefined;
  const fields = new SharedAccessors<OperationState>((segment, key) => {
    if (key === DESCRIPTION) {
      descriptions ??= decode(descriptionsAt, header.descriptions) as unknown[];
      return resolver.view(descriptions[segment.index]);
    }
    const views = (segment.views ??= new Map());
    if (views.has(key)) return views.get(key);
    const heavy = (segment.heavy ??= decode(segment.at, segment.length) as JsonObject);
    const value = resolver.view(heavy[key]);
    views.set(key, value);
    return value;
  }, tick);
  const ops = header.ops;
  const shapes: OperationShape[] = [];
  for (let s = 0; s < header.shapes.length; s++) {
    const names = header.shapes[s]!;
    const shape: Record<string, PropertyDescriptor> = create(null);
    for (let k = 0; k < names.length; k++) shape[names[k]!] = fields.descriptor(names[k]!);
    shapes[s] = shape;
  }
  const table: OperationTable = {
    shapes,
    ops,
    start: tablesAt + header.tables,
    attach: (target, state) => fields.attach(target, state),
  };
  const traps = operationTraps(table);
  const items = values(header.paths);
  let index = 0;
  let offset = table.start;
  // Index loops: no array iterator (the program's to replace) and no iterator objects.
  for (let p = 0; p < items.length; p++) {
    const item = items[p]!;
    const methods = ownKeys(item);
    for (let m = 0; m < methods.length; m++) {
      const method = methods[m]!;
      item[method] = lazyOperation(item[method]!, traps) as JsonObject;
      offset += ops[2 * index + 1]!;
      index++;
    }
  }

  const components = new PackedComponents(
    () => decode(tablesAt, header.tables) as ComponentTables,
    offset,
    decode,
  );
  const resolver = new LazyResolver(components.root, header.cycles, tick, (pointer) =>
    components.lookup(pointer),
  );
  const document: JsonObject = { ...header.doc, paths: header.paths };
  // Read-only, as every ref target is (lazy-view.ts): the objects refs read are these.
  lazyField(document, "components", () => resolver.shared(components.root["components"]), tick);
  return document;
}

function cutShort(): never {
  throw new RangeError("The packed spec was cut after its index; the whole spec is needed.");
}
