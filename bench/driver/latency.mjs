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
 * @param {{ name: string, tool: string, code: string }[]} jobs
 * @param {number} reps
 * @param {(line: string) => void} log
 * @param {boolean} [oursAfterOwnRun] - time ours only right after an untimed run of the same
 *   program on ours (P3: a search of the anchor leaves its resolved spec as garbage on the
 *   thread, and ours right after it measured twice as slow as ours after ours: 100 vs 53 ms
 *   median under load, 8 rounds)
 */
async function sample(cs, jobs, reps, log, oursAfterOwnRun = false) {
  const out = Object.fromEntries(
    jobs.map((j) => [j.name, { ours: [], anchor: [], errors: { ours: 0, anchor: 0 }, same: true }]),
  );
  let i = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const job of jobs) {
      const answers = {};
      for (const side of order(i++)) {
        if (oursAfterOwnRun && side === "ours") await cs.ours.call(job.tool, job.code);
        const r = await cs[side].call(job.tool, job.code);
        const ms = r.ok ? r.ms : Number.NaN;
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
        min: round1(Math.min(...s.ours)),
        n: s.ours.length,
        errors: s.errors.ours,
      },
      anchor: {
        p50: round1(p50(s.anchor)),
        p95: round1(p95(s.anchor)),
        min: round1(Math.min(...s.anchor)),
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
 * P3: the five search programs, `reps` samples each per side, ours each right after an untimed
 * run of its own (see `sample`).
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
    return summarize(await sample(cs, jobs, reps, log, true));
  } finally {
    await Promise.all(SIDES.map((s) => cs[s].close()));
  }
}

/** Requests per in-sandbox timing (under ours' default limit of 1,000 host calls per run). */
const TIMED_REQUESTS = 500;

/** The `perRequestMs` a {@link timedRequests} run returned, in µs (NaN when missing). */
function perRequestUs(text) {
  const match = /"perRequestMs"\s*:\s*([\d.]+)/.exec(text);
  return match ? Number(match[1]) * 1000 : Number.NaN;
}

/**
 * The in-sandbox per-request samples, each taken right after an untimed run of the same program
 * on the same side. Why: an execute leaves garbage in the host isolate (the anchor builds its
 * whole 4 MB spec into every execute's source), and the host's next major GC lands in whichever
 * run comes next. Interleaved A/B charged that pause to the other side half the time: the anchor
 * measured ~40 µs when it followed ours and ~95 µs when it followed itself, and ours was slowed
 * after the anchor's runs. After a run of its own, each side pays for its own garbage, as a
 * server doing only this work would. The order of the sides still alternates per round.
 * Each round also samples ours without validation and the platform floor (`/floor`: the same
 * loop against a host answering a constant, no code mode on either side), likewise warmed.
 * @param {string} base
 * @param {Record<string, Awaited<ReturnType<typeof connect>>>} cs - ours, anchor, unvalidated
 * @param {number} rounds
 * @param {{ unvalidated: number[], floor: number[] }} extra - receives those samples (µs)
 */
async function steadySamples(base, cs, rounds, extra) {
  const out = { ours: [], anchor: [], errors: { ours: 0, anchor: 0 }, same: true };
  const code = timedRequests(TIMED_REQUESTS);
  const twice = async (run) => (await run(), run());
  const timed = async (client) => {
    const r = await twice(() => client.call("execute", code));
    return r.ok ? perRequestUs(r.text) : Number.NaN;
  };
  const floor = async () => {
    const text = await twice(async () => {
      const response = await fetch(`${base}/floor?n=${TIMED_REQUESTS}`, {
        signal: AbortSignal.timeout(60_000),
      });
      return response.text();
    });
    return perRequestUs(text);
  };
  for (let round = 0; round < rounds; round++) {
    for (const side of order(round)) {
      const us = await timed(cs[side]);
      if (Number.isFinite(us)) out[side].push(us);
      else out.errors[side]++;
    }
    const bare = await timed(cs.unvalidated);
    if (Number.isFinite(bare)) extra.unvalidated.push(bare);
    const platform = await floor().catch(() => Number.NaN);
    if (Number.isFinite(platform)) extra.floor.push(platform);
  }
  return out;
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
    // Ours without request validation rides along (same program, its own endpoint), so the
    // report can show what validation costs per request next to the like-for-like figure.
    const unvalidated = await connect("ours", `${base}/ours/openapi-unvalidated`);
    const extra = { unvalidated: [], floor: [] };
    try {
      samples["timed-500"] = await steadySamples(base, { ...cs, unvalidated }, reps * 3, extra);
    } finally {
      await unvalidated.close();
    }
    const rows = summarize(samples);
    for (const key of /** @type {const} */ (["unvalidated", "floor"])) {
      const xs = extra[key];
      rows[key] = { p50: round1(p50(xs)), min: round1(Math.min(...xs)), n: xs.length };
    }
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
