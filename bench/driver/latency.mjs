/**
 * P3 (search latency) and P4 (execute cost): one client per side, A/B interleaved per sample
 * (the side that goes first alternates), after a warm-up.
 */
import { connect } from "./clients.mjs";
import { executeProgram, SEARCH_PROGRAMS, timedRequests } from "./programs.mjs";
import { p50, p95, round1 } from "./stats.mjs";

const SIDES = /** @type {const} */ (["ours", "anchor"]);

/** Both sides' clients on the OpenAPI endpoints. */
async function clients(base) {
  return {
    ours: await connect("ours", `${base}/ours/openapi`),
    anchor: await connect("anchor", `${base}/anchor/openapi`),
  };
}

function order(i) {
  return i % 2 === 0 ? SIDES : SIDES.toReversed();
}

function parsed(text) {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * Samples every job `reps` times on both sides, interleaved.
 * @param {Record<string, Awaited<ReturnType<typeof connect>>>} cs
 * @param {{ name: string, tool: string, code: string, measure?: (text: string) => number }[]} jobs
 * @param {number} reps
 * @param {(line: string) => void} log
 */
async function sample(cs, jobs, reps, log) {
  const out = Object.fromEntries(
    jobs.map((j) => [j.name, { ours: [], anchor: [], errors: { ours: 0, anchor: 0 }, same: true }]),
  );
  let i = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const job of jobs) {
      const answers = {};
      for (const side of order(i++)) {
        const r = await cs[side].call(job.tool, job.code);
        const ms = r.ok ? (job.measure ? job.measure(r.text) : r.ms) : Number.NaN;
        if (Number.isFinite(ms)) out[job.name][side].push(ms);
        else out[job.name].errors[side]++;
        answers[side] = parsed(r.text);
      }
      if (answers.ours !== answers.anchor) out[job.name].same = false;
    }
    log(`  rep ${rep + 1}/${reps} done`);
  }
  return out;
}

function summarize(samples) {
  const rows = {};
  for (const [name, s] of Object.entries(samples)) {
    rows[name] = {
      ours: {
        p50: round1(p50(s.ours)),
        p95: round1(p95(s.ours)),
        n: s.ours.length,
        errors: s.errors.ours,
      },
      anchor: {
        p50: round1(p50(s.anchor)),
        p95: round1(p95(s.anchor)),
        n: s.anchor.length,
        errors: s.errors.anchor,
      },
      sameAnswer: s.same,
    };
  }
  const all = (side) => Object.values(samples).flatMap((s) => s[side]);
  rows.all = {
    ours: { p50: round1(p50(all("ours"))), p95: round1(p95(all("ours"))), n: all("ours").length },
    anchor: {
      p50: round1(p50(all("anchor"))),
      p95: round1(p95(all("anchor"))),
      n: all("anchor").length,
    },
  };
  return rows;
}

/**
 * P3: the five search programs, `reps` samples each per side.
 * @param {string} base
 * @param {{ reps: number, programs?: number, log: (line: string) => void }} options
 */
export async function searchLatency(base, { reps, programs = SEARCH_PROGRAMS.length, log }) {
  const cs = await clients(base);
  try {
    const jobs = SEARCH_PROGRAMS.slice(0, programs).map((p) => ({
      name: p.name,
      tool: "search",
      code: p.code,
    }));
    await sample(cs, jobs, 1, () => log("  warm-up done"));
    return summarize(await sample(cs, jobs, reps, log));
  } finally {
    await Promise.all(SIDES.map((s) => cs[s].close()));
  }
}

/** Appends one round of samples to the ones collected so far (same job names). */
function merge(into, round) {
  for (const [name, s] of Object.entries(round)) {
    const acc = into[name];
    if (!acc) {
      into[name] = s;
      continue;
    }
    for (const side of SIDES) {
      acc[side].push(...s[side]);
      acc.errors[side] += s.errors[side];
    }
    acc.same &&= s.same;
  }
  return into;
}

/** The `perRequestMs` a {@link timedRequests} run returned, in µs (NaN when missing). */
function perRequestUs(text) {
  const match = /"perRequestMs"\s*:\s*([\d.]+)/.exec(text);
  return match ? Number(match[1]) * 1000 : Number.NaN;
}

/**
 * P4: execute with 1, 10 and 50 sequential requests and 10 parallel ones, plus 500 sequential
 * requests timed inside the sandbox (the per-request overhead).
 * @param {string} base
 * @param {{ reps: number, log: (line: string) => void }} options
 */
export async function executeCost(base, { reps, log }) {
  const cs = await clients(base);
  try {
    const jobs = [
      { name: "seq-1", tool: "execute", code: executeProgram(1) },
      { name: "seq-10", tool: "execute", code: executeProgram(10) },
      { name: "seq-50", tool: "execute", code: executeProgram(50) },
      { name: "par-10", tool: "execute", code: executeProgram(10, true) },
    ];
    await sample(cs, jobs, 1, () => log("  warm-up done"));
    const samples = await sample(cs, jobs, reps, log);
    // The in-sandbox timing swings run to run on a shared machine (a stall of a few tens of ms
    // in one run moves its average a lot): three times the samples, interleaved, for its median.
    const timed = {
      name: "timed-500",
      tool: "execute",
      code: timedRequests(500),
      measure: perRequestUs,
    };
    // Ours without request validation rides along (same program, its own endpoint), so the
    // report can show what validation costs per request next to the like-for-like figure.
    const unvalidated = await connect("ours", `${base}/ours/openapi-unvalidated`);
    const bare = [];
    try {
      for (let rep = 0; rep < reps * 3; rep++) {
        merge(samples, await sample(cs, [timed], 1, () => {}));
        const r = await unvalidated.call("execute", timed.code);
        const us = r.ok ? perRequestUs(r.text) : Number.NaN;
        if (Number.isFinite(us)) bare.push(us);
      }
    } finally {
      await unvalidated.close();
    }
    const rows = summarize(samples);
    rows.unvalidated = { p50: round1(p50(bare)), n: bare.length };
    delete rows.all;
    rows.perRequest = {};
    for (const side of SIDES) {
      const one = rows["seq-1"][side].p50;
      const fifty = rows["seq-50"][side].p50;
      rows.perRequest[side] = one === null || fifty === null ? null : round1((fifty - one) / 49);
    }
    // The same slope fitted over every sequential sample (1, 10, 50 requests): less noisy.
    rows.perRequestFit = {};
    for (const side of SIDES) {
      const points = [1, 10, 50].flatMap((n) => samples[`seq-${n}`][side].map((ms) => [n, ms]));
      rows.perRequestFit[side] = round1(slope(points));
    }
    return rows;
  } finally {
    await Promise.all(SIDES.map((s) => cs[s].close()));
  }
}

/** Least-squares slope of `[x, y]` points (ms per request); NaN for fewer than two x values. */
function slope(points) {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx === 0 ? Number.NaN : sxy / sxx;
}
