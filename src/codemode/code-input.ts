/**
 * The input schema of the `search`, `execute` and `code` tools: one program. Built once per
 * isolate, and its JSON Schema with it: the servers are rebuilt per request, and the SDK turns
 * a tool's schema into JSON Schema per server (for `tools/list`, and for every 2026-07-28
 * `tools/call`, to look for `x-mcp-header` declarations). Zod builds that anew each time: ~3 %
 * of the host's CPU per `execute` on the local server (issue #43).
 */
import { z } from "zod";

/** The schema. Its JSON Schema (both directions, per target) is made once and kept. */
export const CODE_INPUT = stableJsonSchema(
  z.object({
    code: z
      .string()
      .describe("JavaScript (or TypeScript): an async arrow function using codemode.*"),
  }),
);

/** What Standard JSON Schema's `jsonSchema.input`/`output` take. */
type JsonSchemaOptions = { target?: string; libraryOptions?: unknown };

/**
 * `schema` with its Standard Schema surface replaced by one whose `jsonSchema.input` and
 * `.output` answer each target from a cache: the first call converts, later calls return the
 * same frozen object (read-only to every caller, as the SDK treats it).
 * @param schema - a zod schema (or any schema with Standard JSON Schema)
 */
export function stableJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema["~standard"] as z.ZodType["~standard"] & {
    jsonSchema?: Record<"input" | "output", (options?: JsonSchemaOptions) => unknown>;
  };
  const convert = standard.jsonSchema;
  if (convert === undefined) return schema;
  const cache = new Map<string, unknown>();
  const memo =
    (io: "input" | "output") =>
    (options?: JsonSchemaOptions): unknown => {
      // Library options can be functions (not a cache key): those calls are not cached.
      if (options?.libraryOptions !== undefined) return convert[io](options);
      const key = `${io} ${options?.target ?? ""}`;
      if (!cache.has(key)) cache.set(key, deepFreeze(convert[io](options)));
      return cache.get(key);
    };
  // zod keeps `~standard` as an own property when set (its setter), the rest of the schema as is.
  (schema as { "~standard": unknown })["~standard"] = {
    ...standard,
    jsonSchema: { input: memo("input"), output: memo("output") },
  };
  return schema;
}

/** `value` with every object in it frozen. */
function deepFreeze<V>(value: V): V {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
