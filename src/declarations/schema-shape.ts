/**
 * Small readings of schema shape and layout the schema emitter (schema-emitter.ts) relies on:
 * which keywords evaluate an instance alone, how combinator branches borrow their parent's
 * property descriptions, item counts as tuple shapes, and the formatter-compatible layout.
 */
import { splitTopLevel } from "./type-text";

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** Item counts up to this are written as tuple shapes; larger ones are left to the validator. */
export const COUNT_LIMIT = 5;

/**
 * An array type with small `minItems`/`maxItems` as a tuple shape: `minItems: 1` →
 * `[T, ...T[]]`, `maxItems: 2` → `[T?, T?]`; plain `T[]` otherwise.
 */
export function countedArray(item: string, minItems: unknown, maxItems: unknown): string {
  const min =
    Number.isInteger(minItems) && (minItems as number) <= COUNT_LIMIT ? (minItems as number) : 0;
  const max =
    Number.isInteger(maxItems) && (maxItems as number) <= COUNT_LIMIT
      ? (maxItems as number)
      : undefined;
  if (min === 0 && max === undefined) return `${item}[]`;
  if (max !== undefined && max < min) return "never";
  const members = Array.from({ length: max ?? min }, (_, i) => (i < min ? item : `${item}?`));
  if (max === undefined) members.push(`...${item}[]`);
  return `[${members.join(", ")}]`;
}

/** An object that declares nothing: any keys, any values. */
export const EMPTY_OBJECT = "{ [k: string]: unknown }";

/** Line width of the formatter (oxfmt, prettier-compatible) the checked-in goldens must pass. */
export const PRINT_WIDTH = 100;

/**
 * Lays out `head type tail` like the repository's formatter: a single line when it fits,
 * otherwise a top-level union of one-line members goes one member per line with leading `|`.
 */
export function wrapUnion(
  head: string,
  type: string,
  tail: string,
  indent: string,
  gap = "",
): string {
  const line = `${head}${gap}${type}${tail}`;
  if (line.length <= PRINT_WIDTH || type.includes("\n")) return line;
  const members = splitTopLevel(type, "|");
  if (members.length < 2) return line;
  return `${head.trimEnd()}\n${members.map((m) => `${indent}  | ${m}`).join("\n")}${tail}`;
}

/** The strings of a list (`required`), ignoring anything else. */
export function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * A combinator branch that requires keys its parent describes (`oneOf: [{ required: ["a"] }]`
 * beside `properties: { a: … }`) gets the parent's descriptions of them, so the branch says
 * `a: string` rather than `a: unknown` (which, intersected with the parent's optional `a?`,
 * would still admit `undefined`).
 */
export function withParentProperties(branch: unknown, parent: Schema): unknown {
  if (!isSchema(branch) || typeof branch.$ref === "string" || !isSchema(parent.properties))
    return branch;
  const own = isSchema(branch.properties) ? branch.properties : {};
  const parentProps = parent.properties;
  const borrowed = asStrings(branch.required).filter(
    (k) => !Object.hasOwn(own, k) && Object.hasOwn(parentProps, k),
  );
  if (borrowed.length === 0) return branch;
  return {
    ...branch,
    properties: Object.fromEntries([
      ...Object.entries(own),
      ...borrowed.map((k) => [k, parentProps[k]] as const),
    ]),
  };
}

/** Whether only this schema's own keywords evaluate the instance (no combinators, refs, conditionals). */
export function evaluatesAlone(s: Schema): boolean {
  return !["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "contains"].some(
    (k) => k in s,
  );
}

/** A schema whose only keyword is `required` (an allOf branch adding required keys). */
export function isRequiredOnly(part: unknown): boolean {
  return isSchema(part) && Object.keys(part).length === 1 && Array.isArray(part.required);
}

