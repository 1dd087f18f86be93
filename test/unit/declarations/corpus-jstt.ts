/**
 * json-schema-to-typescript's declaration of one schema, as the build-time script
 * (scripts/tool-declarations.mjs) made it before it switched to the run-time emitter: the second,
 * independent derivation the corpus compares the emitter with.
 */
import { compile } from "json-schema-to-typescript";

/**
 * Declares `schema` as type `name` (plus the named types of its definitions), wrapped in a
 * namespace so its names never meet the emitter's.
 * @param schema - a tool's input or output schema
 * @param name - the type name
 * @param namespace - the namespace to wrap the declarations in
 */
export async function jsttDeclarations(
  schema: unknown,
  name: string,
  namespace: string,
): Promise<string> {
  const copy: Record<string, unknown> = {
    ...(openEmptyObjects(structuredClone(schema)) as Record<string, unknown>),
    title: name,
  };
  if (copy.$defs && !copy.definitions) copy.definitions = copy.$defs;
  const text = await compile(copy as never, name, {
    bannerComment: "",
    additionalProperties: false,
    format: false,
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
  });
  return `namespace ${namespace} {\n${text}\n}`;
}

/**
 * The build-time script ran json-schema-to-typescript with `additionalProperties: false`, which
 * also closes objects that declare no keys at all (`{ type: "object" }` became `{}`, admitting
 * no key), while such a schema admits any key. Corrected here once for the whole corpus.
 */
function openEmptyObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openEmptyObjects);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, openEmptyObjects(v)]),
  ) as Record<string, unknown>;
  const props = out.properties as Record<string, unknown> | undefined;
  const declaresKeys = props && typeof props === "object" && Object.keys(props).length > 0;
  if (
    (out.type === "object" || (out.type === undefined && props !== undefined)) &&
    !declaresKeys &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined
  )
    out.additionalProperties = true;
  return out;
}
