// issue #32: every refusal of the `code-mode-mcp` command names the problem and the fix for the
// way it was started, with its exit code, and leaves nothing behind: a spec URL, malformed YAML
// and JSON (line and column), a JSON document that is not OpenAPI (pointer and rule), a port out
// of range (refused before compiling anything), `deploy --spec` (pointing to `init`), `init`
// into a folder that is not empty or with a broken spec; `--help`/`--version` under the
// machine's older Node, and a stdio client under that Node getting the reason as an MCP error.
// Issue #42: every set-up refusal under `--stdio` (a spec URL, a missing spec, broken YAML, a port
// in use) reaches a real stdio client as its `initialize` error with the terminal's message and
// fix, and the process then exits.
// Runs the command from the repository (bin/, over dist/ built by build:worker first), each case
// with a private TMPDIR that must be empty afterwards.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { check } from "./support/server.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin/code-mode-mcp.mjs");
/** The machine's own Node (older than 22 on these machines), if there is one. */
const OLD_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => {
  if (!existsSync(p)) return false;
  const version = spawnSync(p, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout;
  return Number(version.split(".")[0]) < 22;
});

const dir = mkdtempSync(join(tmpdir(), "code-mode-mcp-start-errors-"));
const file = (/** @type {string} */ name, /** @type {string} */ text) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const badYaml = file("bad.yaml", "openapi: 3.0.3\ninfo: {title: x\n  version: 1\npaths: {}\n");
const badJson = file("bad.json", '{\n  "openapi": "3.0.3",\n  "info": }\n');
const notOpenApi = file("package.json", '{ "name": "not-a-spec", "version": "1.0.0" }\n');
const invalid = file("invalid.yaml", "openapi: 3.0.3\ninfo: { title: Broken }\npaths: {}\n");
const full = join(dir, "full");
mkdirSync(full);
writeFileSync(join(full, "keep.txt"), "mine\n");

/**
 * @typedef {{ name: string, args: string[], code: number, says: (string | RegExp)[],
 *   node?: string, cwd?: string }} Case
 */
/** @type {Case[]} */
const CASES = [
  {
    name: "a spec URL",
    args: ["serve", "--spec", "https://raw.githubusercontent.com/o/r/main/openapi.yaml"],
    code: 2,
    says: ["URLs are not fetched: download it first", "curl -fLo openapi.json"],
  },
  {
    name: "malformed YAML",
    args: ["serve", "--spec", badYaml],
    code: 1,
    says: ["line 3, column 10", "(rule: YAML syntax)", "Fix:", "nothing was started"],
  },
  {
    name: "malformed JSON (check)",
    args: ["check", badJson],
    code: 1,
    says: ["line 3, column 11: Unexpected token '}' (rule: JSON syntax)", "Fix:"],
  },
  {
    name: "JSON that is not OpenAPI",
    args: ["check", notOpenApi],
    code: 1,
    says: ['#: must have the property "openapi" (3.x) or "swagger" (2.0)', "(rule: required)"],
  },
  {
    name: "an invalid OpenAPI document",
    args: ["serve", "--spec", invalid],
    code: 1,
    says: ["#/info: must have required property 'version' (rule: required)", "Fix:"],
  },
  {
    name: "a port out of range, before any compiling",
    args: ["serve", "--spec", invalid, "--port", "99999"],
    code: 1,
    says: ['PORT: "99999" is not a port number (1 to 65535)', "Fix: --port 8787"],
  },
  {
    name: "deploy --spec",
    args: ["deploy", "--spec", invalid],
    code: 2,
    says: ["npx code-mode-mcp init my-api --spec", "npm run deploy"],
  },
  {
    name: "init into a folder that is not empty",
    args: ["init", full, "--no-install"],
    code: 1,
    says: ["is not empty: nothing was written", "Fix:"],
  },
  {
    name: "init with a broken spec",
    args: ["init", join(dir, "fresh"), "--spec", badYaml, "--no-install"],
    code: 1,
    says: ["line 3, column 10", "Nothing was written"],
  },
  ...(OLD_NODE
    ? [
        {
          name: "--help on an older Node",
          args: ["--help"],
          code: 0,
          says: ["Usage:"],
          node: OLD_NODE,
        },
        {
          name: "--version on an older Node",
          args: ["--version"],
          code: 0,
          says: [/^\d+\.\d+\.\d+/m],
          node: OLD_NODE,
        },
        {
          name: "serve on an older Node",
          args: ["serve"],
          code: 1,
          says: ["Node.js 22 or later is needed", "Fix: install Node.js 22"],
          node: OLD_NODE,
        },
      ]
    : []),
];

