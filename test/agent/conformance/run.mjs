/**
 * The McpAgent conformance lane: serves `worker.ts` (the everything fixture inside an
 * McpAgent) with `wrangler dev`, runs @modelcontextprotocol/conformance 0.1.16 (2025
 * revisions) against it, the active suite and then the pending one, prints the pass counts and
 * stops the Worker. Exits non-zero when a scenario of the active suite fails.
 *
 * Run with `npx node test/agent/conformance/run.mjs` (Node 22 from node_modules). Not part of
 * `npm test`: it needs a local server.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const port = Number(process.env.AGENT_CONFORMANCE_PORT ?? 8796);
const url = `http://localhost:${port}/mcp`;
const env = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};
const suite = "node_modules/conformance-2025/dist/index.js";

const worker = spawn(
  process.execPath,
  [
    "node_modules/wrangler/bin/wrangler.js",
    "dev",
    "-c",
    "test/agent/conformance/wrangler.jsonc",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
  ],
  { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
);

let exitCode = 0;
try {
  await waitForReady(worker);
  const results = [];
  for (const name of ["active", "pending"]) {
    console.log(`\n=== McpAgent lane, conformance 0.1.16, ${name} suite ===`);
    const { code, output } = await run(["server", "--url", url, "--suite", name]);
    results.push({ name, code, ...count(output) });
    if (name === "active" && code !== 0) exitCode = 1;
  }
  console.log("\n=== McpAgent lane pass counts ===");
  for (const r of results) {
    console.log(`${r.name}: ${r.clean}/${r.total} scenarios clean, ${r.checks} checks passed`);
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  // wrangler and workerd run in their own process group: stop exactly that group.
  if (worker.pid !== undefined) process.kill(-worker.pid, "SIGTERM");
}
process.exit(exitCode);

/**
 * Resolves when wrangler reports the Worker ready; rejects after 90 s or if it exits.
 * @param {import("node:child_process").ChildProcess} child
 * @returns {Promise<void>}
 */
function waitForReady(child) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("wrangler dev not ready in 90 s")), 90_000);
    const onData = (/** @type {Buffer} */ chunk) => {
      if (String(chunk).includes("Ready on")) {
        clearTimeout(timer);
        resolve(undefined);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (/** @type {number | null} */ code) =>
      reject(new Error(`wrangler dev exited early (${code})`)),
    );
  });
}

/**
 * Runs the conformance CLI, echoing its output.
 * @param {string[]} args
 * @returns {Promise<{ code: number, output: string }>}
 */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [suite, ...args], { cwd: root, env });
    let output = "";
    const collect = (/** @type {Buffer} */ chunk) => {
      output += String(chunk);
      process.stdout.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Counts scenarios in a SUMMARY block. Clean: at least one check passed and none failed (a
 * "0 passed, 0 failed" row only produced warnings or info).
 * @param {string} output
 */
function count(output) {
  const plain = output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
  const summary = plain.slice(plain.indexOf("=== SUMMARY ==="));
  const rows = [...summary.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu)];
  return {
    total: rows.length,
    clean: rows.filter((m) => Number(m[2]) > 0 && m[3] === "0").length,
    checks: rows.reduce((sum, m) => sum + Number(m[2]), 0),
  };
}
