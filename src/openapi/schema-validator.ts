/**
 * A small JSON Schema validator for OpenAPI 3.0/3.1 schemas, used to refuse malformed requests
 * before they reach the host callback. Written here instead of a general validator because specs
 * need OpenAPI rules (`nullable`, boolean `exclusiveMinimum`, `readOnly` fields not required in
 * requests), refs resolve lazily against the spec with no pre-indexing of 4 MB of schemas, and
 * error messages should teach a model what to fix.
 *
 * Deliberately lenient where real specs are sloppy, because a false refusal is worse than a miss:
 * `oneOf` is checked as `anyOf`; `format` is not enforced; `additionalProperties: false` inside an
 * `allOf` allows the properties declared by the other branches; a `required` list beside a
 * `oneOf`/`anyOf` applies only to the properties declared outside the branches.
 */
import { patternNamesKey } from "./pattern-safety";
import {
  add,
  checkNumber,
  checkString,
  checkType,
  describe,
  equal,
  type Schema,
  type SchemaProblem,
  type State,
  type ValidateSchemaOptions,
} from "./schema-keywords";

const MAX_DEPTH = 64;
/**
 * Most schema checks one validation makes (about 0.3 s). Alternatives that each recurse (filter
 * trees) cost branches^depth, and the value is a sandbox program's: past the budget the rest is
 * not checked (an early refusal is a courtesy; the upstream still validates).
 */
export const MAX_SCHEMA_STEPS = 200_000;

/**
 * Validates a value against an OpenAPI schema and returns the problems (empty when valid).
 * @param value - the value to check
 * @param schema - an OpenAPI 3.0/3.1 schema (refs allowed)
 * @param options - see {@link ValidateSchemaOptions}
 */
export function validateSchema(
  value: unknown,
  schema: unknown,
  options: ValidateSchemaOptions,
): SchemaProblem[] {
  const { resolve, direction, maxProblems = 10 } = options; // no spread: runs per parameter
  const steps = { left: MAX_SCHEMA_STEPS };
  const state: State = { resolve, direction, problems: [], max: maxProblems, steps };
  check(value, schema, options.at ?? "value", state, 0, undefined);
  return state.problems;
}

/** Follows refs; `undefined` when unresolvable (treated as "anything goes"). */
function deref(schema: unknown, state: State): Schema | boolean | undefined {
  let current = schema;
  for (let hops = 0; hops < 16 && current && typeof current === "object"; hops++) {
    const ref = (current as Schema).$ref;
    if (typeof ref !== "string") break;
    const target = state.resolve(ref);
    const siblings = Object.keys(current).filter((k) => k !== "$ref");
    if (siblings.length === 0 || !target || typeof target !== "object") current = target;
    else
      current = {
        allOf: [target, Object.fromEntries(siblings.map((k) => [k, (current as Schema)[k]]))],
      };
  }
  if (typeof current === "boolean") return current;
  return current && typeof current === "object" ? (current as Schema) : undefined;
}

/** Names of properties a schema (and its allOf branches) declares; used for lenient allOf. */
function declaredProperties(
  schema: unknown,
  state: State,
  out: Set<string>,
  depth = 0,
): Set<string> {
  const s = deref(schema, state);
  if (!s || typeof s !== "object" || depth > 8) return out;
  if (s.properties && typeof s.properties === "object")
    for (const k of Object.keys(s.properties)) out.add(k);
  if (Array.isArray(s.allOf))
    for (const part of s.allOf) declaredProperties(part, state, out, depth + 1);
  return out;
}

function check(
  value: unknown,
  raw: unknown,
  path: string,
  state: State,
  depth: number,
  siblingsKnown: Set<string> | undefined,
): void {
  if (depth > MAX_DEPTH || state.problems.length >= state.max || --state.steps.left < 0) return;
  const schema = deref(raw, state);
  if (schema === undefined || schema === true) return;
  if (schema === false) return add(state, path, "no value is allowed here");
  if (value === null && (schema.nullable === true || schema["x-nullable"] === true)) return;
  if (!checkType(value, schema, path, state)) return;
  if (schema.const !== undefined && !equal(value, schema.const))
    add(state, path, `must be ${JSON.stringify(schema.const)}, got ${describe(value)}`);
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((e) => equal(value, e)) &&
    !(value === null && schema.nullable === true)
  ) {
    const list = schema.enum
      .slice(0, 12)
      .map((e) => JSON.stringify(e))
      .join(", ");
    add(
      state,
      path,
      `must be one of ${list}${schema.enum.length > 12 ? ", …" : ""}; got ${describe(value)}`,
    );
  }
  const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
  // Properties declared anywhere in this allOf family count as known to every branch.
  const known =
    isObject && (schema.allOf || schema.anyOf || schema.oneOf)
      ? declaredProperties(schema, state, new Set(siblingsKnown))
      : siblingsKnown;
  if (typeof value === "string") checkString(value, schema, path, state);
  else if (typeof value === "number") checkNumber(value, schema, path, state);
  else if (Array.isArray(value)) checkArray(value, schema, path, state, depth);
  else if (isObject)
    checkObject(value as Record<string, unknown>, schema, path, state, depth, known);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) check(value, part, path, state, depth + 1, known);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (!Array.isArray(options) || options.length === 0) continue;
    checkAlternatives(value, options, path, state, depth, known);
  }
  if (
    schema.not !== undefined &&
    schema.not !== null &&
    probe(value, schema.not, state, depth).length === 0
  )
    add(state, path, "matches a schema it must not match");
}

