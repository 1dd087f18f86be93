// Build step (`npm run build:worker`; npm start and prepack run it): the product Worker prebuilt
// for the launchers, so `npm start` and the published `code-mode-mcp` command run the same files
// and the command needs no sources, TypeScript or bundler.
//   dist/worker/worker.js     the bundled Worker (`wrangler deploy --dry-run`, which first runs
//                             wrangler.jsonc's build command: sandbox modules and specs/)
//   dist/worker/wrangler.json wrangler.jsonc's bindings and migrations, pointed at worker.js
//   dist/cli/product.js       cli/product/ bundled for Node (settings check, spec compiler, …)
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { buildProduct } from "./build-product.mjs";
import { ROOT } from "./import-ts.mjs";

const OUT = join(ROOT, "dist/worker");
const started = Date.now();
console.error("build-worker: bundling the product Worker (wrangler deploy --dry-run) …");
rmSync(OUT, { recursive: true, force: true });
const wrangler = spawnSync(
  process.execPath,
  [
    join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
    "deploy",
    "--dry-run",
    "--outdir",
    OUT,
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
// The source map (twice the bundle) and wrangler's note are not needed to run it.
for (const extra of ["worker.js.map", "README.md"]) rmSync(join(OUT, extra), { force: true });

const parsed = ts.parseConfigFileTextToJson(
  "wrangler.jsonc",
  readFileSync(join(ROOT, "wrangler.jsonc"), "utf8"),
);
if (parsed.error) {
  console.error(`build-worker: wrangler.jsonc: ${String(parsed.error.messageText)}`);
  process.exit(1);
}
const { $schema: _schema, build: _build, main: _main, ...config } = parsed.config;
writeFileSync(
  join(OUT, "wrangler.json"),
  JSON.stringify({ ...config, main: "worker.js", no_bundle: true }, null, 2) + "\n",
);
await buildProduct(join(ROOT, "dist/cli/product.js"));
console.error(`build-worker: dist/worker and dist/cli ready (${Date.now() - started} ms).`);
