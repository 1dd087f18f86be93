/**
 * Sandbox extension for OpenAPI search: `codemode.spec()` answers inside the isolate, from the
 * compact spec shipped with the run, so a search program can walk thousands of operations
 * without a host round trip per read. `$ref`s resolve lazily on first read and are memoized;
 * cycles read as `{ $circular: "#/components/schemas/X" }` (see src/openapi/lazy-view.ts).
 * The JSON is parsed only when the code first calls `spec()`.
 */
import { OpenApiSpec } from "../../src/openapi/open-api-spec";
import type { CompactSpec } from "../../src/openapi/types";

/**
 * Adds `spec()` to a namespace object.
 * @param api - the namespace (e.g. `codemode`), still unfrozen
 * @param data - the compact spec as JSON text
 */
export function install(api: Record<string, unknown>, data: string): void {
  let document: unknown;
  api["spec"] = async () => {
    document ??= new OpenApiSpec(JSON.parse(data) as CompactSpec).document();
    return document;
  };
}
