// Issue #28, fourth "Done when": under an artificial load of 2 busy processes, a sandbox runner
// is SIGKILLed (its workerd process; every runtime is one, held by the runtime host) while 8 clients have
// runs in flight, half of them on the 2025 lane whose answers are event streams. Each run that
// was on the killed runner must get an error answer within 1 s of the kill, naming what
// happened; the others finish; runs are served again within seconds; and every write a run
// acknowledged (tasks created through the demo API, returned by the run) reads back afterwards.
// Only the killed runner is replaced.
import { existsSync } from "node:fs";
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { replacements } from "./support/replacements.mjs";
import { check } from "./support/server.mjs";

const CLIENTS = 8;
const WRITES = 12;
const ERROR_WITHIN_MS = 1_000;
const SERVING_WITHIN_MS = 5_000;
const RUNNER_LOST = "the sandbox runner running this program stopped";

/**
 * A run that creates tasks one by one, a little apart (a few seconds in all), and returns what
 * it created.
 * @param {string} tag
 */
const WRITER = (tag) => `async () => {
  const created = [];
  for (let i = 0; i < ${WRITES}; i++) {
    const title = ${JSON.stringify(tag)} + "-" + i;
    const task = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 1, title } });
    created.push({ id: task.id, title });
    await new Promise((r) => setTimeout(r, 200));
  }
  return created;
}`;
const ONE_WRITE = (/** @type {string} */ title) => `async () => {
  const task = await codemode.request({ method: "POST", path: "/tasks", body: { projectId: 1, title: ${JSON.stringify(title)} } });
  return [{ id: task.id, title: task.title }];
}`;

/**
 * The runners' workerd processes, from the supervisor's "runner N (workerd pid P)" lines (the
 * latest per runner).
 * @param {string} output
 */
function runnerPids(output) {
  /** @type {Map<string, number>} */
  const latest = new Map();
  for (const m of output.matchAll(/runner (\d+) \(workerd pid (\d+)\)/g))
    latest.set(String(m[1]), Number(m[2]));
  return [...latest.values()];
}

await withServerUnderLoad({}, async ({ url, output, log }) => {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      connect(url, { legacy: i % 2 === 0, name: `e2e-kill-${i}` }),
    ),
  );
  const { client: prober } = await connect(url, { name: "e2e-kill-prober" });
  /** @type {{ id: number, title: string }[]} */
  const acknowledged = [];
  const acknowledge = (/** @type {import("./support/load-clients.mjs").Outcome} */ o) => {
    if (o.ok) acknowledged.push(...JSON.parse(o.text));
  };

  const runs = clients.map(({ client }, i) => timedCall(client, "execute", WRITER(`kill-${i}`)));
  // Every run has started and made a few writes.
  await new Promise((r) => setTimeout(r, 1_500));
  // From the whole log: on the shared server, the runners may have started before this script.
  // Runners start when runs need them and end when idle (runner-pool.mjs): the live ones, read
  // now that the runs are under way; the first (it serves from the start) is killed.
  const pids = runnerPids(log()).filter((pid) => existsSync(`/proc/${pid}`));
  check(pids.length >= 2, `expected 2 runners or more, found ${pids.join(", ")}`);
  const victim = /** @type {number} */ (pids[0]);
  process.kill(victim, "SIGKILL");
  const killedAt = Date.now();
  // Serving again, measured from the kill: one new run after another until one succeeds.
  const servedAgain = (async () => {
    for (let n = 0; Date.now() - killedAt < 60_000; n++) {
      const after = await timedCall(prober, "execute", ONE_WRITE(`after-${n}`));
      acknowledge(after);
      if (after.ok) return after.endedAt - killedAt;
    }
    return -1;
  })();
  const outcomes = await Promise.all(runs);
  outcomes.forEach(acknowledge);
  const servedAgainMs = await servedAgain;
  // Then a full round again, with the runner replaced.
  const second = await Promise.all(
    clients.map(({ client }, i) => timedCall(client, "execute", WRITER(`again-${i}`))),
  );
  second.forEach(acknowledge);

  const affected = outcomes.filter((o) => !o.ok);
  const streamed = clients.reduce((sum, c) => sum + c.streamed(), 0);
  const answers = clients.reduce((sum, c) => sum + c.answers(), 0);
  console.log(
    `e2e runner-kill: killed runner workerd ${victim} with ${CLIENTS} runs in flight: ${affected.length} got an error ${outcomes.flatMap((o, i) => (o.ok ? [] : [`${o.endedAt - killedAt} ms (${i % 2 === 0 ? "event stream" : "JSON"})`])).join(", ")} after the kill; ${outcomes.length - affected.length} finished; served again ${servedAgainMs} ms after the kill; second round ${second.filter((o) => o.ok).length}/${CLIENTS} ok; ${streamed} of ${answers} answers were event streams`,
  );
  for (const [i, o] of outcomes.entries())
    if (!o.ok) {
      const message = o.thrown ?? o.text;
      check(
        message.includes(RUNNER_LOST),
        `client ${i}: an unclear error for a run on the killed runner: ${message}`,
      );
      check(
        o.endedAt - killedAt <= ERROR_WITHIN_MS,
        `client ${i}: its error came ${o.endedAt - killedAt} ms after the kill (> ${ERROR_WITHIN_MS})`,
      );
    } else check(JSON.parse(o.text).length === WRITES, `client ${i}: ${o.text}`);
  check(affected.length > 0, "no run was on the killed runner: the kill tested nothing");
  check(streamed > 0, "no answer was an event stream");
  check(
    servedAgainMs >= 0 && servedAgainMs <= SERVING_WITHIN_MS,
    `served again ${servedAgainMs} ms after the kill (> ${SERVING_WITHIN_MS})`,
  );
  for (const o of second) check(o.ok, `a run after the kill failed: ${o.thrown ?? o.text}`);
  const replaced = replacements(output());
  check(
    replaced.length === 1 && /runner \d+ is replaced because it exited/.test(replaced[0] ?? ""),
    `expected exactly the killed runner replaced:\n${replaced.join("\n")}`,
  );

  // Every acknowledged write is there.
  const missing = [];
  for (const { id, title } of acknowledged) {
    const res = await fetch(`${url}/demo-api/tasks/${id}`);
    const task = res.status === 200 ? await res.json() : undefined;
    if (task?.title !== title) missing.push(`${id} ${title} → ${res.status}`);
  }
  check(missing.length === 0, `acknowledged writes lost: ${missing.join(", ")}`);
  console.log(
    `e2e runner-kill: all ${acknowledged.length} acknowledged writes read back; only the killed runner was replaced — ok`,
  );
  await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
  await prober.close().catch(() => {});
});
