/**
 * `npm run conformance`: serves the fixture Worker with `wrangler dev`, runs both official
 * conformance lanes against it with their expected-failures files, prints the pass counts, and
 * stops the Worker. Exits non-zero when a lane fails outside its expected failures.
 *
 * Lanes:
 * - legacy: @modelcontextprotocol/conformance 0.1.16, 2025 revisions, stateless legacy lane;
 * - modern: 0.2.0-alpha.12 with `--requirements 2026-07-28` (the frozen required set, plus the
 *   optional extension and pending scenarios it also runs, reported separately).
 *
 * Not part of `npm test`: it needs a local server and takes about a minute.
 */
import { runCli, startWorker, summaryRows } from "./lane-runner.mjs";

const port = Number(process.env.CONFORMANCE_PORT ?? 8791);
const url = `http://localhost:${port}/mcp`;

const lanes = [
  {
    name: "legacy (2025 revisions, conformance 0.1.16)",
    bin: "node_modules/conformance-2025/dist/index.js",
    args: ["--expected-failures", "test/conformance/expected-failures.legacy.yaml"],
  },
  {
    name: "modern (2026-07-28, conformance 0.2.0-alpha.12)",
    bin: "node_modules/conformance-2026/dist/index.js",
    required: ["list", "--server", "--requirements", "2026-07-28"],
    args: [
      "--requirements",
      "2026-07-28",
      "--expected-failures",
      "test/conformance/expected-failures.modern.yaml",
    ],
  },
];

let exitCode = 0;
const worker = await startWorker("test/conformance/wrangler.jsonc", port);
try {
  const summaries = [];
  for (const lane of lanes) {
    console.log(`\n=== conformance lane: ${lane.name} ===`);
    const { code, output } = await runCli(lane.bin, ["server", "--url", url, ...lane.args]);
    const required = lane.required
      ? listed((await runCli(lane.bin, lane.required, false)).output)
      : [];
    summaries.push({ lane: lane.name, code, ...count(output, required) });
    if (code !== 0) exitCode = 1;
  }
  console.log("\n=== conformance pass counts ===");
  for (const s of summaries) {
    const scored = s.required > 0 ? `; required set ${s.requiredPassed}/${s.required} clean` : "";
    console.log(
      `${s.lane}: ${s.passed}/${s.total} scenarios clean${scored}; ${s.checks} checks passed; ` +
        `baseline ${s.code === 0 ? "ok" : "FAILED"}`,
    );
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  worker.stop();
}
process.exit(exitCode);

/**
 * The server scenario names a `list --server` call printed.
 * @param {string} output
 * @returns {string[]}
 */
function listed(output) {
  const server = output.slice(
    output.indexOf("Server scenarios"),
    output.indexOf("Client scenarios"),
  );
  return [...server.matchAll(/^\s+- (\S+)/gm)].map((m) => String(m[1]));
}

/**
 * Scenario and check counts of one lane, with the required set counted separately.
 * @param {string} output
 * @param {string[]} required
 */
function count(output, required) {
  const rows = summaryRows(output);
  const requiredRows = rows.filter((row) => required.includes(row.name));
  return {
    total: rows.length,
    passed: rows.filter((row) => row.clean).length,
    checks: rows.reduce((sum, row) => sum + row.checks, 0),
    required: requiredRows.length,
    requiredPassed: requiredRows.filter((row) => row.clean).length,
  };
}
