/**
 * `npm run conformance`: serves the fixture Worker with `wrangler dev`, runs both official
 * conformance lanes against it with their expected-failures files, prints the pass counts, and
 * stops the Worker. Exits non-zero when a lane fails outside its expected failures.
 *
 * Lanes:
 * - legacy: @modelcontextprotocol/conformance 0.1.16, 2025 revisions, stateless legacy lane;
 * - modern: 0.2.0-alpha.12 with `--requirements 2026-07-28` (the frozen required set, plus the
 *   optional extension and pending scenarios it also runs, reported separately).
 *
 * Not part of `npm test`: it needs a local server and takes about a minute.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const port = Number(process.env.CONFORMANCE_PORT ?? 8791);
const url = `http://localhost:${port}/mcp`;
const env = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

const lanes = [
  {
    name: "legacy (2025 revisions, conformance 0.1.16)",
    bin: "node_modules/conformance-2025/dist/index.js",
    args: ["--expected-failures", "test/conformance/expected-failures.legacy.yaml"],
  },
  {
    name: "modern (2026-07-28, conformance 0.2.0-alpha.12)",
    bin: "node_modules/conformance-2026/dist/index.js",
    required: ["list", "--server", "--requirements", "2026-07-28"],
    args: [
      "--requirements",
      "2026-07-28",
      "--expected-failures",
      "test/conformance/expected-failures.modern.yaml",
    ],
  },
];

const worker = spawn(
  process.execPath,
  [
    "node_modules/wrangler/bin/wrangler.js",
    "dev",
    "-c",
    "test/conformance/wrangler.jsonc",
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
  const summaries = [];
  for (const lane of lanes) {
    console.log(`\n=== conformance lane: ${lane.name} ===`);
    const { code, output } = await run(lane.bin, ["server", "--url", url, ...lane.args]);
    const required = lane.required
      ? listed((await run(lane.bin, lane.required, false)).output)
      : [];
    summaries.push({ lane: lane.name, code, ...count(output, required) });
    if (code !== 0) exitCode = 1;
  }
  console.log("\n=== conformance pass counts ===");
  for (const s of summaries) {
    const scored = s.required > 0 ? `; required set ${s.requiredPassed}/${s.required} clean` : "";
    console.log(
      `${s.lane}: ${s.passed}/${s.total} scenarios clean${scored}; ${s.checks} checks passed; ` +
        `baseline ${s.code === 0 ? "ok" : "FAILED"}`,
    );
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  // The Worker runs in its own process group (wrangler plus workerd): stop exactly that group.
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
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (/** @type {number | null} */ code) =>
      reject(new Error(`wrangler dev exited early (${code})`)),
    );
  });
}

/**
 * Runs a conformance CLI, optionally echoing its output; resolves with exit code and output.
 * @param {string} bin
 * @param {string[]} args
 * @returns {Promise<{ code: number, output: string }>}
 */
function run(bin, args, echo = true) {
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
 * The server scenario names a `list --server` call printed.
 * @param {string} output
 * @returns {string[]}
 */
function listed(output) {
  const server = output.slice(
    output.indexOf("Server scenarios"),
    output.indexOf("Client scenarios"),
  );
  return [...server.matchAll(/^\s+- (\S+)/gm)].map((m) => String(m[1]));
}

/**
 * Counts scenarios and passed checks from a conformance SUMMARY block. A scenario is clean when
 * it passed at least one check and failed none (a "0 passed, 0 failed" row only warned).
 * @param {string} output
 * @param {string[]} required
 */
function count(output, required) {
  const plain = output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
  const summary = plain.slice(plain.indexOf("=== SUMMARY ==="));
  const rows = [...summary.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu)].map((m) => ({
    name: String(m[1]),
    clean: Number(m[2]) > 0 && m[3] === "0",
    checks: Number(m[2]),
  }));
  const requiredRows = rows.filter((row) => required.includes(row.name));
  return {
    total: rows.length,
    passed: rows.filter((row) => row.clean).length,
    checks: rows.reduce((sum, row) => sum + row.checks, 0),
    required: requiredRows.length,
    requiredPassed: requiredRows.filter((row) => row.clean).length,
  };
}
