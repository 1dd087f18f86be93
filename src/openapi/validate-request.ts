/**
 * Checks a request from sandbox code against the spec before the host callback sees it: the
 * operation must exist, required parameters must be present, parameters and a JSON body must
 * match their schemas. The result names the operation and every problem so the model can fix its
 * code in one step.
 */
import { canonicalPath } from "./canonical-path";
import type { OpenApiSpec } from "./openapi-spec";
import { scalarCheck } from "./scalar-check";
import { validateSchema } from "./schema-validator";
import type { CompactOperation, JsonObject, ParameterObject } from "./types";

/** A request as sandbox code writes it for `codemode.request(...)`. */
export interface ApiRequest {
  method: string;
  /**
   * A concrete path (`/zones/123/rulesets`), without a query string (query parameters go in
   * `query`). `codemode.request()` makes it canonical before anything else sees it.
   */
  path: string;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  body?: unknown;
  contentType?: string;
  /** A pre-encoded body; its content is not validated. */
  rawBody?: unknown;
}

/** Outcome of {@link validateRequest}. */
export type RequestValidation =
  | {
      ok: true;
      operation: CompactOperation;
      /** Path parameters taken from the concrete path. */
      pathParams: Record<string, string>;
    }
  | {
      ok: false;
      /** `unknown_path`, `method_not_allowed` or `invalid_request`. */
      code: "unknown_path" | "method_not_allowed" | "invalid_request";
      /** One paragraph naming the operation and what is wrong; safe to show to the model. */
      message: string;
      operation?: CompactOperation;
      problems: string[];
    };

const JSON_MEDIA = /^application\/(?:[\w.+-]*\+)?json\b|^\*\/\*$/i;

/** Header parameters a host callback adds (credentials): never required from sandbox code. */
const HOST_HEADERS = new Set([
  "authorization",
  "cookie",
  "x-auth-key",
  "x-auth-email",
  "x-auth-user-service-key",
]);

/**
 * Validates a request against the spec's operation, on its canonical path (see
 * {@link canonicalPath}: a path with `..` segments, a backslash, `?` or `#` is refused as
 * `invalid_request`). Unknown query parameters and headers are
 * allowed (specs are often incomplete); header parameters that carry credentials are never
 * required, since the host callback adds them.
 * @param spec - the loaded spec
 * @param request - the request sandbox code wants to send
 */
export function validateRequest(spec: OpenApiSpec, request: ApiRequest): RequestValidation {
  const method = String(request.method ?? "").toUpperCase();
  const canonical = canonicalPath(String(request.path ?? ""));
  // A path the URL parser would reinterpret (`..`, `\`, `?`, `#`) is never matched: what is
  // validated must be what is sent.
  if (!canonical.ok)
    return fail("invalid_request", `${method} ${String(request.path)}: ${canonical.problem}`, [
      canonical.problem,
    ]);
  const rawPath = canonical.path;
  const match = spec.matchOperation(method, rawPath);
  if (match.kind === "unknown_path") {
    const hint =
      match.suggestions.length > 0
        ? ` Paths that look close: ${match.suggestions.join(", ")}.`
        : "";
    return fail(
      "unknown_path",
      `${method} ${rawPath}: no operation in the spec has this path.${hint} Search the spec for the right path first.`,
      [],
    );
  }
  if (match.kind === "method_not_allowed") {
    const allowed = match.allowed.map((m) => m.toUpperCase()).join(", ");
    return fail(
      "method_not_allowed",
      `${method} ${rawPath}: the path ${match.template} has no ${method} operation; allowed: ${allowed}.`,
      [],
    );
  }
  const { operation, params } = match;
  const problems: string[] = [];
  // Query and headers are read only when the operation declares such parameters.
  let query: Record<string, unknown> | undefined;
  let headers: Map<string, string> | undefined;
  const plan = planOf(spec, operation);
  // Without query or headers in the request, only path and required parameters can say anything.
  const given = request.query !== undefined || request.headers !== undefined;
  for (const param of given ? plan.all : plan.minimal) {
    let value: unknown;
    if (param.in === "path") value = params[param.name];
    else if (param.in === "query") {
      query ??= { ...request.query };
      value = Object.hasOwn(query, param.name) ? query[param.name] : undefined;
    } else {
      headers ??= new Map(
        Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
      );
      value = headers.get(param.lowerName);
    }
    if (value === undefined) {
      if (param.required) problems.push(`missing required ${param.in} parameter "${param.name}"`);
      continue;
    }
    if (param.schema === undefined) continue;
    const coerced = coerce(value, param.coerce);
    if (param.fastValid?.(coerced)) continue;
    for (const p of validateSchema(coerced, param.schema, {
      resolve: (r) => spec.raw(r),
      at: `${param.in} parameter "${param.name}"`,
      maxProblems: 3,
    })) {
      problems.push(`${p.path}: ${p.message}`);
    }
  }
  if (request.body !== undefined || request.rawBody !== undefined || plan.bodyRequired)
    checkBody(spec, operation, request, problems);
  if (problems.length === 0) return { ok: true, operation, pathParams: params };
  const name = operation.operationId ? ` (${operation.operationId})` : "";
  const list = problems.map((p) => `- ${p}`).join("\n");
  return fail(
    "invalid_request",
    `${method} ${operation.path}${name}: request refused before sending:\n${list}`,
    problems,
    operation,
  );
}

