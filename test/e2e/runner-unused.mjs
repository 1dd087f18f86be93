// Issue #40, "Fair share": "A runner that a host stops using is noticed (runs begun per runner)
// and fixed." The avoidance made for real: runner 1 (the one kept while idle) is SIGKILLed and a
// search is sent at once, so the host's run to slot 1 is refused before it begins and the host
// marks slot 1 cold (no runner known to serve there: src/executor/runners/stale-slot.ts); the run
// goes to slot 2, whose runner the supervisor starts. The supervisor replaces runner 1 within
// seconds, but the host tries a cold slot only when no serving runner is idle, so a light load
// (one search every RUN_EVERY_MS) goes to runner 2 alone. Checked:
// - the avoidance: runner 1's replacement begins no run while runner 2 begins them (if runner 1
//   got a run anyway, the host did not mark it cold this time: the script says so and tries
//   again, up to ATTEMPTS times);
// - the notice: the supervisor logs "runner 1 serves but began no run" within NOTICED_MS of the
//   replacement, the host having forgotten its cold mark;
// - the fix: runner 1 begins runs again within FIXED_MS of that line.
// Every search succeeds throughout. Speaks to the runners' own sockets as the supervisor does
// (support/secret-server.mjs). Needs the product built (`npm run build:worker`).
import { internal, withSecretServer } from "./support/secret-server.mjs";
import { listeningUnixSockets } from "./support/listening-ports.mjs";
import { TRIVIAL_SEARCH, connect, timedCall } from "./support/load-clients.mjs";
import { check } from "./support/server.mjs";

/** A light load: one search at a time, this far apart. */
const RUN_EVERY_MS = 500;
/** The supervisor's window (runners/unused-runner.mjs UNUSED_MS), its looks and a loaded slack. */
const NOTICED_MS = 30_000 + 15_000;
/** How soon after the notice runner 1 must begin a run. */
const FIXED_MS = 10_000;
/** Tries at making the host avoid runner 1 (each: a kill and a search at once). */
const ATTEMPTS = 3;
/** How long runner 1's replacement may take to serve. */
const REPLACED_MS = 20_000;

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The latest workerd pid of runner `index`, from the supervisor's "runner N (workerd pid P)".
 * @param {string} output
 * @param {number} index
 */
function runnerPid(output, index) {
  let pid;
  for (const m of output.matchAll(/runner (\d+) \(workerd pid (\d+)\)/g))
    if (Number(m[1]) === index) pid = Number(m[2]);
  return pid;
}

/**
 * Runs begun by the workerd process `pid` (its `/health` counts), or undefined.
 * @param {number} pid
 * @param {string} secret
 */
async function begunBy(pid, secret) {
  const socket = listeningUnixSockets(pid).find((file) => /\/r\d+\.entry\.sock$/.test(file));
  if (!socket) return undefined;
  const answer = await internal(socket, "/health", "HEAD", secret);
  const begun = Number(answer.headers["x-runs-begun"]);
  return Number.isInteger(begun) ? begun : undefined;
}

/**
 * Kills runner 1 and sends a search at once (slot 1 marked cold on the host), then a light load
 * until runner 1's replacement begins a run. Undefined when it began one before the supervisor's
 * notice (the host did not mark it cold: nothing shown); else when the notice and the first run
 * came, and how many searches went elsewhere before.
 * @param {() => string} output
 * @param {string} secret
 * @param {() => Promise<void>} search
 */
async function avoidAndNotice(output, secret, search) {
  const first = runnerPid(output(), 1);
  check(first !== undefined, `no "runner 1 (workerd pid …)" line:\n${output()}`);
  const outputBefore = output().length;
  process.kill(/** @type {number} */ (first), "SIGKILL");
  const killedAt = Date.now();
  await search();
  for (;;) {
    const pid = runnerPid(output(), 1);
    if (pid !== undefined && pid !== first) break;
    check(Date.now() - killedAt < REPLACED_MS, `runner 1 was not replaced:\n${output()}`);
    await sleep(100);
  }
  const replacement = /** @type {number} */ (runnerPid(output(), 1));
  const replacedAt = Date.now();
  console.log(`runner 1 replaced (pid ${first} → ${replacement}) in ${replacedAt - killedAt} ms`);
  const line =
    /runner 1 serves but began no run for \d+ s while \d+ began on other runners; [^\n]*/;
  let noticedAt = 0;
  let avoidedRuns = 0;
  for (;;) {
    await search();
    const begun = await begunBy(replacement, secret);
    const noticed = line.exec(output().slice(outputBefore));
    if (noticed && noticedAt === 0) {
      noticedAt = Date.now();
      console.log(`noticed ${noticedAt - replacedAt} ms after the replacement: ${noticed[0]}`);
    }
    if ((begun ?? 0) > 0)
      return noticedAt > 0 ? { noticedAt, fixedAt: Date.now(), avoidedRuns } : undefined;
    avoidedRuns++;
    check(
      noticedAt > 0 || Date.now() - replacedAt < NOTICED_MS,
      `runner 1 got no run for ${NOTICED_MS} ms and the supervisor said nothing:\n${output()}`,
    );
    check(
      noticedAt === 0 || Date.now() - noticedAt < FIXED_MS,
      `runner 1 got no run within ${FIXED_MS} ms of the notice:\n${output()}`,
    );
    await sleep(RUN_EVERY_MS);
  }
}

await withSecretServer({ SANDBOX_RUNNERS: "2" }, async ({ url, secret, output }) => {
  const { client } = await connect(url, { name: "e2e-runner-unused" });
  /** @type {string[]} */
  const failures = [];
  const search = async () => {
    const outcome = await timedCall(client, "search", TRIVIAL_SEARCH, 60_000);
    if (!outcome.ok) failures.push(outcome.thrown ?? outcome.text);
  };
  await search();
  /** @type {{ noticedAt: number, fixedAt: number, avoidedRuns: number } | undefined} */
  let shown;
  for (let attempt = 1; attempt <= ATTEMPTS && !shown; attempt++) {
    shown = await avoidAndNotice(output, secret, search);
    if (!shown)
      console.log(
        `attempt ${attempt}: runner 1's replacement began a run before any notice (the host did not mark slot 1 cold this time); again.`,
      );
  }
  check(
    shown !== undefined,
    `the host never avoided runner 1 in ${ATTEMPTS} attempts:\n${output()}`,
  );
  const { noticedAt, fixedAt, avoidedRuns } = /** @type {NonNullable<typeof shown>} */ (shown);
  check(
    /the host forgot a mark that it had no runner/.test(output()),
    `the host did not report the cold mark:\n${output()}`,
  );
  check(failures.length === 0, `searches failed: ${failures.join(" | ")}`);
  console.log(
    `runner-unused: ${avoidedRuns} searches avoided runner 1's replacement; it began runs ${fixedAt - noticedAt} ms after the notice; 0 failures.`,
  );
  await client.close();
});
