/**
 * The shape decisions for an OpenAPI operation's declaration, as JSON schemas: the request object
 * sandbox code passes to `codemode.request(…)`, the path parameters and the response, typed by
 * the schema emitter (at run time and in the build-time script alike).
 */
import { toTypeName } from "./type-name";

/** The parts of an OpenAPI 3 operation read here (refs allowed everywhere). */
export interface OperationLike {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

/** Schemas and names for one operation. */
export interface OperationSchemas {
  /** PascalCase base of the type names (from the operationId, else method and path). */
  base: string;
  /** Doc comment text for the request type. */
  doc: string;
  request: Record<string, unknown>;
  /** Absent when the path has no parameters. */
  pathParams?: Record<string, unknown>;
  /** Absent when no 2xx response has a JSON body (the type is then `unknown`). */
  response?: unknown;
  /** Doc comment text for the response type. */
  responseDoc: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const JSON_MEDIA = /^application\/(?:[\w.+-]*\+)?json\b/i;

/**
 * Builds the request/path-parameter/response schemas of an operation.
 * @param op - the operation (compact index entry or a raw operation with method and path)
 * @param deref - follows a `$ref` of a parameter, request body or response to its raw target
 */
export function operationSchemas(
  op: OperationLike,
  deref: (value: unknown) => unknown,
): OperationSchemas {
  const method = op.method.toUpperCase();
  const base = toTypeName(op.operationId ?? `${op.method} ${op.path}`);
  const groups: Record<"path" | "query" | "header", { properties: Obj; required: string[] }> = {
    path: { properties: {}, required: [] },
    query: { properties: {}, required: [] },
    header: { properties: {}, required: [] },
  };
  for (const entry of op.parameters ?? []) {
    const param = deref(entry);
    if (!isObj(param) || typeof param.name !== "string") continue;
    const group = groups[param.in as "path" | "query" | "header"];
    if (!group) continue;
    const schema = param.schema ?? mediaSchema(param.content) ?? {};
    group.properties[param.name] =
      typeof param.description === "string" ? withDescription(schema, param.description) : schema;
    if (param.required === true || param.in === "path") group.required.push(param.name);
  }
  const properties: Obj = {
    method: { const: method },
    path: { type: "string", tsType: pathType(op.path), description: `\`${op.path}\`` },
  };
  const required = ["method", "path"];
  for (const [key, name] of [
    ["query", "query"],
    ["header", "headers"],
  ] as const) {
    const group = groups[key];
    if (Object.keys(group.properties).length === 0) continue;
    properties[name] = objectSchema(group.properties, group.required);
    if (group.required.length > 0) required.push(name);
  }
  const body = deref(op.requestBody);
  if (isObj(body)) {
    const schema = mediaSchema(body.content);
    properties.body =
      typeof body.description === "string"
        ? withDescription(schema ?? {}, body.description)
        : (schema ?? {});
    if (body.required === true) required.push("body");
  }
  const pathNames = Object.keys(groups.path.properties);
  const result: OperationSchemas = {
    base,
    doc: [op.summary, op.description, `\`${method} ${op.path}\``]
      .filter((t) => typeof t === "string" && t.trim())
      .map((t) => String(t).trim())
      .join("\n\n"),
    request: { type: "object", properties, required, additionalProperties: false },
    responseDoc: "",
  };
  if (op.deprecated === true) result.request.deprecated = true;
  if (pathNames.length > 0)
    result.pathParams = objectSchema(groups.path.properties, groups.path.required);
  const { schemas, docs } = successResponses(op.responses, deref);
  if (schemas.length === 1) result.response = schemas[0];
  else if (schemas.length > 1) result.response = { anyOf: schemas };
  result.responseDoc = docs.join("\n");
  return result;
}

/** 2xx (and `2XX`) responses with a JSON body, by status code; `default` when there is no 2xx. */
function successResponses(
  responses: Obj | undefined,
  deref: (v: unknown) => unknown,
): { schemas: unknown[]; docs: string[] } {
  const schemas: unknown[] = [];
  const docs: string[] = [];
  if (!isObj(responses)) return { schemas, docs };
  let codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .toSorted();
  if (codes.length === 0 && responses.default !== undefined) codes = ["default"];
  const seen = new Set<string>();
  for (const code of codes) {
    const response = deref(responses[code]);
    if (!isObj(response)) continue;
    if (typeof response.description === "string" && response.description.trim())
      docs.push(`${code}: ${response.description.trim()}`);
    const schema = mediaSchema(response.content);
    if (schema === undefined) continue;
    const key = JSON.stringify(schema);
    if (!seen.has(key)) schemas.push(schema);
    seen.add(key);
  }
  return { schemas, docs };
}

/** The schema of the JSON media type of a content map (the first media type otherwise). */
function mediaSchema(content: unknown): unknown {
  if (!isObj(content)) return undefined;
  const types = Object.keys(content);
  const chosen = types.find((t) => JSON_MEDIA.test(t)) ?? types[0];
  const media = chosen ? content[chosen] : undefined;
  return isObj(media) ? media.schema : undefined;
}

function objectSchema(properties: Obj, required: string[]): Obj {
  const schema: Obj = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** Keeps a ref a ref (named type) while carrying the parameter's own description. */
function withDescription(schema: unknown, description: string): unknown {
  if (!isObj(schema)) return { description };
  return { ...schema, description };
}

/** `/zones/{zone_id}/dns_records` → `` `/zones/${string}/dns_records` `` (a template literal type). */
function pathType(path: string): string {
  const literal = path
    .split(/(\{[^{}]+\})/)
    .map((part) =>
      /^\{[^{}]+\}$/.test(part)
        ? "${string}"
        : part.replace(/[`\\]/g, "\\$&").replaceAll("${", "\\${"),
    )
    .join("");
  return `\`${literal}\``;
}
