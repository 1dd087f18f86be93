/**
 * What the one-against-another drivers that start their hostile process and victim as children
 * share: a child run to its end under a deadline, and the victim's side (a trivial `search` every
 * 100 ms, test/e2e/support/load-clients.mjs pollSearch, then one line of its waits).
 */
import { spawn } from "node:child_process";
import { pollSearch } from "../../../test/e2e/support/load-clients.mjs";

/**
 * Runs `cmd` to its end (killed after `ms`: a driver never hangs on a child), resolving with its
 * output, stdout and stderr together.
 * @param {string} cmd
 * @param {string[]} args
 * @param {Record<string, string>} [env] - added to this process's environment
 * @param {number} [ms]
 * @returns {Promise<string>}
 */
export function runToEnd(cmd, args, env = {}, ms = 90_000) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(out.trim());
    });
  });
}

/**
 * The victim's side, in a child process of its own (a caller of its own to the front): searches
 * `url` every 100 ms for `ms`, prints `victim: {…}` (its waits and failures) and exits.
 * @param {string} url
 * @param {number} ms
 * @returns {Promise<never>}
 */
export async function searchVictim(url, ms) {
  const poll = await pollSearch(url);
  await new Promise((r) => setTimeout(r, ms));
  console.log(`victim: ${JSON.stringify({ ...poll.ended(), longest: poll.longest() })}`);
  process.exit(0);
}
