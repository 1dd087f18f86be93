/**
 * Skills (#44): a three-step task (page the demo's projects, join each with its tasks, aggregate
 * task counts per status) done again in a new client connection, as the whole program each time
 * and as a call of the skill a first run saved. One `npm start` product (the demo upstream at
 * `/mcp/code`); each call opens a new SDK v2 client, as a new conversation would. Measured: the
 * o200k tokens of the program the client sends (what the model writes) and the client-side
 * latency of the `code` call, p50 and p95, the two sides alternating call by call.
 *
 * Used by bench/run.mjs (full run) and on its own: `node bench/driver/skills-latency.mjs [reps]`.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { fileURLToPath } from "node:url";
import { startServer } from "../../test/e2e/support/server.mjs";
import { p50, p95, ratio, round1 } from "./stats.mjs";

/** The task as a function: paging, a join per project, an aggregate. */
const TASK = `async ({ status }) => {
    const projects = [];
    let cursor;
    for (let page = 0; page < 20; page++) {
      const { items, nextCursor } = await codemode.list_projects({ status, limit: 2, ...(cursor ? { cursor } : {}) });
      projects.push(...items);
      if (!nextCursor) break;
      cursor = nextCursor;
    }
    const byStatus = {};
    const perProject = [];
    for (const p of projects) {
      const { items } = await codemode.list_tasks({ projectId: p.id });
      for (const t of items) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
      perProject.push({ project: p.name, tasks: items.length });
    }
    perProject.sort((a, b) => b.tasks - a.tasks || a.project.localeCompare(b.project));
    return { projects: projects.length, byStatus, busiest: perProject.slice(0, 3) };
  }`;

/** Without the skill: the whole program, every time. */
const WITHOUT = `async () => {
  const report = ${TASK};
  return report({ status: "active" });
}`;

/** The first run: the same program, saving the function. */
const SAVE = `async () => {
  const report = ${TASK};
  const answer = await report({ status: "active" });
  await skills.save({
    name: "projectReport",
    description: "Projects of a status: count, task counts per status, the three busiest.",
    input: { type: "object", properties: { status: { enum: ["active", "archived"] } }, required: ["status"] },
    run: report,
  });
  return answer;
}`;

/** With the skill: one call. */
const WITH = `async () => skills.projectReport({ status: "active" })`;

const DEFAULT_REPS = 40;

/**
 * One `code` call over a new client connection.
 * @param {string} url @param {string} code
 */
async function once(url, code) {
  const started = performance.now();
  const client = new Client(
    { name: "bench-skills", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/code`)));
  try {
    const result = /** @type {any} */ (
      await client.callTool({ name: "code", arguments: { code } })
    );
    if (result.isError) throw new Error(`skills bench: ${JSON.stringify(result.content)}`);
    return { ms: performance.now() - started, text: result.content[0].text };
  } finally {
    await client.close();
  }
}

/**
 * Measures the task with and without the skill.
 * @param {{ reps?: number, log?: (line: string) => void }} [options]
 */
export async function skillsLatency(options = {}) {
  const reps = options.reps ?? DEFAULT_REPS;
  const log = options.log ?? (() => {});
  const phaseStarted = performance.now();
  const server = await startServer({ RUNS: "off" });
  /** @type {{ with: number[], without: number[] }} */
  const times = { with: [], without: [] };
  try {
    const saved = await once(server.url, SAVE);
    const same = (await once(server.url, WITH)).text;
    if (same !== saved.text || (await once(server.url, WITHOUT)).text !== same)
      throw new Error("skills bench: the skill and the program answer differently");
    for (let i = 0; i < 3; i++)
      await Promise.all([once(server.url, WITH), once(server.url, WITHOUT)]);
    for (let i = 0; i < reps; i++)
      for (const side of /** @type {const} */ (i % 2 ? ["with", "without"] : ["without", "with"]))
        times[side].push((await once(server.url, side === "with" ? WITH : WITHOUT)).ms);
  } finally {
    await server.stop();
  }
  const stats = (/** @type {number[]} */ v) => ({ p50: round1(p50(v)), p95: round1(p95(v)) });
  const result = {
    reps,
    seconds: round1((performance.now() - phaseStarted) / 1000),
    tokens: { with: countTokens(WITH), without: countTokens(WITHOUT) },
    with: stats(times.with),
    without: stats(times.without),
  };
  log(
    `skills: program ${result.tokens.with} vs ${result.tokens.without} o200k tokens; code p50 ${result.with.p50} ms with the skill vs ${result.without.p50} ms without (new connection per call, ${reps} calls a side, ${result.seconds} s)`,
  );
  return result;
}

/**
 * The table rows: with the skill (in the `ours` column) vs the whole program (`anchor` column).
 * @param {Awaited<ReturnType<typeof skillsLatency>> | undefined} r
 */
export function skillsRows(r) {
  if (!r) return [];
  return [
    {
      metric:
        "K program tokens (o200k) for page+join+aggregate: skill call (ours) vs whole program (anchor column)",
      ours: r.tokens.with,
      anchor: r.tokens.without,
      ratio: ratio(r.tokens.with, r.tokens.without),
      target: "fewer",
      met: r.tokens.with < r.tokens.without,
    },
    .../** @type {const} */ (["p50", "p95"]).map((q) => ({
      metric: `K code ${q} ms, new connection per call: skill call (ours) vs whole program (anchor column), ${r.reps} calls a side`,
      ours: r.with[q],
      anchor: r.without[q],
      ratio: ratio(r.with[q] ?? Number.NaN, r.without[q] ?? Number.NaN),
      target: "ratio ≤ 1.1",
      met: r.with[q] !== null && r.without[q] !== null ? r.with[q] <= r.without[q] * 1.1 : null,
    })),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reps = Number(process.argv[2] ?? DEFAULT_REPS);
  const result = await skillsLatency({ reps, log: console.log });
  console.log(JSON.stringify(result));
  console.table(skillsRows(result));
}
