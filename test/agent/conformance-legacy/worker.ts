/**
 * The per-request legacy handler conformance lane: the seed's legacy Worker shape (a new server
 * and `createLegacyMcpHandler` in every `fetch`, no `storage`) over the same "everything"
 * fixture as the other lanes, served at `/mcp` by
 * `wrangler dev -c test/agent/conformance-legacy/wrangler.jsonc`.
 */
import { createLegacyMcpHandler, createRequestStateSealer } from "../../../src/index";
import { fixtureServer, registerEverything } from "../../conformance/everything-server";

/** Test-only sealing key: the fixture has no secrets and runs locally. */
const FIXTURE_STATE_KEY = "conformance-legacy-request-state-key-not-a-secret";

/** A fresh fixture server, as the seed's `createServer()`. */
function createServer() {
  return registerEverything(
    fixtureServer("code-mode-mcp-legacy-conformance"),
    createRequestStateSealer({ key: FIXTURE_STATE_KEY }),
  );
}

export default {
  fetch: (request: Request, env: unknown, ctx: ExecutionContext) =>
    createLegacyMcpHandler(createServer())(request, env, ctx),
};
