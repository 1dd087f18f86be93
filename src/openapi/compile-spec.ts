/**
 * Turns a parsed spec into the compact form the Worker ships: an operations index (method, path,
 * merged parameters, refs kept as refs) plus the `$ref` targets and the cyclic groups among them.
 * The same function runs at build time (scripts/compile-spec.mjs) and at run time for specs passed
 * as objects, so both paths ship identical shapes.
 */
import { checkSpec, specVersionOf } from "./check-spec";
import { convertSwagger2 } from "./convert-swagger2";
import { getAtPointer } from "./json-pointer";
import { collectRefs, findRefCycles } from "./ref-cycles";
import {
  COMPACT_FORMAT,
  HTTP_METHODS,
  type CompactOperation,
  type CompactSpec,
  type JsonObject,
} from "./types";
import { isRecord } from "../is-record";

/** Options of {@link compileSpec}. */
export interface CompileSpecOptions {
  /** Skip the structural check (the build step has already validated with swagger-parser). */
  skipCheck?: boolean;
  /** How to name the spec in error messages. */
  label?: string;
}

/**
 * Compiles a parsed OpenAPI 2.0/3.0/3.1 document into a {@link CompactSpec}. The input is not
 * modified; the result shares its objects (no deep copy for 3.x).
 * @param doc - the parsed document
 * @param options - see {@link CompileSpecOptions}
 * @throws CodeModeError `spec_invalid` naming the JSON pointer of each problem
 */
export function compileSpec(doc: unknown, options: CompileSpecOptions = {}): CompactSpec {
  if (!options.skipCheck) checkSpec(doc, options.label);
  const version = specVersionOf(doc)!;
  const source = doc as JsonObject;
  const root = version === "2.0" ? convertSwagger2(source) : source;
  const operations: CompactOperation[] = [];
  let pathRefs = false;
  for (const [path, rawItem] of Object.entries(isRecord(root.paths) ? root.paths : {})) {
    if (path.startsWith("x-")) continue;
    const item =
      isRecord(rawItem) && typeof rawItem.$ref === "string"
        ? getAtPointer(root, rawItem.$ref)
        : rawItem;
    if (!isRecord(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const entry: CompactOperation = { method, path, ...op };
      const parameters = mergeParameters(root, item.parameters, op.parameters);
      if (parameters) entry.parameters = parameters;
      else delete entry.parameters;
      if (isRecord(op.responses)) entry.responses = normalizeResponseKeys(op.responses);
      operations.push(entry);
    }
  }
  const components = isRecord(root.components) ? root.components : {};
  const refs = collectRefs(operations, new Set());
  collectRefs(components, refs);
  for (const ref of refs) if (ref.startsWith("#/paths/")) pathRefs = true;
  const compact: CompactSpec = {
    format: COMPACT_FORMAT,
    version,
    sourceVersion: version === "2.0" ? "2.0" : String(source.openapi),
    info: isRecord(root.info) ? root.info : {},
    servers: Array.isArray(root.servers) ? (root.servers as JsonObject[]) : [],
    operations,
    components,
    cycles: [],
  };
  if (Array.isArray(root.tags)) compact.tags = root.tags as JsonObject[];
  if (Array.isArray(root.security)) compact.security = root.security;
  if (pathRefs) compact.paths = root.paths as JsonObject;
  compact.cycles = findRefCycles(compact, [operations, components]);
  return compact;
}

/**
 * Path-level parameters first, replaced by operation-level ones with the same name and location
 * (the OpenAPI rule). Refs stay refs; they are resolved only to learn name and location.
 */
function mergeParameters(
  root: JsonObject,
  shared: unknown,
  own: unknown,
): CompactOperation["parameters"] {
  const list = [...(Array.isArray(shared) ? shared : []), ...(Array.isArray(own) ? own : [])];
  if (list.length === 0) return undefined;
  if (!Array.isArray(shared) || shared.length === 0) return own as CompactOperation["parameters"];
  const byKey = new Map<string, unknown>();
  for (const raw of list) {
    const param =
      isRecord(raw) && typeof raw.$ref === "string" ? getAtPointer(root, raw.$ref) : raw;
    const key = isRecord(param) ? `${String(param.in)}:${String(param.name)}` : String(byKey.size);
    byKey.delete(key);
    byKey.set(key, raw);
  }
  return [...byKey.values()] as CompactOperation["parameters"];
}

/** `4xx` is common in real specs (Cloudflare's) but the spec says `4XX`: accept and normalize. */
function normalizeResponseKeys(responses: JsonObject): JsonObject {
  let lower = false;
  for (const key in responses) if (/^[1-5]xx$/.test(key)) lower = true;
  if (!lower) return responses;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(responses))
    out[/^[1-5]xx$/.test(key) ? key.toUpperCase() : key] = value;
  return out;
}
