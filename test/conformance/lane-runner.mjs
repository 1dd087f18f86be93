/**
 * Plumbing shared by the conformance lanes (test/conformance/run.mjs for createMcpHandler,
 * test/agent/conformance/run.mjs for McpAgent): serve a fixture Worker with `wrangler dev` in its
 * own process group, run a conformance CLI, and read its SUMMARY block.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Repository root. */
export const root = fileURLToPath(new URL("../../", import.meta.url));

const env = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

/**
 * Starts `wrangler dev -c <config>` on 127.0.0.1:<port> and resolves once it is ready; the
 * returned `stop()` ends exactly its process group (wrangler plus workerd).
 * @param {string} config - wrangler config, relative to the repository root
 * @param {number} port
 * @returns {Promise<{ stop: () => void }>}
 */
export async function startWorker(config, port) {
  const child = spawn(
    process.execPath,
    [
      "node_modules/wrangler/bin/wrangler.js",
      "dev",
      "-c",
      config,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const stop = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
  };
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("wrangler dev did not become ready in 90 s")),
        90_000,
      );
      const onData = (/** @type {Buffer} */ chunk) => {
        if (String(chunk).includes("Ready on")) {
          clearTimeout(timer);
          resolve(undefined);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => reject(new Error(`wrangler dev exited early (${code})`)));
    });
  } catch (error) {
    stop();
    throw error;
  }
  return { stop };
}

/**
 * Runs a conformance CLI, optionally echoing its output; resolves with exit code and output.
 * @param {string} bin - the CLI's entry, relative to the repository root
 * @param {string[]} args
 * @param {boolean} [echo]
 * @returns {Promise<{ code: number, output: string }>}
 */
export function runCli(bin, args, echo = true) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env });
    let output = "";
    const collect = (/** @type {Buffer} */ chunk) => {
      output += String(chunk);
      if (echo) process.stdout.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * The rows of a conformance SUMMARY block. A scenario is clean when it passed at least one check
 * and failed none (a "0 passed, 0 failed" row only warned).
 * @param {string} output
 * @returns {{ name: string, clean: boolean, checks: number }[]}
 */
export function summaryRows(output) {
  const plain = output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
  const summary = plain.slice(plain.indexOf("=== SUMMARY ==="));
  return [...summary.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu)].map((m) => ({
    name: String(m[1]),
    clean: Number(m[2]) > 0 && m[3] === "0",
    checks: Number(m[2]),
  }));
}

/**
 * Runs a 2025-revision lane (conformance 0.1.16, the active suite and then the pending one)
 * against a Worker served from `config` on `port`, prints the pass counts, stops the Worker and
 * exits: non-zero when a scenario of the active suite fails (outside `expectedFailures`).
 * @param {{ title: string, config: string, port: number, expectedFailures?: string }} lane
 */
export async function run2025Lane({ title, config, port, expectedFailures }) {
  const url = `http://localhost:${port}/mcp`;
  const suite = "node_modules/conformance-2025/dist/index.js";
  let exitCode = 0;
  const worker = await startWorker(config, port);
  try {
    const results = [];
    for (const name of ["active", "pending"]) {
      console.log(`\n=== ${title}, conformance 0.1.16, ${name} suite ===`);
      const { code, output } = await runCli(suite, [
        "server",
        "--url",
        url,
        "--suite",
        name,
        ...(expectedFailures ? ["--expected-failures", expectedFailures] : []),
      ]);
      const rows = summaryRows(output);
      results.push({
        name,
        total: rows.length,
        clean: rows.filter((row) => row.clean).length,
        checks: rows.reduce((sum, row) => sum + row.checks, 0),
      });
      if (name === "active" && code !== 0) exitCode = 1;
    }
    console.log(`\n=== ${title} pass counts ===`);
    for (const r of results) {
      console.log(`${r.name}: ${r.clean}/${r.total} scenarios clean, ${r.checks} checks passed`);
    }
  } catch (error) {
    console.error(error);
    exitCode = 1;
  } finally {
    worker.stop();
  }
  process.exit(exitCode);
}
