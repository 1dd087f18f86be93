/**
 * `node bench/run.mjs --only p7[,p8][,s] [--reps N] [--warm-up N]` (or `npm run bench -- --only
 * p7`): the `code` tool's rows (P7, P8) or the search-by-spec rows (S) alone, on their own
 * server, without the rest of the benchmark (about a minute for P7 at the default 60 rounds, two
 * to five for S at its default 5, instead of the full run's many minutes). Prints the rows
 * and the machine's load (`uptime`) before and after; writes nothing (the full run owns
 * bench/results/).
 */
import { loadavg } from "node:os";
import { codeToolLatency, remoteUpstreamOverhead } from "./code-latency.mjs";
import { searchBySpec } from "./search-specs.mjs";

export { codeOnlyArgs } from "./only-args.mjs";
import { markdown, tableRows } from "./report.mjs";
import { buildBenchWorker, startServer } from "./server-process.mjs";

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

/**
 * Runs the chosen phases on one fresh server and prints their rows.
 * @param {{ only: string[], reps: number, searchReps: number, warmUp: number }} args
 * @param {(line: string) => void} log
 */
export async function runCodeOnly({ only, reps, searchReps, warmUp }, log) {
  log(`bundling bench/worker.ts (code rows only: ${only.join(", ")})`);
  const built = await buildBenchWorker();
  const server = await startServer({ label: "code", dir: built.dir });
  const results = { p7: undefined, p8: undefined, searchBySpec: undefined };
  const loads = { before: load() };
  try {
    log(`server ready in ${server.readyMs} ms; load average ${loads.before}`);
    if (only.includes("p7"))
      results.p7 = await codeToolLatency(server.base, {
        reps,
        warmUp,
        toolCounts: [5, 50],
        log,
      });
    if (only.includes("p8"))
      results.p8 = await remoteUpstreamOverhead(server.base, {
        reps,
        warmUp: Math.min(warmUp, 3),
        delayMs: 50,
        log,
      });
    if (only.includes("s"))
      results.searchBySpec = await searchBySpec(server.base, { reps: searchReps, log });
  } finally {
    await server.stop();
    built.remove();
  }
  loads.after = load();
  console.log(`\n${markdown(tableRows(results), undefined)}\n`);
  for (const [name, rows] of Object.entries(results)) {
    if (!rows) continue;
    for (const [key, v] of Object.entries(rows)) {
      if (typeof v !== "object") continue;
      const parts = Object.entries(v)
        .filter(([, s]) => typeof s === "object" && s !== null && "p50" in s)
        .map(([side, s]) => `${side} p50 ${s.p50} p95 ${s.p95} min ${s.min} n ${s.n}`);
      console.log(`${name} ${key}: ${parts.join(" | ")}`);
    }
  }
  console.log(
    `\n${only.includes("s") ? `S: ${searchReps} rounds of 5 programs per spec; ` : ""}${only.some((p) => p !== "s") ? `${reps} timed rounds after ${warmUp} warm-up; ` : ""}load average (1, 5, 15 min) before ${loads.before}, after ${loads.after}`,
  );
}
