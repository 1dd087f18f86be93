// Issue #40, "a run that is given up on ends everywhere": two programs that keep awaiting after
// their timeout (`for (;;) { try { await sleep } catch {} }`) answer TimeoutError on the host,
// yet their runner may still count them under way. Retirement waits for runs under way, so
// before the fix no retirement completed again and one runner served many times its due runs;
// after one retire request every runner could stay retiring. Here, with 2 runners retired every
// 20 runs and a 4 s run timeout: after the two stuck programs, and two more that the client
// cancels before their timeout (here they too end at the run timeout at the latest: whether a
// cancel ends a run sooner is e2e gone-client's, which found it does not, 2026-12-07), 150
// trivial runs all succeed, retirements complete (the runner pool ends a retiring
// runner at the run timeout plus a margin at the latest: cli/local-server/runners/runner-pool.mjs),
// and nothing is replaced. The runner counts the stuck runs ended by itself (no retirement is
// ended "although … still counted"). On both executors (EXECUTOR=isolate-per-run and
// shared-worker); STUCK_RUNS_EXECUTORS (comma-separated) runs only some (test/e2e/run.mjs runs
// each as a job of its own).
import { connect, timedCall } from "./support/load-clients.mjs";
import { replacements } from "./support/replacements.mjs";
import { check, withServer } from "./support/server.mjs";

const RUN_TIMEOUT_MS = 4_000;
/** When the client cancels the second pair (its request times out: the SDK cancels it). */
const CANCEL_AFTER_MS = 1_500;
const TRIVIAL_RUNS = 150;
const DEADLINE_MS = 90_000;
const STUCK = `async () => {
  for (;;) {
    try {
      await new Promise((r) => setTimeout(r, 200));
    } catch {}
  }
}`;
const ALL_EXECUTORS = ["isolate-per-run", "shared-worker"];
const EXECUTORS = (process.env.STUCK_RUNS_EXECUTORS ?? ALL_EXECUTORS.join(","))
  .split(",")
  .filter((e) => e !== "");
check(
  EXECUTORS.length > 0 && EXECUTORS.every((e) => ALL_EXECUTORS.includes(e)),
  `STUCK_RUNS_EXECUTORS must list ${ALL_EXECUTORS.join(" and/or ")}, comma-separated; got "${process.env.STUCK_RUNS_EXECUTORS}"`,
);

for (const executor of EXECUTORS)
  await withServer(
    {
      EXECUTOR: executor,
      SANDBOX_RUNNERS: "2",
      SANDBOX_RUNNER_MAX_RUNS: "20",
      LIMIT_TIMEOUT_MS: String(RUN_TIMEOUT_MS),
    },
    async ({ url, output }) => {
      const { client } = await connect(url, { name: "e2e-stuck-runs" });
      const stuck = await Promise.all([
        timedCall(client, "execute", STUCK, 60_000),
        timedCall(client, "execute", STUCK, 60_000),
      ]);
      for (const outcome of stuck)
        check(
          /TimeoutError|timed out|time limit/i.test(outcome.text + (outcome.thrown ?? "")),
          `${executor}: a stuck program answered: ${outcome.thrown ?? outcome.text.slice(0, 300)}`,
        );
      // Given up by the client before their timeout: the SDK cancels a request that timed out.
      const cancelled = await Promise.all([
        timedCall(client, "execute", STUCK, CANCEL_AFTER_MS),
        timedCall(client, "execute", STUCK, CANCEL_AFTER_MS),
      ]);
      for (const outcome of cancelled)
        check(
          !outcome.ok && outcome.ms < RUN_TIMEOUT_MS,
          `${executor}: a cancelled stuck program answered: ${outcome.thrown ?? outcome.text.slice(0, 300)}`,
        );
      const startedAt = Date.now();
      /** @type {string[]} */
      const failures = [];
      const retired = () =>
        output()
          .split("\n")
          .filter((line) => / is retired after \d+ runs/.test(line));
      // At least 150 runs, and on until 4 retirements completed (a retirement held by a stuck
      // run ends at the run timeout plus the pool's margin, ~14 s here) or the deadline.
      let n = 0;
      for (
        ;
        n < TRIVIAL_RUNS || (retired().length < 4 && Date.now() - startedAt < DEADLINE_MS);
        n++
      ) {
        const outcome = await timedCall(client, "execute", `async () => ${n} * 2`, 60_000);
        if (!outcome.ok || outcome.text !== String(n * 2))
          failures.push(`run ${n}: ${outcome.thrown ?? outcome.text.slice(0, 300)}`);
      }
      await client.close().catch(() => {});
      console.log(
        `e2e stuck-runs (${executor}): ${n} runs in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, ${failures.length} failed, ${retired().length} retirements`,
      );
      for (const line of retired()) console.log(`  ${line.trim()}`);
      check(failures.length === 0, `${executor}: runs failed:\n${failures.slice(0, 5).join("\n")}`);
      // Before the fix, none completed once a runner holding a stuck run came due.
      check(
        retired().length >= 4,
        `${executor}: only ${retired().length} retirements completed:\n${output()}`,
      );
      // Issue #40, "a run that is given up on ends everywhere": the runner itself counts the stuck
      // runs ended at their timeout plus its margin (sandbox-runner.ts), so no retirement needs
      // the pool's deadline. Before the fix each stuck run stayed counted until its runner was
      // ended ("… although 1 run is still counted under way 14 s after it was asked").
      const counted = output()
        .split("\n")
        .filter((line) => /although .* still counted under way/.test(line));
      check(
        counted.length === 0,
        `${executor}: a runner still counted given-up runs:\n${counted.join("\n")}`,
      );
      const replaced = replacements(output());
      check(replaced.length === 0, `${executor}: the supervisor replaced:\n${replaced.join("\n")}`);
      console.log(`e2e stuck-runs (${executor}): runs given up on never held retirement up — ok`);
    },
  );
