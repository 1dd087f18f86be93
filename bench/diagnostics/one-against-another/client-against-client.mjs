/**
 * One local client against another (attack26, issue #40 "one client cannot starve another"):
 * starts `npm start` (test/e2e/support/server.mjs), then, each in its own process, a victim MCP
 * client sending a trivial `search` every 100 ms after the previous answer, and a hostile client
 * in one of these modes for `SECONDS` (default 22):
 *
 * - `flood`: 40 `execute` calls under way, each a `Promise.all` over 990 `codemode.request`s;
 * - `sleepers`: 300 `execute` calls under way, each sleeping 8 s, re-sent as each answers;
 * - `tasks`: 1,500 task-augmented `execute` calls (answered `working` at once) sleeping 28 s,
 *   from 16 kept-alive connections;
 * - `results`: 40 `execute` calls under way, each returning a 300,000-element array of objects;
 * - `fill`: the connection bound filled by one process: 750 `tasks/result` waits on a task of
 *   its own (the long waits' share), and a new connection every 40 ms carrying an `execute` that
 *   sleeps 25 s (each new one at the bound closed the victim's idle connection before the
 *   callers' share, connection-cap.mjs); `FILL_PERIOD_MS` sets the 40 ms (0: waits only).
 *
 * Prints the victim's searches, longest and median wait, each wait over 1 s (with its start,
 * seconds from the victim's first search) and its failures, the hostile answers by HTTP status
 * and JSON-RPC error code, and the server's workerd memory (before, peak, at the end). Bounded: every process it starts has
 * a deadline, and the server is stopped whatever happens.
 *
 *   npm exec -- node bench/diagnostics/one-against-another/client-against-client.mjs flood [env JSON]
 *
 * e.g. `'{"EXECUTOR":"shared-worker"}'` as the second argument. bench/README.md, "One client
 * against another, attacked once more", has the numbers.
 */
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

const SECONDS = Number(process.env.SECONDS ?? "22");
/** `fill`: how often a new connection carries a sleeper (`FILL_PERIOD_MS`; 0: never). */
const FILL_PERIOD_MS = Number(process.env.FILL_PERIOD_MS ?? "40") || 2 ** 31 - 1;
const SELF = fileURLToPath(import.meta.url);

/** The hostile modes: how many requests at once, each one's body, whether to re-send. */
const MODES = {
  flood: {
    at: 40,
    code: `async () => { await Promise.all(Array.from({ length: 990 }, () => codemode.request({ method: "GET", path: "/projects" }))); return 1 }`,
  },
  sleepers: {
    at: 300,
    code: `async () => { await new Promise((r) => setTimeout(r, 8000)); return 1 }`,
  },
  tasks: {
    at: 16,
    total: 1_500,
    task: true,
    code: `async () => { await new Promise((r) => setTimeout(r, 28000)); return 1 }`,
  },
  results: {
    at: 40,
    code: `async () => Array.from({ length: 300000 }, (_, i) => ({ a: i, b: [i] }))`,
  },
  // Run by fill() instead: waits and sleepers.
  fill: {
    at: 750,
    code: `async () => { await new Promise((r) => setTimeout(r, 25000)); return 1 }`,
  },
};

/**
 * One POST /mcp of `body` (on `agent`, or a connection of its own), resolved with its status (or
 * its error's message) and the first 4 KiB of its answer; cut after 70 s.
 * @param {URL} target @param {string} body @param {http.Agent | false} agent
 * @returns {Promise<{ status: string, text: string }>}
 */
function postMcp(target, body, agent) {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: "/mcp",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        let text = "";
        // Its first 4 KiB: enough to tell answers apart, and a hostile mode's large results
        // are not kept.
        res.setEncoding("utf8");
        res.on("data", (chunk) => void (text.length < 4096 && (text += chunk)));
        res.on("end", () => resolve({ status: String(res.statusCode), text }));
      },
    );
    req.on("error", (error) => resolve({ status: error.message, text: "" }));
    req.setTimeout(70_000, () => req.destroy());
    req.end(body);
  });
}

