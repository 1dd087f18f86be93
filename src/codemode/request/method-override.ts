/**
 * Method overrides carried as data: `_method` in the query string or the body. Laravel, and
 * Symfony with parameter override on, run a `POST` carrying `_method=DELETE` as a `DELETE`, so the
 * spec check and the approval rule (which read `POST` and its operation) would not have seen what
 * ran. Refused unless the operation declares `_method` itself (a query parameter or a top-level
 * body property): then it is the API's own field. The header forms are refused in
 * request-headers.ts.
 */
import type { OpenApiSpec } from "../../openapi/openapi-spec";
import type { CompactOperation, JsonObject, ParameterObject } from "../../openapi/types";
import type { ApiRequest } from "../../openapi/validate-request";

const FIELD = "_method";

/**
 * Why the request may not carry `_method`, or undefined.
 * @param request - the normalized request (query and body are JSON data)
 * @param spec - the served spec (parameters and schemas may be `$ref`s)
 * @param operation - the operation the request matched, if any
 */
export function methodOverrideRefusal(
  request: ApiRequest,
  spec: OpenApiSpec,
  operation: CompactOperation | undefined,
): string | undefined {
  const inQuery = request.query !== undefined && Object.hasOwn(request.query, FIELD);
  const body = request.body;
  const inBody =
    body !== null && typeof body === "object" && !Array.isArray(body) && Object.hasOwn(body, FIELD);
  if (!inQuery && !inBody) return undefined;
  if (inQuery && !declaresQuery(spec, operation)) return refusal("query");
  if (inBody && !declaresBodyField(spec, operation)) return refusal("body");
  return undefined;
}

function refusal(where: string): string {
  return `do not send "${FIELD}": it makes the server run another method than the one checked and approved (frameworks read it in the ${where} as a method override). Call the operation you mean (its method and path) instead. Nothing was sent.`;
}

function declaresQuery(spec: OpenApiSpec, operation: CompactOperation | undefined): boolean {
  return (operation?.parameters ?? []).some((entry) => {
    const param = spec.deref<ParameterObject | undefined>(entry);
    return param?.in === "query" && param.name === FIELD;
  });
}

function declaresBodyField(spec: OpenApiSpec, operation: CompactOperation | undefined): boolean {
  const body = spec.deref<JsonObject | undefined>(operation?.requestBody);
  const content = body?.content;
  if (!content || typeof content !== "object") return false;
  return Object.values(content as Record<string, { schema?: unknown }>).some((media) => {
    const schema = spec.deref<JsonObject | undefined>(media?.schema);
    const properties = schema?.properties;
    return !!properties && typeof properties === "object" && Object.hasOwn(properties, FIELD);
  });
}
