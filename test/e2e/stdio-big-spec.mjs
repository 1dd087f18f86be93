// Issue #28: the README's desktop set-up with a big spec on a busy machine. The command a desktop
// client runs (`code-mode-mcp --stdio --spec … --base-url …`, here bin/code-mode-mcp.mjs from the
// clone, as `npx code-mode-mcp` runs it from the package) with GitHub's REST spec (13 MB), while two
// busy processes load both cores: every launch must answer its first `search` (a stdio client, SDK
// v1, as desktop clients use), and no runtime or runner may be replaced. Launches: STDIO_LAUNCHES
// (default 3), STDIO_AT_ONCE of them at a time (default 2: each launch then also loads the
// machine for the other, as a second desktop client or a test suite would; two launches took
// 44.5 s at once, 50.6 s one after another, 2026-12-05 at a load average of ~6); the time to
// `initialize` and to the first search is printed for each.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "./server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// GitHub's spec comes from the fixtures step (test/.fixtures/, pinned by SHA-256; once).
execFileSync(process.execPath, [join(ROOT, "scripts/fetch-fixture-specs.mjs")], {
  stdio: "inherit",
});
const SPEC = join(ROOT, "test/.fixtures/api.github.com.json");
const LAUNCHES = Number(process.env.STDIO_LAUNCHES ?? 3);
const AT_ONCE = Number(process.env.STDIO_AT_ONCE ?? 2);
check(
  Number.isInteger(LAUNCHES) && LAUNCHES >= 1 && Number.isInteger(AT_ONCE) && AT_ONCE >= 1,
  `STDIO_LAUNCHES and STDIO_AT_ONCE must be whole numbers ≥ 1 (got ${process.env.STDIO_LAUNCHES}, ${process.env.STDIO_AT_ONCE})`,
);
// A desktop client's own connection timeout is typically 60 s or more; the search, once
// connected, is ordinary work.
const CONNECT_MS = 120_000;

// Two CPU-bound processes for the whole script: the machine is busy, as a user's is.
const busy = Array.from({ length: 2 }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopBusy = () => busy.forEach((p) => p.kill("SIGKILL"));
process.on("exit", stopBusy);

/**
 * One launch: connect, the first search, the checks; always closed.
 * @param {number} launch
 */
async function launchOnce(launch) {
  const data = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-"));
  let stderr = "";
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      join(ROOT, "bin/code-mode-mcp.mjs"),
      "--stdio",
      "--spec",
      SPEC,
      "--base-url",
      "https://api.github.com",
    ],
    env: { ...process.env, PERSIST_TO: data, API_TOKEN: "e2e-not-a-real-token-1234" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  const started = Date.now();
  try {
    await client.connect(transport, { timeout: CONNECT_MS });
    const connectedMs = Date.now() - started;
    const t0 = Date.now();
    const result = await client.callTool(
      {
        name: "search",
        arguments: {
          code: `async () => Object.keys((await codemode.spec()).paths["/repos/{owner}/{repo}/issues"])`,
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    const searchMs = Date.now() - t0;
    const body = JSON.stringify(result.content);
    console.log(
      `e2e stdio-big-spec: launch ${launch}: initialize answered after ${connectedMs} ms, first search in ${searchMs} ms → ${body.slice(0, 80)}`,
    );
    check(!result.isError && /get/i.test(body), `launch ${launch}: search failed: ${body}`);
    check(
      !/ is replaced because /.test(stderr),
      `launch ${launch}: a runtime was replaced:\n${stderr}`,
    );
  } catch (error) {
    throw new Error(
      `launch ${launch}: ${/** @type {Error} */ (error).message} after ${Date.now() - started} ms; stderr:\n${stderr}`,
      { cause: error },
    );
  } finally {
    await client.close().catch(() => {});
    rmSync(data, { recursive: true, force: true });
  }
}

try {
  for (let first = 1; first <= LAUNCHES; first += AT_ONCE) {
    const batch = Array.from(
      { length: Math.min(AT_ONCE, LAUNCHES - first + 1) },
      (_, i) => first + i,
    );
    // Every launch of the batch ends (and closes) before the first failure is reported.
    const settled = await Promise.allSettled(batch.map(launchOnce));
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
  }
  console.log(`e2e stdio-big-spec: ${LAUNCHES} of ${LAUNCHES} launches answered — ok`);
} finally {
  stopBusy();
}
