/**
 * TypeScript declarations for an OpenAPI spec, on demand: one operation (for
 * `codemode.declaration(operationId)`), one component schema, or the whole spec. Component
 * schemas become named types whose names are fixed for the whole spec (assigned once, in key
 * order), so an operation's declaration reads the same whichever operations were asked for before.
 */
import { getAtPointer, parsePointer } from "../openapi/json-pointer";
import { operationSchemas, type OperationLike } from "./operation-schemas";
import { SchemaEmitter, type ResolvedRef } from "./schema-emitter";
import { NameAllocator, toTypeName } from "./type-name";

const SCHEMAS = "#/components/schemas/";

/** Declarations of one operation. */
export interface OperationDeclaration {
  /** `XRequest`, `XResponse` and (when the path has parameters) `XPathParams`. */
  names: { request: string; response: string; pathParams?: string };
  /** Valid TypeScript: the operation's types, then every component type they use. */
  text: string;
}

/** Emits declarations for the operations and schemas of one spec. */
export class SpecDeclarations {
  readonly #root: unknown;
  #componentNames?: Map<string, string>;

  /**
   * @param root - the document refs resolve against: a compact spec or an OpenAPI 3 document
   *   (`#/components/schemas/…` must be reachable from it)
   */
  constructor(root: unknown) {
    this.#root = root;
  }

  /**
   * The type name of a component schema (`#/components/schemas/dns-records_identifier` →
   * `DnsRecordsIdentifier`), unique within the spec; `undefined` for other refs.
   * @param ref - a `$ref` string
   */
  componentName(ref: string): string | undefined {
    if (!this.#componentNames) {
      const names = new NameAllocator();
      this.#componentNames = new Map();
      const schemas = getAtPointer(this.#root, "#/components/schemas");
      const keys = schemas && typeof schemas === "object" ? Object.keys(schemas).toSorted() : [];
      for (const key of keys)
        this.#componentNames.set(
          SCHEMAS + key.replaceAll("~", "~0").replaceAll("/", "~1"),
          names.claim(toTypeName(key)),
        );
    }
    return this.#componentNames.get(ref);
  }

  /**
   * Declarations of one operation, deterministic for a given spec.
   * @param op - an operation of the spec (compact index entry)
   */
  operation(op: OperationLike): OperationDeclaration {
    const { emitter, names } = this.#emitter();
    return declareOperation(op, emitter, names, (v) => this.#deref(v));
  }

  /**
   * Declaration of one schema (named after its component), with every type it uses.
   * @param ref - e.g. `#/components/schemas/request-tracer_trace`
   */
  schema(ref: string): string {
    const { emitter } = this.#emitter();
    emitter.refType(ref);
    return emitter.out.join("\n");
  }

  /**
   * Declarations of many operations in one text (shared component types declared once), plus an
   * `Operations` map from operationId to request and response types.
   * @param ops - operations in the order to emit them
   * @param options - `allComponents`: also declare the component schemas no operation uses (the
   *   build-time script's whole-spec file)
   */
  operations(ops: readonly OperationLike[], options: { allComponents?: boolean } = {}): string {
    const { emitter, names } = this.#emitter();
    const rows: string[] = [];
    for (const op of ops) {
      const declared = declareOperation(op, emitter, names, (v) => this.#deref(v));
      const key = JSON.stringify(op.operationId ?? `${op.method.toUpperCase()} ${op.path}`);
      rows.push(
        `  ${key}: { request: ${declared.names.request}; response: ${declared.names.response} };\n`,
      );
    }
    if (options.allComponents) for (const ref of this.#componentNames!.keys()) emitter.refType(ref);
    emitter.out.push(
      `/** Every operation: its request and response types. */\ninterface Operations {\n${rows.join("")}}\n`,
    );
    return emitter.out.join("\n");
  }

  #emitter(): { emitter: SchemaEmitter; names: NameAllocator } {
    this.componentName("");
    const names = new NameAllocator(this.#componentNames!.values());
    const emitter = new SchemaEmitter({
      names,
      resolve: (ref) => this.#resolve(ref),
      // The operator's spec and this module's own request shapes (e.g. the typed `path`).
      tsType: true,
    });
    return { emitter, names };
  }

  #resolve(ref: string): ResolvedRef | undefined {
    const schema = getAtPointer(this.#root, ref);
    if (schema === undefined) return undefined;
    const fixed = this.componentName(ref);
    if (fixed) return { schema, name: fixed, fixed: true };
    const tokens = parsePointer(ref) ?? [];
    const tail = ref.startsWith(SCHEMAS) ? tokens.slice(2) : tokens.slice(-1);
    return { schema, name: toTypeName(tail.join("_")) };
  }

  #deref(value: unknown): unknown {
    let current = value;
    for (let hops = 0; hops < 16; hops++) {
      const ref =
        current && typeof current === "object" ? (current as { $ref?: unknown }).$ref : undefined;
      if (typeof ref !== "string") break;
      current = getAtPointer(this.#root, ref);
    }
    return current;
  }
}

function declareOperation(
  op: OperationLike,
  emitter: SchemaEmitter,
  names: NameAllocator,
  deref: (v: unknown) => unknown,
): OperationDeclaration {
  const shapes = operationSchemas(op, deref);
  const request = names.claim(`${shapes.base}Request`);
  const pathParams = shapes.pathParams ? names.claim(`${shapes.base}PathParams`) : undefined;
  const response = names.claim(`${shapes.base}Response`);
  const start = emitter.out.length;
  emitter.declare(request, shapes.request, shapes.doc);
  if (pathParams)
    emitter.declare(
      pathParams,
      shapes.pathParams,
      `Path parameters of \`${op.path}\` (fill them into \`path\`).`,
    );
  emitter.declare(response, shapes.response ?? { tsType: "unknown" }, shapes.responseDoc);
  const text = emitter.out.slice(start).join("\n");
  return { names: pathParams ? { request, response, pathParams } : { request, response }, text };
}
