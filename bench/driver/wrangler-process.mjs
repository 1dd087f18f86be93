/**
 * One `wrangler dev` of the benchmark Worker: started in its own process group on free ports,
 * health-checked, sampled for workerd memory through /proc, and stopped by group (SIGTERM,
 * then SIGKILL), so a workerd hung by a runaway loop never outlives the benchmark.
 *
 * The Worker is bundled once per run (wrangler's own bundler, `deploy --dry-run`) into a temp
 * directory and served from there with `no_bundle`: `wrangler dev` on the sources would reload
 * mid-run whenever anyone edits src/ or a build step rewrites a generated file, failing every
 * request in flight ("Your worker restarted mid-request").
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER = fileURLToPath(
  new URL("../../node_modules/wrangler/bin/wrangler.js", import.meta.url),
);

const WRANGLER_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

/**
 * Bundles bench/worker.ts with bench/wrangler.jsonc into a fresh temp directory and writes a
 * `no_bundle` config beside it.
 * @returns {Promise<{ config: string, remove(): void }>}
 */
export async function buildBenchWorker() {
  const root = mkdtempSync(join(tmpdir(), "code-mode-bench-"));
  // The bundle in its own folder: wrangler watches it, so local state must live elsewhere.
  const dir = join(root, "worker");
  await promisify(execFile)(
    process.execPath,
    [WRANGLER, "deploy", "--dry-run", "-c", "bench/wrangler.jsonc", "--outdir", dir],
    { cwd: ROOT, env: WRANGLER_ENV, timeout: 120_000, maxBuffer: 16 * 2 ** 20 },
  );
  const config = join(dir, "wrangler.json");
  writeFileSync(
    config,
    JSON.stringify({
      name: "code-mode-bench",
      main: "worker.js",
      no_bundle: true,
      find_additional_modules: true,
      compatibility_date: "2026-08-01",
      compatibility_flags: ["nodejs_compat"],
      worker_loaders: [{ binding: "LOADER" }],
      rules: [{ type: "Text", globs: ["**/*.json"], fallthrough: false }],
    }),
  );
  return { config, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 right now */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * Starts `wrangler dev` on a built config (see {@link buildBenchWorker}) and waits until
 * `/health` answers.
 * @param {{ label: string, config: string, readyTimeoutMs?: number }} options
 */
export async function startWrangler({ label, config, readyTimeoutMs = 90_000 }) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      WRANGLER,
      "dev",
      "-c",
      config,
      "--persist-to",
      join(dirname(config), "state"),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
    ].concat([
      "--inspector-port",
      String(inspectorPort),
      "--log-level",
      process.env["BENCH_WRANGLER_LOG"] ?? "error",
    ]),
    {
      // Its own directory: the repository's .wrangler/ is shared with other wrangler runs.
      cwd: join(dirname(config), ".."),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: WRANGLER_ENV,
    },
  );
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
    if (exited) throw new Error(`wrangler dev (${label}) exited early:\n${output}`);
    if (Date.now() - started > readyTimeoutMs) {
      killGroup(child.pid, "SIGKILL");
      throw new Error(`wrangler dev (${label}) not ready after ${readyTimeoutMs} ms:\n${output}`);
    }
    if (await healthy(base, 1_000)) break;
    await sleep(250);
  }
  return {
    label,
    base,
    readyMs: Date.now() - started,
    /** @returns {number[]} pids of the workerd processes of this wrangler */
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

/** Processes whose process group is `pgid` (wrangler, its workerd and helpers). */
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
