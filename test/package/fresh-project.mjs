// The package as a new user gets it (run by .ci/run, not by `npm test`: it needs the registry).
// `npm pack` (prepack builds dist/; or the tarball CODE_MODE_MCP_TARBALL names, packed once by
// test/e2e/run.mjs for this and npx-bin), then in a temporary folder:
// 1. `code-mode-mcp init` from the tarball in an empty folder, the generated project's own
//    `npm test` and `npm run dev` answering real MCP clients, with no edit; then the docs'
//    examples (docs/examples/) copied into that project, type-checked and run there
//    (init-project.mjs, examples/), and the library's four examples pasted from docs/library.md,
//    type-checked and each answering a real MCP client (readme-examples/); then
//    `init --oauth --spec` and that project's own `npm test`; then `init --spec` with the
//    Cloudflare and the GitHub spec and each project's own `npm test` (init-real-specs.mjs).
// 2. A Worker project from test/package/template/ that installs the tarball and its peers (the
//    versions of our lock), checks that it holds one wrangler (a peer of the package, resolved to
//    the project's own), checks the package's .d.ts, type-checks, bundles with
//    `wrangler deploy --dry-run`, and serves an McpAgent, a createMcpHandler server, a
//    codeMcpServer and an openApiMcpServer under `wrangler dev`, each answered by a real MCP
//    client. The seed documents' examples (test/seed-examples/) are copied in and type-checked.
// Everything started is stopped and the folder removed at the end.
//
// To add a docs example: put it in docs/examples/ and run it in examples/examples.test.ts. To add
// a template server: put it in template/src/ importing only `code-mode-mcp…`, route it in
// template/src/index.ts, and check its answers in mcp-checks.mjs.
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { exportNames, resolveTypes } from "./export-names.mjs";
import {
  checkInitOAuthProject,
  checkInitProject,
  checkReadmeExamples,
  runDocsExamples,
} from "./init-project.mjs";
import { checkInitRealSpecs } from "./init-real-specs.mjs";
import { checkServers } from "./mcp-checks.mjs";
import { run, start, waitForHttp } from "./steps.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
/** Names a tarball packed before (by test/e2e/run.mjs): used instead of packing again. */
const TARBALL_ENV = "CODE_MODE_MCP_TARBALL";
/** The package's entries and the sources they are built from (package.json `exports`). */
const ENTRIES = {
  "code-mode-mcp": "src/index.ts",
  "code-mode-mcp/codemode": "src/codemode/index.ts",
  "code-mode-mcp/mcp": "src/mcp/index.ts",
  "code-mode-mcp/mcp/server": "src/mcp/server.ts",
};
/** The peers and tools a user installs beside the package, at the versions we test with. */
const PEERS = [
  "@modelcontextprotocol/client",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server",
  "zod",
];
const DEV = [
  "wrangler",
  "typescript",
  "@cloudflare/workers-types",
  // The seed documents' OAuth examples put OAuthProvider in front of their servers.
  "@cloudflare/workers-oauth-provider",
];

/** What codeMcpServer and McpAgent need, and a Worker serving only openApiMcpServer must not carry. */
const UNUSED_BY_OPENAPI = /node_modules\/@modelcontextprotocol\/(client|sdk)\//;

const began = Date.now();
/** @param {string} message */
const log = (message) =>
  console.log(`fresh-project [${((Date.now() - began) / 1000).toFixed(0)}s] ${message}`);

/** @param {string} output - of `wrangler deploy --dry-run` @returns {string} its upload size */
function uploadSize(output) {
  return output.match(/Total Upload: ([^\n]+)/)?.[1] ?? "(size not reported)";
}

/** @param {string} name @returns {Promise<string>} the version installed from our lock */
async function lockedVersion(name) {
  const manifest = JSON.parse(
    await readFile(join(repo, "node_modules", name, "package.json"), "utf8"),
  );
  return manifest.version;
}

/**
 * Copies the seed documents' examples (test/seed-examples/examples/, what they import from
 * support/, and the bindings in env.d.ts), when they exist, for tsconfig.seeds.json to check.
 * @returns {Promise<number>} how many examples were copied
 */
async function copySeedExamples() {
  const seeds = join(repo, "test/seed-examples");
  if (!existsSync(join(seeds, "examples"))) return 0;
  await cp(seeds, join(project, "seed-examples"), {
    recursive: true,
    // Their tests and the test Worker run in the repository's pool, not here.
    filter: (source) => !source.endsWith(".test.ts") && basename(source) !== "worker.ts",
  });
  return (await readdir(join(seeds, "examples"))).filter((f) => f.endsWith(".ts")).length;
}

