// Issue #28: the README's desktop set-up with a big spec on a busy machine. The command a desktop
// client runs (`code-mode-mcp --stdio --spec … --base-url …`, here bin/code-mode-mcp.mjs from the
// clone, as `npx code-mode-mcp` runs it from the package) with GitHub's REST spec (13 MB), while two
// busy processes load both cores: every launch must answer its first `search` (a stdio client, SDK
// v1, as desktop clients use), and no runtime or runner may be replaced. Launches: STDIO_LAUNCHES
// (default 3); the time to `initialize` and to the first search is printed for each. The first
// launch starts with an empty cache folder (XDG_CACHE_HOME of its own) and validates and compiles
// the spec; every later one must find the compiled spec that launch kept (cli/kept/spec-cache.mjs), as
// a desktop client's second start does.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "./support/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// GitHub's spec comes from the fixtures step (test/.fixtures/, pinned by SHA-256; once).
execFileSync(process.execPath, [join(ROOT, "scripts/fetch-fixture-specs.mjs")], {
  stdio: "inherit",
});
const SPEC = join(ROOT, "test/.fixtures/api.github.com.json");
const LAUNCHES = Number(process.env.STDIO_LAUNCHES ?? 3);
// A desktop client's own connection timeout is typically 60 s or more; the search, once
// connected, is ordinary work.
const CONNECT_MS = 120_000;

const cacheHome = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-cache-"));
process.on("exit", () => rmSync(cacheHome, { recursive: true, force: true }));

// Two CPU-bound processes for the whole script: the machine is busy, as a user's is.
const busy = Array.from({ length: 2 }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopBusy = () => busy.forEach((p) => p.kill("SIGKILL"));
process.on("exit", stopBusy);

// No PERSIST_TO, as the README's desktop set-up: each launch's data is in a temporary folder of
// its own, the only one in which a later launch's host starts beside the check (cli/serve.mjs).
// Those folders are made in this one (TMPDIR), removed at the end whatever a launch left.
const data = mkdtempSync(join(tmpdir(), "codemode-e2e-stdio-"));
process.on("exit", () => rmSync(data, { recursive: true, force: true }));

try {
  for (let launch = 1; launch <= LAUNCHES; launch++) {
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
      env: {
        ...process.env,
        TMPDIR: data,
        XDG_CACHE_HOME: cacheHome,
        API_TOKEN: "e2e-not-a-real-token-1234",
      },
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
      const cached = /validated and compiled by an earlier start/.test(stderr);
      check(
        cached === launch > 1,
        `launch ${launch}: expected ${launch > 1 ? "the compiled spec kept by launch 1" : "a full compile"}:\n${stderr}`,
      );
      // Issue #43: a later launch starts its host from the memo the first one kept, beside the
      // check (cli/local-server/early-host.mjs), and the check's plan takes it as it is.
      const beside = /runtime 1 started beside the launch check/.test(stderr);
      check(
        beside === launch > 1 && !/the settings changed since the last launch/.test(stderr),
        `launch ${launch}: expected ${launch > 1 ? "the host started beside the check" : "no memo yet"}:\n${stderr}`,
      );
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
    }
  }
  console.log(`e2e stdio-big-spec: ${LAUNCHES} of ${LAUNCHES} launches answered — ok`);
} finally {
  stopBusy();
}