/** Problems of value against schema, without reporting them (for alternatives and `not`). */
function probe(
  value: unknown,
  schema: unknown,
  state: State,
  depth: number,
  known?: Set<string>,
): SchemaProblem[] {
  const inner: State = { ...state, problems: [], max: 5 };
  check(value, schema, "", inner, depth + 1, known);
  return inner.problems;
}

function checkAlternatives(
  value: unknown,
  options: unknown[],
  path: string,
  state: State,
  depth: number,
  known: Set<string> | undefined,
): void {
  let best: SchemaProblem[] | undefined;
  for (const option of options) {
    const problems = probe(value, option, state, depth, known);
    if (problems.length === 0) return;
    if (!best || problems.length < best.length) best = problems;
  }
  const hint = best?.[0]
    ? `; closest: ${best[0].path ? path + best[0].path : path} ${best[0].message}`
    : "";
  add(state, path, `matches none of the ${options.length} allowed shapes${hint}`);
}

function checkArray(
  value: unknown[],
  schema: Schema,
  path: string,
  state: State,
  depth: number,
): void {
  if (typeof schema.minItems === "number" && value.length < schema.minItems)
    add(state, path, `must have at least ${schema.minItems} items, got ${value.length}`);
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
    add(state, path, `must have at most ${schema.maxItems} items, got ${value.length}`);
  if (
    schema.uniqueItems === true &&
    new Set(value.map((v) => JSON.stringify(v))).size !== value.length
  )
    add(state, path, "items must be unique");
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  const rest = tuple
    ? Array.isArray(schema.items)
      ? schema.additionalItems
      : schema.items
    : schema.items;
  value.forEach((item, i) => {
    const itemSchema = tuple && i < tuple.length ? tuple[i] : rest;
    if (itemSchema !== undefined)
      check(item, itemSchema, `${path}[${i}]`, state, depth + 1, undefined);
  });
}

function checkObject(
  value: Record<string, unknown>,
  schema: Schema,
  path: string,
  state: State,
  depth: number,
  known: Set<string> | undefined,
): void {
  const properties = (
    schema.properties && typeof schema.properties === "object" ? schema.properties : {}
  ) as Record<string, unknown>;
  if (Array.isArray(schema.required)) {
    for (const name of schema.required as string[]) {
      if (value[name] !== undefined) continue;
      if (hiddenProperty(schema, name, state, 0)) continue;
      if (branchOnly(schema, name, state)) continue;
      add(state, `${path}.${name}`, "required property is missing");
    }
  }
  const count = Object.keys(value).length;
  if (typeof schema.minProperties === "number" && count < schema.minProperties)
    add(state, path, `must have at least ${schema.minProperties} properties`);
  if (typeof schema.maxProperties === "number" && count > schema.maxProperties)
    add(state, path, `must have at most ${schema.maxProperties} properties`);
  const patterns =
    schema.patternProperties && typeof schema.patternProperties === "object"
      ? Object.entries(schema.patternProperties as Record<string, unknown>)
      : [];
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined) continue;
    const childPath = `${path}.${key}`;
    if (Object.hasOwn(properties, key)) {
      check(child, properties[key], childPath, state, depth + 1, undefined);
      continue;
    }
    const matching = patterns.filter(([p]) => patternNamesKey(p, key));
    for (const [, s] of matching) check(child, s, childPath, state, depth + 1, undefined);
    if (matching.length > 0 || known?.has(key)) continue;
    const extra = schema.additionalProperties;
    if (extra === false) {
      const allowed = Object.keys(properties).slice(0, 20).join(", ");
      add(state, childPath, `unknown property${allowed ? ` (allowed: ${allowed})` : ""}`);
    } else if (extra !== undefined && extra !== true)
      check(child, extra, childPath, state, depth + 1, undefined);
  }
}

/**
 * Whether a required name beside a `oneOf`/`anyOf` is declared only inside the branches. Real
 * specs merge request and response shapes this way (Cloudflare's DNS record lists `id` as
 * required for creation); the branches check their own `required`, so this list is skipped.
 */
function branchOnly(schema: Schema, name: string, state: State): boolean {
  if (!Array.isArray(schema.oneOf) && !Array.isArray(schema.anyOf)) return false;
  const own = new Set<string>();
  declaredProperties({ ...schema, oneOf: undefined, anyOf: undefined }, state, own);
  return !own.has(name);
}

/**
 * Whether a property is `readOnly` (in requests) or `writeOnly` (in responses) anywhere in the
 * schema's allOf/anyOf/oneOf family: real specs list `required` at the top and define the
 * property in a branch (Cloudflare's DNS records: `required: ["id", …]` beside a `oneOf`).
 */
function hiddenProperty(schema: unknown, name: string, state: State, depth: number): boolean {
  const s = deref(schema, state);
  if (!s || typeof s !== "object" || depth > 8 || !state.direction) return false;
  const props = s.properties as Record<string, unknown> | undefined;
  if (props && Object.hasOwn(props, name)) {
    const prop = deref(props[name], state);
    const flag = state.direction === "response" ? "writeOnly" : "readOnly";
    if (prop && typeof prop === "object" && prop[flag] === true) return true;
  }
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    const list = s[key];
    if (Array.isArray(list) && list.some((b) => hiddenProperty(b, name, state, depth + 1)))
      return true;
  }
  return false;
}
