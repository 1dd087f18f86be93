/**
 * The McpAgent conformance lane: the same "everything" fixture as the stateless lane
 * (test/conformance), registered on an SDK v2 server inside an McpAgent, served at `/mcp` by
 * `wrangler dev -c test/agent/conformance/wrangler.jsonc`. 2025-era push requests come from the
 * SDK's own shim, which answers the fixture's `inputRequired(...)` tools with server-to-client
 * requests on sessionful connections.
 */
import { createRequestStateSealer, McpAgent } from "../../../src/index";
import { fixtureServer, registerEverything } from "../../conformance/everything-server";

/** Test-only sealing key: the fixture has no secrets and runs locally. */
const FIXTURE_STATE_KEY = "conformance-agent-request-state-key-not-a-secret";

/** One session of the conformance fixture. */
export class ConformanceAgent extends McpAgent {
  server = fixtureServer("code-mode-mcp-agent-conformance");

  /** A `retry:` hint on priming events, checked by `server-sse-polling` (with the fixture's `test_reconnection`). */
  override retryIntervalMs = 500;

  async init() {
    registerEverything(this.server, createRequestStateSealer({ key: FIXTURE_STATE_KEY }));
  }
}

export default ConformanceAgent.serve("/mcp", { binding: "CONFORMANCE_AGENT" });
