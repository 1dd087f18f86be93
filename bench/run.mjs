/**
 * `npm run bench [-- --quick]`: ours vs `@cloudflare/codemode` in local workerd, same spec, same
 * mock upstream, same tool fixtures, same machine, same run. Prints the table; a full run writes
 * bench/results/<date>.json and .md. Every server it starts is stopped (process groups), and a
 * hard deadline ends the run whatever happens.
 *
 * Processes (Miniflare hosts, see driver/serve-worker.mjs): (1) the main server: P6 for ours on the fresh workerd, then P1–P5 interleaved, then
 * our robustness probes; (2) a fresh one for the anchor: P6 on the fresh workerd, its probes, and
 * last `while(true){}`, which hangs that workerd (then killed); (3) one more for `for(;;){}`.
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg, release, totalmem } from "node:os";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { codeDescription, toolsListTokens } from "./driver/context.mjs";
import { codeToolLatency, remoteUpstreamOverhead } from "./driver/code-latency.mjs";
import { codeOnlyArgs, runCodeOnly } from "./driver/code-only.mjs";
import { costMarkdown, costModel } from "./driver/cost.mjs";
import { executeCost, searchLatency } from "./driver/latency.mjs";
import { markdown, tableRows } from "./driver/report.mjs";
import { PROBES, RUNAWAY, runProbe } from "./driver/robustness.mjs";
import { searchBySpec, searchMemory } from "./driver/search-specs.mjs";
import { mixedLoad } from "./driver/throughput.mjs";
import { runsLatency, runsRows } from "./driver/runs-latency.mjs";
import { skillsLatency, skillsRows } from "./driver/skills-latency.mjs";
import { localRows, localServerRows } from "./driver/local/local-server.mjs";
import { cpuPerCall, cpuRows } from "./driver/local/cpu-per-call.mjs";
import { localMemory, memoryRows } from "./driver/local/local-memory.mjs";
import { stdioLaunches, stdioRows } from "./driver/local/stdio-launch.mjs";
import { buildBenchWorker, healthy, startServer } from "./driver/server-process.mjs";

const quick = process.argv.includes("--quick");
// `--local`: the local server's rows alone (L1–L3, driver/local/local-server.mjs).
if (process.argv.includes("--local")) {
  const t0 = Date.now();
  const rows = await localServerRows({ reps: 200, windowMs: 10_000 }, (line) =>
    console.log(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(3)}s] ${line}`),
  );
  console.log(`\n${markdown(localRows(rows), undefined)}\n`);
  process.exit(0);
}
// `--lean`: issue #43's local rows alone (C, M, I: leanRows below), on their own servers.
if (process.argv.includes("--lean")) {
  const t0 = Date.now();
  const lean = await leanRows((line) =>
    console.log(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(3)}s] ${line}`),
  );
  console.log(
    `\n${markdown([...cpuRows(lean.cpu), ...memoryRows(lean.memory), ...stdioRows(lean.stdio)], undefined)}\n`,
  );
  process.exit(0);
}
// `--only p7` (and/or p8): the `code` rows alone, on their own server (driver/code-only.mjs).
const codeOnly = codeOnlyArgs(process.argv.slice(2));
if (codeOnly) {
  const t0 = Date.now();
  await runCodeOnly(codeOnly, (line) =>
    console.log(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(3)}s] ${line}`),
  );
  process.exit(0);
}
const config = quick
  ? {
      toolCounts: [5],
      searchPrograms: 2,
      searchReps: 1,
      executeReps: 1,
      concurrency: [4],
      windowMs: 3_000,
      p6WindowMs: 0,
      anchorProbes: false,
      probeTimeoutMs: 45_000,
      code: { reps: 2, toolCounts: [5], delayMs: 50 },
    }
  : {
      toolCounts: [5, 50, 500],
      searchPrograms: 5,
      searchReps: 5,
      executeReps: 5,
      concurrency: [1, 4, 16],
      windowMs: 10_000,
      p6WindowMs: 6_000,
      anchorProbes: true,
      probeTimeoutMs: 45_000,
      code: { reps: 60, warmUp: 5, toolCounts: [5, 50], delayMs: 50 },
    };
// The full run grew past 20 minutes on a loaded 2-core machine with the local server's rows
// (R, K, L, and issue #43's C, M, I): its hard deadline is 50.
const DEADLINE_MS = quick ? 240_000 : 50 * 60_000;
const started = Date.now();
// Every line carries the machine's 1-minute load average: the machine may be shared, and a
// figure means little without it.
const log = (line) =>
  console.log(
    `[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s, load ${loadavg()[0].toFixed(1)}] ${line}`,
  );
const live = new Set();
const deadline = setTimeout(async () => {
  log(`hard deadline of ${DEADLINE_MS / 1000} s reached; stopping every server`);
  await Promise.all([...live].map((s) => s.stop(1_000)));
  built?.remove();
  process.exit(2);
}, DEADLINE_MS);

log("bundling bench/worker.ts");
let built;
built = await buildBenchWorker();

async function server(label) {
  const s = await startServer({ label, dir: built.dir });
  live.add(s);
  log(`${label}: workerd ready in ${s.readyMs} ms at ${s.base}`);
  return s;
}
async function stop(s) {
  await s.stop();
  live.delete(s);
}

/** Two searches and two executes, so isolates, spec and upstreams are warm before timing. */
async function warmUp(s, side) {
  await mixedLoad(s, side, 1, 1);
  await mixedLoad(s, side, 2, 1);
}

