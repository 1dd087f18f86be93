// `code-mode-mcp init [folder]`: a Worker project that runs as written, for users who want the
// library in their own Worker rather than the prebuilt product. It writes the files of
// cli/init-template/ (real, linted TypeScript), a package.json pinned to the versions this
// package is built and tested with, and a wrangler.jsonc whose compatibility_date and flags are
// the prebuilt Worker's (so the bundled workerd supports them), then runs `npm install`.
//
// Choices where a user would otherwise guess:
// - The package is not on the npm registry yet, so the project depends on a copy of the package
//   init runs from, packed into vendor/ (`file:vendor/code-mode-mcp-<version>.tgz`): it installs
//   offline from the npm cache and never resolves the unclaimed name on the registry.
// - `--spec FILE` is validated as `serve` and `check` validate it (pointer and rule on failure)
//   and written as src/openapi.json (YAML becomes JSON: the Worker imports it as a module).
// - `--spec` without `--upstream` serves /mcp only, as `serve --spec` does.
// - Nothing is written unless the folder is new or empty, and a refused init leaves nothing.
// - Guarded from the first deploy: the MCP endpoints answer only callers that send
//   `Authorization: Bearer <MCP_API_KEY>` (src/caller-check.ts). init writes a random key to
//   .dev.vars (git-ignored) for `npm run dev`, and prints and documents the command that sets it
//   on Cloudflare; a deployed Worker without one refuses every caller unless ALLOW_ANONYMOUS=on.
//   The `--spec` template also asks a person before every non-GET request (approvals), with a
//   random REQUEST_STATE_KEY to seal the approval state.
// - `--oauth`: clients sign in with OAuth 2.1 instead (`@cloudflare/workers-oauth-provider`, as
//   Cloudflare's remote MCP templates do): src/oauth.ts in front of the endpoints, a consent page
//   (src/consent.ts) that grants only for the owner's OAUTH_PASSWORD (random in .dev.vars; wrong
//   guesses counted in a Durable Object before they are checked, so a burst is limited too),
//   grants in the OAUTH_KV namespace, which `wrangler deploy` creates (a binding with no id is
//   provisioned). Without OAUTH_PASSWORD the deployed Worker grants no one.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { projectReadme, secretCommands } from "./init-readme.mjs";
import { PACKAGE_ROOT, WORKER_CONFIG } from "./runtime-paths.mjs";

const TEMPLATE = join(PACKAGE_ROOT, "cli/init-template");

/** Runtime dependencies of the generated project (versions from this package's manifest). */
const DEPENDENCIES = ["@modelcontextprotocol/server", "@modelcontextprotocol/client", "zod"];
/** What `--oauth` adds to the runtime dependencies. */
const OAUTH_DEPENDENCIES = ["@cloudflare/workers-oauth-provider"];
/** Development tools of the generated project. */
const DEV_DEPENDENCIES = [
  "wrangler",
  "@cloudflare/vitest-pool-workers",
  "vitest",
  "typescript",
  "@cloudflare/workers-types",
];

/**
 * @typedef {object} InitOptions
 * @property {string | undefined} folder - where to write (default ./my-mcp-server)
 * @property {string | undefined} spec - an OpenAPI file to start from instead of the sample
 * @property {string | undefined} upstream - an MCP server URL for /mcp/code instead of the sample
 * @property {string | undefined} baseUrl - where `execute` sends requests (default: the spec's servers)
 * @property {boolean} install - run `npm install` after writing
 * @property {boolean} [oauth] - clients sign in with OAuth instead of sending MCP_API_KEY
 * @property {any} product - the product module (spec validation)
 * @property {(line: string) => void} progress - stderr
 */

/**
 * Writes a Worker project and installs it.
 * @param {InitOptions} options
 * @returns {Promise<number>} the exit code: 0 written, 1 refused (nothing left behind)
 */