const work = await mkdtemp(join(tmpdir(), "code-mode-mcp-fresh-"));
const project = join(work, "project");
/** @type {ReturnType<typeof start> | undefined} */
let dev;
/** @type {ReturnType<typeof start> | undefined} the generated project's `npm run dev` */
let initDev;

/**
 * `npm pack` (its prepack builds dist/) into the work folder; or, when CODE_MODE_MCP_TARBALL
 * names one packed already (test/e2e/run.mjs packs once for this and npx-bin), a copy of it.
 * @returns {Promise<string>} the file
 */
async function pack() {
  const given = process.env[TARBALL_ENV];
  const tarball = given
    ? await copyPacked(given)
    : await (async () => {
        const output = await run("npm", ["pack", "--json", "--pack-destination", work], {
          cwd: repo,
          timeoutMs: 240_000,
        });
        // The JSON follows prepack's build output.
        return JSON.parse(output.slice(output.search(/^\[$/m)))[0];
      })();
  const files = tarball.files.map((/** @type {{ path: string }} */ f) => f.path);
  // The plain modules both the Worker or the library (bundled) and the local front (shipped as
  // is) import, the Host rule and JSON's character codes: the only source files the package
  // carries.
  const SHIPPED_SOURCE = new Set([
    "src/app/config/host-names.mjs",
    "src/mcp/common/json-characters.mjs",
  ]);
  if (
    !files.includes("dist/lib/index.js") ||
    files.some((/** @type {string} */ f) => f.startsWith("src/") && !SHIPPED_SOURCE.has(f))
  )
    throw new Error(`fresh-project: unexpected tarball contents: ${files.join(", ")}`);
  log(
    `${given ? `took ${given}, packed` : "packed"} ${tarball.filename}: ${files.length} files, ${(tarball.size / 1024).toFixed(0)} KiB`,
  );
  return tarball.filename;
}

/**
 * Copies a tarball packed before into the work folder and lists it as `npm pack --json` does.
 * @param {string} file
 * @returns {Promise<{ filename: string, size: number, files: { path: string }[] }>}
 */
async function copyPacked(file) {
  if (!existsSync(file))
    throw new Error(`fresh-project: ${TARBALL_ENV}=${file}: no such file (unset it to pack here)`);
  const filename = basename(file);
  await cp(file, join(work, filename));
  const listing = await run("tar", ["-tzf", file], { cwd: work });
  const files = listing
    .split("\n")
    .filter((line) => line && !line.endsWith("/"))
    .map((line) => ({ path: line.replace(/^package\//, "") }));
  return { filename, size: (await stat(file)).size, files };
}

/**
 * The project: the template, the examples, the tarball and its peers installed.
 * @param {string} tarball
 * @returns {Promise<{ seeds: number }>} how many seed examples were copied in
 */
async function createProject(tarball) {
  await cp(join(repo, "test/package/template"), project, { recursive: true });
  // The seed documents' examples (when present), imports as users write them.
  const seeds = await copySeedExamples();
  const manifest = JSON.parse(await readFile(join(project, "package.json"), "utf8"));
  manifest.dependencies = { "code-mode-mcp": `file:../${tarball}` };
  for (const name of PEERS) manifest.dependencies[name] = await lockedVersion(name);
  manifest.devDependencies = {};
  for (const name of DEV) manifest.devDependencies[name] = await lockedVersion(name);
  await writeFile(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await run("npm", ["install", "--no-audit", "--no-fund"], { cwd: project, timeoutMs: 240_000 });
  log(`installed the tarball with ${[...PEERS, ...DEV].join(", ")}`);
  await oneWrangler();
  return { seeds };
}

/**
 * wrangler is a peer of the package: a project that has its own wrangler gets no second copy
 * (the package's production tree, `npm ls --prod`, resolves wrangler to the project's).
 */
async function oneWrangler() {
  // `npm ls` exits 1 on an empty match: what counts is the paths it lists.
  const tree = await run("npm", ["ls", "--prod", "--all", "--parseable", "wrangler"], {
    cwd: project,
    anyExit: true,
  });
  const copies = await run("npm", ["ls", "--all", "--parseable", "wrangler"], {
    cwd: project,
    anyExit: true,
  });
  const paths = [...new Set(`${tree}\n${copies}`.split("\n"))].filter((line) =>
    /(^|[\\/])node_modules[\\/]wrangler$/.test(line.trim()),
  );
  if (paths.length !== 1)
    throw new Error(
      `fresh-project: expected one wrangler, found ${paths.length}: ${paths.join(", ")}`,
    );
  log(`one wrangler in the project (${paths[0]}), the package's peer resolved to it`);
}

/**
 * The package's types as the project sees them, then the project's own code.
 * @param {{ seeds: number }} examples
 */
async function checkTypes({ seeds }) {
  // Each entry resolves, through the installed package's `exports`, to built .d.ts that export
  // exactly what the sources do (the lists themselves are pinned by test/unit/public-surface).
  const built = exportNames(Object.keys(ENTRIES).map((entry) => resolveTypes(entry, project)));
  const sources = exportNames(Object.values(ENTRIES).map((file) => join(repo, file)));
  Object.keys(ENTRIES).forEach((entry, i) => {
    const [got, want] = [built[i]?.join("\n"), sources[i]?.join("\n")];
    if (got !== want)
      throw new Error(`fresh-project: ${entry} .d.ts exports\n${got}\nnot\n${want}`);
  });
  log(`the .d.ts of ${Object.keys(ENTRIES).join(", ")} export what the sources do`);

  const strict = await run("npx", ["tsc", "-p", "tsconfig.package-types.json"], {
    cwd: project,
    anyExit: true,
  });
  // Only the SDKs' Buffer mentions are expected; anything else (ours, or a missing file) fails.
  const ours = strict
    .split("\n")
    .filter((line) => / error TS|^error TS/.test(line))
    .filter((line) => !line.startsWith("node_modules/@modelcontextprotocol/"));
  if (ours.length > 0)
    throw new Error(`fresh-project: the package's .d.ts do not compile:\n${strict}`);
  log("the package's .d.ts compile without skipLibCheck");

  await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: project });
  if (seeds > 0) await run("npx", ["tsc", "-p", "tsconfig.seeds.json"], { cwd: project });
  log(`tsc --noEmit: the template and ${seeds} seed examples type-check`);
}

/** `wrangler deploy --dry-run` of the whole Worker, and of an openApiMcpServer-only one. */
async function checkBundles() {
  const outdir = join(work, "out");
  const bundled = await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir], {
    cwd: project,
  });
  log(`wrangler deploy --dry-run: ${uploadSize(bundled)}`);
  // A Worker bundles only what it uses (dist is one module per source, sideEffects: false).
  const meta = join(work, "openapi-only.json");
  const config = ["-c", "wrangler.openapi-only.jsonc", "--metafile", meta];
  const alone = await run(
    "npx",
    ["wrangler", "deploy", "--dry-run", "--outdir", `${outdir}-openapi`, ...config],
    { cwd: project },
  );
  // esbuild lists every module it parsed; what is bundled is what has bytes in the output.
  /** @type {{ outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> }} */
  const { outputs } = JSON.parse(await readFile(meta, "utf8"));
  const unused = Object.values(outputs)
    .flatMap((o) => Object.entries(o.inputs))
    .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && UNUSED_BY_OPENAPI.test(input))
    .map(([input]) => input);
  if (unused.length > 0)
    throw new Error(`fresh-project: an openApiMcpServer-only Worker bundles ${unused.join(", ")}`);
  log(`openApiMcpServer alone: ${uploadSize(alone)}, without the MCP client or SDK v1`);
}

/** `wrangler dev` on free ports, then every server answers a real MCP client. */
async function serveAndCall() {
  const [port, inspector] = [await freePort(), await freePort()];
  const flags = [
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspector),
  ];
  dev = start("npx", ["wrangler", "dev", ...flags], { cwd: project });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/`, dev);
  log(`wrangler dev serves on ${base}`);
  for (const line of await checkServers(base)) log(line);
}

async function cleanUp() {
  if (initDev) await initDev.stop();
  if (dev) await dev.stop();
  // FRESH_PROJECT_KEEP=1 keeps the project to look into (the servers are stopped all the same).
  if (process.env.FRESH_PROJECT_KEEP) console.log(`fresh-project: kept ${work}`);
  else await rm(work, { recursive: true, force: true });
}

// The whole test is bounded: a stuck step fails the run instead of hanging CI (where
// test/e2e/run.mjs also stops an npm script it runs after 15 minutes).
const watchdog = setTimeout(() => {
  console.error("fresh-project: took longer than 20 minutes; stopping");
  void cleanUp().then(() => process.exit(1));
}, 1_200_000);

try {
  const tarball = await pack();
  const { project: generated } = await checkInitProject({
    work,
    tarball,
    log,
    started: (server) => (initDev = server),
  });
  await checkReadmeExamples({ project: generated, repo, log });
  await runDocsExamples({ project: generated, repo, log });
  await checkInitOAuthProject({ work, tarball, log });
  await checkInitRealSpecs({ work, tarball, repo, installed: generated, log });
  const examples = await createProject(tarball);
  await checkTypes(examples);
  await checkBundles();
  await serveAndCall();
  log("all checks passed");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  if (initDev) console.error(`the generated project's npm run dev output:\n${initDev.output()}`);
  if (dev) console.error(`wrangler dev output:\n${dev.output()}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await cleanUp();
}
