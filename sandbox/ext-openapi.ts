/**
 * Sandbox extension for OpenAPI search (shipped as `ext-openapi.js`): `codemode.spec()` answers
 * inside the isolate, from the compact spec shipped with the run, so a search program can walk
 * thousands of operations without a host round trip per read. `$ref`s resolve lazily on first
 * read and are memoized; refs within a cycle group read as `{ $circular: "#/components/schemas/X" }`
 * (see src/openapi/lazy-view.ts). Nothing is decoded before the code calls `spec()`, and then only what it reads.
 *
 * Every read of a lazy value counts against the run's operation budget, so a program that
 * serializes an enormous spec is stopped like a runaway loop instead of holding the isolate.
 */
import { OpenApiSpec } from "../src/openapi/openapi-spec";
import { openPackedSpec } from "../src/openapi/spec-pack";
import type { CompactSpec } from "../src/openapi/types";
import { WHOLE_SPEC_NEEDED } from "./protocol";
import { LimitError, stop, t } from "./runtime.js";

/**
 * Adds `spec()` to a namespace object.
 * @param api - the namespace (e.g. `codemode`), still unfrozen
 * @param data - the packed spec (bytes), its index part, or the compact spec as JSON text
 * @param end - ends the run (the harness's); called when a program reads past an index part,
 *   so that the host runs it again with the whole spec (see `WHOLE_SPEC_NEEDED`)
 */
export function install(
  api: Record<string, unknown>,
  data: string | Uint8Array,
  // The harness's `EndRun` (harness-shared.ts, which imports this module: no import back).
  end: (message: string) => never = stopHere,
): void {
  const missing = (): never => end(WHOLE_SPEC_NEEDED);
  let document: unknown;
  api["spec"] = async () => {
    if (document === undefined) {
      if (typeof data === "string") {
        document = new OpenApiSpec(JSON.parse(data) as CompactSpec).document(t);
      } else {
        // Packed (src/openapi/spec-pack.ts): only what the program reads is decoded.
        document = openPackedSpec(data, t, missing);
      }
    }
    return document;
  };
}

/** Without the harness's end (the engine's guest): the budget stops the program at its next tick. */
function stopHere(message: string): never {
  stop(message);
  throw new LimitError(message);
}
