/**
 * One server of the benchmark Worker: a Node child running Miniflare (serve-worker.mjs) in its
 * own process group on a free port, health-checked, sampled for workerd memory through /proc, and
 * stopped by group (SIGTERM, then SIGKILL), so a workerd hung by a runaway loop never outlives
 * the benchmark.
 *
 * The Worker is bundled once per run (wrangler's own bundler, `deploy --dry-run`) into a temp
 * directory and served from there, never watched: a server on the sources would reload mid-run
 * whenever anyone edits src/ or a build step rewrites a generated file.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "../../cli/local-server/free-port.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER = fileURLToPath(
  new URL("../../node_modules/wrangler/bin/wrangler.js", import.meta.url),
);

const SERVE = fileURLToPath(new URL("serve-worker.mjs", import.meta.url));

const WRANGLER_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

/**
 * Bundles bench/worker.ts with bench/wrangler.jsonc into a fresh temp directory.
 * @returns {Promise<{ dir: string, remove(): void }>}
 */
export async function buildBenchWorker() {
  const root = mkdtempSync(join(tmpdir(), "code-mode-bench-"));
  const dir = join(root, "worker");
  await promisify(execFile)(
    process.execPath,
    [WRANGLER, "deploy", "--dry-run", "-c", "bench/wrangler.jsonc", "--outdir", dir],
    { cwd: ROOT, env: WRANGLER_ENV, timeout: 120_000, maxBuffer: 16 * 2 ** 20 },
  );
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Starts a server on a bundle (see {@link buildBenchWorker}) and waits until `/health` answers.
 * @param {{ label: string, dir: string, readyTimeoutMs?: number }} options
 */
export async function startServer({ label, dir, readyTimeoutMs = 90_000 }) {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVE, dir, String(port)], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: WRANGLER_ENV,
  });
  let output = "";
  // Stack-address lines say nothing; keep the messages.
  const keep = (chunk) =>
    (output = (output + String(chunk).replace(/^\s*stack: .*$/gm, "")).slice(
      -(Number(process.env["BENCH_LOG_KEEP"]) || 4_000),
    ));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const exit = new Promise((resolve) => child.once("exit", () => resolve((exited = true))));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (exited) throw new Error(`server (${label}) exited early:\n${output}`);
    if (Date.now() - started > readyTimeoutMs) {
      killGroup(child.pid, "SIGKILL");
      throw new Error(`server (${label}) not ready after ${readyTimeoutMs} ms:\n${output}`);
    }
    if (await healthy(base, 1_000)) break;
    await sleep(250);
  }
  return {
    label,
    base,
    readyMs: Date.now() - started,
    /** @returns {number[]} pids of the workerd processes of this server */
    workerdPids: () =>
      groupProcesses(child.pid)
        .filter((p) => p.comm === "workerd")
        .map((p) => p.pid),
    /** @returns {number} summed RSS of the workerd processes, in bytes */
    rssBytes() {
      return this.workerdPids().reduce((sum, pid) => sum + rssOf(pid), 0);
    },
    /** Stops the whole process group: SIGTERM, then SIGKILL after `graceMs`. */
    async stop(graceMs = 5_000) {
      if (exited) return;
      killGroup(child.pid, "SIGTERM");
      const timer = sleep(graceMs).then(() => "late");
      if ((await Promise.race([exit, timer])) === "late") {
        killGroup(child.pid, "SIGKILL");
        await Promise.race([exit, sleep(5_000)]);
      }
    },
    log: () => output,
  };
}

/**
 * Whether `GET /health` answers within `timeoutMs`.
 * @param {string} base
 * @param {number} timeoutMs
 */
export async function healthy(base, timeoutMs) {
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok;
  } catch {
    return false;
  }
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Processes whose process group is `pgid` (the Node host and its workerd). */
function groupProcesses(pgid) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command: state ppid pgrp …
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      if (Number(fields[2]) === pgid) found.push({ pid: Number(entry), comm });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples `rssBytes()` every `everyMs` until stopped; `stop()` returns the peak and last sample.
 * @param {{ rssBytes(): number }} server
 * @param {number} everyMs
 */
export function sampleRss(server, everyMs = 100) {
  const first = server.rssBytes();
  let peak = first;
  const timer = setInterval(() => (peak = Math.max(peak, server.rssBytes())), everyMs);
  return {
    stop() {
      clearInterval(timer);
      const last = server.rssBytes();
      return { startBytes: first, peakBytes: Math.max(peak, last), endBytes: last };
    },
  };
}