function checkBody(
  spec: OpenApiSpec,
  operation: CompactOperation,
  request: ApiRequest,
  problems: string[],
): void {
  const body = spec.deref<JsonObject | undefined>(operation.requestBody);
  const hasBody = request.body !== undefined || request.rawBody !== undefined;
  if (!body || typeof body !== "object") {
    if (request.body !== undefined) problems.push("body: this operation takes no request body");
    return;
  }
  if (!hasBody) {
    if (body.required === true) problems.push("body: a request body is required");
    return;
  }
  if (request.body === undefined) return;
  const content = (body.content ?? {}) as Record<string, { schema?: unknown }>;
  const types = Object.keys(content);
  const chosen = request.contentType
    ? types.find(
        (t) =>
          t.split(";")[0]!.trim().toLowerCase() ===
          request.contentType!.split(";")[0]!.trim().toLowerCase(),
      )
    : types.find((t) => JSON_MEDIA.test(t));
  if (!chosen) {
    if (request.contentType && types.length > 0)
      problems.push(
        `body: content type ${request.contentType} is not accepted; accepted: ${types.join(", ")}`,
      );
    return;
  }
  if (!JSON_MEDIA.test(chosen) && !chosen.includes("form")) return;
  const schema = content[chosen]?.schema;
  if (schema === undefined) return;
  for (const p of validateSchema(request.body, schema, {
    resolve: (r) => spec.raw(r),
    at: "body",
    direction: "request",
  })) {
    problems.push(`${p.path}: ${p.message}`);
  }
}

function firstSchema(content: unknown): unknown {
  if (!content || typeof content !== "object") return undefined;
  const first = Object.values(content)[0] as { schema?: unknown } | undefined;
  return first?.schema;
}

/** A parameter as validation needs it, resolved once per operation. */
interface ParamPlan {
  name: string;
  lowerName: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: unknown;
  /** `schema` with its refs followed (for coercion). */
  resolved: JsonObject | undefined;
  /** True for values the schema certainly accepts (simple scalar schemas only). */
  fastValid: ((value: unknown) => boolean) | undefined;
  /** How a text value is read for the schema (see {@link coerce}). */
  coerce: Coercion;
}

/** What text values become before validation: numbers, booleans, comma-separated arrays. */
interface Coercion {
  number: boolean;
  boolean: boolean;
  array: boolean;
}

/** Everything validation needs about one operation, built on its first request. */
interface OperationPlan {
  /** Every checkable parameter, in spec order. */
  all: ParamPlan[];
  /** Path and required parameters only, in spec order: a request with no query or headers. */
  minimal: ParamPlan[];
  /** Whether the operation requires a body (so a request without one must be checked). */
  bodyRequired: boolean;
}

const plans = new WeakMap<CompactOperation, OperationPlan>();

/**
 * The checkable parameters of an operation (refs followed, host-added credential headers and
 * cookie parameters left out), cached: every `codemode.request()` validates against one.
 */
function planOf(spec: OpenApiSpec, operation: CompactOperation): OperationPlan {
  const cached = plans.get(operation);
  if (cached) return cached;
  const all: ParamPlan[] = [];
  for (const entry of operation.parameters ?? []) {
    const param = spec.deref<ParameterObject>(entry);
    if (!param || typeof param !== "object" || typeof param.name !== "string") continue;
    if (param.in !== "path" && param.in !== "query" && param.in !== "header") continue;
    const lowerName = param.name.toLowerCase();
    if (param.in === "header" && HOST_HEADERS.has(lowerName)) continue;
    const schema = param.schema ?? firstSchema(param.content);
    const resolved = schema === undefined ? undefined : spec.deref<JsonObject | undefined>(schema);
    all.push({
      name: param.name,
      lowerName,
      in: param.in,
      required: param.required === true,
      schema,
      resolved,
      fastValid: scalarCheck(resolved),
      coerce: coercionOf(resolved),
    });
  }
  const body = spec.deref<JsonObject | undefined>(operation.requestBody);
  const plan: OperationPlan = {
    all,
    minimal: all.filter((p) => p.in === "path" || p.required),
    bodyRequired: !!body && typeof body === "object" && body.required === true,
  };
  plans.set(operation, plan);
  return plan;
}

function coercionOf(s: JsonObject | undefined): Coercion {
  const types: unknown[] =
    !s || typeof s !== "object" ? [] : Array.isArray(s.type) ? s.type : [s.type];
  return {
    number: types.includes("integer") || types.includes("number"),
    boolean: types.includes("boolean"),
    array: types.includes("array"),
  };
}

/** Path, query and header values travel as text: read "42" as 42 when the schema wants a number. */
function coerce(value: unknown, c: Coercion): unknown {
  if (typeof value !== "string") return value;
  if (c.number && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
  if (c.boolean && (value === "true" || value === "false")) return value === "true";
  if (c.array) return value.split(",");
  return value;
}

function fail(
  code: "unknown_path" | "method_not_allowed" | "invalid_request",
  message: string,
  problems: string[],
  operation?: CompactOperation,
): RequestValidation {
  return operation
    ? { ok: false, code, message, problems, operation }
    : { ok: false, code, message, problems };
}