/** P6: peak workerd RSS under the mixed load at concurrency 4 then 16, on a fresh workerd. */
async function peakRss(s, side) {
  const windows = [];
  for (const c of [4, 16]) windows.push(await mixedLoad(s, side, c, config.p6WindowMs));
  return { rssPeakMB: Math.max(...windows.map((w) => w.rssPeakMB)), windows };
}

const results = {
  date: new Date().toISOString(),
  quick,
  config,
  machine: machine(),
  failures: {},
  restarts: [],
  loadAverageAtStart: loadavg(),
};

/**
 * Runs one phase; a failure is recorded (with the server's log tail) and the run goes on. A main
 * server that stopped answering is restarted first, and the restart recorded.
 */
async function phase(name, s, work) {
  if (s === main && !(await healthy(main.base, 10_000))) {
    log(`main server not answering before ${name}: restarting it`);
    results.restarts.push({ before: name, serverLog: main.log().slice(-1_500) });
    await stop(main);
    main = await server("main");
    await warmUp(main, "ours");
    await warmUp(main, "anchor");
    s = main;
  }
  try {
    return await work();
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    results.failures[name] = {
      error: String(error).slice(0, 500),
      serverLog: s.log().slice(-1_500),
    };
    return undefined;
  }
}
const robustness = { ours: [], anchor: [] };

