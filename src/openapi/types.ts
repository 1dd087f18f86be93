/**
 * Shapes shared by the spec layer. The spec layer is pure: no Workers runtime, no MCP, so it runs in
 * plain Node tests, in the host Worker and, bundled, inside the sandbox isolate.
 */

/** Any JSON object as found in a spec. */
export type JsonObject = { [key: string]: unknown };

/** A JSON reference as it appears in a spec: `{ "$ref": "#/components/schemas/X" }`. */
export interface RefObject {
  $ref: string;
}

/** Lower-case HTTP methods an OpenAPI path item can hold, in the order the spec lists them. */
export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** The methods of {@link HttpMethod}, in a fixed order (deterministic indexes and output). */
export const HTTP_METHODS: readonly HttpMethod[] = [
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
];

/** The spec families the layer accepts. Swagger 2.0 is converted to the 3.0 shape on compile. */
export type SpecVersion = "2.0" | "3.0" | "3.1";

/** Where a parameter travels. */
export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** An OpenAPI 3 Parameter Object (the fields this layer reads; the rest is kept as is). */
export interface ParameterObject {
  name: string;
  in: ParameterLocation;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  schema?: unknown;
  content?: JsonObject;
  [key: string]: unknown;
}

/**
 * One operation of the index: the operation object of the spec plus its `method` and `path`, with
 * path-level parameters merged in. `$ref`s stay refs; resolve them lazily through the spec.
 */
export interface CompactOperation {
  method: HttpMethod;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: (ParameterObject | RefObject)[];
  requestBody?: JsonObject;
  responses?: JsonObject;
  security?: unknown[];
  [key: string]: unknown;
}

/** Marker of {@link CompactSpec}, so a loader can tell a compiled spec from a raw document. */
export const COMPACT_FORMAT = "codemode-compact-spec/1";

/**
 * The form the Worker ships: an operations index plus the targets of `$ref`s, always in the
 * OpenAPI 3 shape (Swagger 2.0 is converted). JSON-serializable; written at build time by
 * `scripts/compile-spec.mjs` and produced at run time by `compileSpec()` for specs passed as objects.
 */
export interface CompactSpec {
  format: typeof COMPACT_FORMAT;
  /** Family of the source document. */
  version: SpecVersion;
  /** The source's own version string (`"2.0"`, `"3.0.3"`, `"3.1.0"`). */
  sourceVersion: string;
  info: JsonObject;
  servers: JsonObject[];
  tags?: JsonObject[];
  security?: unknown[];
  operations: CompactOperation[];
  /** `$ref` targets, at the same pointers as in the (converted) source document. */
  components: JsonObject;
  /**
   * Kept only when some `$ref` points into `#/paths/…` (rare), so such refs still resolve.
   * Absent otherwise: the operations index replaces it.
   */
  paths?: JsonObject;
  /** `$ref` targets that take part in cycles, one group per strongly connected component. */
  cycles: string[][];
}

/** The view of a `$ref` whose target is already being expanded above it. */
export interface CircularMarker {
  $circular: string;
}