try {
  const built = spawnSync("npm", ["run", "build:worker"], { cwd: ROOT, encoding: "utf8" });
  check(built.status === 0, `build:worker failed:\n${built.stdout}\n${built.stderr}`);
  for (const c of CASES) {
    const temp = join(dir, "tmp");
    mkdirSync(temp, { recursive: true });
    const run = spawnSync(c.node ?? process.execPath, [BIN, ...c.args], {
      cwd: c.cwd ?? dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, TMPDIR: temp, CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    const output = `${run.stdout}${run.stderr}`;
    check(run.status === c.code, `${c.name}: exit ${run.status}, not ${c.code}:\n${output}`);
    for (const said of c.says)
      check(
        typeof said === "string" ? output.includes(said) : said.test(output),
        `${c.name}: the output does not say ${said}:\n${output}`,
      );
    const left = readdirSync(temp);
    check(left.length === 0, `${c.name}: left ${left.join(", ")} in the temporary folder`);
    rmSync(temp, { recursive: true });
    console.log(`e2e start-errors: ${c.name} → exit ${c.code}, says what to do — ok`);
  }
  check(!existsSync(join(dir, "fresh")), "init with a broken spec left its folder");

  // And the same init with a good spec and an upstream writes the project for them (YAML as
  // JSON, the spec's server as API_BASE_URL, /mcp/code over the upstream, no sample files).
  const good = file(
    "inventory.yaml",
    'openapi: 3.0.3\ninfo: { title: Inventory, version: "1" }\nservers: [{ url: https://inventory.example.com/v1 }]\npaths:\n  /items:\n    get:\n      operationId: listItems\n      responses: { "200": { description: ok } }\n',
  );
  const made = join(dir, "made");
  const init = spawnSync(
    process.execPath,
    [
      BIN,
      "init",
      made,
      "--spec",
      good,
      "--upstream",
      "https://mcp.example.com/mcp",
      "--no-install",
    ],
    { cwd: dir, encoding: "utf8", timeout: 120_000 },
  );
  check(
    init.status === 0,
    `init --spec --upstream: exit ${init.status}:\n${init.stdout}${init.stderr}`,
  );
  const files = readdirSync(join(made, "src")).toSorted().join(" ");
  check(
    files === "api.ts caller-check.ts code.ts env.d.ts index.ts openapi.json skills.json",
    `init --spec wrote src/: ${files}`,
  );
  const wrangler = readFileSync(join(made, "wrangler.jsonc"), "utf8");
  check(
    wrangler.includes('"API_BASE_URL":"https://inventory.example.com/v1"') &&
      wrangler.includes('"UPSTREAM_URL":"https://mcp.example.com/mcp"'),
    `init --spec wrangler.jsonc:\n${wrangler}`,
  );
  const written = JSON.parse(readFileSync(join(made, "src/openapi.json"), "utf8"));
  check(
    written.paths["/items"].get.operationId === "listItems",
    "src/openapi.json is not the spec",
  );
  check(
    readdirSync(join(made, "vendor")).some((f) => /^code-mode-mcp-.*\.tgz$/.test(f)),
    "init did not vendor the package",
  );
  console.log("e2e start-errors: init --spec --upstream writes the project for them — ok");
  check(readdirSync(full).join() === "keep.txt", "init touched a folder that was not empty");

  if (OLD_NODE) {
    // A desktop client whose `node` is too old sees the reason, not a bare "Connection closed".
    const client = new Client({ name: "e2e-old-node", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: OLD_NODE,
      args: [BIN, "--stdio"],
      cwd: dir,
      stderr: "pipe",
    });
    const failure = await client.connect(transport).then(
      () => "connected",
      (/** @type {Error} */ error) => error.message,
    );
    check(
      failure.includes("Node.js 22 or later is needed") && failure.includes("Fix:"),
      `stdio under ${OLD_NODE}: ${failure}`,
    );
    await client.close().catch(() => undefined);
    console.log(
      "e2e start-errors: a stdio client under an older Node gets the reason as an MCP error — ok",
    );
  } else
    console.log("e2e start-errors: no Node older than 22 on this machine: old-Node cases skipped");

  // Set-up errors under --stdio: the client's `initialize` fails with the message and the fix
  // (not "Connection closed"), the process exits, and nothing is left behind.
  const taken = createServer();
  const takenPort = await freePort();
  await new Promise((resolve) => taken.listen(takenPort, "127.0.0.1", () => resolve(undefined)));
  /** @type {{ name: string, args: string[], says: string[] }[]} */
  const STDIO_CASES = [
    {
      name: "a spec URL",
      args: ["--spec", "https://example.com/openapi.yaml"],
      says: ["URLs are not fetched", "curl -fLo openapi.json"],
    },
    {
      name: "a missing spec",
      args: ["--spec", join(dir, "missing.yaml")],
      says: ["missing.yaml does not exist", "Fix: point SPEC_FILE (--spec)"],
    },
    {
      // It exists: "does not exist" sent the user looking for a typo (attack2).
      name: "a folder as the spec",
      args: ["--spec", dir],
      says: ["is not a file (a folder, a device or a pipe)", "Fix: point SPEC_FILE (--spec)"],
    },
    {
      name: "broken YAML",
      args: ["--spec", badYaml],
      says: ["line 3, column 10", "(rule: YAML syntax)", "Fix:", "nothing was started"],
    },
    {
      name: "a port in use",
      args: ["--port", String(takenPort)],
      says: [`127.0.0.1:${takenPort} is in use`, "Fix: stop what uses the port", "--port 8788"],
    },
  ];
  try {
    for (const c of STDIO_CASES) {
      const temp = join(dir, "tmp");
      mkdirSync(temp, { recursive: true });
      const client = new Client({ name: "e2e-stdio-refusal", version: "1.0.0" });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "--stdio", ...c.args],
        cwd: dir,
        env: /** @type {Record<string, string>} */ ({
          ...process.env,
          TMPDIR: temp,
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
        }),
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk) => (stderr += chunk));
      const started = Date.now();
      // The pid is read while the process runs: a transport whose process has exited (it
      // answers, then exits at once) no longer reports one.
      /** @type {number | null} */
      let pid = null;
      const seen = setInterval(() => (pid ??= transport.pid), 1);
      const connecting = client.connect(transport);
      pid ??= transport.pid;
      const failure = await connecting.then(
        () => "connected",
        (/** @type {Error} */ error) => error.message,
      );
      clearInterval(seen);
      check(pid !== null, `--stdio, ${c.name}: no process was started`);
      for (const said of c.says)
        check(
          failure.includes(said),
          `--stdio, ${c.name}: the client got "${failure}", not ${said}`,
        );
      check(!failure.includes("Connection closed"), `--stdio, ${c.name}: ${failure}`);
      // The process ends by itself once it answered (the client has not closed it).
      const alive = () => {
        try {
          process.kill(/** @type {number} */ (pid), 0);
          return true;
        } catch {
          return false;
        }
      };
      while (alive() && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 100));
      check(!alive(), `--stdio, ${c.name}: the process did not exit after answering:\n${stderr}`);
      await client.close().catch(() => undefined);
      check(stderr.includes(c.says[0] ?? ""), `--stdio, ${c.name}: stderr lacks the message`);
      const left = readdirSync(temp);
      check(
        left.length === 0,
        `--stdio, ${c.name}: left ${left.join(", ")} in the temporary folder`,
      );
      rmSync(temp, { recursive: true });
      console.log(
        `e2e start-errors: --stdio, ${c.name} → the client's initialize error says what to do, the process exits — ok`,
      );
    }
  } finally {
    taken.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