/** Whether a value is a schema object (not a boolean schema, array or scalar). */
export function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether a schema is a plain object shape, declared as an `interface`. */
export function isInterfaceShape(s: Schema): boolean {
  if (s.$ref !== undefined || s.allOf || s.anyOf || s.oneOf || s.enum || s.const !== undefined)
    return false;
  if (s.nullable === true || Array.isArray(s.type) || typeof s.tsType === "string") return false;
  return s.type === "object" || (s.type === undefined && isSchema(s.properties));
}

/** A string keyword's value, or `undefined`. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Where a schema merged with inherited `required` keys keeps its own list. */
const OWN_REQUIRED = new WeakMap<Schema, string[]>();

/**
 * The schema with the `required` keys that apply to it: its own, those a parent allOf passes
 * down (`inherited`), and those its allOf branches list. A `required` list beside allOf applies
 * to properties its inline branches declare (the Cloudflare DNS records: `required: ["type",
 * "name", "content"]` over `allOf: [{properties}]`), and one inside an allOf branch applies to
 * the properties declared beside it.
 * @param schema - a schema
 * @param inherited - required keys from the parent
 */
export function withRequired(schema: Schema, inherited?: readonly string[]): Schema {
  const lifted = Array.isArray(schema.allOf)
    ? schema.allOf.flatMap((part) => (isSchema(part) ? asStrings(part.required) : []))
    : [];
  if (!inherited?.length && !lifted.length) return schema;
  const own = asStrings(schema.required);
  const merged = { ...schema, required: [...new Set([...own, ...(inherited ?? []), ...lifted])] };
  OWN_REQUIRED.set(merged, own);
  return merged;
}

/**
 * The keys a schema itself lists as required (not those merged in by {@link withRequired}):
 * only these are declared `unknown` when nothing describes them, since a sibling branch
 * describes the others.
 * @param s - a schema, possibly from {@link withRequired}
 */
export function ownRequired(s: Schema): string[] {
  return OWN_REQUIRED.get(s) ?? asStrings(s.required);
}

/**
 * An object whose `propertyNames` lists its keys (`enum`/`const` of strings) as the object with
 * exactly those keys: each one not declared gets the `additionalProperties` (or
 * `unevaluatedProperties`) schema, a declared key outside the list becomes `false` (it cannot
 * be present), and no other key is allowed. Anything else is returned as is.
 * @param s - an object schema
 */
export function withPropertyNames(s: Schema): Schema {
  const names = isSchema(s.propertyNames) ? keyNames(s.propertyNames) : undefined;
  if (!names || s.patternProperties !== undefined) return s;
  const props = isSchema(s.properties) ? s.properties : {};
  const extra = s.additionalProperties ?? s.unevaluatedProperties ?? true;
  const entries: [string, unknown][] = Object.keys(props).map((k) => [
    k,
    names.includes(k) ? props[k] : false,
  ]);
  if (extra !== false)
    for (const name of names) if (!Object.hasOwn(props, name)) entries.push([name, extra]);
  return { ...s, properties: Object.fromEntries(entries), additionalProperties: false };
}

/** The key names a `propertyNames` schema allows, when it lists them (only `enum`/`const`). */
function keyNames(names: Schema): string[] | undefined {
  const keywords = Object.keys(names).filter((k) => k !== "description" && k !== "type");
  const values =
    keywords.length === 1 && keywords[0] === "enum" && Array.isArray(names.enum)
      ? names.enum
      : keywords.length === 1 && keywords[0] === "const"
        ? [names.const]
        : undefined;
  return values?.every((v) => typeof v === "string") ? values : undefined;
}

/**
 * Whether a JSON value has one of the types a schema's `type` names (any type when absent;
 * `integer` is a whole number; OpenAPI's `nullable` is applied elsewhere).
 * @param value - an `enum`/`const` value
 * @param type - the schema's `type` keyword
 */
export function ofType(value: unknown, type: unknown): boolean {
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : undefined;
  if (!types) return true;
  return types.some((t) => {
    if (t === "null") return value === null;
    if (t === "array") return Array.isArray(value);
    if (t === "object") return isSchema(value);
    if (t === "integer") return Number.isInteger(value);
    return typeof value === t;
  });
}
