/**
 * The per-request legacy handler conformance lane: the seed's legacy Worker shape (a new server
 * and `createLegacyMcpHandler` in every `fetch`, no `storage`) over the same "everything"
 * fixture as the other lanes, served at `/mcp` by
 * `wrangler dev -c test/agent/conformance-legacy/wrangler.jsonc`.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createLegacyMcpHandler, createRequestStateSealer } from "../../../src/index";
import {
  registerContentTools,
  registerPrompts,
  registerResources,
} from "../../conformance/content-fixtures";
import { registerInputTools } from "../../conformance/input-fixtures";

/** Test-only sealing key: the fixture has no secrets and runs locally. */
const FIXTURE_STATE_KEY = "conformance-legacy-request-state-key-not-a-secret";

/** A fresh fixture server, as the seed's `createServer()`. */
function createServer() {
  const server = new McpServer(
    { name: "code-mode-mcp-legacy-conformance", version: "1.0.0" },
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
  registerContentTools(server);
  registerResources(server);
  registerPrompts(server);
  registerInputTools(server, { codec: createRequestStateSealer({ key: FIXTURE_STATE_KEY }) });
  return server;
}

export default {
  fetch: (request: Request, env: unknown, ctx: ExecutionContext) =>
    createLegacyMcpHandler(createServer())(request, env, ctx),
};
