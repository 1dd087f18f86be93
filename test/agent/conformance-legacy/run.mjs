/**
 * The per-request legacy handler conformance lane: serves `worker.ts` (the everything fixture,
 * a new server and createLegacyMcpHandler per request, no storage) with `wrangler dev`, runs
 * @modelcontextprotocol/conformance 0.1.16 (2025 revisions) against it, the active suite and then the pending one, prints the pass counts and
 * stops the Worker. Exits non-zero when a scenario of the active suite fails outside
 * expected-failures.yaml (the four push scenarios, impossible in a plain Worker).
 *
 * Run with `npx node test/agent/conformance-legacy/run.mjs` (Node 22 from node_modules). Not part of
 * `npm test`: it needs a local server.
 */
import { run2025Lane } from "../../conformance/lane-runner.mjs";

await run2025Lane({
  title: "per-request legacy handler lane",
  config: "test/agent/conformance-legacy/wrangler.jsonc",
  port: Number(process.env.LEGACY_CONFORMANCE_PORT ?? 8798),
  expectedFailures: "test/agent/conformance-legacy/expected-failures.yaml",
});
