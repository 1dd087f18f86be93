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
 * Layout: `[4-byte big-endian header length][header JSON][segments…]`. Header:
 * `{ doc, ops: [path, method, stub, offset, length][], components: { type: [name, offset, length][] }, cycles }`
 * where `doc` holds the small top-level fields, `stub` the operation's short fields (operationId,
 * summary, description, tags, deprecated), and offsets count bytes after the header.
 */
import { deferredObject } from "./lazy-view";
import type { CompactSpec, JsonObject } from "./types";

/** Operation fields kept in the header (small, and what searches filter on). */
const STUB_FIELDS = ["operationId", "summary", "description", "tags", "deprecated"] as const;

type OpEntry = [
  path: string,
  method: string,
  stub: JsonObject,
  heavyKeys: string[],
  offset: number,
  length: number,
];

interface Header {
  doc: JsonObject;
  ops: OpEntry[];
  components: Record<string, [name: string, offset: number, length: number][]>;
  cycles: string[][];
}

/**
 * Packs a compact spec (once per isolate; the result is immutable and shared by runs).
 * @param compact - the compact spec
 * @returns the packed bytes, or `undefined` when the spec needs the plain form (refs into `#/paths`)
 */
export function packSpec(compact: CompactSpec): Uint8Array | undefined {
  if (compact.paths) return undefined;
  const encoder = new TextEncoder();
  const segments: Uint8Array[] = [];
  let offset = 0;
  const add = (value: unknown): [number, number] => {
    const bytes = encoder.encode(JSON.stringify(value));
    segments.push(bytes);
    const at: [number, number] = [offset, bytes.byteLength];
    offset += bytes.byteLength;
    return at;
  };
  const ops: OpEntry[] = compact.operations.map((op) => {
    const stub: JsonObject = {};
    const heavy: JsonObject = {};
    for (const [key, value] of Object.entries(op)) {
      if (key === "method" || key === "path") continue;
      if ((STUB_FIELDS as readonly string[]).includes(key)) stub[key] = value;
      else heavy[key] = value;
    }
    return [op.path, op.method, stub, Object.keys(heavy), ...add(heavy)];
  });
  const components: Header["components"] = {};
  for (const [type, entries] of Object.entries(compact.components)) {
    if (!entries || typeof entries !== "object") continue;
    components[type] = Object.entries(entries as JsonObject).map(([name, value]) => [
      name,
      ...add(value),
    ]);
  }
  const doc: JsonObject = {
    openapi: compact.version === "2.0" ? "3.0.3" : compact.sourceVersion,
    info: compact.info,
    servers: compact.servers,
  };
  if (compact.version === "2.0") doc["x-converted-from"] = "swagger 2.0";
  if (compact.tags) doc["tags"] = compact.tags;
  if (compact.security) doc["security"] = compact.security;
  const header = encoder.encode(
    JSON.stringify({ doc, ops, components, cycles: compact.cycles } satisfies Header),
  );
  const out = new Uint8Array(4 + header.byteLength + offset);
  new DataView(out.buffer).setUint32(0, header.byteLength);
  out.set(header, 4);
  let at = 4 + header.byteLength;
  for (const segment of segments) {
    out.set(segment, at);
    at += segment.byteLength;
  }
  return out;
}

/**
 * Opens packed bytes: the raw document (operations and components decoded on first read) and
 * the cycle groups, ready for `new LazyResolver(root, cycles)`.
 * @param bytes - what {@link packSpec} produced
 */
export function unpackSpec(bytes: Uint8Array): { root: JsonObject; cycles: string[][] } {
  const decoder = new TextDecoder();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(0);
  const header = JSON.parse(decoder.decode(bytes.subarray(4, 4 + headerLength))) as Header;
  const base = 4 + headerLength;
  const segment = (offset: number, length: number) => () =>
    JSON.parse(decoder.decode(bytes.subarray(base + offset, base + offset + length))) as unknown;

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, method, stub, heavyKeys, offset, length] of header.ops) {
    let heavy: JsonObject | undefined;
    const load = segment(offset, length);
    const fields: [string, () => unknown][] = Object.entries(stub).map(([k, v]) => [k, () => v]);
    for (const key of heavyKeys) fields.push([key, () => (heavy ??= load() as JsonObject)[key]]);
    (paths[path] ??= {})[method] = deferredObject(fields);
  }
  const components: JsonObject = {};
  for (const [type, entries] of Object.entries(header.components)) {
    components[type] = deferredObject(
      entries.map(([name, offset, length]) => [name, segment(offset, length)]),
    );
  }
  return { root: { ...header.doc, paths, components }, cycles: header.cycles };
}
