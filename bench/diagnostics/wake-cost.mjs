/**
 * What a wake-up costs on this machine, with no work in it (issue #43): a Node process that
 * only sleeps on a timer and wakes, its `process.cpuUsage()` per wake, for several lengths of
 * sleep. The front wakes twice per request it passes on (the client's request, the runtime's
 * answer), the supervisor once per probe sent and once per answer; on a shared virtual machine
 * each such wake costs CPU time of its own, more after a longer sleep, whatever the process
 * then does. This is the floor under every "CPU per call" of a process woken per call.
 *
 *   node bench/diagnostics/wake-cost.mjs [rounds=2]
 */
import { fileURLToPath } from "node:url";

/** Sleeps between two wakes, ms, and how many wakes at each. */
const GAPS = /** @type {const} */ ([
  [2, 1000],
  [10, 300],
  [25, 200],
  [100, 50],
  [500, 12],
]);

/**
 * CPU ms per wake after sleeps of `gapMs`.
 * @param {number} gapMs
 * @param {number} wakes
 */
export async function wakeCost(gapMs, wakes) {
  const before = process.cpuUsage();
  for (let i = 0; i < wakes; i++) await new Promise((resolve) => setTimeout(resolve, gapMs));
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / 1000 / wakes) * 1000) / 1000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 2);
  for (let round = 1; round <= rounds; round++) {
    const parts = [];
    for (const [gap, wakes] of GAPS) parts.push(`${gap} ms: ${await wakeCost(gap, wakes)}`);
    console.log(`round ${round}, ms of CPU per empty wake after a sleep of ${parts.join(", ")}`);
  }
}