/** The `fill` mode (see the file's comment). */
async function fill(/** @type {URL} */ target) {
  const mode = MODES.fill;
  const end = Date.now() + SECONDS * 1000;
  const call = (/** @type {string} */ code, /** @type {boolean} */ task) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "execute", ...(task ? { task: { ttl: 120_000 } } : {}), arguments: { code } },
    });
  const taskCode = `async () => { await new Promise((r) => setTimeout(r, 28000)); return 1 }`;
  const newTask = async () =>
    (await postMcp(target, call(taskCode, true), false)).text.match(/"taskId":"([^"]+)"/)?.[1];
  let task = await newTask();
  const renew = setInterval(async () => (task = (await newTask()) ?? task), 20_000);
  /** @type {Record<string, Record<string, number>>} */
  const answers = { waits: {}, sleepers: {} };
  const count = (/** @type {"waits" | "sleepers"} */ kind, /** @type {string} */ status) =>
    (answers[kind][status] = (answers[kind][status] ?? 0) + 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: mode.at });
  const sleeper = call(mode.code, false);
  /** @type {Promise<unknown>[]} */
  const sleepers = [];
  const opener = setInterval(() => {
    if (Date.now() < end)
      sleepers.push(postMcp(target, sleeper, false).then((r) => count("sleepers", r.status)));
  }, FILL_PERIOD_MS);
  await Promise.all(
    Array.from({ length: mode.at }, async () => {
      while (Date.now() < end) {
        const wait = JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tasks/result",
          params: { taskId: task },
        });
        const { status } = await postMcp(target, wait, agent);
        count("waits", status);
        if (status !== "200") await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  clearInterval(opener);
  clearInterval(renew);
  await Promise.all(sleepers);
  agent.destroy();
  console.log(`hostile fill: answers ${JSON.stringify(answers)}`);
}

/** The hostile process: keeps `mode.at` requests under way until the deadline. */
async function hostile(/** @type {string} */ url, /** @type {keyof MODES} */ name) {
  if (name === "fill") return fill(new URL(url));
  /** @type {{ at: number, code: string, total?: number, task?: boolean }} */
  const mode = MODES[name];
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "execute",
      ...(mode.task ? { task: { ttl: 120_000 } } : {}),
      arguments: { code: mode.code },
    },
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: mode.at });
  const end = Date.now() + SECONDS * 1000;
  /** @type {Record<string, number>} */
  const answers = {};
  let sent = 0;
  // Counted by HTTP status, and a JSON-RPC error by its code (a refused task is a 200); a tool
  // error by whether it is the caller's share of the runners (the program did not start:
  // src/executor/runners/placement/caller-queue.ts) or another.
  const post = async () => {
    const { status, text } = await postMcp(target, body, agent);
    const code = /"error":\{"code":(-?\d+)/.exec(text)?.[1];
    const tool = !text.includes('"isError":true')
      ? ""
      : text.includes("already use every sandbox runner")
        ? " tool error: caller's share"
        : " tool error";
    const key = `${status}${code === undefined ? "" : ` error ${code}`}${tool}`;
    answers[key] = (answers[key] ?? 0) + 1;
  };
  await Promise.all(
    Array.from({ length: mode.at }, async () => {
      while (Date.now() < end && (mode.total === undefined || sent < mode.total)) {
        sent++;
        await post();
      }
    }),
  );
  console.log(`hostile ${name}: ${sent} sent, answers ${JSON.stringify(answers)}`);
}

