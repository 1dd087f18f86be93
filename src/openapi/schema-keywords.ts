/**
 * The primitive keyword checks of the OpenAPI schema validator (types, strings, numbers), the
 * problem list they write to and the options it is read with (the validation's state); the
 * structural walk (refs, combinators, arrays, objects) is in schema-validator.ts.
 */
import { compileSpecPattern } from "./pattern-safety";

/** One way a value fails its schema. */
export interface SchemaProblem {
  /** Where in the value, as a path like `body.records[2].name` (relative to `at`). */
  path: string;
  /** What is wrong. */
  message: string;
}

/** Options of `validateSchema` (schema-validator.ts). */
export interface ValidateSchemaOptions {
  /** Resolves a `$ref` to its raw target. */
  resolve: (ref: string) => unknown;
  /** `"request"`: `readOnly` properties are not required; `"response"`: `writeOnly` ones. */
  direction?: "request" | "response";
  /** Stop after this many problems (default 10). */
  maxProblems?: number;
  /** Name of the root value in paths (default `"value"`). */
  at?: string;
}

/** A schema object. */
export type Schema = Record<string, unknown>;

/** Validation state: the options plus the problems found so far. */
export interface State extends ValidateSchemaOptions {
  problems: SchemaProblem[];
  max: number;
  /** Checks left for the whole validation, shared by every probe of it (schema-validator.ts). */
  steps: { left: number };
}

/** Records a problem unless the limit is reached. */
export function add(state: State, path: string, message: string): void {
  if (state.problems.length < state.max) state.problems.push({ path, message });
}

/** JSON type of a value (`integer` for whole numbers). */
export const typeOf = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number" && Number.isInteger(v)
        ? "integer"
        : typeof v;

/** A short description of a value for error messages. */
export const describe = (v: unknown): string => {
  const t = typeOf(v);
  if (t === "string") return `string ${JSON.stringify(v).slice(0, 40)}`;
  if (t === "integer" || t === "number" || t === "boolean") return `${t} ${String(v)}`;
  return t;
};

/** Checks `type` (with `nullable`); returns whether it matched. */
export function checkType(value: unknown, schema: Schema, path: string, state: State): boolean {
  const declared = schema.type;
  if (declared === undefined) return true;
  const types = Array.isArray(declared) ? (declared as string[]) : [declared as string];
  const actual = typeOf(value);
  const ok = types.some((t) => t === actual || (t === "number" && actual === "integer"));
  if (!ok)
    add(
      state,
      path,
      `expected ${types.join(" or ")}${schema.nullable === true ? " or null" : ""}, got ${describe(value)}`,
    );
  return ok;
}

/** Checks string length and pattern. */
export function checkString(value: string, schema: Schema, path: string, state: State): void {
  // Code points, not UTF-16 units; without surrogates they are the same (and nothing is copied).
  const length = /[\uD800-\uDFFF]/.test(value) ? [...value].length : value.length;
  if (typeof schema.minLength === "number" && length < schema.minLength)
    add(state, path, `must be at least ${schema.minLength} characters, got ${length}`);
  if (typeof schema.maxLength === "number" && length > schema.maxLength)
    add(state, path, `must be at most ${schema.maxLength} characters, got ${length}`);
  if (typeof schema.pattern === "string") {
    // Patterns in other regex dialects, or that could backtrack for minutes, are skipped, not
    // held against the request (pattern-safety.ts).
    const re = compileSpecPattern(schema.pattern);
    if (re && !re.test(value)) add(state, path, `must match the pattern ${schema.pattern}`);
  }
}

/** Checks numeric bounds and `multipleOf`. */
export function checkNumber(value: number, schema: Schema, path: string, state: State): void {
  const { minimum, maximum, exclusiveMinimum: exMin, exclusiveMaximum: exMax, multipleOf } = schema;
  if (typeof minimum === "number" && (exMin === true ? value <= minimum : value < minimum))
    add(state, path, `must be ${exMin === true ? ">" : ">="} ${minimum}, got ${value}`);
  if (typeof maximum === "number" && (exMax === true ? value >= maximum : value > maximum))
    add(state, path, `must be ${exMax === true ? "<" : "<="} ${maximum}, got ${value}`);
  if (typeof exMin === "number" && value <= exMin)
    add(state, path, `must be > ${exMin}, got ${value}`);
  if (typeof exMax === "number" && value >= exMax)
    add(state, path, `must be < ${exMax}, got ${value}`);
  if (
    typeof multipleOf === "number" &&
    multipleOf > 0 &&
    Math.abs(value / multipleOf - Math.round(value / multipleOf)) > 1e-9
  )
    add(state, path, `must be a multiple of ${multipleOf}`);
}

/** Deep equality for `enum` and `const`. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
