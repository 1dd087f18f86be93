/**
 * M: the memory of the whole `npm start` tree with Cloudflare's spec (issue #43's rows): idle,
 * and the peak while 16 clients run searches back to back. `npm start` itself is started (npm's
 * own process, its `sh`, the supervisor and front, the host workerd, the runners, their
 * lifelines), so the figure is what a user's process list shows; npm's share is reported apart.
 *
 * - idle: RSS summed over the tree (VmRSS from /proc, as the e2e scripts and L3 read it), sampled
 *   every second for `IDLE_SAMPLE_MS` once `IDLE_SETTLE_MS` have passed after "ready" (the
 *   configuration builder ends 15 s after its last build; runners started beyond the first end
 *   after 30 s idle); min / max reported, and each process's share at the last sample.
 * - 16 clients: each sends the five P3 search programs in turn (raw JSON-RPC `tools/call`, no
 *   session, as L2 does) for `LOAD_MS`; the tree is sampled every 250 ms, the peak reported with
 *   each process's share at that moment, the searches answered and the errors.
 * - after: the tree idle again `IDLE_SETTLE_MS` after the load.
 *
 * Usage: `npm exec -- node bench/driver/local/tree-memory.mjs` (Linux; the machine's load is printed
 * with the figures: on a shared machine they move with it). Environment: `TREE_ENV` (JSON of more
 * settings for the server, e.g. '{"SANDBOX_RUNNERS":"2"}'), `LOAD_MS`, `IDLE_SETTLE_MS`,
 * `TREE_LAUNCH=node-run` (`node --run start` instead of `npm start`).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../../cli/local-server/free-port.mjs";
import { processTree } from "../../../test/e2e/support/processes.mjs";
import { SEARCH_PROGRAMS } from "../programs.mjs";
import { rawToolCall } from "../raw-client.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SPEC = join(ROOT, "test/.fixtures/cloudflare-api-2024-08-06.json");
const IDLE_SETTLE_MS = Number(process.env.IDLE_SETTLE_MS ?? 45_000);
const IDLE_SAMPLE_MS = 15_000;
const LOAD_MS = Number(process.env.LOAD_MS ?? 30_000);
const CLIENTS = 16;

/**
 * What a process of the tree is, from its command line.
 * @param {string} command
 */
export function role(command) {
  if (/\bworkerd\b/.test(command)) return /runner-\d+\.sock/.test(command) ? "runner" : "host";
  if (/lifeline/.test(command)) return "lifeline";
  if (/workerd-config-builder/.test(command)) return "config builder";
  if (/^(\/bin\/)?sh /.test(command)) return "sh";
  if (/scripts\/start\.mjs|serve\.mjs/.test(command)) return "supervisor+front";
  if (/--run start/.test(command)) return "node --run";
  if (/\bnpm\b|npm-cli/.test(command)) return "npm";
  return command.split(" ")[0] ?? "?";
}

/**
 * Each process of the tree below `root`: role and RSS in MiB.
 * @param {number} root
 */
