// Issue #32: a normal close of a stdio session prints nothing alarming. The command a desktop
// client runs (`code-mode-mcp --stdio`, bin/code-mode-mcp.mjs from the clone) serves a session
// that runs a program in a sandbox runner (so the host holds RPC connections to the runners),
// then the client ends it the two ways desktop clients do: closing stdin, and SIGTERM. Each time
// the process must exit with code 0, and nothing it prints after the session began may look like
// a failure (no workerd `kj::` exception, no `[ERROR]`, no "could not pass a message", no stack).
// And the server's port answers only the bridge: a stranger's tools/call or page there gets 403,
// also when the user's own caller check is FORWARD_CALLER_TOKEN (no key can sit beside it).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "./support/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin/code-mode-mcp.mjs");
/** What a failure looks like in the output. */
const ALARMING =
  /kj::|kj\/|\[ERROR\]|✘|\berror\b|could not pass|disconnected|terminated|lost|^\s+at |stack:/i;

/**
 * One session, ended by `end` ("stdin" or "SIGTERM"), after a program ran or at once after
 * `tools/list` (messages of the session start still in flight: the close cuts them).
 * @param {"stdin" | "SIGTERM"} end
 * @param {boolean} run - run a program in a sandbox runner first
 * @param {Record<string, string>} [settings] - more settings for the server
 */
async function session(end, run, settings = {}) {
  const data = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-close-"));
  const child = spawn(process.execPath, [BIN, "--stdio"], {
    env: { ...process.env, PERSIST_TO: data, ...settings },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  /** @type {Map<number, (message: any) => void>} */
  const waiting = new Map();
  let buffered = "";
  child.stdout.on("data", (d) => {
    buffered += d;
    for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let next = 1;
  /** @param {string} method @param {object} [params] */
  const request = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(
        () => reject(new Error(`${method}: no answer; stderr:\n${stderr}`)),
        120_000,
      );
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  try {
    await request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "e2e-stdio-close", version: "1" },
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    const listed = await request("tools/list");
    check(listed.result?.tools?.length === 2, `${end}: tools/list: ${JSON.stringify(listed)}`);
    if (run) {
      const ran = await request("tools/call", {
        name: "execute",
        arguments: {
          code: 'async () => (await codemode.request({ method: "GET", path: "/projects" })).items.length',
        },
      });
      check(ran.result && !ran.result.isError, `${end}: execute: ${JSON.stringify(ran)}`);
      await strangerRefused(() => stderr, end);
    }
    const before = stderr.length;
    if (end === "stdin") child.stdin.end();
    else child.kill("SIGTERM");
    // The bound's timer is cleared once the command exits: pending, it kept this script alive
    // up to 30 s after its last check.
    /** @type {NodeJS.Timeout | undefined} */
    let bound;
    const { code, signal } = /** @type {{ code: number | null, signal: string | null }} */ (
      await Promise.race([
        exited,
        new Promise((_, reject) => {
          bound = setTimeout(
            () => reject(new Error(`${end}: still running 30 s after the close`)),
            30_000,
          );
        }),
      ]).finally(() => clearTimeout(bound))
    );
    check(code === 0, `${end}: exit code ${code} (signal ${signal}); stderr:\n${stderr}`);
    // Everything printed during the session and its close, past the start-up lines.
    const printed = stderr.slice(stderr.indexOf("MCP over stdio"));
    const alarming = printed.split("\n").filter((line) => ALARMING.test(line));
    check(
      alarming.length === 0,
      `${end}: alarming output on a normal close:\n${alarming.join("\n")}\n--- all after the close:\n${stderr.slice(before)}`,
    );
    console.log(
      `e2e stdio-close: closed by ${end} ${run ? "after a run" : "at once"}: exit 0, nothing alarming — ok`,
    );
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(data, { recursive: true, force: true });
  }
}

/**
 * The server's port is the bridge's alone (cli/local-server/front/bridge-only.mjs): another
 * process on the machine that POSTs a tool call to it, with no key or a wrong one, or opens its
 * status page, is refused before anything runs. Before, a stranger's `execute` ran with the
 * user's `API_TOKEN` (with `FORWARD_CALLER_TOKEN=on` still after a key was added for the rest).
 * @param {() => string} stderr - what the session printed so far (names the port)
 * @param {string} end - the session's name in messages
 */
async function strangerRefused(stderr, end) {
  const deadline = Date.now() + 30_000;
  while (
    !/MCP over stdio ↔ (http:\/\/127\.0\.0\.1:\d+\/mcp)/.test(stderr()) &&
    Date.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 100));
  const url = /MCP over stdio ↔ (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr())?.[1];
  check(url !== undefined, `${end}: no endpoint printed:\n${stderr()}`);
  for (const authorization of [undefined, "Bearer not-this-launch-key-0123456789"]) {
    const response = await fetch(/** @type {string} */ (url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "execute", arguments: { code: "async () => 'ran'" } },
      }),
    });
    const text = await response.text();
    check(
      response.status === 403 && !text.includes("ran"),
      `${end}: a stranger's tools/call on the --stdio server's port (${authorization ? "a wrong key" : "no key"}) got ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  const page = await fetch(new URL("/", /** @type {string} */ (url)));
  check(page.status === 403, `${end}: a stranger's GET / on the port got ${page.status}`);
  console.log(`e2e stdio-close: a stranger's tools/call and page on the port: 403 — ok`);
}

/**
 * A session of the SDK's stdio client (as desktop clients use), closed with `client.close()` at
 * once after `tools/list`: the SDK ends stdin and signals the process while the bridge may still
 * be passing the session's first messages on.
 */
async function sdkSession() {
  const data = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-close-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "--stdio"],
    env: { ...process.env, PERSIST_TO: data },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "e2e-stdio-close", version: "1" });
  try {
    await client.connect(transport, { timeout: 120_000 });
    const child = /** @type {import("node:child_process").ChildProcess} */ (
      /** @type {any} */ (transport)._process
    );
    const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    check((await client.listTools()).tools.length === 2, "sdk: tools/list");
    await client.close();
    /** @type {NodeJS.Timeout | undefined} */
    let bound;
    const code = await Promise.race([
      exited,
      new Promise((r) => (bound = setTimeout(r, 30_000, "running"))),
    ]);
    clearTimeout(bound);
    check(code === 0, `sdk: exit code ${code}; stderr:\n${stderr}`);
    const alarming = stderr
      .slice(stderr.indexOf("MCP over stdio"))
      .split("\n")
      .filter((line) => ALARMING.test(line));
    check(alarming.length === 0, `sdk: alarming output on a normal close:\n${alarming.join("\n")}`);
    console.log("e2e stdio-close: the SDK client's close at once: exit 0, nothing alarming — ok");
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

await sdkSession();
for (const run of [false, true]) {
  await session("stdin", run);
  await session("SIGTERM", run);
}
// The callers' own tokens as the check: no key beside them, the bridge's secret still guards.
await session("stdin", true, {
  FORWARD_CALLER_TOKEN: "on",
  API_TOKEN: "e2e-stdio-users-api-token-0123456789",
});
console.log("e2e stdio-close: both closes quiet — ok");
