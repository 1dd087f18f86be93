/**
 * JSON Schema (and OpenAPI 3.0/3.1 schema) → TypeScript type text, for the `code` tool, the
 * OpenAPI declarations and the build-time tool step (scripts/tool-declarations.mjs runs it too):
 * - `$ref`s become named types (declared once, on first use), so recursion is just a name;
 * - objects list their properties (`?` unless required, `readonly` when `readOnly`) with
 *   descriptions as doc comments; an index signature `[k: string]: T` when
 *   `additionalProperties`/`patternProperties`/`unevaluatedProperties` allow other keys (or
 *   when an object declares nothing at all);
 * - `enum`/`const` → literal unions, `oneOf`/`anyOf` → unions, `allOf` → intersections,
 *   `nullable` (3.0) and type arrays (3.1) → `| null`, `prefixItems`/array `items` → tuples,
 *   small `minItems`/`maxItems` → tuple shapes;
 * - what TypeScript cannot say (lengths, patterns, limits, `not`, `if`, …) is not emitted: the
 *   validator checks it. The corpus test (test/unit/declarations/corpus.test.ts) holds this.
 * Output depends only on the input: no clocks, no hash ordering.
 */
import { isLiteralUnion, literal, paren, SIMPLE, union, withNull } from "./type-text";
import { docComment } from "./doc-comment";
import { refSiblings } from "./ref-siblings";
import { NameAllocator, propertyKey } from "./type-name";
import {
  asStrings,
  countedArray,
  EMPTY_OBJECT,
  evaluatesAlone,
  isInterfaceShape,
  isRequiredOnly,
  isSchema,
  ofType,
  ownRequired,
  text,
  withParentProperties,
  withPropertyNames,
  withRequired,
  wrapUnion,
  type Schema,
} from "./schema-shape";

export { COUNT_LIMIT } from "./schema-shape";

/** A resolved `$ref`: the target schema and the name its type should get. */
export interface ResolvedRef {
  schema: unknown;
  /** The preferred name (made unique with a number), or the final name when `fixed`. */
  name: string;
  /** The name is already unique (e.g. pre-assigned component names): use it as is. */
  fixed?: boolean;
}

/** Options of {@link SchemaEmitter}. */
export interface SchemaEmitterOptions {
  /** Resolves a `$ref` of the schemas this emitter sees; `undefined` types it `unknown`. */
  resolve: (ref: string) => ResolvedRef | undefined;
  /** Claims unique names; share one between emitters that write into one text. */
  names: NameAllocator;
  /** Where declarations go, in order of first use; share it between emitters of one text. */
  out?: string[];
  /**
   * Honour `tsType` (a schema's TypeScript written out, copied as is): only for schemas the
   * library or the operator wrote (OpenAPI specs, the library's own request shapes). An
   * upstream MCP server's schemas are another party's text: their `tsType` would write any
   * TypeScript (or any text) into the declarations and the tool description. Default false.
   */
  tsType?: boolean;
}

/** Emits types for the schemas of one document (one `$ref` namespace). */
export class SchemaEmitter {
  /** Declarations written so far (shared when passed in the options). */
  readonly out: string[];
  readonly #options: SchemaEmitterOptions;
  readonly #refNames = new Map<string, string>();

  /** @param options - see {@link SchemaEmitterOptions} */
  constructor(options: SchemaEmitterOptions) {
    this.#options = options;
    this.out = options.out ?? [];
  }

  /**
   * Makes a ref name an existing type, e.g. `#` → the tool's input type, so self-references
   * resolve to it instead of declaring a copy.
   * @param ref - the `$ref` string
   * @param name - the type name it denotes
   */
  alias(ref: string, name: string): void {
    this.#refNames.set(ref, name);
  }

  /**
   * Declares a named type for a schema: `interface` for plain objects, `type` otherwise.
   * @param name - the (unique) type name
   * @param schema - the schema
   * @param doc - comment text; defaults to the schema's description
   * @returns the name
   */
  declare(name: string, schema: unknown, doc?: string): string {
    const slot = this.out.length;
    this.out.push("");
    const s = isSchema(schema) ? schema : {};
    const tags = s.deprecated === true ? ["@deprecated"] : [];
    const comment = docComment(doc ?? text(s.description), "", tags);
    if (isInterfaceShape(s)) {
      const body = this.#objectType(s, "");
      this.out[slot] =
        `${comment}interface ${name} ${body === EMPTY_OBJECT ? "{\n  [k: string]: unknown;\n}" : body}\n`;
    } else
      this.out[slot] =
        `${comment}${wrapUnion(`type ${name} = `, this.typeOf(schema, ""), ";", "")}\n`;
    return name;
  }

