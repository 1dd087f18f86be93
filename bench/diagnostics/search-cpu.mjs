/**
 * Where a search's time goes (issue #43, beside `node bench/run.mjs --only s`): the bench
 * server's workerd CPU per call (all its threads, `/proc/<pid>/task/<tid>/schedstat`, so
 * nanoseconds rather than 10 ms ticks; the host Worker and every run's isolate share that
 * process) for a trivial `execute`, a `search` that reads nothing, one that only opens the spec
 * and the S rows' five programs, on Cloudflare's spec and GitHub's. Rows are interleaved call by
 * call, so the machine's load moves them together; medians per row, wall p50 beside them.
 *
 * With other trees (`--other <root>`, repeatable: a checkout with its own `npm run
 * build:sandbox` and test/.fixtures), every tree's server runs side by side and every row is
 * called on each in turn, the order reversed every round: a before/after of the same minutes.
 *
 *   npx node bench/diagnostics/search-cpu.mjs [calls per row=20] [--spec cloudflare|github]
 *     [--other <root>]…
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { rawClient } from "../driver/raw-client.mjs";
import { GITHUB_PROGRAMS } from "../driver/search-specs.mjs";
import { SEARCH_PROGRAMS } from "../driver/programs.mjs";
import { p50 } from "../driver/stats.mjs";

const args = process.argv.slice(2);
/** Trees given with `--other`, and the first plain number: the calls per row. */
const others = args.flatMap((a, i) => (args[i - 1] === "--other" ? [a] : []));
const specAt = args.indexOf("--spec");
const onlySpec = specAt < 0 ? undefined : args[specAt + 1];
const calls = Number(
  args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--other" && args[i - 1] !== "--spec") ??
    20,
);

const TRIVIAL = "async () => 1";
const OPEN = "async () => { await codemode.spec(); return 1; }";

/** Rows per spec: [name, tool, code]. */
const ROWS = {
  cloudflare: { route: "openapi", programs: SEARCH_PROGRAMS },
  github: { route: "openapi-github", programs: GITHUB_PROGRAMS },
};

/**
 * CPU ns of every thread of the given processes.
 * @param {number[]} pids
 */
function cpuNs(pids) {
  let ns = 0;
  for (const pid of pids) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited
    }
    for (const tid of tasks) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
  }
  return ns;
}

/** @param {string} root - a tree with bench/driver/server-process.mjs */
async function serverOf(root, label) {
  const { buildBenchWorker, startServer } = await import(
    pathToFileURL(join(root, "bench/driver/server-process.mjs")).href
  );
  const built = await buildBenchWorker();
  const server = await startServer({ label, dir: built.dir });
  return { label, server, built };
}

const trees = [await serverOf(join(import.meta.dirname, "../.."), "this")];
for (const [i, root] of others.entries()) trees.push(await serverOf(root, `other${i + 1}`));
try {
  /** @type {{ tree: string, spec: string, row: string, tool: string, code: string, client: any, cpu: number[], ms: number[], failed: number, pids: () => number[] }[]} */
  const rows = [];
  for (const { label, server } of trees)
    for (const [spec, { route, programs }] of Object.entries(ROWS)) {
      if (onlySpec !== undefined && spec !== onlySpec) continue;
      const client = rawClient("2026-07-28", `${server.base}/ours/${route}`);
      const pids = () => server.workerdPids();
      const add = (row, tool, code) =>
        rows.push({ tree: label, spec, row, tool, code, client, cpu: [], ms: [], failed: 0, pids });
      add("execute, async () => 1", "execute", TRIVIAL);
      add("search, async () => 1", "search", TRIVIAL);
      add("search, spec() only", "search", OPEN);
      for (const p of programs) add(p.name, "search", p.code);
    }
  const call = async (r) => {
    const pids = r.pids();
    const before = cpuNs(pids);
    const answer = await r.client.call(r.tool, r.code);
    const used = (cpuNs(pids) - before) / 1e6;
    if (!answer.ok) r.failed++;
    return { used, ms: answer.ms };
  };
  for (const r of rows) for (let i = 0; i < 3; i++) await call(r); // warm-up
  for (const r of rows) r.failed = 0;
  const load = [loadavg()[0]];
  for (let i = 0; i < calls; i++) {
    const order = i % 2 === 0 ? rows : rows.toReversed();
    for (const r of order) {
      const { used, ms } = await call(r);
      r.cpu.push(used);
      r.ms.push(ms);
    }
  }
  load.push(loadavg()[0]);
  console.log(
    `${calls} calls per row, interleaved; load ${load.map((l) => l.toFixed(1)).join(" → ")}`,
  );
  console.log("tree   spec        row                            CPU ms p50   wall ms p50");
  for (const r of rows)
    console.log(
      `${r.tree.padEnd(6)} ${r.spec.padEnd(11)} ${r.row.padEnd(30)} ${p50(r.cpu).toFixed(2).padStart(10)} ${p50(r.ms).toFixed(1).padStart(13)}${r.failed ? ` (${r.failed} failed)` : ""}`,
    );
} finally {
  for (const { server, built } of trees) {
    await server.stop();
    built.remove();
  }
}
