/**
 * Cost per run (issue #19): for the isolate-per-run executor (`/ours/…`), the shared-worker
 * executor (`/shared/…`) and the anchor (`/anchor/…`), in one workerd: p50 latency of a search,
 * of an execute's fixed cost (a trivial program), the per-request overhead (50 sequential
 * requests timed inside the sandbox) and of a `code` call; CPU per run (the workerd processes' user+system
 * time over the sampled runs, divided by the runs: local workerd charges nothing, so this is the
 * stand-in for billed CPU); and the modeled cost per million runs on Cloudflare's published
 * prices. Each side's samples run back to back (its own garbage lands in its own runs).
 */
import { readFileSync } from "node:fs";
import { connect } from "./clients.mjs";
import { ALIVE, SEARCH_PROGRAMS, timedRequests } from "./programs.mjs";
import { p50, round1 } from "./stats.mjs";

/** Cloudflare's published prices (Workers Paid; Dynamic Workers pricing page), in dollars. */
export const PRICES = {
  perUniqueDynamicWorker: 0.002,
  freeDynamicWorkersPerMonth: 1_000,
  perMillionRequests: 0.3,
  perMillionCpuMs: 0.02,
};

/** The formula the table prints, per million runs. */
export const FORMULA =
  "cost per 1M runs = max(0, U − 1,000) × $0.002 + $0.30 + CPU-ms per run × $0.02, with U unique Dynamic Workers per month for 1M runs (one per run for isolate-per-run and the anchor; one per deployment per day for the shared worker, ≤ 31, inside the free 1,000)";

const SIDES = [
  { name: "isolate-per-run", client: "ours", prefix: "ours", uniquePerRun: true },
  { name: "shared-worker", client: "ours", prefix: "shared", uniquePerRun: false },
  { name: "anchor", client: "anchor", prefix: "anchor", uniquePerRun: true },
];

const CODE_CALL = `async () => (await codemode.resource_0_update({ id: "a", settings: { mode: "fast" } }))`;

/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ). */
const TICKS_PER_SECOND = 100;

/** User+system CPU ms of the given processes so far (0 for a process that is gone). */
function cpuMs(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * Modeled cost per million runs, in dollars.
 * @param {number} cpuPerRun - CPU ms per run
 * @param {boolean} uniquePerRun - every run is a new unique Dynamic Worker
 */
export function costPerMillion(cpuPerRun, uniquePerRun) {
  const unique = uniquePerRun ? 1_000_000 : 31;
  return (
    Math.max(0, unique - PRICES.freeDynamicWorkersPerMonth) * PRICES.perUniqueDynamicWorker +
    PRICES.perMillionRequests +
    cpuPerRun * PRICES.perMillionCpuMs
  );
}

/**
 * Samples one job on one side: wall p50 and CPU per run.
 * @param {{ workerdPids(): number[] }} server
 */
async function job(server, client, tool, code, reps) {
  await client.call(tool, code);
  const times = [];
  const perRequest = [];
  let errors = 0;
  const before = cpuMs(server.workerdPids());
  for (let i = 0; i < reps; i++) {
    const r = await client.call(tool, code);
    if (r.ok) times.push(r.ms);
    else errors++;
    const timed = /"perRequestMs"\s*:\s*([\d.]+)/.exec(r.text);
    if (timed) perRequest.push(Number(timed[1]));
  }
  const cpu = (cpuMs(server.workerdPids()) - before) / reps;
  return { p50: round1(p50(times)), cpuMs: round1(cpu), errors, perRequestMs: p50(perRequest) };
}

/**
 * The cost phase.
 * @param {{ base: string, workerdPids(): number[] }} server
 * @param {{ reps: number, log: (line: string) => void }} options
 */
export async function costModel(server, { reps, log }) {
  const out = {};
  for (const side of SIDES) {
    const api = await connect(side.client, `${server.base}/${side.prefix}/openapi`);
    const code = await connect(side.client, `${server.base}/${side.prefix}/code/5`);
    try {
      const search = await job(server, api, "search", SEARCH_PROGRAMS[0].code, reps);
      const fixed = await job(server, api, "execute", ALIVE, reps);
      // Timed inside the sandbox (programs.mjs): the run's fixed cost stays out of the figure.
      const timed = await job(server, api, "execute", timedRequests(50), reps);
      const call = await job(server, code, "code", CODE_CALL, reps);
      out[side.name] = {
        search,
        executeFixed: fixed,
        perRequestMs: Number.isFinite(timed.perRequestMs)
          ? Math.round(timed.perRequestMs * 1000) / 1000
          : null,
        codeCall: call,
        costPerMillion: {
          search: round1(costPerMillion(search.cpuMs ?? 0, side.uniquePerRun)),
          execute: round1(costPerMillion(fixed.cpuMs ?? 0, side.uniquePerRun)),
        },
      };
      log(`  cost ${side.name}: search p50 ${search.p50} ms, ${search.cpuMs} CPU-ms per run`);
    } finally {
      await api.close();
      await code.close();
    }
  }
  return out;
}

/**
 * The cost table as Markdown, with the formula and the target (≤ 1/100 of the anchor).
 * @param {Awaited<ReturnType<typeof costModel>> | undefined} cost
 */
export function costMarkdown(cost) {
  if (!cost) return "";
  const names = SIDES.map((s) => s.name).filter((n) => cost[n]);
  const cell = (v) => (v === null || v === undefined ? "–" : v.toLocaleString("en-US"));
  const rows = [
    ["search p50 ms", (c) => c.search.p50],
    ["search CPU ms per run", (c) => c.search.cpuMs],
    ["execute fixed cost p50 ms (trivial program)", (c) => c.executeFixed.p50],
    ["execute CPU ms per run (trivial program)", (c) => c.executeFixed.cpuMs],
    ["per-request overhead ms (50 requests timed in the sandbox)", (c) => c.perRequestMs],
    ["code call p50 ms (one upstream tool)", (c) => c.codeCall.p50],
    ["$ per 1M search runs", (c) => c.costPerMillion.search],
    ["$ per 1M execute runs", (c) => c.costPerMillion.execute],
  ];
  const lines = [
    `| cost (#19) | ${names.join(" | ")} |`,
    `|---|${names.map(() => "---:").join("|")}|`,
    ...rows.map(
      ([label, get]) => `| ${label} | ${names.map((n) => cell(get(cost[n]))).join(" | ")} |`,
    ),
  ];
  const anchor = cost.anchor?.costPerMillion.search;
  const shared = cost["shared-worker"]?.costPerMillion.search;
  if (anchor && shared)
    lines.push(
      "",
      `Target: shared-worker ≤ 1/100 of the anchor per million search runs: $${shared} vs $${anchor} (${round1(anchor / shared)}× cheaper): ${shared <= anchor / 100 ? "met" : "**not met**"}.`,
    );
  lines.push("", `Formula: ${FORMULA}.`);
  return lines.join("\n");
}
