/**
 * `node bench/run.mjs --only p7[,p8] [--reps N] [--warm-up N]` (or `npm run bench -- --only p7`):
 * the `code` tool's rows alone, on their own server, without the rest of the benchmark (about a
 * minute for P7 at the default 60 rounds instead of the full run's many minutes). Prints the rows
 * and the machine's load (`uptime`) before and after; writes nothing (the full run owns
 * bench/results/).
 */
import { loadavg } from "node:os";
import { codeToolLatency, remoteUpstreamOverhead } from "./code-latency.mjs";
import { markdown, tableRows } from "./report.mjs";
import { buildBenchWorker, startServer } from "./server-process.mjs";

/** The phases `--only` accepts. */
const PHASES = new Set(["p7", "p8"]);

/**
 * Reads `--only`, `--reps` and `--warm-up` from `argv`.
 * @param {string[]} argv
 * @returns {{ only: string[], reps: number, warmUp: number } | undefined} undefined without `--only`
 * @throws Error naming the bad flag value and what to give instead
 */
export function codeOnlyArgs(argv) {
  const value = (flag) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv[i + 1];
  };
  const only = value("--only");
  if (only === undefined) return undefined;
  const phases = only.split(",").map((p) => p.trim().toLowerCase());
  const unknown = phases.filter((p) => !PHASES.has(p));
  if (unknown.length > 0 || phases.length === 0)
    throw new Error(`--only takes p7, p8 or p7,p8 (got "${only}")`);
  const count = (flag, fallback) => {
    const raw = value(flag);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`${flag} takes a whole number (got "${raw}")`);
    return n;
  };
  return {
    only: phases,
    reps: count("--reps", 60),
    warmUp: count("--warm-up", 5),
  };
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

/**
 * Runs the chosen phases on one fresh server and prints their rows.
 * @param {{ only: string[], reps: number, warmUp: number }} args
 * @param {(line: string) => void} log
 */
export async function runCodeOnly({ only, reps, warmUp }, log) {
  log(`bundling bench/worker.ts (code rows only: ${only.join(", ")})`);
  const built = await buildBenchWorker();
  const server = await startServer({ label: "code", dir: built.dir });
  const results = { p7: undefined, p8: undefined };
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
    `\n${reps} timed rounds after ${warmUp} warm-up; load average (1, 5, 15 min) before ${loads.before}, after ${loads.after}`,
  );
}
