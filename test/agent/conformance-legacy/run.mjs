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
import { runCli, startWorker, summaryRows } from "../../conformance/lane-runner.mjs";

const port = Number(process.env.LEGACY_CONFORMANCE_PORT ?? 8798);
const url = `http://localhost:${port}/mcp`;
const suite = "node_modules/conformance-2025/dist/index.js";

let exitCode = 0;
const worker = await startWorker("test/agent/conformance-legacy/wrangler.jsonc", port);
try {
  const results = [];
  for (const name of ["active", "pending"]) {
    console.log(`\n=== per-request legacy handler lane, conformance 0.1.16, ${name} suite ===`);
    const { code, output } = await runCli(suite, [
      "server",
      "--url",
      url,
      "--suite",
      name,
      "--expected-failures",
      "test/agent/conformance-legacy/expected-failures.yaml",
    ]);
    const rows = summaryRows(output);
    results.push({
      name,
      total: rows.length,
      clean: rows.filter((row) => row.clean).length,
      checks: rows.reduce((sum, row) => sum + row.checks, 0),
    });
    if (name === "active" && code !== 0) exitCode = 1;
  }
  console.log("\n=== per-request legacy handler lane pass counts ===");
  for (const r of results) {
    console.log(`${r.name}: ${r.clean}/${r.total} scenarios clean, ${r.checks} checks passed`);
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  worker.stop();
}
process.exit(exitCode);
