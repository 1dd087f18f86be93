// Issue #28, sixth "Done when": under an artificial load of 2 busy processes, 16 concurrent MCP
// clients run the same `search` back to back for 30 s with 0 errors and nothing replaced, and
// their throughput is at least that of 4 clients (measured first, for 10 s, after a short
// warm-up so neither figure pays the first runs: ~300 searches at 4, enough for a rate; the
// issue's 30 s is the 16 clients' phase). Meanwhile the resident memory of the whole server
// (every process of its tree, summed) peaks under 1.5 GB. The figures are printed.
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { SEARCH } from "./support/programs.mjs";
import { replacements } from "./support/replacements.mjs";
import { check } from "./support/server.mjs";
import { sampleTreeMemory } from "./support/tree-memory.mjs";

const PHASE_MS = 30_000;
const REFERENCE_MS = 10_000;
const WARM_UP_MS = 3_000;
const MAX_PEAK_MIB = 1_536;

/**
 * `count` clients running SEARCH back to back for `ms`; resolves to how many answered right and
 * the failures.
 * @param {string} url
 * @param {number} count
 * @param {number} ms
 */
async function phase(url, count, ms) {
  const clients = await Promise.all(
    Array.from({ length: count }, (_, i) => connect(url, { name: `e2e-c${count}-${i}` })),
  );
  const until = Date.now() + ms;
  let ok = 0;
  /** @type {number[]} */
  const waits = [];
  /** @type {string[]} */
  const failures = [];
  await Promise.all(
    clients.map(async ({ client }) => {
      while (Date.now() < until) {
        const outcome = await timedCall(client, "search", SEARCH, 60_000);
        waits.push(outcome.ms);
        if (outcome.ok && outcome.text.includes("POST /tasks createTask")) ok++;
        else failures.push(outcome.thrown ?? outcome.text.slice(0, 300));
      }
    }),
  );
  await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
  const sorted = waits.toSorted((a, b) => a - b);
  return {
    ok,
    failures,
    perSecond: ok / (ms / 1000),
    p50: sorted[Math.floor(sorted.length / 2)] ?? 0,
    p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
  };
}

await withServerUnderLoad({}, async ({ url, pid, output }) => {
  const memory = sampleTreeMemory(pid);
  const atStart = memory.last();
  await phase(url, 4, WARM_UP_MS);
  const four = await phase(url, 4, REFERENCE_MS);
  const sixteen = await phase(url, 16, PHASE_MS);
  const { peakMiB } = memory.stop();
  for (const [n, p, ms] of /** @type {const} */ ([
    [4, four, REFERENCE_MS],
    [16, sixteen, PHASE_MS],
  ]))
    console.log(
      `e2e clients16: ${n} clients: ${p.ok} searches in ${ms / 1000} s = ${p.perSecond.toFixed(1)}/s, p50 ${p.p50} ms, p99 ${p.p99} ms, ${p.failures.length} errors`,
    );
  console.log(
    `e2e clients16: memory of the whole server tree: ${atStart.toFixed(0)} MiB at the start, peak ${peakMiB.toFixed(0)} MiB`,
  );
  const failures = [...four.failures, ...sixteen.failures];
  check(failures.length === 0, `errors:\n${failures.slice(0, 5).join("\n")}`);
  const replaced = replacements(output());
  check(replaced.length === 0, `the supervisor replaced:\n${replaced.join("\n")}`);
  check(
    sixteen.perSecond >= four.perSecond,
    `throughput fell from ${four.perSecond.toFixed(1)}/s at 4 to ${sixteen.perSecond.toFixed(1)}/s at 16`,
  );
  check(peakMiB < MAX_PEAK_MIB, `the server peaked at ${peakMiB.toFixed(0)} MiB (≥ 1.5 GB)`);
  console.log("e2e clients16: 0 errors, nothing replaced, throughput held, memory bounded — ok");
});
