/**
 * Child process of the benchmark: serves the prebuilt bench Worker with Miniflare, so requests go
 * straight to workerd's own socket. Usage: `node serve-worker.mjs <bundle-dir> <port>`; prints
 * `ready <url>` once listening and runs until killed (by process group, see server-process.mjs).
 *
 * Why not `wrangler dev`: it watches the bundle folder and its own `.wrangler/` and `--persist-to`
 * state under it, and reloads the Worker on every write there; under the benchmark's load that
 * became a reload loop (a new workerd every second or two, wrangler's Node process at ~80% CPU)
 * and the "main server not answering" failures of earlier full runs. It also puts a proxy
 * Worker and an inspector connection in front of every request. None of that is what we measure.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Log, LogLevel, Miniflare } from "miniflare";

const [dir, port] = process.argv.slice(2);
if (!dir || !port) {
  console.error("usage: node serve-worker.mjs <bundle-dir> <port>");
  process.exit(2);
}

// The bundle is worker.js plus the modules wrangler found beside it (the spec, as text).
const modules = {
  "worker.js": { type: "esm", contents: readFileSync(join(dir, "worker.js"), "utf8") },
};
for (const name of readdirSync(dir)) {
  if (name.endsWith(".json") && name !== "wrangler.json")
    modules[name] = { type: "text", contents: readFileSync(join(dir, name), "utf8") };
}

// Diagnostics only (profile-code.mjs): workerd's inspector on 127.0.0.1, never in a bench run.
const inspectorPort = Number(process.env["BENCH_INSPECTOR_PORT"]) || undefined;

const mf = new Miniflare({
  host: "127.0.0.1",
  port: Number(port),
  ...(inspectorPort ? { inspectorPort } : {}),
  log: new Log(LogLevel.WARN),
  workers: [
    {
      config: {
        name: "code-mode-bench",
        type: "worker",
        compatibilityDate: "2026-08-01",
        compatibilityFlags: ["nodejs_compat"],
        manifest: { mainModule: "worker.js", modules },
        env: { LOADER: { type: "worker-loader" } },
      },
    },
  ],
});
const url = await mf.ready;
console.log(`ready ${url.href}`);

// Killed by group on stop; dispose on a polite SIGTERM so workerd goes with us.
process.once("SIGTERM", () => {
  mf.dispose().finally(() => process.exit(0));
});
