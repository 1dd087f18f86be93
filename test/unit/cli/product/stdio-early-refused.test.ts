/**
 * The `--stdio` launcher with a kept `initialize` answer whose check then refuses the launch
 * (bin/code-mode-mcp.mjs, issue #43): the client got `initialize` from the kept answer before
 * the check ended, so its next request carries the refusal (a port another program took since
 * the last launch), and the process exits 1. Without a kept answer, `initialize` itself carries
 * it, as before. The real command in a child process, its kept answer written as a launch would;
 * the check refuses before any runtime starts.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { earlyAnswersOf } from "../../../../cli/kept/early-answers.mjs";
import { freePort } from "../../../../cli/local-server/free-port.mjs";
import { stdioCallerKey } from "../../../../cli/local-server/stdio-caller-key.mjs";
import { isLaunchSetting } from "../../../../cli/product/stdio-entry.mjs";
import { PRODUCT_MODULE, WORKER_CONFIG, WORKER_SCRIPT } from "../../../../cli/runtime-paths.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";

const BIN = fileURLToPath(new URL("../../../../bin/code-mode-mcp.mjs", import.meta.url));
const scratch = scratchFolders("stdio-early-refused-");
const taken: Server[] = [];
afterEach(async () => {
  for (const server of taken.splice(0)) await new Promise((r) => server.close(r));
});

const KEPT = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: "kept-by-the-last-launch", version: "0.1.0" },
};
const lines = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join("");

/** A port another program holds, and cache and config homes of the test's own. */
async function setUp() {
  const root = scratch.folder();
  const port = await freePort();
  const server = createServer();
  taken.push(server);
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  const env = {
    ...process.env,
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
    TMPDIR: root,
  };
  return { port, env };
}

/** The command as a desktop client runs it, with the client's first messages on stdin. */
function launch(port: number, env: NodeJS.ProcessEnv) {
  const run = spawnSync(process.execPath, [BIN, "--stdio", "--port", String(port)], {
    encoding: "utf8",
    timeout: 60_000,
    input: lines,
    env,
  });
  const answers = run.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
  return { status: run.status, answers, stderr: run.stderr };
}

describe("a --stdio launch refused after it answered initialize early", () => {
  it("answers the next request with the refusal, then exits 1", async () => {
    const { port, env } = await setUp();
    // What a launch with these settings kept (the key the command computes: its caller key,
    // the port the user gave, the demo spec, /mcp).
    const keyed = stdioCallerKey({ ...env, PORT: String(port) }).env;
    earlyAnswersOf({
      env: keyed,
      route: "/mcp",
      workerFiles: [PRODUCT_MODULE, WORKER_CONFIG, WORKER_SCRIPT],
      isSetting: isLaunchSetting,
    }).keep({ "2025-06-18": KEPT });
    await new Promise((r) => setImmediate(r));

    const { status, answers, stderr } = launch(port, env);
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: 1, result: KEPT },
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32603, message: expect.stringContaining(`127.0.0.1:${port} is in use`) },
      },
    ]);
    expect(status).toBe(1);
    expect(stderr).toContain("the configuration is invalid, nothing was started");
  }, 90_000);

  it("answers initialize itself with the refusal without a kept answer, as before", async () => {
    const { port, env } = await setUp();
    const { status, answers } = launch(port, env);
    expect(answers).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32603, message: expect.stringContaining(`127.0.0.1:${port} is in use`) },
      },
    ]);
    expect(status).toBe(1);
  }, 90_000);
});
