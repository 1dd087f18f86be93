/**
 * Input checks of the demo API, mirroring specs/demo-api.yaml, so the API refuses bad input
 * itself (with `execute`'s spec validation turned off, or when called directly over HTTP).
 */
import { HttpError } from "../errors/http-error";

/**
 * A refused demo API request: `400 invalid_request` naming the offending field or parameter,
 * with the fix pointing at the spec. The product's one HTTP error (src/app/errors/http-error.ts).
 * @param message - what is wrong, naming the field
 * @param name - the field or parameter, for the fix
 */
export function invalidRequest(message: string, name?: string): HttpError {
  return new HttpError(
    400,
    "invalid_request",
    message,
    name === undefined
      ? "Send the request as specs/demo-api.yaml describes the operation."
      : `Send "${name}" as specs/demo-api.yaml describes it (search the spec for the operation's parameters and body).`,
  );
}

/** Allowed values of the enum fields. */
export const ENUMS: Record<string, readonly string[]> = {
  projectStatus: ["active", "paused", "archived"],
  taskStatus: ["todo", "in_progress", "blocked", "done"],
  priority: ["low", "medium", "high"],
};

/** How one body field is checked. */
export type FieldRule =
  | { type: "string"; min?: number; max: number; nullable?: boolean; enum?: readonly string[] }
  | { type: "integer" }
  | { type: "date"; nullable: true };

/**
 * Checks a JSON body against field rules.
 * @param body - the parsed body
 * @param rules - one rule per allowed field
 * @param required - fields that must be present
 * @param minFields - at least this many fields (a patch must change something)
 * @throws HttpError `invalid_request` `invalid_request` naming the field
 */
export function checkBody(
  body: unknown,
  rules: Record<string, FieldRule>,
  required: readonly string[],
  minFields = 0,
): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw invalidRequest("The body must be a JSON object.");
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (!(key in rules))
      throw invalidRequest(
        `Unknown field "${key}". Allowed: ${Object.keys(rules).join(", ")}.`,
        key,
      );
  for (const key of required)
    if (input[key] === undefined) throw invalidRequest(`"${key}" is required.`, key);
  if (Object.keys(input).length < minFields)
    throw invalidRequest("Send at least one field to change.");
  for (const [key, value] of Object.entries(input)) checkField(key, value, rules[key]!);
  return input;
}

function checkField(key: string, value: unknown, rule: FieldRule): void {
  const bad = (what: string) => invalidRequest(`"${key}" ${what}.`, key);
  if (value === null) {
    if ("nullable" in rule && rule.nullable) return;
    throw bad("must not be null");
  }
  if (rule.type === "integer") {
    if (!Number.isInteger(value) || (value as number) < 1) throw bad("must be a positive integer");
    return;
  }
  if (typeof value !== "string") throw bad("must be a string");
  if (rule.type === "date") {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
      throw bad("must be a date like 2026-12-31");
    return;
  }
  if (rule.enum && !rule.enum.includes(value)) throw bad(`must be one of ${rule.enum.join(", ")}`);
  if (value.length < (rule.min ?? 0)) throw bad(`must not be empty`);
  if (value.length > rule.max) throw bad(`must be at most ${rule.max} characters`);
}

/**
 * Reads an optional query parameter that must be one of `allowed`.
 * @throws HttpError `invalid_request` naming the parameter
 */
export function enumParam(
  query: URLSearchParams,
  name: string,
  allowed: readonly string[],
): string | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!allowed.includes(value))
    throw invalidRequest(`Query parameter "${name}" must be one of ${allowed.join(", ")}.`, name);
  return value;
}

/**
 * Reads an optional positive-integer query parameter (or path segment).
 * @throws HttpError `invalid_request` naming the parameter
 */
export function intParam(
  value: string | null,
  name: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === null) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max)
    throw invalidRequest(`"${name}" must be an integer from 1 to ${max}.`, name);
  return n;
}
