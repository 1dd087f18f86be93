// The fresh-project test's first part (issue #32, "works on the first try"): in an empty folder,
// `npx --package <tarball> code-mode-mcp init` writes a Worker project and installs it; then,
// with no edit, the project's own `npm test` passes and its `npm run dev` (wrangler dev) answers
// real MCP clients: `search` and `execute` at /mcp, `code` at /mcp/code. The docs' examples are
// then copied into the project's examples/ and run there by test/package/examples/ (their own
// vitest project over the same installed package), so what the README shows is what runs.
import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { run, start, waitForHttp } from "./steps.mjs";

/**
 * @param {boolean} ok
 * @param {string} message
 */
function check(ok, message) {
  if (!ok) throw new Error(`fresh-project (init): ${message}`);
}

/**
 * How many tests vitest says passed, or undefined when any failed or none ran.
 * @param {string} output - vitest's, colours and all
 * @returns {string | undefined}
 */
export function passedTests(output) {
  // oxlint-disable-next-line no-control-regex -- removing the terminal's colour codes
  const plain = output.replaceAll(/\u001b\[[0-9;]*m/g, "");
  if (/Tests\s+.*\bfailed\b/.test(plain)) return undefined;
  return plain.match(/Tests\s+(\d+) passed/)?.[1];
}

/** @param {any} result @returns {string} the first text block */
function text(result) {
  return result?.content?.[0]?.text ?? "";
}

/**
 * @param {string} url
 * @param {string} key - the project's MCP_API_KEY, sent as a client must
 */
async function connect(url, key) {
  const client = new Client(
    { name: "fresh-project-init", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/**
 * Runs the whole init check.
 * @param {object} options
 * @param {string} options.work - the test's temporary folder (removed by the caller)
 * @param {string} options.tarball - the packed file's name, in `work`
 * @param {(line: string) => void} options.log
 * @param {(server: ReturnType<typeof start>) => void} options.started - so the caller stops it
 */
export async function checkInitProject({ work, tarball, log, started }) {
  const empty = join(work, "init");
  await mkdir(empty);
  const output = await run(
    "npx",
    ["--yes", "--package", join(work, tarball), "code-mode-mcp", "init", "my-mcp-server"],
    { cwd: empty, timeoutMs: 300_000 },
  );
  const project = join(empty, "my-mcp-server");
  check(output.includes("ready in"), `init did not finish:\n${output}`);
  const written = (await readdir(project)).toSorted().join(" ");
  log(`init wrote ${written}`);
  const ignored = await readFile(join(project, ".gitignore"), "utf8");
  check(/^\.dev\.vars$/m.test(ignored), `.dev.vars is not git-ignored:\n${ignored}`);
  // init generated the key `npm run dev` checks (issue #41: guarded from the first run).
  const key = (await readFile(join(project, ".dev.vars"), "utf8")).match(
    /^MCP_API_KEY=(.+)$/m,
  )?.[1];
  check(key !== undefined && key.length >= 32, "init wrote no MCP_API_KEY to .dev.vars");

  const tested = await run("npm", ["test"], { cwd: project, timeoutMs: 300_000 });
  const passed = passedTests(tested);
  check(passed !== undefined, `npm test:\n${tested}`);
  log(`the project's npm test: tsc, then ${passed} tests in workerd passed`);

  // An operator skill dropped into skills/ (skills/README.md): `npm run dev` bundles it
  // (predev: code-mode-mcp skills pack) and both tools call it, read-only.
  await mkdir(join(project, "skills", "double", "scripts"), { recursive: true });
  await writeFile(
    join(project, "skills", "double", "SKILL.md"),
    '---\nname: double\ndescription: "Doubles n."\n---\n\n## Input schema\n\n```json\n{ "type": "object", "properties": { "n": { "type": "number" } }, "required": ["n"] }\n```\n',
  );
  await writeFile(
    join(project, "skills", "double", "scripts", "double.js"),
    "async ({ n }) => n * 2\n",
  );

  const [port, inspector] = [await freePort(), await freePort()];
  const dev = start(
    "npm",
    [
      "run",
      "dev",
      "--",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
    ],
    { cwd: project },
  );
  started(dev);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/`, dev);
  const anonymous = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const refusal = await anonymous.text();
  check(
    anonymous.status === 401 && refusal.includes("Authorization: Bearer"),
    `npm run dev answered a request without the key: ${anonymous.status} ${refusal}`,
  );
  const api = await connect(`${base}/mcp`, /** @type {string} */ (key));
  const tools = (await api.listTools()).tools.map((t) => t.name).toSorted();
  check(tools.join(",") === "execute,search", `/mcp tools: ${tools}`);
  const search = await api.callTool({
    name: "search",
    arguments: { code: "async () => Object.keys((await codemode.spec()).paths)" },
  });
  check(text(search).includes("/tasks/{id}"), `search → ${JSON.stringify(search)}`);
  const executed = await api.callTool({
    name: "execute",
    arguments: {
      code: `async () => (await codemode.request({ method: "GET", path: "/tasks", query: { status: "blocked" } })).length`,
    },
  });
  check(!executed.isError && text(executed) === "2", `execute → ${JSON.stringify(executed)}`);
  const doubled = await api.callTool({
    name: "execute",
    arguments: { code: "async () => skills.double({ n: 21 })" },
  });
  check(!doubled.isError && text(doubled) === "42", `skills.double → ${JSON.stringify(doubled)}`);
  const overwrite = await api.callTool({
    name: "execute",
    arguments: {
      code: `async () => skills.save({ name: "double", description: "d", input: { type: "object" }, run: async () => 0 })`,
    },
  });
  check(
    overwrite.isError === true && /read-only skill/.test(text(overwrite)),
    `skills.save over double → ${JSON.stringify(overwrite)}`,
  );
  await api.close();
  const code = await connect(`${base}/mcp/code`, /** @type {string} */ (key));
  const ran = await code.callTool({
    name: "code",
    arguments: {
      code: `async () => (await codemode.list_tasks({})).tasks.map((t) => t.owner).join("+")`,
    },
  });
  check(!ran.isError && text(ran).includes("ana+bo+ana+cy"), `code → ${JSON.stringify(ran)}`);
  const viaCode = await code.callTool({
    name: "code",
    arguments: { code: "async () => skills.double({ n: 5 })" },
  });
  check(text(viaCode) === "10", `code: skills.double → ${JSON.stringify(viaCode)}`);
  await code.close();
  await dev.stop();
  log(
    "npm run dev: refuses a request without the key (401); search, execute (/mcp) and code (/mcp/code) answer real MCP clients with it; the operator skill in skills/ is callable in both, read-only",
  );
  return { project };
}

/**
 * Copies what both example suites import (test/package/example-support/: the in-process MCP
 * client, the greeting upstream) into the generated project, beside examples/ and
 * readme-examples/, whichever of them runs first.
 * @param {{ project: string, repo: string }} options
 */
async function copyExampleSupport({ project, repo }) {
  await cp(join(repo, "test/package/example-support"), join(project, "example-support"), {
    recursive: true,
  });
}

/**
 * Copies docs/examples/ and the examples' test Worker (test/package/examples/) into the
 * generated project and runs them there: each example module is loaded and served by the
 * package as installed, the way a user pastes it.
 * @param {object} options
 * @param {string} options.project - the generated project
 * @param {string} options.repo
 * @param {(line: string) => void} options.log
 */
export async function runDocsExamples({ project, repo, log }) {
  const examples = join(project, "examples");
  await cp(join(repo, "docs/examples"), examples, { recursive: true });
  await cp(join(repo, "test/package/examples"), examples, { recursive: true });
  await copyExampleSupport({ project, repo });
  const output = await run("npx", ["vitest", "run", "--config", "examples/vitest.config.ts"], {
    cwd: project,
    timeoutMs: 300_000,
  });
  const passed = passedTests(output);
  check(passed !== undefined, `the docs' examples:\n${output}`);
  await run("npx", ["tsc", "-p", "examples/tsconfig.json"], { cwd: project });
  log(`the docs' examples type-check and run in the generated project (${passed} tests)`);
}

/**
 * The library examples exactly as a user pastes them into the project `init` wrote: each ```ts
 * block of docs/library.md's "Four examples to paste" section (between its `init-project
 * examples` markers; the README links there) becomes a module beside the project's src/ and is
 * type-checked with the project's own bindings (src/env.d.ts), not the docs'
 * (docs/examples/env.d.ts), so a secret the project types differently from the docs fails here
 * (issue #42: TS2322 on `secrets: [env.API_TOKEN]` when init typed it optional). Then each one
 * runs (issue #42, "a real MCP client gets an answer"): readme-examples/ (the test Worker, with
 * example 4's MCP_OBJECT binding as the page shows it, and stand-ins for the API and the MCP
 * server examples 1 and 2 call) serves every example to a real MCP client in workerd.
 * @param {object} options
 * @param {string} options.project - the generated project
 * @param {string} options.repo
 * @param {(line: string) => void} options.log
 * @returns {Promise<number>} how many examples were checked
 */
export async function checkReadmeExamples({ project, repo, log }) {
  const page = await readFile(join(repo, "docs/library.md"), "utf8");
  const section =
    /<!-- init-project examples: start -->([\s\S]*?)<!-- init-project examples: end -->/.exec(
      page,
    )?.[1] ?? "";
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  check(
    blocks.length === 4,
    `docs/library.md's "Four examples to paste" section has ${blocks.length} ts examples, expected 4`,
  );
  const dir = join(project, "readme-examples");
  await mkdir(dir, { recursive: true });
  // `import spec from "./openapi.json"` as in a project's src/.
  await cp(join(project, "src/openapi.json"), join(dir, "openapi.json"));
  for (const [i, block] of blocks.entries())
    await writeFile(join(dir, `example-${i + 1}.ts`), block);
  await cp(join(repo, "test/package/readme-examples"), dir, { recursive: true });
  await copyExampleSupport({ project, repo });
  await writeFile(
    join(dir, "tsconfig.json"),
    `${JSON.stringify({ extends: "../tsconfig.json", include: [".", "../src/env.d.ts"], exclude: ["vitest.config.ts"] }, null, 2)}\n`,
  );
  await run("npx", ["tsc", "-p", "readme-examples/tsconfig.json"], { cwd: project });
  log(`the library's ${blocks.length} examples type-check as pasted into the generated project`);
  const output = await run(
    "npx",
    ["vitest", "run", "--config", "readme-examples/vitest.config.ts"],
    { cwd: project, timeoutMs: 300_000 },
  );
  const passed = passedTests(output);
  check(passed === String(blocks.length), `the library's examples, run:\n${output}`);
  log(`the library's ${blocks.length} examples answer a real MCP client (tools and a call each)`);
  return blocks.length;
}

/**
 * `init --oauth` (issue #41, "OAuth when asked"): a project for a spec with a write, whose own
 * `npm test` type-checks it and passes with no edit: its OAuth test (no token and a forged one
 * refused with 401 and the sign-in advertised, the consent page granting only for the
 * passphrase and locking after five wrong ones, a signed-in client served) and its approvals
 * test, run through a signed-in client (not skipped).
 * @param {object} options
 * @param {string} options.work - the test's temporary folder (removed by the caller)
 * @param {string} options.tarball - the packed file's name, in `work`
 * @param {(line: string) => void} options.log
 */
export async function checkInitOAuthProject({ work, tarball, log }) {
  const folder = join(work, "init-oauth");
  await mkdir(folder);
  // The smallest spec with a write the approvals test can send: DELETE with a path parameter.
  const spec = {
    openapi: "3.0.3",
    info: { title: "Items", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths: {
      "/items/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        get: { operationId: "getItem", responses: { 200: { description: "the item" } } },
        delete: { operationId: "deleteItem", responses: { 204: { description: "gone" } } },
      },
    },
  };
  await writeFile(join(folder, "items.json"), JSON.stringify(spec));
  const output = await run(
    "npx",
    [
      "--yes",
      "--package",
      join(work, tarball),
      "code-mode-mcp",
      "init",
      "my-oauth-api",
      "--oauth",
      "--spec",
      "items.json",
    ],
    { cwd: folder, timeoutMs: 300_000 },
  );
  const project = join(folder, "my-oauth-api");
  check(output.includes("Protected by OAuth"), `init --oauth did not finish:\n${output}`);
  const secrets = await readFile(join(project, ".dev.vars"), "utf8");
  check(/^OAUTH_PASSWORD=.{32,}$/m.test(secrets), "init --oauth wrote no OAUTH_PASSWORD");
  const tested = await run("npm", ["test"], { cwd: project, timeoutMs: 300_000 });
  const passed = passedTests(tested);
  check(passed !== undefined, `npm test (--oauth):\n${tested}`);
  // oxlint-disable-next-line no-control-regex -- removing the terminal's colour codes
  const plain = tested.replaceAll(/\u001b\[[0-9;]*m/g, "");
  check(!/skipped/.test(plain), `npm test (--oauth) skipped a test:\n${tested}`);
  check(/oauth\.test\.ts/.test(plain), `npm test (--oauth) ran no OAuth test:\n${tested}`);
  log(`init --oauth: the project's npm test: tsc, then ${passed} tests in workerd passed`);
}
