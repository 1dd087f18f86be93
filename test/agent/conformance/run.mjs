/**
 * The McpAgent conformance lane: serves `worker.ts` (the everything fixture inside an
 * McpAgent) with `wrangler dev`, runs @modelcontextprotocol/conformance 0.1.16 (2025
 * revisions) against it, the active suite and then the pending one, prints the pass counts and
 * stops the Worker. Exits non-zero when a scenario of the active suite fails.
 *
 * Run with `npx node test/agent/conformance/run.mjs` (Node 22 from node_modules). Not part of
 * `npm test`: it needs a local server.
 */
import { run2025Lane } from "../../conformance/lane-runner.mjs";

await run2025Lane({
  title: "McpAgent lane",
  config: "test/agent/conformance/wrangler.jsonc",
  port: Number(process.env.AGENT_CONFORMANCE_PORT ?? 8796),
});
