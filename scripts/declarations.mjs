// Build step (Node): writes TypeScript declarations for a whole spec with json-schema-to-typescript
// (Node only: prettier inside it does not run in workerd). Same policy as the run-time emitter
// (src/declarations): the names come from the same code (component names in key order, operation
// types `<OperationId>Request` / `PathParams` / `Response`), the shapes from the same request /
// response schemas (`operationSchemas`), and object types get an index signature only when
// `additionalProperties` says so.
//
// Usage: npm run declarations -- <spec file> [--out <file.d.ts>]   (default: stdout)
import { compile } from "json-schema-to-typescript";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { importTs } from "./import-ts.mjs";
import { loadSpecFile } from "./load-spec-file.mjs";

const args = process.argv.slice(2);
let out;
let input;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out") out = resolve(args[++i] ?? "");
  else input = resolve(String(args[i]));
}
if (!input) {
  console.error("Usage: npm run declarations -- <spec file> [--out <file.d.ts>]");
  process.exit(1);
}

const { compileSpec } = await importTs("src/openapi/compile-spec.ts");
const { findSpecProblems } = await importTs("src/openapi/check-spec.ts");
const { SpecDeclarations } = await importTs("src/declarations/spec-declarations.ts");
const { operationSchemas } = await importTs("src/declarations/operation-schemas.ts");
const { NameAllocator } = await importTs("src/declarations/type-name.ts");

const loaded = await loadSpecFile(input, findSpecProblems);
if (!loaded.ok) {
  console.error(loaded.message);
  process.exit(1);
}
const compact = compileSpec(loaded.doc, { label: input });
const namer = new SpecDeclarations(compact);
const SCHEMAS = "#/components/schemas/";

/** Follows refs of parameters, bodies and responses (schemas stay refs: they become names). */
/** @param {any} value @returns {any} */
const deref = (value) => {
  let current = value;
  for (let hops = 0; hops < 16 && current && typeof current.$ref === "string"; hops++) {
    const tokens = current.$ref
      .slice(2)
      .split("/")
      .map((/** @type {string} */ t) =>
        decodeURIComponent(t).replaceAll("~1", "/").replaceAll("~0", "~"),
      );
    current = tokens.reduce(
      (/** @type {any} */ node, /** @type {string} */ t) => (node == null ? node : node[t]),
      compact,
    );
  }
  return current;
};

/** Rewrites a schema for json-schema-to-typescript: refs to definitions, OpenAPI 3.0 nullable, titles. */
/** @param {any} node @returns {any} */
const convert = (node) => {
  if (Array.isArray(node)) return node.map(convert);
  if (!node || typeof node !== "object") return node;
  // Siblings of a $ref would make json-schema-to-typescript declare a merged copy (`Pet2`).
  if (typeof node.$ref === "string") return { $ref: rewriteRef(node.$ref) };
  /** @type {Record<string, any>} */
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "title" || key === "nullable" || key === "example" || key === "examples") continue;
    if (key === "$ref" && typeof value === "string") copy.$ref = rewriteRef(value);
    else if (key === "enum" || key === "const" || key === "default" || key === "tsType")
      copy[key] = value;
    else copy[key] = convert(value);
  }
  // The run-time emitter gives an object that declares nothing an index signature; say so here.
  const isObject = copy.type === "object" || (copy.type === undefined && copy.properties);
  if (
    isObject &&
    !copy.properties &&
    copy.additionalProperties === undefined &&
    !copy.patternProperties
  )
    copy.additionalProperties = true;
  if (node.nullable === true) return { anyOf: [copy, { type: "null" }] };
  return copy;
};

/** @param {string} ref */
const rewriteRef = (ref) => {
  if (!ref.startsWith(SCHEMAS)) return ref;
  const rest = ref.slice(SCHEMAS.length).split("/");
  const name = namer.componentName(SCHEMAS + rest[0]);
  return name ? ["#/definitions", name, ...rest.slice(1)].join("/") : ref;
};

/** @type {Record<string, any>} */
const definitions = {};
for (const key of Object.keys(compact.components.schemas ?? {}).toSorted()) {
  const name = namer.componentName(SCHEMAS + key.replaceAll("~", "~0").replaceAll("/", "~1"));
  const schema = convert(compact.components.schemas[key]);
  definitions[name] = { ...(schema && typeof schema === "object" ? schema : {}), title: name };
}
const names = new NameAllocator(Object.keys(definitions));
/** @type {Record<string, any>} */
const rows = {};
for (const op of compact.operations) {
  const shapes = operationSchemas(op, deref);
  const request = names.claim(`${shapes.base}Request`);
  const pathParams = shapes.pathParams ? names.claim(`${shapes.base}PathParams`) : undefined;
  const response = names.claim(`${shapes.base}Response`);
  definitions[request] = { ...convert(shapes.request), title: request, description: shapes.doc };
  if (pathParams)
    definitions[pathParams] = {
      ...convert(shapes.pathParams),
      title: pathParams,
      description: `Path parameters of \`${op.path}\` (fill them into \`path\`).`,
    };
  definitions[response] = {
    ...(shapes.response ? convert(shapes.response) : { tsType: "unknown" }),
    title: response,
    ...(shapes.responseDoc ? { description: shapes.responseDoc } : {}),
  };
  rows[op.operationId ?? `${op.method.toUpperCase()} ${op.path}`] = {
    type: "object",
    properties: {
      request: { $ref: `#/definitions/${request}` },
      response: { $ref: `#/definitions/${response}` },
    },
    required: ["request", "response"],
    additionalProperties: false,
  };
}
/** @type {any} */
const root = {
  title: "Operations",
  description: "Every operation: its request and response types.",
  type: "object",
  properties: rows,
  required: Object.keys(rows),
  additionalProperties: false,
  definitions,
};
const text = await compile(root, "Operations", {
  bannerComment: `/* Generated by scripts/declarations.mjs from ${input.split("/").pop()}. Do not edit. */`,
  additionalProperties: false,
  unreachableDefinitions: true,
  declareExternallyReferenced: true,
  strictIndexSignatures: false,
  unknownAny: true,
  format: true,
  style: { printWidth: 100 },
});
if (out) {
  await writeFile(out, text);
  console.log(
    `declarations: wrote ${out} (${compact.operations.length} operations, ${text.length} bytes)`,
  );
} else process.stdout.write(text);
