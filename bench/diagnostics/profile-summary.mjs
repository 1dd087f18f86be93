/**
 * Prints a V8 CPU profile's top functions by self and by total time (a diagnostic's output;
 * see profile-code.mjs). Idle time is left out of the shares, so they are shares of the work.
 */

/**
 * @param {any} profile - a `Profiler.stop` result's profile
 * @param {number} calls - how many calls it covers (printed as CPU ms per call)
 * @param {number} [rows] - how many rows of each table
 */
export function summarizeProfile(profile, calls, rows = 45) {
  const byId = new Map(profile.nodes.map((/** @type {any} */ n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** @type {Map<number, number>} */
  const hits = new Map();
  for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
  const name = (/** @type {any} */ n) =>
    `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
  /** @type {Map<string, number>} */
  const self = new Map();
  /** @type {Map<string, number>} */
  const inclusive = new Map();
  let busy = 0;
  for (const [id, count] of hits) {
    const n = byId.get(id);
    if (n.callFrame.functionName === "(idle)") continue;
    busy += count;
    self.set(name(n), (self.get(name(n)) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = name(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + count);
    }
  }
  const ms = (profile.endTime - profile.startTime) / 1000;
  const total = profile.samples.length;
  const busyMs = (ms * busy) / total;
  console.log(
    `${total} samples over ${Math.round(ms)} ms, ${busy} not idle (~${(busyMs / calls).toFixed(2)} ms per call), ${calls} calls`,
  );
  const top = (/** @type {Map<string, number>} */ m) =>
    [...m].toSorted((a, b) => b[1] - a[1]).slice(0, rows);
  console.log("--- self (share of the non-idle samples)");
  for (const [k, v] of top(self)) console.log(`${((v / busy) * 100).toFixed(1)}% ${k}`);
  console.log("--- total");
  for (const [k, v] of top(inclusive)) console.log(`${((v / busy) * 100).toFixed(1)}% ${k}`);
}
