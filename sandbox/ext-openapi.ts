/**
 * Sandbox extension for OpenAPI search (shipped as `ext-openapi.js`): `codemode.spec()` answers
 * inside the isolate, from the compact spec shipped with the run, so a search program can walk
 * thousands of operations without a host round trip per read. `$ref`s resolve lazily on first
 * read and are memoized; refs within a cycle group read as `{ $circular: "#/components/schemas/X" }`
 * (see src/openapi/lazy-view.ts). The JSON is parsed only when the code first calls `spec()`.
 *
 * Every read of a lazy value counts against the run's operation budget, so a program that
 * serializes an enormous spec is stopped like a runaway loop instead of holding the isolate.
 */
import { OpenApiSpec } from "../src/openapi/open-api-spec";
import type { CompactSpec } from "../src/openapi/types";
import { t } from "./runtime.js";

/**
 * Adds `spec()` to a namespace object.
 * @param api - the namespace (e.g. `codemode`), still unfrozen
 * @param data - the compact spec as JSON text
 */
export function install(api: Record<string, unknown>, data: string): void {
  let document: unknown;
  api["spec"] = async () => {
    document ??= new OpenApiSpec(JSON.parse(data) as CompactSpec).document(t);
    return document;
  };
}
