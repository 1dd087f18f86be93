// issue #15: the packed tarball's `code-mode-mcp` command, installed as the README says
// (`npm install -g`, into a prefix of its own) and run from an empty folder, runs the product
// without the repository: `check` prints a spec's summary, `deploy --dry-run` bundles the
// prebuilt Worker, `serve --spec --base-url` answers an MCP client (search + execute reach a local
// API with the credential from API_TOKEN), and stdio sessions started exactly as the README's
// desktop client snippets say (placeholders replaced), from a folder that is not the install
// folder, list the tools and run a search: test/e2e/support/desktop-config.json, the installed
// command, with the npm registry unreachable (issue #42: it needs
// none at launch), and desktop-config-npx.json, the `npx` alternative. Everything it starts is
// stopped at the end. Needs the npm registry for the installs (run by .ci/run).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as StdioClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { text } from "./support/programs.mjs";
import { allProcesses, processTree, stillRunning } from "./support/processes.mjs";
import { check } from "./support/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** @param {string} name */
const snippet = (name) =>
  JSON.parse(readFileSync(new URL(`./support/${name}`, import.meta.url), "utf8"));
const CANARY = `npx-e2e-canary-${crypto.randomUUID()}`;
const tmp = mkdtempSync(join(tmpdir(), "code-mode-mcp-npx-"));
const project = join(tmp, "empty-project");
/** Where `npm install -g --prefix` puts the package, and its command. */
const prefix = join(tmp, "global");
const COMMAND = join(prefix, "bin", "code-mode-mcp");
// The repository's Node 22 (and npm, npx) first, as `npm run` sets it up.
const env = {
  ...process.env,
  PATH: `${join(ROOT, "node_modules/.bin")}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

/** A small spec and the local API it describes. */
const SPEC = join(tmp, "inventory.yaml");
writeFileSync(
  SPEC,
  `openapi: 3.0.3
info: { title: Inventory, version: "1.0" }
paths:
  /items:
    get:
      operationId: listItems
      summary: Lists the items in stock
      responses: { "200": { description: ok } }
  /items/{id}:
    get:
      operationId: getItem
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { "200": { description: ok } }
`,
);
/** @type {(string | undefined)[]} */
const authorizations = [];
const api = createServer((req, res) => {
  authorizations.push(req.headers.authorization);
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(req.url === "/items" ? [{ id: "i1", name: "bolt" }] : { error: "no" }));
});
const apiPort = await freePort();
await new Promise((r) => api.listen(apiPort, "127.0.0.1", () => r(undefined)));
const apiUrl = `http://127.0.0.1:${apiPort}`;

/** @type {number[]} process groups this script started */
const groups = [];
/** @type {number[]} the stdio sessions' processes (npx's install lives outside tmp) */
const stdioTree = [];
let failed = false;
try {
  // 1. Pack (or take the tarball run.mjs packed once for this and test:package) and install
  // into an empty folder.
  const given = process.env.CODE_MODE_MCP_TARBALL;
  let tarball;
  if (given) {
    check(
      existsSync(given),
      `CODE_MODE_MCP_TARBALL=${given}: no such file (unset it to pack here)`,
    );
    console.log(`e2e npx-bin: the tarball packed before: ${given}`);
    // A copy in this script's folder, where its own `npm pack` would have put it.
    tarball = join(tmp, basename(given));
    copyFileSync(given, tarball);
  } else {
    console.log("e2e npx-bin: npm pack (builds the Worker) …");
    const packed = spawnSync("npm", ["pack", "--pack-destination", tmp, "--silent"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    });
    check(packed.status === 0, `npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
    tarball = join(tmp, packed.stdout.trim().split("\n").at(-1) ?? "");
  }
  // Installed once, as the README says (`npm install -g`, here into a prefix of this script's),
  // then run from an empty folder.
  mkdirSync(project);
  console.log("e2e npx-bin: npm install -g <tarball> (a prefix of its own) …");
  const installed = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, tarball, "--no-audit", "--no-fund", "--prefer-offline"],
    { cwd: tmp, env, encoding: "utf8" },
  );
  check(installed.status === 0, `npm install -g failed:\n${installed.stdout}\n${installed.stderr}`);

  // 2. check: the summary of the spec.
  const checked = spawnSync(COMMAND, ["check", SPEC], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  check(checked.status === 0, `check failed:\n${checked.stdout}\n${checked.stderr}`);
  check(/operations: +2\n/.test(checked.stdout), `check: ${checked.stdout}`);
  check(/tools\/list: +\d+ o200k tokens/.test(checked.stdout), `check: ${checked.stdout}`);
  check(/compiled: +\d+ bytes/.test(checked.stdout), `check: ${checked.stdout}`);
  const refused = spawnSync(COMMAND, ["serve", "--api-token", CANARY], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  check(
    refused.status === 2 && refused.stderr.includes("never taken from flags"),
    `--api-token was not refused: ${refused.status} ${refused.stderr}`,
  );
  const dry = spawnSync(COMMAND, ["deploy", "--dry-run"], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  check(
    dry.status === 0 && /--dry-run: exiting now/.test(dry.stdout + dry.stderr),
    `deploy --dry-run failed:\n${dry.stdout}\n${dry.stderr}`,
  );
  // Issue #41: a credential with no caller check is an open door once deployed: refused before
  // anything is built, naming the opt-out; with MCP_API_KEY the same deploy builds. The secrets'
  // values never reach the output.
  const key = `npx-e2e-key-${crypto.randomUUID()}`;
  const open = spawnSync(COMMAND, ["deploy", "--dry-run"], {
    cwd: project,
    env: { ...env, API_TOKEN: CANARY },
    encoding: "utf8",
  });
  const openOutput = open.stdout + open.stderr;
  check(
    open.status !== 0 &&
      openOutput.includes("ALLOW_ANONYMOUS=on") &&
      !/exiting now/.test(openOutput),
    `deploy --dry-run with API_TOKEN and no caller check was not refused:\n${openOutput}`,
  );
  const guarded = spawnSync(COMMAND, ["deploy", "--dry-run"], {
    cwd: project,
    env: { ...env, API_TOKEN: CANARY, MCP_API_KEY: key },
    encoding: "utf8",
  });
  const guardedOutput = guarded.stdout + guarded.stderr;
  check(
    guarded.status === 0 && /--dry-run: exiting now/.test(guardedOutput),
    `deploy --dry-run with API_TOKEN and MCP_API_KEY failed:\n${guardedOutput}`,
  );
  for (const secret of [CANARY, key])
    check(![openOutput, guardedOutput].some((o) => o.includes(secret)), "deploy printed a secret");
  console.log(
    "e2e npx-bin: check prints the summary; a credential flag is refused; deploy --dry-run bundles, refuses a credential with no caller check and builds with MCP_API_KEY — ok",
  );

  // 3. serve --spec --base-url over HTTP, the credential from the environment.
  const port = await freePort();
  const server = spawn(
    COMMAND,
    ["serve", "--spec", SPEC, "--base-url", apiUrl, "--port", String(port)],
    {
      cwd: project,
      env: { ...env, API_TOKEN: CANARY },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  groups.push(/** @type {number} */ (server.pid));
  let output = "";
  server.stdout.on("data", (d) => (output += d));
  server.stderr.on("data", (d) => (output += d));
  const exited = new Promise((r) => server.once("exit", r));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    check(Date.now() < deadline && server.exitCode === null, `serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const client = new Client(
    { name: "e2e-npx", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  const tools = (await client.listTools()).tools.map((t) => t.name).toSorted();
  check(JSON.stringify(tools) === '["execute","search"]', `tools: ${tools}`);
  const search = await client.callTool({
    name: "search",
    arguments: { code: `async () => Object.keys((await codemode.spec()).paths)` },
  });
  check(text(search).includes("/items/{id}"), `search → ${text(search)}`);
  const executed = await client.callTool({
    name: "execute",
    arguments: {
      code: `async () => await codemode.request({ method: "GET", path: "/items" })`,
    },
  });
  check(text(executed).includes("bolt"), `execute → ${text(executed)}`);
  await client.close();
  check(authorizations.at(-1) === `Bearer ${CANARY}`, `the API saw ${authorizations.at(-1)}`);
  process.kill(-(/** @type {number} */ (server.pid)), "SIGTERM");
  /** @type {NodeJS.Timeout | undefined} */
  let bound;
  await Promise.race([exited, new Promise((r) => (bound = setTimeout(r, 10_000)))]);
  clearTimeout(bound);
  check(!output.includes(CANARY), "serve's output contains the credential");
  console.log("e2e npx-bin: serve --spec --base-url answers search and execute — ok");

  // 4. A desktop client's stdio session from the README's first snippet: the installed command,
  // started with the npm registry unreachable (a dead registry and proxy): no launch step may
  // need it.
  const dead = `http://127.0.0.1:${await freePort()}`;
  await desktopSession(snippet("desktop-config.json"), tarball, {
    ...env,
    PATH: `${join(prefix, "bin")}:${env.PATH}`,
    npm_config_registry: `${dead}/`,
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
    http_proxy: dead,
    https_proxy: dead,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  });
  console.log(
    "e2e npx-bin: the installed command, as the README's first desktop snippet starts it with the registry unreachable, lists tools and searches — ok",
  );

  // 5. The npx alternative (desktop-config-npx.json): npx installs the tarball the snippet names.
  await desktopSession(snippet("desktop-config-npx.json"), tarball, env);
  console.log(
    "e2e npx-bin: a stdio session from the npx desktop-client snippet, started in another folder, lists tools and searches — ok",
  );
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const left of stillRunning(stdioTree)) {
    try {
      process.kill(left, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  // Whatever still runs from the installed package (a runtime of a failed session).
  for (const p of allProcesses())
    if (p.command.includes(prefix)) {
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
  api.close();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/**
 * A desktop client's stdio session, started as `config` (a README snippet) says with its
 * placeholders replaced, from a folder that is not the install folder (a desktop client starts
 * servers from anywhere): it lists the tools and searches, stdout carries protocol only, and
 * closing the client ends every process of the session.
 * @param {any} config - the snippet's JSON
 * @param {string} tarball - replaces the snippet's tarball path
 * @param {NodeJS.ProcessEnv} sessionEnv - the client's environment
 */
async function desktopSession(config, tarball, sessionEnv) {
  const entry = config.mcpServers["my-api"];
  const elsewhere = mkdtempSync(join(tmp, "elsewhere-"));
  /** @param {string} value */
  const fill = (value) =>
    value === "/path/to/openapi.yaml"
      ? SPEC
      : value === "https://api.example.com"
        ? apiUrl
        : value.startsWith("/path/to/code-mode-mcp-")
          ? tarball
          : value;
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args.map(fill),
    env: { ...sessionEnv, ...entry.env, API_TOKEN: CANARY },
    cwd: elsewhere,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const stdio = new StdioClient({ name: "e2e-desktop", version: "1.0.0" });
  // Any line on stdout that is not a JSON-RPC message (a log line) would show up here.
  /** @type {Error[]} */
  const stdoutErrors = [];
  // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK client has only this callback
  stdio.onerror = (error) => stdoutErrors.push(error);
  const started = Date.now();
  // npx resolves the package's dependencies from the registry before the command even starts
  // (its caveat in the README): on a loaded machine that alone passed the SDK's 60 s default.
  await stdio.connect(transport, { timeout: 240_000 }).catch((/** @type {Error} */ error) => {
    throw new Error(
      `${entry.command}: initialize failed after ${Date.now() - started} ms: ${error.message}\nits stderr:\n${stderr}`,
    );
  });
  console.log(`e2e npx-bin: ${entry.command}: initialize answered in ${Date.now() - started} ms`);
  const pid = transport.pid;
  const listed = (await stdio.listTools()).tools.map((t) => t.name).toSorted();
  check(JSON.stringify(listed) === '["execute","search"]', `stdio tools: ${listed}\n${stderr}`);
  const found = await stdio.callTool({
    name: "search",
    arguments: {
      code: `async () => Object.values((await codemode.spec()).paths["/items"]).map((o) => o.summary)`,
    },
  });
  check(
    text(found).includes("Lists the items in stock"),
    `stdio search → ${text(found)}\n${stderr}`,
  );
  check(stdoutErrors.length === 0, `stdout carried more than protocol: ${stdoutErrors.join("; ")}`);
  // Closing stdin stops the server and its runtimes (npx, the bin, the supervisor, workerd).
  const tree = processTree(/** @type {number} */ (pid)).map((p) => p.pid);
  stdioTree.push(...tree);
  check(tree.length > 2, `the stdio session's processes were not found (pid ${pid})`);
  await stdio.close();
  const gone = Date.now() + 15_000;
  while (Date.now() < gone && stillRunning(tree).length > 0)
    await new Promise((r) => setTimeout(r, 250));
  check(
    stillRunning(tree).length === 0,
    `processes left after the stdio client closed (pid ${pid}):\n${allProcesses()
      .filter((p) => stillRunning(tree).includes(p.pid))
      .map((p) => `${p.pid} ${p.command}`)
      .join("\n")}`,
  );
  check(!stderr.includes(CANARY), "the stdio server's stderr contains the credential");
}
