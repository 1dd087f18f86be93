/**
 * A fresh runner's engine load, as the supervisor asks for it: a runner workerd (the built
 * dist/worker/runner.js, as `npm start` runs it) is started, and sent the shared worker's code in
 * one `POST /warm` (src/runner.ts), which loads the engine and builds its template. Prints, per
 * fresh runner, the wall time of that request and the workerd's CPU for it (all threads, and per
 * thread: V8's background compilers are a thread of their own), then a second `POST /warm` of
 * the same code (already loaded: the decode and hash alone). The first load in a process is the
 * one that matters: a runner started for a burst of runs makes it while other clients wait.
 *
 *   npm run build:sandbox && npm run build:worker
 *   npm exec -- node bench/diagnostics/runner-warm.mjs [fresh runners=3]
 *
 * V8 flags for the runner: MINIFLARE_WORKERD_V8_FLAGS (e.g. "--no-wasm-tier-up"). For a profile
 * of one load: `perf record -g -p <workerd pid>` around the request, or
 * MINIFLARE_WORKERD_V8_FLAGS="--prof --logfile=… --no-logfile-per-isolate" and
 * `node --prof-process` (bench/README.md, "The engine's load in a fresh runner").
 */
import { build } from "esbuild";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const runs = Number(process.argv[2] ?? "3");
const root = new URL("../../", import.meta.url).pathname;
// Inside the tree (bench/.tmp is ignored), so the imports resolve from node_modules.
const dir = join(root, "bench/.tmp/runner-warm");
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, "entry.ts"),
  `
import { sharedWorkerCode } from "${root}src/executor/shared-worker/shared-worker-code.ts";
import { encodeCode } from "${root}src/executor/runners/code-wire.ts";
export const text = encodeCode(sharedWorkerCode({ compatibilityDate: "2025-09-01", cpuMs: 30000 }));
`,
);
await build({
  entryPoints: [join(dir, "entry.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: join(dir, "entry.mjs"),
  logLevel: "error",
});
/** The shared worker's code as the supervisor sends it (code-wire.ts). */
const code = (await import(pathToFileURL(join(dir, "entry.mjs")).href)).text;
const secret = "s".repeat(43);
const headers = { "x-local-cluster-secret": secret, "content-type": "application/json" };

/** @param {string} path @returns {string[]} the fields after the command's name */
const statFields = (path) => {
  const text = readFileSync(path, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
};
/** @param {string} path @returns {number} user + system CPU, ms */
const cpuOf = (path) => {
  const f = statFields(path);
  return (Number(f[11]) + Number(f[12])) * 10;
};
/** The workerd this process started (Miniflare's child). */
const workerdPid = () =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .find((p) => {
      try {
        return (
          readFileSync(`/proc/${p}/comm`, "utf8").trim() === "workerd" &&
          Number(statFields(`/proc/${p}/stat`)[1]) === process.pid
        );
      } catch {
        return false;
      }
    });
/** @param {string} pid @returns {Record<string, number>} CPU ms by thread (name:tid) */
const threads = (pid) =>
  Object.fromEntries(
    readdirSync(`/proc/${pid}/task`).map((tid) => [
      `${readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim()}:${tid}`,
      cpuOf(`/proc/${pid}/task/${tid}/stat`),
    ]),
  );

for (let i = 0; i < runs; i++) {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        {
          name: "sandbox-runner",
          modules: true,
          scriptPath: join(root, "dist/worker/runner.js"),
          modulesRoot: join(root, "dist/worker"),
          compatibilityDate: "2025-09-01",
          workerLoaders: { LOADER: {} },
          bindings: { LOCAL_CLUSTER_SECRET: secret },
        },
      ],
    }),
  );
  const url = await mf.ready;
  const pid = workerdPid();
  if (!pid) throw new Error("The runner's workerd was not found.");
  await fetch(new URL("/health", url), { headers }).then((r) => r.text());
  const rows = [];
  for (const label of ["first load", "again"]) {
    const before = threads(pid);
    const from = performance.now();
    const answer = await fetch(new URL("/warm", url), { method: "POST", body: code, headers });
    await answer.text();
    const wall = performance.now() - from;
    const after = threads(pid);
    const spent = Object.entries(after)
      .map(([name, ms]) => [name.split(":")[0], ms - (before[name] ?? 0)])
      .filter(([, ms]) => Number(ms) > 0);
    const total = spent.reduce((sum, [, ms]) => sum + Number(ms), 0);
    rows.push(
      `${label} ${answer.status} ${wall.toFixed(0)} ms, CPU ${total} ms (${spent.map(([n, ms]) => `${n} ${ms}`).join(", ")})`,
    );
  }
  console.log(`runner ${i + 1}: ${rows.join("; ")}`);
  await mf.dispose();
}
console.log(
  `load ${loadavg()[0].toFixed(1)}; flags "${process.env.MINIFLARE_WORKERD_V8_FLAGS ?? ""}"`,
);