let main = await server("main");
try {
  await warmUp(main, "ours");
  if (config.p6WindowMs) {
    log("P6 ours: mixed load on the fresh workerd");
    results.p6 = { ours: await peakRss(main, "ours") };
  }
  await warmUp(main, "anchor");
  log("P1 tools/list tokens");
  results.p1 = await phase("P1", main, async () => ({
    ours: await toolsListTokens(main.base, "ours"),
    anchor: await toolsListTokens(main.base, "anchor"),
  }));
  results.p2 = {};
  for (const n of config.toolCounts) {
    log(`P2 code description at ${n} tools`);
    const v = await phase(`P2-${n}`, main, async () => ({
      ours: await codeDescription(main.base, "ours", n),
      anchor: await codeDescription(main.base, "anchor", n),
    }));
    if (v) results.p2[n] = v;
  }
  log("P3 search latency");
  results.p3 = await phase("P3", main, () =>
    searchLatency(main.base, { reps: config.searchReps, programs: config.searchPrograms, log }),
  );
  log("S search by spec (Cloudflare, GitHub)");
  results.searchBySpec = await phase("S", main, () =>
    // At most 3 rounds: the anchor's searches take seconds (about 3 s each on GitHub's spec).
    searchBySpec(main.base, {
      reps: Math.min(3, config.searchReps),
      programs: config.searchPrograms,
      log,
    }),
  );
  log("P4 execute cost");
  results.p4 = await phase("P4", main, () =>
    executeCost(main.base, { reps: config.executeReps, log }),
  );
  log("P7 code tool latency");
  results.p7 = await phase("P7", main, () => codeToolLatency(main.base, { ...config.code, log }));
  log("P8 code tool over a remote upstream");
  results.p8 = await phase("P8", main, () =>
    remoteUpstreamOverhead(main.base, { ...config.code, log }),
  );
  log("cost per run (#19): isolate-per-run, shared-worker, anchor");
  results.cost = await phase("cost", main, () =>
    costModel(main, { reps: config.executeReps * 2, log }),
  );
  results.p5 = [];
  for (const c of config.concurrency) {
    const w = { concurrency: c };
    // Interleaved: the side that goes first alternates with the concurrency level.
    for (const side of c === 4 ? ["anchor", "ours"] : ["ours", "anchor"]) {
      log(`P5 ${side} at concurrency ${c}`);
      w[side] = await phase(`P5-${c}-${side}`, main, () =>
        mixedLoad(main, side, c, config.windowMs),
      );
    }
    results.p5.push(w);
  }
  log("robustness: ours");
  for (const probe of PROBES) {
    const outcome = await phase(`probe ${probe.name}`, main, () =>
      runProbe("ours", `${main.base}/ours/openapi`, probe, { timeoutMs: config.probeTimeoutMs }),
    );
    if (outcome) robustness.ours.push(outcome);
  }
} finally {
  await stop(main);
}

if (config.p6WindowMs) {
  log("S memory: searches only, each spec and side on a fresh workerd");
  // Not the main server (stopped by now): each measurement starts its own.
  results.searchMemory = await phase("S-memory", { log: () => "" }, () =>
    searchMemory(
      async (label) => {
        const s = await server(label);
        return { base: s.base, rssBytes: () => s.rssBytes(), stop: () => stop(s) };
      },
      { windowMs: config.p6WindowMs, log },
    ),
  );
}

if (config.anchorProbes) {
  const anchor = await server("anchor-probes");
  try {
    await warmUp(anchor, "anchor");
    log("P6 anchor: mixed load on the fresh workerd");
    results.p6.anchor = await peakRss(anchor, "anchor");
    log("robustness: anchor (runaway probes last; the first one takes this workerd down)");
    for (const probe of PROBES.filter((p) => !RUNAWAY.has(p.name) || p.name === "while(true){}")) {
      const timeoutMs = RUNAWAY.has(probe.name) ? 20_000 : config.probeTimeoutMs;
      robustness.anchor.push(
        await runProbe("anchor", `${anchor.base}/anchor/openapi`, probe, { timeoutMs }),
      );
    }
  } finally {
    await stop(anchor);
  }
  const second = await server("anchor-runaway");
  try {
    const probe = PROBES.find((p) => p.name === "for(;;){}");
    robustness.anchor.push(
      await runProbe("anchor", `${second.base}/anchor/openapi`, probe, { timeoutMs: 20_000 }),
    );
  } finally {
    await stop(second);
  }
}

