// A `--stdio` launch that answered `initialize` early (cli/kept/early-answers.mjs) and is stopped
// by its client at once, while the launch check still plans, leaves nothing behind. With no
// launch memo (the memo folder keeps 8 configurations, the answers 16; a memo that could not be
// kept), nothing but the bridge listened for the signal until the supervisor ran: the process
// died by the signal and left its own temporary data folder for good.
//
// Two launches in a folder of their own (cache, config and temporary folders): the first keeps
// the host's answer; the launch memos are then removed; the second is answered early and gets a
// SIGTERM at once. It must exit 0 and leave no `code-mode-mcp-data-*` folder.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "./support/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin/code-mode-mcp.mjs");
const home = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-early-stop-"));
const temporary = join(home, "tmp");
mkdirSync(temporary);
const env = {
  ...process.env,
  XDG_CACHE_HOME: join(home, "cache"),
  XDG_CONFIG_HOME: join(home, "config"),
  TMPDIR: temporary,
};
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "e2e", version: "1" },
  },
};

/**
 * One launch: sends `initialize`, waits for its answer, then ends the launch by `end`.
 * @param {(child: import("node:child_process").ChildProcess) => Promise<void> | void} end
 */
async function launch(end) {
  const child = spawn(process.execPath, [BIN, "--stdio"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  // The guards' timers are cleared once the launch is done: left running, they kept this script
  // alive for up to two minutes after its verdict.
  /** @type {NodeJS.Timeout[]} */
  const timers = [];
  try {
    const answered = new Promise((resolve, reject) => {
      let buffered = "";
      child.stdout.on("data", (d) => {
        buffered += d;
        if (buffered.includes("\n")) resolve(JSON.parse(buffered.slice(0, buffered.indexOf("\n"))));
      });
      timers.push(
        setTimeout(() => reject(new Error(`no initialize answer; stderr:\n${stderr}`)), 120_000),
      );
    });
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    const answer = /** @type {any} */ (await answered);
    check(answer.result?.serverInfo, `initialize: ${JSON.stringify(answer)}`);
    await end(child);
    const result = /** @type {{ code: number | null, signal: string | null }} */ (
      await Promise.race([
        exited,
        new Promise((r) => timers.push(setTimeout(r, 60_000, "running"))),
      ])
    );
    return { ...result, stderr };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

const answers = join(home, "cache/code-mode-mcp/answers");
try {
  // The first launch keeps the host's answer (once it went out), then its client leaves.
  await launch(async (child) => {
    for (let i = 0; i < 600 && !(existsSync(answers) && readdirSync(answers).length > 0); i++)
      await new Promise((r) => setTimeout(r, 100));
    child.stdin?.end();
  });
  check(readdirSync(answers).length > 0, "the first launch kept no initialize answer");
  rmSync(join(home, "cache/code-mode-mcp/launch"), { recursive: true, force: true });
  check(
    readdirSync(temporary).length === 0,
    `left after the first launch: ${readdirSync(temporary)}`,
  );

  // The second is answered early, and its client stops it at once.
  const { code, signal, stderr } = await launch((child) => void child.kill("SIGTERM"));
  check(code === 0, `stopped at once: exit code ${code} (signal ${signal}); stderr:\n${stderr}`);
  const left = readdirSync(temporary).filter((name) => name.startsWith("code-mode-mcp-data-"));
  check(left.length === 0, `stopped at once: its data folder is left: ${left.join(", ")}`);
  console.log("e2e stdio-early-stop: stopped after an early answer: exit 0, nothing left — ok");
} finally {
  rmSync(home, { recursive: true, force: true });
}
