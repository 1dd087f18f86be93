/**
 * One shared-worker engine run in Node, cold against warm (sandbox/engine/warm-engine.ts): the
 * CPU of `EngineRun` as a search sends it (the `openapi` extension, a small packed spec), on a
 * fresh runtime that compiles the harness (a bare engine instance) and on the engine's template
 * (a `WarmEngine`, memory written back before each run). Runs alternate cold/warm in blocks;
 * prints the median per-run time of each block's runs (process CPU and wall), and the range;
 * then the size of the template's memory copy, a restore alone (CPU per restore, 1,000 times)
 * and an engine instance with its template built (CPU, 10 times).
 *
 *   node bench/diagnostics/engine-warm.mjs [runs per block=200] [rounds=5]
 */
import { build } from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [runsText = "200", roundsText = "5"] = process.argv.slice(2);
const runs = Number(runsText);
const rounds = Number(roundsText);
const root = new URL("../../", import.meta.url).pathname;
// Inside the tree (bench/.tmp is ignored), so the engine's packages resolve from node_modules.
const dir = join(root, "bench/.tmp/engine-warm");
mkdirSync(dir, { recursive: true });
const entry = join(dir, "entry.ts");
writeFileSync(
  entry,
  `
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
export { EngineRun } from "${root}sandbox/engine/run.ts";
export { WarmEngine } from "${root}sandbox/engine/warm-engine.ts";
export { engineRunRequest } from "${root}test/helpers/executor/engine-run-request.ts";
export { loadSpec } from "${root}src/openapi/openapi-spec.ts";
export { packSpec } from "${root}src/openapi/spec-pack.ts";
export const newEngine = () => newQuickJSWASMModuleFromVariant(variant);
`,
);
const out = join(dir, "entry.mjs");
await build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: out,
  external: ["@jitl/*", "quickjs-emscripten-core"],
  plugins: [
    {
      name: "engine-modules",
      setup(b) {
        b.onResolve({ filter: /^\.\/engine-modules\.json$/ }, () => ({
          path: join(root, "test/helpers/executor/engine-module-texts.ts"),
        }));
      },
    },
  ],
  logLevel: "error",
});
const lib = await import(pathToFileURL(out).href);

const paths = {};
for (let i = 0; i < 20; i++)
  paths[`/things/${i}`] = {
    get: { operationId: `getThing${i}`, responses: { 200: { description: "ok" } } },
  };
const spec = lib.loadSpec({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths });
const packed = lib.packSpec(spec.compact);
const PROGRAM = `const spec = await codemode.spec(); return Object.keys(spec.paths).length`;
const request = {
  ...lib.engineRunRequest(PROGRAM),
  extensions: [{ name: "openapi", namespace: "codemode" }],
};
const host = async (_ns, _name, args) => args;

/** Runs `count` runs one after another; per-run CPU and wall in ms. */
async function block(engine, count) {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  let warm = 0;
  for (let i = 0; i < count; i++) {
    const run = new lib.EngineRun(engine, request, [packed], host);
    const result = await run.result;
    if (typeof result !== "string" || !result.includes('"result":"20"'))
      throw new Error(`unexpected: ${JSON.stringify(result).slice(0, 300)}`);
    if (run.warm) warm++;
    run.dispose();
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    cpu: (cpu.user + cpu.system) / 1000 / count,
    wall: (performance.now() - wall0) / count,
    warm,
  };
}

const cold = await lib.newEngine();
const warm = new lib.WarmEngine(await lib.newEngine());
await block(cold, 50);
await block(warm, 50);
const rows = { cold: [], warm: [] };
const load = loadavg()[0];
for (let r = 0; r < rounds; r++) {
  for (const [name, engine] of r % 2
    ? [
        ["warm", warm],
        ["cold", cold],
      ]
    : [
        ["cold", cold],
        ["warm", warm],
      ])
    rows[name].push(await block(engine, runs));
}
const med = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, list] of Object.entries(rows)) {
  const cpus = list.map((r) => r.cpu);
  console.log(
    `${name}: cpu/run ${med(cpus).toFixed(2)} ms (${Math.min(...cpus).toFixed(2)}–${Math.max(...cpus).toFixed(2)}), wall/run ${med(list.map((r) => r.wall)).toFixed(2)} ms, warm runs ${list[0].warm}/${runs}`,
  );
}
const restoreStart = process.cpuUsage();
for (let i = 0; i < 1000; i++) warm.end(warm.begin({}, request));
const restoreCpu = process.cpuUsage(restoreStart);
const buildStart = process.cpuUsage();
const built = [];
for (let i = 0; i < 10; i++) built.push(new lib.WarmEngine(await lib.newEngine()));
if (!built.every((engine) => engine.warm)) throw new Error("a template was not built");
const buildCpu = process.cpuUsage(buildStart);
console.log(
  `template copy ${(warm.copyBytes / 1_048_576).toFixed(2)} MB; restore alone ${((restoreCpu.user + restoreCpu.system) / 1000 / 1000).toFixed(3)} ms; engine instance + template ${((buildCpu.user + buildCpu.system) / 1000 / 10).toFixed(1)} ms`,
);
console.log(`load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
