/**
 * SDK v1 servers validate accepted elicitation answers with Ajv by default, and Ajv compiles
 * schemas with `new Function`, which deployed Workers forbid (tests inside workerd allow it,
 * so the failure would only show in production). Swap in the SDK's own `@cfworker/json-schema`
 * validator, which interprets schemas instead.
 */
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { protocolOf, type AnyMcpServer } from "../../common/server-kind";

/** The SDK v1 `Server` field holding `ServerOptions.jsonSchemaValidator` (1.32.2, pinned). */
const VALIDATOR_FIELD = "_jsonSchemaValidator";

/**
 * Replaces the default Ajv validator of an SDK v1 server with the Workers-safe one. A
 * validator the application configured itself is left alone; SDK v2 servers are unaffected.
 *
 * @param server - an SDK v1 server about to be connected
 */
export function useWorkerSafeValidator(server: AnyMcpServer): void {
  const protocol = protocolOf(server);
  const current = protocol[VALIDATOR_FIELD] as { constructor?: { name?: string } } | undefined;
  if (current?.constructor?.name !== "AjvJsonSchemaValidator") return;
  protocol[VALIDATOR_FIELD] = new CfWorkerJsonSchemaValidator();
}
