// A launch (cli/serve.mjs) with a memo whose check refuses the configuration once the host
// started from the memo has made its data (workerd's `v3/cache` in the persist folder), or after
// 20 s, or after 1 s when no such host started; it prints whether one started. Run by test/unit/cli/local-server/early-host-refused.test.ts as
// `node refused-early-launch.mjs <persist>`, with XDG_CACHE_HOME and XDG_CONFIG_HOME of its own.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openLaunchMemos, launchMemoFolder } from "../../../cli/kept/launch-memo.mjs";
import { specCacheKeyFile } from "../../../cli/kept/spec-cache-key.mjs";
import { serve } from "../../../cli/serve.mjs";

const persist = String(process.argv[2]);
/** @type {NodeJS.ProcessEnv} */
const env = { ...process.env, SPEC: "demo-api" };
delete env.SPEC_FILE;
openLaunchMemos(launchMemoFolder(env), specCacheKeyFile(env)).write(undefined, {
  runners: 1,
  bindings: [["SPEC", ["env"]]],
});
/** @type {(value: { ok: false, message: string }) => void} */
let refuse = () => {};
const planned = new Promise((settle) => (refuse = settle));
const served = serve({
  label: "test",
  env,
  persist,
  log: () => {},
  progress: () => {},
  planned: /** @type {any} */ (planned),
});
// serve decides on the early host before it first waits: a host started made `v3/cache`. A
// started process (that host's workerd, or Miniflare's builder of its configuration) is an
// active ProcessWrap until it ends; none after 1 s means no early host.
const started = Date.now();
const watch = setInterval(() => {
  const spawned = process.getActiveResourcesInfo().includes("ProcessWrap");
  const made = existsSync(join(persist, "v3", "cache"));
  if (made || (!spawned && Date.now() - started > 1_000) || Date.now() - started > 20_000) {
    clearInterval(watch);
    console.log(`early host: ${spawned || made}`);
    refuse({ ok: false, message: "- LOG_REQUESTS: refused by the test" });
  }
}, 50);
await served;
