// Issue #13, hole 6: `npm start` heals. Under a steady write load (POST /demo-api/tasks from two
// clients), the workerd running the Worker is SIGKILLed. The supervisor must replace the runtime
// and serve again within seconds (measured and printed), every write that was acknowledged must be
// there afterwards, and the writes cut off must get a clear 503 JSON error, never a hang.
import { activeWorkerd } from "./support/processes.mjs";
import { check, withServer } from "./support/server.mjs";

const WRITERS = 2;
const HEAL_WITHIN_MS = 5_000;

await withServer({}, async ({ url, output }) => {
  /** @type {{ id: number, title: string }[]} */
  const acknowledged = [];
  /** @type {string[]} */
  const refused = [];
  // One object, so the loops below see the other tasks' changes (and lint knows).
  const run = { killedAt: 0, firstAckAfterKill: 0, running: true };
  const writer = async (/** @type {number} */ w) => {
    for (let n = 0; run.running; n++) {
      const title = `heal ${w}-${n}`;
      const startedAt = Date.now();
      try {
        const res = await fetch(`${url}/demo-api/tasks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ projectId: 1, title }),
          signal: AbortSignal.timeout(15_000),
        });
        const body = await res.text();
        if (res.status === 201 || res.status === 200) {
          acknowledged.push({ id: JSON.parse(body).id, title });
          // Only a write sent after the kill shows the server serves again.
          if (run.killedAt && startedAt > run.killedAt && !run.firstAckAfterKill)
            run.firstAckAfterKill = Date.now();
        } else refused.push(`${res.status} ${res.headers.get("content-type")} ${body}`);
      } catch (error) {
        refused.push(`no answer: ${/** @type {Error} */ (error).message}`);
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, 2_000));
  const ackedBefore = acknowledged.length;
  const worker = { pid: activeWorkerd(output()) };
  process.kill(worker.pid, "SIGKILL");
  run.killedAt = Date.now();
  while (!run.firstAckAfterKill && Date.now() - run.killedAt < 60_000)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 2_000));
  run.running = false;
  await Promise.all(writers);

  const healedMs = run.firstAckAfterKill - run.killedAt;
  console.log(
    `e2e heal: killed workerd ${worker.pid} after ${ackedBefore} writes; writes acknowledged again ${healedMs} ms later; ${acknowledged.length} acknowledged, ${refused.length} cut off`,
  );
  check(
    run.firstAckAfterKill > 0,
    `no write acknowledged within 60 s after the kill:\n${output()}`,
  );
  check(healedMs <= HEAL_WITHIN_MS, `serving again took ${healedMs} ms (> ${HEAL_WITHIN_MS})`);
  check(
    /runtime 1 is replaced because it/.test(output()),
    `runtime 1 was not replaced:\n${output()}`,
  );
  for (const r of refused)
    check(
      r.startsWith("503 application/json") && r.includes("the runtime was restarted because"),
      `a cut-off write got an unclear answer: ${r}`,
    );

  // Every acknowledged write is there.
  const missing = [];
  for (const { id, title } of acknowledged) {
    const res = await fetch(`${url}/demo-api/tasks/${id}`);
    const task = res.status === 200 ? await res.json() : undefined;
    if (task?.title !== title) missing.push(`${id} ${title} → ${res.status}`);
  }
  check(missing.length === 0, `acknowledged writes lost: ${missing.join(", ")}`);
  console.log(`e2e heal: all ${acknowledged.length} acknowledged writes read back — ok`);

  // (No Node process holds the runtimes any more, runtime.mjs: a SIGKILLed supervisor taking
  // its workerd processes along is stop-restart's.)
});
