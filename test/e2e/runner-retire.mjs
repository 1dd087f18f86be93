// Issue #28, memory flat: a sandbox runner is retired after SANDBOX_RUNNER_MAX_RUNS runs and a
// fresh process takes its place (cli/local-server/runners/runner-retirement.mjs, runner-life.ts), with
// no run lost or cut off. Here a runner retires after 40 runs, so 3 runners retire several times
// while 8 clients run searches, writes and slow programs (each slow one is under way while its
// runner is asked to retire, and must finish there): every call answers right, each retirement
// is followed by a fresh runner that serves, nothing is replaced, and the retired processes are
// gone. (Another process's POST /retire is refused: e2e sealed, issue #40.)
import { readFileSync } from "node:fs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { EXECUTE, SEARCH } from "./support/programs.mjs";
import { replacements } from "./support/replacements.mjs";
import { check, withServer } from "./support/server.mjs";

const MAX_RUNS = 40;
const CLIENTS = 8;
const WANTED_RETIREMENTS = 6;
const DEADLINE_MS = 120_000;
const SLOW = `async () => { await new Promise((r) => setTimeout(r, 1500)); return "slow done"; }`;

/**
 * Call `n` of a client: a search, a write read back, or a slow program, in turn.
 * @param {number} client
 * @param {number} n
 * @returns {[string, string, (text: string) => boolean]}
 */
function call(client, n) {
  if (n % 3 === 0) return ["search", SEARCH, (t) => t.includes("POST /tasks createTask")];
  if (n % 3 === 1)
    return [
      "execute",
      EXECUTE(`retire ${client}.${n}`),
      (t) => t.includes(`"retire ${client}.${n}"`),
    ];
  return ["execute", SLOW, (t) => t === "slow done"];
}

/** @param {number} pid */
const alive = (pid) => {
  try {
    readFileSync(`/proc/${pid}/status`);
    return true;
  } catch {
    return false;
  }
};

await withServer(
  { SANDBOX_RUNNERS: "3", SANDBOX_RUNNER_MAX_RUNS: String(MAX_RUNS) },
  async ({ url, output }) => {
    const retired = () =>
      output()
        .split("\n")
        .filter((l) => / is retired after \d+ runs/.test(l));
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => connect(url, { name: `e2e-retire-${i}` })),
    );
    /** @type {string[]} */
    const failures = [];
    let calls = 0;
    const until = Date.now() + DEADLINE_MS;
    await Promise.all(
      clients.map(async ({ client }, i) => {
        for (let n = 0; retired().length < WANTED_RETIREMENTS && Date.now() < until; n++) {
          const [tool, code, right] = call(i, n);
          const outcome = await timedCall(client, tool, code, 60_000);
          calls++;
          if (!outcome.ok || !right(outcome.text))
            failures.push(`client ${i} call ${n}: ${outcome.thrown ?? outcome.text.slice(0, 300)}`);
        }
      }),
    );
    await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
    // The last retirements may still be under way (a drained runner ends a second after its last
    // run, and its fresh one takes seconds to start on a loaded machine: a fixed 3 s wait was
    // too short on CI). Settled: no slot's last word is a retirement (each was followed by its
    // fresh runner's ready line). With runners started on demand (runner-pool.mjs), a slot's
    // runner may also end for being idle ("is ended: no run …"), with no fresh one after it.
    const lastEvents = () => {
      /** @type {Map<string, string>} */
      const last = new Map();
      for (const line of output().split("\n")) {
        const event =
          /(runner \d+) (?:\(workerd pid \d+\) (is ready)\.|(is retired) after|(is ended): no run)/.exec(
            line,
          );
        if (event?.[1]) last.set(event[1], event[2] ?? event[3] ?? event[4] ?? "");
      }
      return last;
    };
    const settled = () => [...lastEvents().values()].every((event) => event !== "is retired");
    for (const started = Date.now(); !settled() && Date.now() - started < 30_000;)
      await new Promise((r) => setTimeout(r, 250));
    check(settled(), `a retired runner's fresh one was not ready within 30 s:\n${output()}`);
    const lines = output().split("\n");
    console.log(`e2e runner-retire: ${calls} calls, ${failures.length} failed`);
    for (const line of retired()) console.log(`  ${line}`);
    check(failures.length === 0, `calls failed:\n${failures.slice(0, 5).join("\n")}`);
    check(
      retired().length >= WANTED_RETIREMENTS,
      `${retired().length} retirements in ${DEADLINE_MS / 1000} s (wanted ${WANTED_RETIREMENTS})`,
    );
    // Every slot takes its turn: taken in slot order, the last slot's turn never came while the
    // first ones kept coming due (fixed by retiring the most overdue first).
    const slotsRetired = new Set(retired().map((l) => /runner (\d+) is retired/.exec(l)?.[1]));
    // (Three slots and the spare, which runs while every runner may be held: runner-pool.mjs.)
    check(slotsRetired.size >= 3, `only runners ${[...slotsRetired].join(", ")} were retired`);
    // Each retired runner's process is gone and a fresh one serves in its slot.
    const pids = new Map();
    for (const line of lines) {
      const ready = /(runner \d+) \(workerd pid (\d+)\) is ready\./.exec(line);
      if (ready) pids.set(ready[1], [...(pids.get(ready[1]) ?? []), Number(ready[2])]);
    }
    const ended = lastEvents();
    for (const [runner, list] of pids) {
      for (const pid of list.slice(0, -1))
        check(!alive(pid), `${runner}'s retired workerd ${pid} is still running`);
      // A runner ended for being idle (its slot waits for the host to ask) has no fresh one.
      if (ended.get(runner) === "is ended")
        check(!alive(list.at(-1)), `${runner} was ended yet runs`);
      else check(alive(list.at(-1)), `${runner}'s fresh workerd ${list.at(-1)} is not running`);
    }
    check(
      [...pids.values()].some((list) => list.length > 1),
      "no runner was started afresh",
    );
    const replaced = replacements(output());
    check(replaced.length === 0, `the supervisor replaced:\n${replaced.join("\n")}`);
    console.log("e2e runner-retire: every call answered right across the retirements — ok");
  },
);
