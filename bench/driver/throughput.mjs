/**
 * P5 (throughput under a mixed search/execute load) and P6 (workerd peak RSS during it).
 * `concurrency` clients each loop over the mix until the window closes; operations still in
 * flight then finish and count, and throughput is completed operations over the whole time.
 */
import { connect } from "./clients.mjs";
import { SEARCH_PROGRAMS, ZONES_THEN_RECORDS } from "./programs.mjs";
import { sampleRss } from "./server-process.mjs";
import { p50, round1 } from "./stats.mjs";

/** Operation k of the mix: search and execute alternate; searches rotate over the programs. */
function mixOp(k) {
  if (k % 2 === 1) return { tool: "execute", code: ZONES_THEN_RECORDS };
  const program = SEARCH_PROGRAMS[(k / 2) % SEARCH_PROGRAMS.length];
  return { tool: "search", code: program.code };
}

/**
 * Runs the mixed load against one side.
 * @param {{ base: string, rssBytes(): number }} server
 * @param {"ours" | "anchor"} side
 * @param {number} concurrency
 * @param {number} windowMs
 */
export async function mixedLoad(server, side, concurrency, windowMs) {
  const failures = new Set();
  const cs = await Promise.all(
    Array.from({ length: concurrency }, () =>
      connect(side, `${server.base}/${side}/openapi`).catch((error) => {
        failures.add(`connect: ${String(error.message).slice(0, 150)}`);
        return undefined;
      }),
    ),
  );
  const rss = sampleRss(server);
  const counts = { search: 0, execute: 0, errors: 0 };
  const latencies = [];
  const started = performance.now();
  const end = started + windowMs;
  let next = 0;
  await Promise.all(
    cs.map(async (client) => {
      if (!client) return void counts.errors++;
      // Bounded: each iteration is one call with its own timeout, and the window closes.
      while (performance.now() < end) {
        const op = mixOp(next++);
        const r = await client.call(op.tool, op.code);
        if (r.ok) {
          counts[op.tool]++;
          latencies.push(r.ms);
        } else {
          counts.errors++;
          failures.add((r.failure ?? r.text).slice(0, 160));
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  const memory = rss.stop();
  await Promise.all(cs.map((c) => c?.close()));
  const seconds = elapsed / 1000;
  return {
    concurrency,
    seconds: round1(seconds),
    opsPerSec: Number(((counts.search + counts.execute) / seconds).toFixed(3)),
    searchPerSec: Number((counts.search / seconds).toFixed(3)),
    executePerSec: Number((counts.execute / seconds).toFixed(3)),
    completed: counts.search + counts.execute,
    errors: counts.errors,
    p50Ms: round1(p50(latencies)),
    rssPeakMB: Math.round(memory.peakBytes / 2 ** 20),
    rssStartMB: Math.round(memory.startBytes / 2 ** 20),
    failures: [...failures].slice(0, 3),
  };
}