export function treeNow(root) {
  /** @type {{ pid: number, role: string, mib: number }[]} */
  const found = [];
  for (const { pid, command } of processTree(root)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      found.push({ pid, role: role(command), mib: Number(m?.[1] ?? 0) / 1024 });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** @param {{ role: string, mib: number }[]} tree */
const total = (tree) => tree.reduce((sum, p) => sum + p.mib, 0);
/** @param {{ role: string, mib: number }[]} tree */
const shares = (tree) =>
  tree
    .filter((p) => p.mib >= 1)
    .map((p) => `${p.role} ${Math.round(p.mib)}`)
    .join(", ");
const load = () => loadavg()[0].toFixed(1);

/**
 * Samples the tree every `everyMs` for `ms`.
 * @param {number} root
 * @param {number} ms
 * @param {number} everyMs
 */
async function sample(root, ms, everyMs) {
  let min = Infinity;
  let max = 0;
  /** @type {{ role: string, mib: number }[]} */
  let last = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    last = treeNow(root);
    const sum = total(last);
    min = Math.min(min, sum);
    max = Math.max(max, sum);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return { min: Math.round(min), max: Math.round(max), last };
}

/**
 * 16 clients searching for `ms`; the tree's peak meanwhile.
 * @param {string} base
 * @param {number} root
 * @param {number} ms
 */
async function underLoad(base, root, ms) {
  let peak = 0;
  /** @type {{ role: string, mib: number }[]} */
  let atPeak = [];
  const sampler = setInterval(() => {
    const tree = treeNow(root);
    const sum = total(tree);
    if (sum > peak) [peak, atPeak] = [sum, tree];
  }, 250);
  let done = 0;
  let errors = 0;
  /** @type {string[]} */
  const seen = [];
  let id = 0;
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let k = client; Date.now() < end; k++) {
        const program = SEARCH_PROGRAMS[k % SEARCH_PROGRAMS.length];
        const { headers, body } = rawToolCall("2026-07-28", ++id, "search", {
          code: program?.code ?? "",
        });
        try {
          const res = await fetch(`${base}/mcp`, { method: "POST", headers, body });
          const text = await res.text();
          if (res.status !== 200 || text.includes('"isError":true') || text.includes('"error"')) {
            errors++;
            if (seen.length < 3) seen.push(text.slice(0, 300));
          } else done++;
        } catch (error) {
          errors++;
          if (seen.length < 3) seen.push(String(error));
        }
      }
    }),
  );
  clearInterval(sampler);
  return { peak: Math.round(peak), atPeak, done, errors, seen };
}

execFileSync(
  process.execPath,
  [join(ROOT, "scripts/fetch-fixture-specs.mjs"), SPEC.split("/").pop() ?? ""],
  {
    stdio: "inherit",
  },
);
const port = await freePort();
const persist = mkdtempSync(join(tmpdir(), "code-mode-tree-memory-"));
// `TREE_LAUNCH=node-run`: `node --run start` (Node 22's script runner, no npm process; it runs
// no prestart, so the Worker is built here first) instead of `npm start`.
const nodeRun = process.env.TREE_LAUNCH === "node-run";
if (nodeRun)
  execFileSync(process.execPath, [join(ROOT, "scripts/build-worker.mjs")], { stdio: "inherit" });
const child = spawn(nodeRun ? process.execPath : "npm", nodeRun ? ["--run", "start"] : ["start"], {
  cwd: ROOT,
  detached: true,
  stdio: ["ignore", "pipe", "pipe"],
  env: {
    ...process.env,
    PORT: String(port),
    PERSIST_TO: persist,
    SPEC_FILE: SPEC,
    // Searches call no API; a base URL is still needed for the spec's requests to be allowed.
    API_BASE_URL: "http://127.0.0.1:9",
    ...JSON.parse(process.env.TREE_ENV ?? "{}"),
  },
});
const root = /** @type {number} */ (child.pid);
let output = "";
child.stdout.on("data", (d) => (output += d));
child.stderr.on("data", (d) => (output += d));
const stop = async () => {
  for (const signal of /** @type {const} */ (["SIGTERM", "SIGKILL"])) {
    try {
      process.kill(-root, signal);
    } catch {
      // gone
    }
    await new Promise((r) => setTimeout(r, 3_000));
  }
  rmSync(persist, { recursive: true, force: true });
};
try {
  const deadline = Date.now() + 180_000;
  while (!/ready on /.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`npm start did not get ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`ready; load ${load()}; settling ${IDLE_SETTLE_MS / 1000} s`);
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const idle = await sample(root, IDLE_SAMPLE_MS, 1_000);
  console.log(
    `idle: ${idle.min}–${idle.max} MiB (load ${load()}); last sample: ${shares(idle.last)}`,
  );
  const loaded = await underLoad(`http://127.0.0.1:${port}`, root, LOAD_MS);
  console.log(
    `${CLIENTS} clients, ${LOAD_MS / 1000} s of searches: peak ${loaded.peak} MiB (load ${load()}); ${loaded.done} searches, ${loaded.errors} errors; at the peak: ${shares(loaded.atPeak)}`,
  );
  for (const text of loaded.seen) console.log(`  error: ${text}`);
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const after = await sample(root, 5_000, 1_000);
  console.log(
    `after, ${IDLE_SETTLE_MS / 1000} s idle: ${after.min}–${after.max} MiB; ${shares(after.last)}`,
  );
  if (process.env.TREE_OUTPUT === "1") console.log(output);
} finally {
  await stop();
}
