/**
 * The cut-off gate's walks with many requests waiting for their caller's name (attack29), no
 * server: N requests not named yet arrive (cut-off-gate.mjs + callers/caller-wait.mjs, wired as
 * front.mjs wires them), then a look names 1,024 other sockets (each telling the gate, as
 * peer-owners.mjs `onKnown` does), then a look names the N. Prints the front's thread time and
 * the `caller()` calls of each step. Before attack29 each arrival walked the queue twice and each
 * name rechecked (walked) once: 2,000 arrivals 455–750 ms, a look of other names 146–273 ms.
 *
 *   node bench/diagnostics/one-against-another/gate-walks.mjs [N=2000]
 */
import { createCutOffGate } from "../../../cli/local-server/front/cut-off-gate.mjs";
import { callerOnceNamed } from "../../../cli/local-server/front/callers/caller-wait.mjs";

const N = Number(process.argv[2] ?? 2000);
const gate = createCutOffGate();
/** @type {Map<object, string>} */
const keys = new Map();
/** @type {Set<object>} */
const looking = new Set();
let calls = 0;
const owners = {
  of: (/** @type {object} */ s) => {
    calls++;
    return keys.get(s) ?? "unknown";
  },
  looking: (/** @type {object} */ s) => looking.has(s),
  seenAs: () => undefined,
};
const recheck = gate.recheckSoon ?? gate.recheck;
const sockets = Array.from({ length: N }, (_, i) => ({ i }));
for (const s of sockets) looking.add(s);
/** Time and calls of `step`, its rechecks run. @param {() => void} step */
async function measure(step) {
  const [t0, c0] = [performance.now(), calls];
  step();
  await new Promise((r) => setImmediate(r));
  return { ms: Math.round(performance.now() - t0), calls: calls - c0 };
}
const arrive = await measure(() => {
  for (const s of sockets) {
    const naming = callerOnceNamed(/** @type {any} */ (owners), /** @type {any} */ (s), {
      method: "POST",
      due: recheck,
    });
    void Promise.resolve(gate.admit(() => () => {}, naming.caller, 100)).then(naming.stop);
  }
});
const others = await measure(() => {
  for (let k = 0; k < 1_024; k++) recheck();
});
const named = await measure(() => {
  for (const s of sockets) {
    keys.set(s, "process:1");
    looking.delete(s);
    recheck();
  }
});
console.log(
  JSON.stringify({ N, arrive, othersNamed: others, theseNamed: named, waiting: gate.waiting() }),
);
process.exit(0);