/** The victim process: a trivial search every 100 ms after the previous answer. */
async function victim(/** @type {string} */ url) {
  const { connect, timedCall, TRIVIAL_SEARCH } =
    await import("../../../test/e2e/support/load-clients.mjs");
  const { client } = await connect(url, { name: "victim" });
  const end = Date.now() + (SECONDS + 8) * 1000;
  const first = Date.now();
  /** @type {number[]} */
  const waits = [];
  /** @type {string[]} */
  const slow = [];
  /** @type {string[]} */
  const failures = [];
  while (Date.now() < end) {
    const outcome = await timedCall(client, "search", TRIVIAL_SEARCH, 60_000);
    waits.push(outcome.ms);
    const at = ((outcome.startedAt - first) / 1000).toFixed(1);
    if (outcome.ms > 1000) slow.push(`${outcome.ms} ms at +${at} s`);
    if (!outcome.ok || outcome.text !== "2")
      failures.push(`+${at} s: ${(outcome.thrown ?? outcome.text).slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  waits.sort((a, b) => a - b);
  console.log(
    `victim: ${waits.length} searches, longest ${waits.at(-1)} ms, p50 ${waits[waits.length >> 1]} ms, failed ${failures.length}`,
  );
  console.log(`victim: waits over 1 s: ${slow.join(", ") || "none"}`);
  for (const failure of failures.slice(0, 5)) console.log(`victim: failed ${failure}`);
  await client.close().catch(() => {});
}

/**
 * The summed RSS (kB) of the server's workerd processes (descendants of the server's process),
 * sampled every second. Linux only (`ps`).
 */
function workerdMemory(/** @type {number} */ root) {
  const read = () => {
    const out = spawnSync("ps", ["-e", "-o", "pid=,ppid=,rss=,comm="], { encoding: "utf8" }).stdout;
    const rows = out
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .filter((row) => row.length >= 4)
      .map(([pid, ppid, rss, comm]) => ({
        pid: Number(pid),
        ppid: Number(ppid),
        rss: Number(rss),
        comm,
      }));
    const ours = new Set([root]);
    for (let grown = true; grown;) {
      grown = false;
      for (const row of rows) {
        if (!ours.has(row.pid) && ours.has(row.ppid)) grown = Boolean(ours.add(row.pid));
      }
    }
    let kb = 0;
    for (const row of rows) if (ours.has(row.pid) && row.comm?.startsWith("workerd")) kb += row.rss;
    return kb;
  };
  let peak = read();
  const timer = setInterval(() => void (peak = Math.max(peak, read())), 1000);
  return { now: read, peak: () => Math.max(peak, read()), stop: () => clearInterval(timer) };
}

/** Runs this file in another process with `args`, ended at the deadline whatever it does. */
function child(/** @type {string[]} */ args) {
  const proc = spawn(process.execPath, [SELF, ...args], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), (SECONDS + 90) * 1000);
  return new Promise((resolve) => proc.once("exit", () => resolve(clearTimeout(timer))));
}

const [role, ...rest] = process.argv.slice(2);
if (role === "--victim") await victim(/** @type {string} */ (rest[0]));
else if (role === "--hostile")
  await hostile(/** @type {string} */ (rest[0]), /** @type {keyof MODES} */ (rest[1]));
else {
  const name = /** @type {keyof MODES} */ (role ?? "flood");
  if (!(name in MODES)) throw new Error(`mode must be one of ${Object.keys(MODES).join(", ")}`);
  const { startServer } = await import("../../../test/e2e/support/server.mjs");
  const server = await startServer(JSON.parse(rest[0] ?? "{}"));
  const memory = workerdMemory(server.pid);
  try {
    const watching = child(["--victim", server.url]);
    await new Promise((r) => setTimeout(r, 3000));
    const before = memory.now();
    await child(["--hostile", server.url, name]);
    await watching;
    const mb = (/** @type {number} */ kb) => `${(kb / 1024).toFixed(0)} MB`;
    console.log(
      `server's workerd RSS: ${mb(before)} before the hostile client, peak ${mb(memory.peak())}, ${mb(memory.now())} at the end`,
    );
  } finally {
    memory.stop();
    await server.stop();
  }
}
process.exit(0);
