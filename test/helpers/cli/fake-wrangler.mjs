// A stand-in for `wrangler` in the deploy tests: it reports what a real one would be handed (its
// arguments, the secrets file's path, modes and names, whether its logs are sanitized, the .js
// and .json files beside its --config) to the JSON file FAKE_WRANGLER_REPORT, then
// exits with FAKE_WRANGLER_EXIT (default 0), or, with FAKE_WRANGLER_WAIT=1, prints `ready` and
// waits to be stopped, reporting the signal that stopped it.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const args = process.argv.slice(2);
const at = args.indexOf("--secrets-file");
const file = at === -1 ? undefined : args[at + 1];
/** @type {Record<string, unknown>} */
const report = { pid: process.pid, args, file, logSanitize: process.env.WRANGLER_LOG_SANITIZE };
// The folder of the config it is handed (deploy stages one with SKILLS_DIR's skills): its files.
const config = args.indexOf("--config");
if (config !== -1) {
  const dir = dirname(args[config + 1] ?? "");
  report.configFiles = Object.fromEntries(
    readdirSync(dir)
      .filter((name) => /\.(js|json)$/.test(name))
      .map((name) => [name, readFileSync(join(dir, name), "utf8")]),
  );
}
if (file !== undefined) {
  const secrets = JSON.parse(readFileSync(file, "utf8"));
  report.fileMode = statSync(file).mode & 0o777;
  report.folderMode = statSync(dirname(file)).mode & 0o777;
  report.names = Object.keys(secrets);
  report.secrets = secrets;
}
const path = /** @type {string} */ (process.env.FAKE_WRANGLER_REPORT);
writeFileSync(path, JSON.stringify(report));
if (process.env.FAKE_WRANGLER_WAIT === "1") {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
    process.on(signal, () => {
      writeFileSync(path, JSON.stringify({ ...report, stoppedBy: signal }));
      process.exit(1);
    });
  console.log("ready");
  setInterval(() => {}, 1000);
} else process.exit(Number(process.env.FAKE_WRANGLER_EXIT ?? 0));
