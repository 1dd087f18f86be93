/**
 * Run history cost (#17): does recording every run grow a run's latency? Two `npm start`
 * products side by side, one with the run history on (the default) and one with `RUNS=off`,
 * the same `execute` program (three demo API requests) alternating between them so both see the
 * same machine noise, in two rounds with the roles swapped between the server slots;
 * client-side latency per call, p50 and p95 of each.
 *
 * Used by bench/run.mjs (full run) and on its own: `node bench/driver/runs-latency.mjs [reps] [--aa]`.
 * `--aa` runs both slots with `RUNS=off` (an A/A run): its ratio is the noise floor of the
 * machine, to read the A/B ratio against.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { fileURLToPath } from "node:url";
import { startServer } from "../../test/e2e/support/server.mjs";
import { p50, p95, ratio, round1 } from "./stats.mjs";

const PROGRAM = `async () => {
  const projects = await codemode.request({ method: "GET", path: "/projects" });
  const tasks = await codemode.request({ method: "GET", path: "/tasks" });
  const one = await codemode.request({ method: "GET", path: "/projects/1" });
  return { projects: projects.length, tasks: tasks.length, name: one.name };
}`;

/**
 * Calls a side by default (two rounds of half each). On a shared 2-core machine (load 4-5) A/A
 * runs (`--aa`) of 60 calls put the two p50s up to 6.5% apart and their paired difference
 * up to 3.7 ms, too close to the 10% under test; at 200 the p50s stayed within 3% and the paired
 * difference within 1 ms. The phase then takes ~30-40 s instead of ~20-30 s (two server starts
 * dominate).
 */
const DEFAULT_REPS = 200;

/**
 * @param {string} url
 * @returns {Promise<Client>}
 */
async function connect(url) {
  const client = new Client(
    { name: "bench-runs", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/**
 * Measures execute latency with the run history on and off.
 * @param {{ reps?: number, aa?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<{ reps: number, aa: boolean, seconds: number, pairedDeltaP50: number | null, on: { p50: number | null, p95: number | null }, off: { p50: number | null, p95: number | null }, recorded: number }>}
 */
export async function runsLatency(options = {}) {
  const reps = options.reps ?? DEFAULT_REPS;
  const aa = options.aa ?? false;
  const phaseStarted = performance.now();
  const log = options.log ?? (() => {});
  /** @type {{ on: number[], off: number[] }} */
  const times = { on: [], off: [] };
  let recorded = 0;
  // Two rounds with the roles swapped between the two server slots: an A/A run (both off)
  // showed one slot ~10 ms slower than the other on a loaded machine, which must cancel out.
  for (const roles of /** @type {const} */ ([
    ["on", "off"],
    ["off", "on"],
  ])) {
    const servers = await Promise.all(
      roles.map((role) => startServer(role === "on" && !aa ? {} : { RUNS: "off" })),
    );
    const url = (/** @type {"on" | "off"} */ side) => servers[roles.indexOf(side)].url;
    try {
      const clients = { on: await connect(url("on")), off: await connect(url("off")) };
      const once = async (/** @type {"on" | "off"} */ side) => {
        const started = performance.now();
        const result = await clients[side].callTool({
          name: "execute",
          arguments: { code: PROGRAM },
        });
        if (result.isError)
          throw new Error(`runs bench: execute failed: ${JSON.stringify(result)}`);
        return performance.now() - started;
      };
      for (let i = 0; i < 5; i++) await Promise.all([once("on"), once("off")]);
      for (let i = 0; i < Math.ceil(reps / 2); i++) {
        // Alternate who goes first, one call at a time: both sides see the same noise.
        for (const side of /** @type {const} */ (i % 2 ? ["on", "off"] : ["off", "on"]))
          times[side].push(await once(side));
      }
      await Promise.all([clients.on.close(), clients.off.close()]);
      if (!aa) recorded += await countRuns(url("on"));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }
  const stats = (/** @type {number[]} */ v) => ({ p50: round1(p50(v)), p95: round1(p95(v)) });
  const result = {
    reps: times.on.length,
    aa,
    seconds: round1((performance.now() - phaseStarted) / 1000),
    on: stats(times.on),
    off: stats(times.off),
    // Each on call next to the off call made right before or after it: the median of their
    // differences is steadier than the difference of the two medians when the load drifts.
    pairedDeltaP50: round1(p50(times.on.map((t, i) => t - times.off[i]))),
    recorded,
  };
  log(
    `runs${aa ? " (A/A: both RUNS=off)" : ""}: execute p50 ${result.on.p50} ms ${aa ? "slot A" : "recorded"} vs ${result.off.p50} ms RUNS=off, paired difference p50 ${result.pairedDeltaP50} ms, ${result.reps} calls a side in ${result.seconds} s`,
  );
  return result;
}

/**
 * The table rows: recorded (in the `ours` column) vs RUNS=off (in the `anchor` column).
 * @param {Awaited<ReturnType<typeof runsLatency>> | undefined} r
 */
export function runsRows(r) {
  if (!r) return [];
  const row = (/** @type {"p50" | "p95"} */ q) => ({
    metric: `R execute ${q} ms, run history on (ours) vs RUNS=off (anchor column), ${r.reps} alternating calls`,
    ours: r.on[q],
    anchor: r.off[q],
    ratio: ratio(r.on[q] ?? Number.NaN, r.off[q] ?? Number.NaN),
    target: "ratio ≤ 1.1",
    met: r.on[q] !== null && r.off[q] !== null ? r.on[q] <= r.off[q] * 1.1 : null,
  });
  return [row("p50"), row("p95")];
}

/**
 * Every recorded `execute` run of a server, page by page (a page holds at most 200).
 * @param {string} url
 */
async function countRuns(url) {
  let count = 0;
  let cursor = "";
  do {
    const page = await (
      await fetch(`${url}/api/runs?limit=200&tool=execute${cursor && `&cursor=${cursor}`}`)
    ).json();
    count += page.runs.length;
    cursor = page.nextCursor ?? "";
  } while (cursor);
  return count;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const reps = Number(args.find((a) => !a.startsWith("--")) ?? DEFAULT_REPS);
  const result = await runsLatency({ reps, aa: args.includes("--aa"), log: console.log });
  console.log(JSON.stringify(result));
  console.table(runsRows(result));
}
