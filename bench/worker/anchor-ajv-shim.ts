/**
 * Makes `@cloudflare/codemode`'s `codeMcpServer` run at all in workerd. Its internal SDK v1
 * `Client` uses the default Ajv validator, which compiles tool output schemas with
 * `new Function` on `listTools()`; workerd forbids that ("EvalError: Code generation from
 * strings disallowed"), so with the benchmark's fixtures (tools with output schemas) the anchor
 * fails every request. Recorded as a finding in bench/README.md; to measure it anyway, the
 * benchmark Worker routes Ajv's `getValidator` to the SDK's interpreting `@cfworker` validator.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

const workerSafe = new CfWorkerJsonSchemaValidator();

/** Patches the SDK v1 Ajv validator once (idempotent). */
export function installAnchorAjvShim(): void {
  AjvJsonSchemaValidator.prototype.getValidator = function getValidator(schema) {
    return workerSafe.getValidator(schema);
  };
}