built.remove();
// R: the product's run history on vs off (two npm start pairs; full run only).
if (!quick) results.runs = await runsLatency({ log });
// K: a three-step task again in a new connection, with and without the skill (one npm start).
if (!quick) results.skills = await skillsLatency({ log });
// L: the local server (front, host, runners; full run only).
if (!quick) results.local = await localServerRows({ reps: 200, windowMs: 10_000 }, log);
// C, M, I: issue #43's rows of the local server (full run only).
if (!quick) Object.assign(results, await leanRows(log));
// Redaction of 4 MB bodies (issues #40, #41; full run only): bench/redaction.mjs --heavy, in a
// process of its own, its lines kept as they are (README: "Redaction of a 4 MB body").
if (!quick) {
  const script = fileURLToPath(new URL("redaction.mjs", import.meta.url));
  results.redaction = execFileSync(process.execPath, [script, "--heavy"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.startsWith("toApiResult"));
  for (const line of results.redaction) log(line);
}
results.robustness = robustness;
results.durationSec = Math.round((Date.now() - started) / 1000);
results.loadAverageAtEnd = loadavg();
results.table = [
  ...tableRows(results),
  ...runsRows(results.runs),
  ...skillsRows(results.skills),
  ...localRows(results.local),
  ...cpuRows(results.cpu),
  ...memoryRows(results.memory),
  ...stdioRows(results.stdio),
];
const table = [
  markdown(
    results.table,
    robustness.anchor.length ? robustness : { ours: robustness.ours, anchor: [] },
  ),
  costMarkdown(results.cost),
].join("\n\n");
console.log(`\n${table}\n`);
log(`finished in ${results.durationSec} s`);
if (!quick) {
  const dir = fileURLToPath(new URL("results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const day = results.date.slice(0, 10);
  writeFileSync(`${dir}${day}.json`, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(
    `${dir}${day}.md`,
    `# Benchmark ${results.date}\n\n${describeMachine(results.machine)} Load average (1, 5, 15 min) at the start ${results.loadAverageAtStart.map((x) => x.toFixed(1)).join(", ")}, at the end ${results.loadAverageAtEnd.map((x) => x.toFixed(1)).join(", ")}.\n\n${table}\n`,
  );
  log(`wrote bench/results/${day}.json and .md`);
}
clearTimeout(deadline);

/**
 * Issue #43's rows of the local server, each group on servers of its own; a group that fails is
 * logged and left out (the others still run). C: CPU per call per process (`ping`, a trivial
 * `execute`, a search; driver/local/cpu-per-call.mjs). M: the whole tree's memory with Cloudflare's
 * spec, idle and under 16 clients (driver/local/local-memory.mjs). I: `--stdio` launches to
 * `initialize`, cold and warm, both specs (driver/local/stdio-launch.mjs).
 * @param {(line: string) => void} say
 */
async function leanRows(say) {
  /** @type {Record<string, any>} */
  const out = {};
  /** @param {string} name @param {() => Promise<unknown>} work */
  const group = async (name, work) => {
    try {
      return await work();
    } catch (error) {
      say(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  say("C CPU per call per process (ping, execute, search)");
  // No runner retired during the rounds: a retirement's fresh runner (~1.5 s of CPU to start)
  // landed in one round and read as 3 ms more per call there.
  out.cpu = await group("C", () =>
    cpuPerCall({ calls: 200, rounds: 3, env: { SANDBOX_RUNNER_MAX_RUNS: "0" } }, say),
  );
  say("M the local tree's memory, Cloudflare spec, idle then 16 clients");
  out.memory = await group("M", () => localMemory({ idleSeconds: 40, loadSeconds: 15 }, say));
  say("I --stdio launch to initialize, cold and warm, Cloudflare and GitHub specs");
  out.stdio = await group("I", () => stdioLaunches({ warm: 3 }, say));
  return out;
}

function machine() {
  const pkg = (name) =>
    JSON.parse(
      readFileSync(
        fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url)),
        "utf8",
      ),
    ).version;
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    wrangler: pkg("wrangler"),
    miniflare: pkg("miniflare"),
    workerd: pkg("workerd"),
    codemode: pkg("@cloudflare/codemode"),
  };
}

function describeMachine(m) {
  return `Machine: ${m.cores} × ${m.cpu}, ${m.memoryGB} GB, Linux ${m.kernel}; Node ${m.node}, wrangler ${m.wrangler} (bundling), miniflare ${m.miniflare}, workerd ${m.workerd}, @cloudflare/codemode ${m.codemode}.`;
}
