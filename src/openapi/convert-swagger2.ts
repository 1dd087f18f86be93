/**
 * Converts a Swagger 2.0 document to the OpenAPI 3.0 shape, so every later step (index, lazy
 * views, validation, declarations) knows one shape only. Refs are rewritten
 * (`#/definitions/X` → `#/components/schemas/X`); body and formData parameters become
 * `requestBody`; responses get `content` per produced media type.
 */
import type { JsonObject } from "./types";
import { getAtPointer } from "./json-pointer";
import { isRecord } from "../is-record";

/** Keywords a 2.0 non-body parameter shares with a JSON schema. */
const SCHEMA_KEYS = [
  "type",
  "format",
  "items",
  "default",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "multipleOf",
];

/**
 * Returns a new OpenAPI 3.0-shaped document for a Swagger 2.0 one; the input is not modified.
 * @param doc - a Swagger 2.0 document (already checked)
 */
export function convertSwagger2(doc: JsonObject): JsonObject {
  const consumes = (doc.consumes as string[] | undefined) ?? ["application/json"];
  const produces = (doc.produces as string[] | undefined) ?? ["application/json"];
  const rewrite = (ref: string): string => {
    if (ref.startsWith("#/definitions/")) return "#/components/schemas/" + ref.slice(14);
    if (ref.startsWith("#/responses/")) return "#/components/responses/" + ref.slice(12);
    if (ref.startsWith("#/parameters/")) {
      const target = getAtPointer(doc, ref);
      const kind = isRecord(target) && target.in === "body" ? "requestBodies" : "parameters";
      return `#/components/${kind}/` + ref.slice(13);
    }
    return ref;
  };
  const schema = (node: unknown): unknown => cloneSchema(node, rewrite);
  const components: JsonObject = {};
  if (isRecord(doc.definitions)) components.schemas = mapValues(doc.definitions, schema);
  const parameters: JsonObject = {};
  const requestBodies: JsonObject = {};
  for (const [name, param] of Object.entries(isRecord(doc.parameters) ? doc.parameters : {})) {
    if (!isRecord(param)) continue;
    if (param.in === "body") requestBodies[name] = bodyOf(param, consumes, schema);
    else if (param.in !== "formData") parameters[name] = convertParameter(param, schema);
  }
  if (Object.keys(parameters).length > 0) components.parameters = parameters;
  if (Object.keys(requestBodies).length > 0) components.requestBodies = requestBodies;
  if (isRecord(doc.responses)) {
    components.responses = mapValues(doc.responses, (r) => convertResponse(r, produces, schema));
  }
  if (isRecord(doc.securityDefinitions))
    components.securitySchemes = mapValues(doc.securityDefinitions, convertSecurity);
  const paths: JsonObject = {};
  for (const [path, item] of Object.entries(isRecord(doc.paths) ? doc.paths : {})) {
    if (!isRecord(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    const out: JsonObject = {};
    for (const [key, op] of Object.entries(item)) {
      if (key === "parameters" || !isRecord(op)) continue;
      out[key] = convertOperation(doc, op, shared, consumes, produces, schema, rewrite);
    }
    paths[path] = out;
  }
  // Prefer https when the spec offers it; the first scheme otherwise.
  const schemes = Array.isArray(doc.schemes) ? (doc.schemes as string[]) : [];
  const scheme = schemes.includes("https") ? "https" : (schemes[0] ?? "https");
  const base = typeof doc.basePath === "string" ? doc.basePath : "";
  const url = typeof doc.host === "string" ? `${scheme}://${doc.host}${base}` : base || "/";
  const result: JsonObject = {
    openapi: "3.0.3",
    info: doc.info,
    servers: [{ url }],
    paths,
    components,
  };
  if (doc.tags !== undefined) result.tags = doc.tags;
  if (doc.security !== undefined) result.security = doc.security;
  return result;
}

function convertOperation(
  doc: JsonObject,
  op: JsonObject,
  shared: unknown[],
  rootConsumes: string[],
  rootProduces: string[],
  schema: (n: unknown) => unknown,
  rewrite: (ref: string) => string,
): JsonObject {
  const consumes = (op.consumes as string[] | undefined) ?? rootConsumes;
  const produces = (op.produces as string[] | undefined) ?? rootProduces;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(op)) {
    if (key !== "parameters" && key !== "consumes" && key !== "produces" && key !== "responses")
      out[key] = value;
  }
  // Operation-level parameters override path-level ones with the same name and location.
  const merged = new Map<string, { raw: unknown; param: JsonObject }>();
  for (const raw of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const param = isRecord(raw) && typeof raw.$ref === "string" ? getAtPointer(doc, raw.$ref) : raw;
    if (isRecord(param)) merged.set(`${String(param.in)}:${String(param.name)}`, { raw, param });
  }
  const parameters: unknown[] = [];
  const form: JsonObject = {};
  const formRequired: string[] = [];
  for (const { raw, param } of merged.values()) {
    const isRef = isRecord(raw) && typeof raw.$ref === "string";
    if (param.in === "body") {
      out.requestBody = isRef
        ? { $ref: rewrite((raw as { $ref: string }).$ref) }
        : bodyOf(param, consumes, schema);
    } else if (param.in === "formData") {
      form[String(param.name)] = pick(param, ["description", ...SCHEMA_KEYS], schema);
      if (param.required === true) formRequired.push(String(param.name));
    } else
      parameters.push(
        isRef ? { $ref: rewrite((raw as { $ref: string }).$ref) } : convertParameter(param, schema),
      );
  }
  if (Object.keys(form).length > 0) {
    const formSchema: JsonObject = { type: "object", properties: form };
    if (formRequired.length > 0) formSchema.required = formRequired;
    const types = consumes.filter((c) => c.includes("form"));
    const media = types.length > 0 ? types : ["application/x-www-form-urlencoded"];
    out.requestBody = {
      content: Object.fromEntries(media.map((m) => [m, { schema: formSchema }])),
      required: formRequired.length > 0,
    };
  }
  if (parameters.length > 0) out.parameters = parameters;
  if (isRecord(op.responses))
    out.responses = mapValues(op.responses, (r) => convertResponse(r, produces, schema));
  return out;
}

function bodyOf(
  param: JsonObject,
  consumes: string[],
  schema: (n: unknown) => unknown,
): JsonObject {
  const body: JsonObject = {
    content: Object.fromEntries(consumes.map((m) => [m, { schema: schema(param.schema) }])),
  };
  if (param.description !== undefined) body.description = param.description;
  if (param.required === true) body.required = true;
  return body;
}

function convertParameter(param: JsonObject, schema: (n: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(param)) {
    if (!SCHEMA_KEYS.includes(key) && key !== "collectionFormat" && key !== "allowEmptyValue")
      out[key] = value;
  }
  out.schema = pick(param, SCHEMA_KEYS, schema);
  if (param.collectionFormat === "multi") out.explode = true;
  else if (param.type === "array") out.explode = false;
  return out;
}

function convertResponse(
  response: unknown,
  produces: string[],
  schema: (n: unknown) => unknown,
): unknown {
  if (!isRecord(response)) return response;
  if (typeof response.$ref === "string") return schema(response);
  const out: JsonObject = { description: response.description ?? "" };
  if (response.schema !== undefined) {
    out.content = Object.fromEntries(produces.map((m) => [m, { schema: schema(response.schema) }]));
  }
  if (isRecord(response.headers)) {
    out.headers = mapValues(response.headers, (h) =>
      isRecord(h) ? { description: h.description, schema: pick(h, SCHEMA_KEYS, schema) } : h,
    );
  }
  return out;
}

function convertSecurity(scheme: unknown): unknown {
  if (!isRecord(scheme)) return scheme;
  if (scheme.type === "basic")
    return { type: "http", scheme: "basic", description: scheme.description };
  if (scheme.type !== "oauth2") return scheme;
  const flow =
    scheme.flow === "accessCode"
      ? "authorizationCode"
      : scheme.flow === "application"
        ? "clientCredentials"
        : String(scheme.flow);
  const detail: JsonObject = { scopes: scheme.scopes ?? {} };
  if (scheme.authorizationUrl !== undefined) detail.authorizationUrl = scheme.authorizationUrl;
  if (scheme.tokenUrl !== undefined) detail.tokenUrl = scheme.tokenUrl;
  return { type: "oauth2", description: scheme.description, flows: { [flow]: detail } };
}

function pick(from: JsonObject, keys: string[], schema: (n: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return schema(out) as JsonObject;
}

function mapValues(obj: JsonObject, fn: (v: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) out[key] = fn(value);
  return out;
}

/** Deep-copies a 2.0 schema into 3.0 form: refs rewritten, `type: file`, `x-nullable`, discriminator. */
function cloneSchema(node: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => cloneSchema(n, rewrite));
  if (!isRecord(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") out.$ref = rewrite(value);
    else if (key === "x-nullable") out.nullable = value;
    else if (key === "discriminator" && typeof value === "string")
      out.discriminator = { propertyName: value };
    else if (key === "example" || key === "default" || key === "enum") out[key] = value;
    else out[key] = cloneSchema(value, rewrite);
  }
  if (out.type === "file") {
    out.type = "string";
    out.format = "binary";
  }
  return out;
}