export async function init({
  folder,
  spec,
  upstream,
  baseUrl,
  install,
  oauth = false,
  product,
  progress,
}) {
  /** @param {string} message */
  const refuse = (message) => {
    console.error(`code-mode-mcp init: ${message}`);
    return 1;
  };
  const target = resolve(folder ?? "my-mcp-server");
  if (existsSync(target) && readdirSync(target).length > 0)
    return refuse(
      `${target} is not empty: nothing was written.\n  Fix: name a new folder, e.g. npx code-mode-mcp init my-mcp-server`,
    );
  if (upstream !== undefined && !/^https?:\/\/[^/]/.test(upstream))
    return refuse(
      `--upstream: "${upstream}" is not an http(s) URL.\n  Fix: --upstream https://mcp.example.com/mcp`,
    );
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl))
    return refuse(
      `--base-url: "${baseUrl}" is not an http(s) URL.\n  Fix: --base-url https://api.example.com`,
    );

  /** @type {unknown} */
  let specDoc;
  let apiBase = baseUrl;
  if (spec !== undefined) {
    const loaded = await loadSpec(spec, product, progress);
    if (!loaded.ok) return refuse(loaded.message);
    specDoc = loaded.doc;
    apiBase ??= absoluteServer(loaded.doc);
  }

  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));
  const worker = JSON.parse(readFileSync(WORKER_CONFIG, "utf8"));
  const created = !existsSync(target);
  try {
    progress(`code-mode-mcp init: writing ${target} …`);
    mkdirSync(join(target, "vendor"), { recursive: true });
    const tarball = packSelf(join(target, "vendor"));
    const name = workerName(basename(target));
    const files = projectFiles({
      name,
      manifest,
      worker,
      tarball,
      specDoc,
      apiBase,
      upstream,
      oauth,
    });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(target, path, ".."), { recursive: true });
      writeFileSync(join(target, path), text);
    }
  } catch (error) {
    if (created) rmSync(target, { recursive: true, force: true });
    return refuse(
      `writing the project failed: ${/** @type {Error} */ (error)?.message ?? error}\n  Fix: check that the folder is writable and run init again.`,
    );
  }
  if (install) {
    progress("code-mode-mcp init: npm install (a minute the first time) …");
    const npm = spawnSync("npm", ["install", "--no-audit", "--no-fund"], {
      cwd: target,
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (npm.status !== 0)
      return refuse(
        `the project is written, but npm install failed (above).\n  Fix: cd ${target} && npm install`,
      );
  }
  const cd = `cd ${folder ?? "my-mcp-server"}`;
  const next = [
    `code-mode-mcp init: ready in ${target}`,
    "",
    `  ${cd}${install ? "" : " && npm install"}`,
    "  npm run dev       # http://localhost:8787/mcp" +
      (specDoc !== undefined && upstream === undefined ? "" : " and /mcp/code"),
    "  npm test          # type-check, then MCP clients against the Worker in workerd",
    "  npm run deploy    # to your Cloudflare account (npx wrangler login first)",
    "",
    ...(oauth
      ? [
          "  Protected by OAuth: an MCP client signs in through the browser, where you approve it with",
          "  OAUTH_PASSWORD. A random one for npm run dev is in .dev.vars (git-ignored); before the",
          "  first deploy, set the deployed one:",
          ...secretCommands(specDoc !== undefined, true).map((command) => `    ${command}`),
          "  Until it is set, the deployed Worker grants no one a token (README.md says how a client",
          "  signs in).",
        ]
      : [
          "  Protected: MCP clients must send Authorization: Bearer <MCP_API_KEY>. A random key for",
          "  npm run dev is in .dev.vars (git-ignored); before the first deploy, set the deployed one:",
          ...secretCommands(specDoc !== undefined).map((command) => `    ${command}`),
          "  Until it is set, the deployed Worker refuses every MCP request (README.md says how clients",
          "  send the key, and the ALLOW_ANONYMOUS=on opt-out).",
        ]),
    "",
    ...(specDoc !== undefined
      ? [
          // The spec's server URL, as one line with no terminal controls: a carriage return or
          // an ESC sequence in it rewrote this line, the one that says where the token goes.
          `  execute sends requests to ${apiBase === undefined ? "API_BASE_URL (set it in wrangler.jsonc)" : product.oneLineText(apiBase)}; the token goes in .dev.vars (API_TOKEN=…)`,
        ]
      : []),
    ...(upstream !== undefined
      ? ["  the upstream's token goes in .dev.vars (UPSTREAM_TOKEN=…)"]
      : []),
    "  Needs Node.js 22 or later (wrangler's requirement).",
  ];
  console.log(next.join("\n"));
  return 0;
}

/**
 * Reads and validates a spec file as `serve` does.
 * @param {string} spec - as the user wrote it
 * @param {any} product
 * @param {(line: string) => void} progress
 * @returns {Promise<{ ok: true, doc: any } | { ok: false, message: string }>}
 */
async function loadSpec(spec, product, progress) {
  const file = resolve(spec);
  if (!existsSync(file))
    return {
      ok: false,
      message: `--spec: ${file} does not exist: nothing was written.\n  Fix: --spec ./openapi.yaml (an OpenAPI 2.0/3.0/3.1 file, JSON or YAML)`,
    };
  progress(`code-mode-mcp init: validating ${spec} …`);
  const loaded = await product.loadSpecFile(file, product.findSpecProblems);
  if (!loaded.ok)
    return {
      ok: false,
      message: `--spec: ${loaded.message}\n  Fix: correct the value at each pointer as its rule says, then run init again (npx code-mode-mcp check ${spec} checks it alone). Nothing was written.`,
    };
  try {
    product.compileSpec(loaded.doc, { label: spec });
  } catch (error) {
    return {
      ok: false,
      message: `--spec: ${product.terminalText(/** @type {Error} */ (error)?.message ?? error)}\n  Fix: correct the spec, then run init again. Nothing was written.`,
    };
  }
  return { ok: true, doc: loaded.doc };
}

/** @param {any} doc @returns {string | undefined} the first absolute server URL */
function absoluteServer(doc) {
  if (typeof doc?.host === "string")
    return `${doc.schemes?.[0] ?? "https"}://${doc.host}${doc.basePath ?? ""}`;
  const url = (doc?.servers ?? [])
    .map((/** @type {{ url?: unknown }} */ s) => s?.url)
    .find((/** @type {unknown} */ u) => typeof u === "string" && /^https?:\/\//.test(u));
  return url;
}

/** @param {string} folder @returns {string} a valid Worker name (lowercase, digits, dashes) */
function workerName(folder) {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 54);
  return name || "my-mcp-server";
}

/**
 * Packs the package init runs from into `dir` (no scripts: it is already built).
 * @param {string} dir
 * @returns {string} the tarball's file name
 */
function packSelf(dir) {
  const packed = spawnSync(
    "npm",
    ["pack", PACKAGE_ROOT, "--ignore-scripts", "--json", "--pack-destination", dir],
    { cwd: dir, encoding: "utf8" },
  );
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr.trim()}`);
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("[")));
  return filename;
}

/**
 * The project's files: path → text.
 * @param {{ name: string, manifest: any, worker: any, tarball: string, specDoc: unknown,
 *   apiBase: string | undefined, upstream: string | undefined, oauth?: boolean }} options
 * @returns {Record<string, string>}
 */
export function projectFiles({
  name,
  manifest,
  worker,
  tarball,
  specDoc,
  apiBase,
  upstream,
  oauth = false,
}) {
  const template = (/** @type {string} */ path) => readFileSync(join(TEMPLATE, path), "utf8");
  const sample = specDoc === undefined;
  const withCode = sample || upstream !== undefined;
  const version = (/** @type {string} */ dep) => {
    const v = manifest.dependencies?.[dep] ?? manifest.devDependencies?.[dep];
    if (v === undefined) throw new Error(`no version of ${dep} in ${manifest.name}'s manifest`);
    return v;
  };
  const pkg = {
    name,
    private: true,
    type: "module",
    scripts: {
      dev: "wrangler dev",
      test: "tsc --noEmit && vitest run",
      deploy: "wrangler deploy",
      typecheck: "tsc --noEmit",
      // The operator's read-only skills (skills/README.md), bundled for the Worker to import.
      skills: "code-mode-mcp skills pack skills src/skills.json",
      predev: "npm run skills",
      pretest: "npm run skills",
      predeploy: "npm run skills",
    },
    dependencies: {
      "code-mode-mcp": `file:vendor/${tarball}`,
      ...Object.fromEntries(
        [...DEPENDENCIES, ...(oauth ? OAUTH_DEPENDENCIES : [])].map((d) => [d, version(d)]),
      ),
    },
    devDependencies: Object.fromEntries(DEV_DEPENDENCIES.map((d) => [d, version(d)])),
    // npm asks before running install scripts: these two fetch the Workers runtime and bundler.
    allowScripts: { esbuild: true, workerd: true },
  };
  /** @type {Record<string, string>} */
  const vars = {};
  if (!sample) vars.API_BASE_URL = apiBase ?? "https://api.example.com";
  if (upstream !== undefined) vars.UPSTREAM_URL = upstream;
  const wrangler = `{
  "$schema": "node_modules/wrangler/config-schema.json",
  "name": ${JSON.stringify(name)},
  "main": "src/index.ts",
  // The date and flags of the Worker code-mode-mcp ships, so the bundled runtime supports them;
  // nodejs_compat gives the MCP SDK node:async_hooks.
  "compatibility_date": ${JSON.stringify(worker.compatibility_date)},
  "compatibility_flags": ${JSON.stringify(worker.compatibility_flags ?? ["nodejs_compat"])},
  // The sandbox: model-written code runs in isolates created through this binding. The MCP
  // endpoints are stateless (add a Durable Object for McpAgent sessions or a shared approval
  // ledger, see code-mode-mcp's docs/library.md).
  "worker_loaders": [{ "binding": "LOADER" }],${
    oauth
      ? `
  // OAuth clients, grants and tokens (src/oauth.ts). No id: the first \`wrangler deploy\` creates
  // the namespace and uses it from then on; \`npm run dev\` and \`npm test\` keep a local one.
  "kv_namespaces": [{ "binding": "OAUTH_KV" }],
  // The consent page's wrong-passphrase counters (src/attempt-limiter.ts): a Durable Object runs
  // one call at a time, so guesses sent at once are counted as they come.
  "durable_objects": {
    "bindings": [{ "name": "CONSENT_ATTEMPTS", "class_name": "ConsentAttempts" }],
  },
  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["ConsentAttempts"] }],
  // Settings; secrets (OAUTH_PASSWORD, API_TOKEN, REQUEST_STATE_KEY, UPSTREAM_TOKEN) go in
  // .dev.vars locally and \`npx wrangler secret put NAME\` deployed, never here. Without
  // OAUTH_PASSWORD the consent page grants no one a token.`
      : `
  // Settings; secrets (MCP_API_KEY, API_TOKEN, REQUEST_STATE_KEY, UPSTREAM_TOKEN) go in .dev.vars
  // locally and \`npx wrangler secret put NAME\` deployed, never here. Without MCP_API_KEY the
  // Worker refuses every MCP caller; "ALLOW_ANONYMOUS": "on" here would serve anyone instead.`
  }
  "vars": ${JSON.stringify(vars)},
}
`;
  const devVars = [
    "# Secrets for `npm run dev` (git-ignored). Deployed: npx wrangler secret put NAME",
    ...(oauth
      ? [
          "# The passphrase that approves an OAuth client on /authorize (random, made by init).",
          `OAUTH_PASSWORD=${randomKey()}`,
        ]
      : [
          "# The key MCP clients send as `Authorization: Bearer <key>` (random, made by init).",
          `MCP_API_KEY=${randomKey()}`,
        ]),
    ...(sample
      ? []
      : [
          "# Seals the approval state between a client's rounds (random, made by init).",
          `REQUEST_STATE_KEY=${randomKey()}`,
          "# The API's credential, sent by src/api.ts (at least 8 characters).",
          "API_TOKEN=",
        ]),
    ...(upstream !== undefined ? ["UPSTREAM_TOKEN="] : []),
    "",
  ].join("\n");
  /** @type {Record<string, string>} */
  const files = {
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "wrangler.jsonc": wrangler,
    "tsconfig.json": template("tsconfig.json"),
    "vitest.config.ts": oauth
      ? replaceOnce(
          template("vitest.config.ts"),
          'MCP_API_KEY: "test-mcp-api-key-0123456789abcdef",',
          'OAUTH_PASSWORD: "test-oauth-password-0123456789abcdef",',
        )
      : template("vitest.config.ts"),
    ".gitignore": template("gitignore"),
    ".dev.vars": devVars,
    "src/env.d.ts": template("src/env.d.ts"),
    "src/index.ts": template(`src/index-${oauth ? "oauth-" : ""}${withCode ? "both" : "api"}.ts`),
    "src/api.ts": template(sample ? "src/api-sample.ts" : "src/api-fetch.ts"),
    "src/openapi.json": sample
      ? template("src/openapi.json")
      : `${JSON.stringify(specDoc, null, 2)}\n`,
    "test/client.ts": template(oauth ? "test/client-oauth.ts" : "test/client.ts"),
    "test/mcp.test.ts": template("test/mcp.test.ts"),
    // The caller check's test, over every endpoint the Worker serves.
    [`test/${oauth ? "oauth" : "caller-check"}.test.ts`]: replaceOnce(
      template(`test/${oauth ? "oauth" : "caller-check"}.test.ts`),
      'const ENDPOINTS = ["/mcp"];',
      `const ENDPOINTS = ${JSON.stringify(withCode ? ["/mcp", "/mcp/code"] : ["/mcp"])};`,
    ),
    "README.md": projectReadme({ name, sample, upstream, oauth }),
    "skills/README.md": template("skills/README.md"),
    "src/skills.json": "[]\n",
  };
  if (oauth)
    for (const file of [
      "src/oauth.ts",
      "src/consent.ts",
      "src/attempt-limiter.ts",
      "src/registration-limit.ts",
    ])
      files[file] = template(file);
  else files["src/caller-check.ts"] = template("src/caller-check.ts");
  // The sample data serves the sample API (and the sample code server when there is one).
  if (sample) files["src/sample-data.ts"] = template("src/sample-data.ts");
  if (withCode)
    files["src/code.ts"] = template(
      upstream === undefined ? "src/code-sample.ts" : "src/code-upstream.ts",
    );
  if (sample) files["test/api-sample.test.ts"] = template("test/api-sample.test.ts");
  else files["test/approvals.test.ts"] = template("test/approvals.test.ts");
  if (withCode && upstream === undefined)
    files["test/code-sample.test.ts"] = template("test/code-sample.test.ts");
  return files;
}

/**
 * `text` with `from` replaced by `to`, once; a template that no longer holds `from` is a bug in
 * this package, so it fails loudly rather than writing a project whose tests miss an endpoint.
 * @param {string} text
 * @param {string} from
 * @param {string} to
 */
function replaceOnce(text, from, to) {
  if (!text.includes(from)) throw new Error(`init template: "${from}" not found`);
  return text.replace(from, to);
}

/** @returns {string} a random key: 32 bytes as hex (64 characters) */
function randomKey() {
  return Buffer.from(randomBytes(32)).toString("hex");
}