  /**
   * The type of a schema as a TypeScript type expression (multi-line for objects).
   * @param schema - a JSON Schema or OpenAPI schema
   * @param indent - indentation of the line the type starts on
   */
  typeOf(schema: unknown, indent = "", inherited?: readonly string[]): string {
    if (schema === false) return "never";
    if (!isSchema(schema)) return "unknown";
    if (typeof schema.$ref === "string") {
      const ref = withNull(this.refType(schema.$ref), schema.nullable === true);
      // Keywords beside `$ref` apply too (JSON Schema 2019-09 and later): both must hold.
      const siblings = refSiblings(schema);
      if (!siblings) return ref;
      const extra = this.typeOf(siblings, indent, inherited);
      return extra === "unknown" ? ref : `${paren(ref, "&")} & ${paren(extra, "&")}`;
    }
    if (this.#options.tsType === true && typeof schema.tsType === "string") return schema.tsType;
    const s = withRequired(schema, inherited);
    const members: string[] = [];
    const base = this.#baseType(s, indent);
    const combined = Array.isArray(s.allOf) || Array.isArray(s.anyOf) || Array.isArray(s.oneOf);
    if (base !== undefined && !(combined && base === EMPTY_OBJECT)) members.push(base);
    const pass = asStrings(s.required);
    if (Array.isArray(s.allOf))
      for (const part of s.allOf)
        // A branch that only lists `required` was lifted into this schema's list above.
        if (!isRequiredOnly(part))
          members.push(this.typeOf(withParentProperties(part, s), indent, pass));
    for (const key of ["anyOf", "oneOf"] as const) {
      const list = s[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const alternatives = union(list.map((x) => this.typeOf(withParentProperties(x, s), indent)));
      // `type: number` beside `anyOf: [number, 1]`: the alternatives already say it all (but
      // alternatives that say nothing, `unknown`, leave the base type as the whole answer).
      if (
        base !== undefined &&
        SIMPLE.has(base) &&
        alternatives !== "unknown" &&
        isLiteralUnion(alternatives)
      )
        members.splice(members.indexOf(base), 1);
      members.push(alternatives);
    }
    let distinct = [...new Set(members)].filter((m) => m !== "unknown" || members.length === 1);
    // `type: object` beside combinators that say nothing about the shape: still an object.
    if (base === EMPTY_OBJECT && distinct.every((m) => m === "unknown")) distinct = [EMPTY_OBJECT];
    const type =
      distinct.length === 0
        ? "unknown"
        : distinct.map((m) => (distinct.length > 1 ? paren(m, "&") : m)).join(" & ");
    return withNull(type, s.nullable === true);
  }

  /**
   * The name of the type a `$ref` denotes, declaring it on first use.
   * @param ref - the `$ref` string
   */
  refType(ref: string): string {
    const known = this.#refNames.get(ref);
    if (known) return known;
    const target = this.#options.resolve(ref);
    if (!target) return "unknown";
    const name = target.fixed ? target.name : this.#options.names.claim(target.name);
    this.#refNames.set(ref, name);
    return this.declare(name, target.schema);
  }

  #baseType(s: Schema, indent: string): string | undefined {
    // Values the schema's `type` refuses are not allowed (`type: string, enum: ["a", null]`).
    if (s.const !== undefined) return ofType(s.const, s.type) ? literal(s.const) : "never";
    if (Array.isArray(s.enum)) return union(s.enum.filter((v) => ofType(v, s.type)).map(literal));
    if (Array.isArray(s.type))
      return union((s.type as unknown[]).map((t) => this.#forType(String(t), s, indent)));
    if (typeof s.type === "string") return this.#forType(s.type, s, indent);
    // Without `type`, the keywords that only apply to objects say the value is one (a documented
    // approximation: JSON Schema would let non-objects through such a schema).
    if (
      s.properties ||
      s.additionalProperties !== undefined ||
      s.patternProperties ||
      asStrings(s.required).length > 0
    )
      return this.#objectType(s, indent);
    if (s.items !== undefined || s.prefixItems !== undefined) return this.#arrayType(s, indent);
    return undefined;
  }

  #forType(type: string, s: Schema, indent: string): string {
    switch (type) {
      case "string":
      case "boolean":
      case "null":
        return type;
      case "integer":
      case "number":
        return "number";
      case "object":
        return this.#objectType(s, indent);
      case "array":
        return this.#arrayType(s, indent);
      case "file":
        return "string";
      default:
        return "unknown";
    }
  }

  #objectType(schema: Schema, indent: string): string {
    // `propertyNames: { enum: [...] }` names the keys: declared as those properties.
    const s = withPropertyNames(schema);
    const props = isSchema(s.properties) ? s.properties : {};
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const inner = indent + "  ";
    const lines: string[] = [];
    // A required key the schema does not describe must be present (when no combinator or
    // reference of this schema may describe it instead).
    const own = ownRequired(s);
    const undescribed = evaluatesAlone(s) ? own.filter((k) => !Object.hasOwn(props, k)) : [];
    const keys = [...Object.keys(props), ...undescribed];
    // `unevaluatedProperties` acts as `additionalProperties` when nothing else evaluates keys.
    const extra =
      s.additionalProperties ?? (evaluatesAlone(s) ? s.unevaluatedProperties : undefined);
    const patterns = isSchema(s.patternProperties) ? Object.values(s.patternProperties) : [];
    // An undescribed key holds what `additionalProperties` allows (anything, under patterns).
    const other = patterns.length > 0 || extra === undefined ? {} : extra;
    const schemaOf = (key: string) => (Object.hasOwn(props, key) ? props[key] : other);
    // Each property's type, emitted once: the index signature below reuses them.
    const typeTexts = new Map<string, string>();
    for (const key of keys) {
      const prop = schemaOf(key);
      const p = isSchema(prop) ? prop : {};
      const tags = [
        ...(p.deprecated === true ? ["@deprecated"] : []),
        // No TypeScript modifier says "only sent, never returned": the tag says it.
        ...(p.writeOnly === true ? ["@writeOnly"] : []),
      ];
      const comment =
        typeof p.$ref === "string" && p.description === undefined && tags.length === 0
          ? ""
          : docComment(text(p.description), inner, tags);
      const optional = required.has(key) ? "" : "?";
      // `readOnly`: owned by the server; TypeScript's `readonly` says the same to the reader.
      const modifier = p.readOnly === true ? "readonly " : "";
      const type = this.typeOf(prop, inner);
      typeTexts.set(key, type);
      lines.push(
        `${comment}${wrapUnion(`${inner}${modifier}${propertyKey(key)}${optional}:`, type, ";", inner, " ")}\n`,
      );
    }
    let index: string | undefined;
    if (
      extra === true ||
      (lines.length === 0 && extra === undefined && patterns.length === 0) ||
      // Keys matching no pattern are unconstrained when `additionalProperties` is absent.
      (patterns.length > 0 && extra === undefined)
    )
      index = "unknown";
    else if (isSchema(extra) || patterns.length > 0) {
      // A typed index signature must admit every declared property's type (TypeScript checks
      // each property against it), so it is the union of the extra values' type and the declared
      // properties' types: the closest TypeScript gets to "these keys, and any other key holds T".
      // An optional property's type includes `undefined` for that check (strict mode).
      const types = [...(isSchema(extra) ? [extra] : []), ...patterns].map((x) =>
        this.typeOf(x, inner),
      );
      const declared = keys.map((key) => typeTexts.get(key) ?? "unknown");
      const optional = keys.some((key) => !required.has(key)) ? ["undefined"] : [];
      // A declared property of an object type (a type of many lines) makes the index `unknown`,
      // which admits it too: written into the union, each level held its properties' types
      // twice, so nested levels doubled the text (a 1,109-character skill schema nested 14 deep
      // gave 2 MB of declarations and held the host 46 s; each level more, twice that).
      index = declared.some((type) => type.includes("\n"))
        ? "unknown"
        : union([...types, ...declared, ...optional]);
    }
    if (lines.length === 0 && index === "unknown") return EMPTY_OBJECT;
    if (index !== undefined) lines.push(`${inner}[k: string]: ${index};\n`);
    if (lines.length === 0) return "{}";
    return `{\n${lines.join("")}${indent}}`;
  }

  #arrayType(s: Schema, indent: string): string {
    const tuple = Array.isArray(s.prefixItems)
      ? s.prefixItems
      : Array.isArray(s.items)
        ? s.items
        : undefined;
    if (!tuple) {
      const item = s.items === undefined ? "unknown" : this.typeOf(s.items, indent);
      return countedArray(paren(item, "[]"), s.minItems, s.maxItems);
    }
    // Items past the prefix are allowed unless `items` (2020-12) / `additionalItems` (draft-07)
    // is `false`; only the first `minItems` prefix items are required.
    // `unevaluatedItems` stands for them when nothing else (a combinator, a `$ref`) evaluates items.
    const rest =
      (Array.isArray(s.prefixItems) ? s.items : s.additionalItems) ??
      (evaluatesAlone(s) ? s.unevaluatedItems : undefined);
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    const items = tuple.map((t, i) => {
      const type = this.typeOf(t, indent);
      return i < min ? type : `${paren(type, "[]")}?`;
    });
    if (rest !== false) items.push(`...${paren(this.typeOf(rest ?? {}, indent), "[]")}[]`);
    return `[${items.join(", ")}]`;
  }
}
