/**
 * The McpAgent conformance lane: the same "everything" fixture as the stateless lane
 * (test/conformance), registered on an SDK v2 server inside an McpAgent, served at `/mcp` by
 * `wrangler dev -c test/agent/conformance/wrangler.jsonc`. 2025-era push requests come from the
 * SDK's own shim, which answers the fixture's `inputRequired(...)` tools with server-to-client
 * requests on sessionful connections.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createRequestStateSealer, McpAgent } from "../../../src/index";
import {
  registerContentTools,
  registerPrompts,
  registerResources,
} from "../../conformance/content-fixtures";
import { registerInputTools } from "../../conformance/input-fixtures";

/** Test-only sealing key: the fixture has no secrets and runs locally. */
const FIXTURE_STATE_KEY = "conformance-agent-request-state-key-not-a-secret";

/** One session of the conformance fixture. */
export class ConformanceAgent extends McpAgent {
  server = new McpServer(
    { name: "code-mode-mcp-agent-conformance", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );

  /** A `retry:` hint on priming events, checked by `server-sse-polling` (with the fixture's `test_reconnection`). */
  override retryIntervalMs = 500;

  async init() {
    registerContentTools(this.server);
    registerResources(this.server);
    registerPrompts(this.server);
    registerInputTools(this.server, {
      codec: createRequestStateSealer({ key: FIXTURE_STATE_KEY }),
    });
  }
}

export default ConformanceAgent.serve("/mcp", { binding: "CONFORMANCE_AGENT" });
