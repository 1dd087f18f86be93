/**
 * P7's calls in CPU time (issue #43, a diagnostic beside `--only p7`): the workerd's user+system
 * time per `code` call (`/proc/<pid>/stat`; the host Worker and the sandbox isolates share the
 * process), ours (`/ours/code/<n>`, an isolate per run), ours on the shared worker
 * (`/shared/code/<n>`) and the anchor (`/anchor/code/<n>`), each driven by P7's raw JSON-RPC
 * client. On a loaded machine wall time mostly measures the queue for the cores; CPU time is
 * what a server spends, and far steadier. Each side runs a block of calls back to back (its
 * own garbage in its own block), the sides' order alternating per round; the median block is
 * printed with the range, and the wall p50 over every call.
 *
 *   npx node bench/diagnostics/code-cpu.mjs [calls per block=100] [rounds=3] [tools=5] [chained=1]
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { chainedCalls } from "../driver/code-latency.mjs";
import { rawClient } from "../driver/raw-client.mjs";
import { buildBenchWorker, startServer } from "../driver/server-process.mjs";
import { p50 } from "../driver/stats.mjs";

const [callsText = "100", roundsText = "3", tools = "5", chained = "1"] = process.argv.slice(2);
const calls = Number(callsText);
const rounds = Number(roundsText);

/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ). */
const TICKS = 100;

/** @param {number[]} pids */
function cpuMs(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // exited
    }
  }
  return (ticks * 1000) / TICKS;
}

const built = await buildBenchWorker();
const server = await startServer({ label: "code-cpu", dir: built.dir });
try {
  const code = chainedCalls(Number(chained));
  const sides = {
    ours: rawClient("2026-07-28", `${server.base}/ours/code/${tools}`),
    shared: rawClient("2026-07-28", `${server.base}/shared/code/${tools}`),
    anchor: rawClient("2025-11-25", `${server.base}/anchor/code/${tools}`),
  };
  /** @type {Record<string, { cpu: number[], ms: number[] }>} */
  const out = Object.fromEntries(Object.keys(sides).map((s) => [s, { cpu: [], ms: [] }]));
  for (const client of Object.values(sides))
    for (let i = 0; i < 20; i++) await client.call("code", code);
  for (let round = 0; round < rounds; round++) {
    const order = Object.keys(sides);
    if (round % 2) order.reverse();
    for (const side of order) {
      const before = cpuMs(server.workerdPids());
      for (let i = 0; i < calls; i++) {
        const r = await sides[side].call("code", code);
        if (!r.ok) throw new Error(`${side}: ${r.text.slice(0, 300)}`);
        out[side].ms.push(r.ms);
      }
      out[side].cpu.push((cpuMs(server.workerdPids()) - before) / calls);
    }
  }
  console.log(
    `${tools} tools, ${chained} call(s), ${rounds} × ${calls} calls; load ${loadavg()[0].toFixed(1)}`,
  );
  for (const [side, { cpu, ms }] of Object.entries(out)) {
    const sorted = cpu.toSorted((a, b) => a - b);
    console.log(
      `${side.padEnd(7)} workerd CPU ms/call ${sorted[sorted.length >> 1].toFixed(2)} (${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)}), wall p50 ${p50(ms).toFixed(1)} ms`,
    );
  }
} finally {
  await server.stop();
  built.remove();
}
