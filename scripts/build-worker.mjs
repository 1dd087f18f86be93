// Build step (`npm run build:worker`; npm start and prepack run it): the product Worker prebuilt
// for the launchers, so `npm start` and the published `code-mode-mcp` command run the same files
// and the command needs no sources, TypeScript or bundler.
//   dist/worker/worker.js     the bundled Worker (`wrangler deploy --dry-run`, which first runs
//                             wrangler.jsonc's build command: sandbox modules and specs/)
//   dist/worker/wrangler.json wrangler.jsonc's bindings and migrations, pointed at worker.js
//   dist/worker/runner.js     the sandbox runner Worker (src/runner.ts), bundled by esbuild: it
//                             imports nothing but the Workers runtime
//   dist/cli/product.js       cli/product/ bundled for Node (settings check, spec compiler, …)
//   dist/cli/stdio-bridge.js  the stdio bridge alone (what `--stdio` loads in its main thread)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build, transform } from "esbuild";
import ts from "typescript";
import { buildProduct } from "./build-product.mjs";
import { ROOT } from "./import-ts.mjs";

const OUT = join(ROOT, "dist/worker");
// Built beside the output and moved in file by file: a server already running from dist/ (a
// second `npm start` on another port) keeps finding complete files.
mkdirSync(join(ROOT, "dist"), { recursive: true });
const STAGE = mkdtempSync(join(ROOT, "dist/.worker-"));
const started = Date.now();
console.error("build-worker: bundling the product Worker (wrangler deploy --dry-run) …");
const wrangler = spawnSync(
  process.execPath,
  [
    join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
    "deploy",
    "--dry-run",
    "--outdir",
    STAGE,
    "--config",
    join(ROOT, "wrangler.jsonc"),
  ],
  {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  },
);
if (wrangler.status !== 0) {
  console.error(
    `${wrangler.stdout}\n${wrangler.stderr}\nbuild-worker: wrangler could not bundle the Worker.`,
  );
  process.exit(1);
}

const parsed = ts.parseConfigFileTextToJson(
  "wrangler.jsonc",
  readFileSync(join(ROOT, "wrangler.jsonc"), "utf8"),
);
if (parsed.error) {
  console.error(`build-worker: wrangler.jsonc: ${String(parsed.error.messageText)}`);
  rmSync(STAGE, { recursive: true, force: true });
  process.exit(1);
}
const { $schema: _schema, build: _build, main: _main, ...config } = parsed.config;
writeFileSync(
  join(STAGE, "wrangler.json"),
  JSON.stringify({ ...config, main: "worker.js", no_bundle: true }, null, 2) + "\n",
);
// ASCII only: V8 holds a script with any character past Latin-1 as UTF-16, and the bundle has a
// few (dashes and arrows in messages): 9.2 MB of the host runtime's heap for its 4.8 MB, for the
// runtime's life. esbuild's ascii charset escapes them in strings, templates, regular
// expressions and names without changing what the code does: 4.6 MB (issue #43).
const bundle = join(STAGE, "worker.js");
const ascii = await transform(readFileSync(bundle, "utf8"), {
  charset: "ascii",
  format: "esm",
  target: "esnext",
  loader: "js",
  logLevel: "warning",
});
// What esbuild leaves past ASCII is in comments it keeps (escapes mean nothing there).
writeFileSync(bundle, ascii.code.replace(/[\u0080-\uffff]/g, "?"));
// Only what runs: the source map (twice the bundle) and wrangler's note stay behind.
mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: [join(ROOT, "src/runner.ts")],
  outfile: join(STAGE, "runner.js"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2024",
  external: ["cloudflare:*"],
  logLevel: "warning",
});
for (const file of ["worker.js", "wrangler.json", "runner.js"])
  renameSync(join(STAGE, file), join(OUT, file));
rmSync(STAGE, { recursive: true, force: true });
await buildProduct(join(ROOT, "dist/cli/product.js"));
console.error(`build-worker: dist/worker and dist/cli ready (${Date.now() - started} ms).`);
