// Issue #13, hole 5 (and #28): a program that blocks its workerd in native code (where the
// operation budget cannot count) must not stop the server answering others. Clients run two
// such programs (both at once, each blocking its own runner) while another calls /health every
// 100 ms; the longest gap between its answers is printed and must stay under 2 s; each offending
// call gets a clear error once the supervisor replaces the runner it blocked; the host runtime
// is never replaced; the server keeps serving.
//
// The programs: a catastrophic regex with the `i` flag (V8's linear fallback does not take `i`,
// so it backtracks for days) and the `new Array(2**31).fill(0)` the issue reported.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SEARCH, text } from "./support/programs.mjs";
import { check, withServer } from "./support/server.mjs";

const MAX_GAP_MS = 2_000;
const STALLS = [
  ["a catastrophic /i regex", `async () => /(a+)+$/i.test("a".repeat(45) + "!")`],
  [
    "new Array(2**31).fill(0)",
    `async () => { const a = new Array(2 ** 31); a.fill(0); return a.length; }`,
  ],
];

/** @param {string} url */
async function connect(url) {
  const client = new Client(
    { name: "e2e-stall", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/**
 * Which runner a "runner stopped" error names ("… stopped (runner 2: …)"), if any.
 * @param {string} outcome
 */
const runnerOf = (outcome) => /stopped \(runner (\d+)/.exec(outcome)?.[1];

await withServer({}, async ({ url, output }) => {
  // Both programs at once: each blocks the runner it was sent to (runs go to the least busy
  // runner, so to two different ones), and the host, which the other client's /health measures,
  // runs neither. One at a time they took twice as long and tested less: one blocked runner.
  const offenders = await Promise.all(STALLS.map(() => connect(url)));
  const watch = { stalled: true };
  let last = Date.now();
  let maxGap = 0;
  let answers = 0;
  const watcher = (async () => {
    while (watch.stalled) {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(30_000) }).catch(
        () => undefined,
      );
      if (!res) {
        maxGap = Math.max(maxGap, Date.now() - last);
        break;
      }
      const body = await res.text();
      if (res.status === 200) {
        answers++;
        maxGap = Math.max(maxGap, Date.now() - last);
        last = Date.now();
      } else {
        // The host is never blocked by a program: any other answer is a failure.
        check(false, `/health answered ${res.status} ${body}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  // Handled at `await watcher` below; this keeps an early failure from ending the script before
  // withServer stops the server.
  watcher.catch(() => {});
  const started = Date.now();
  const outcomes = await Promise.all(
    STALLS.map(([, program], i) =>
      /** @type {import("@modelcontextprotocol/client").Client} */ (offenders[i])
        .callTool({ name: "execute", arguments: { code: program } })
        .then(
          (r) => ({ text: `result: ${text(r)}`, ms: Date.now() - started }),
          (e) => ({ text: `error: ${/** @type {Error} */ (e).message}`, ms: Date.now() - started }),
        ),
    ),
  );
  await new Promise((r) => setTimeout(r, 1_000));
  watch.stalled = false;
  await watcher;
  for (const [i, [label]] of STALLS.entries()) {
    const { text: outcome, ms } = /** @type {{ text: string, ms: number }} */ (outcomes[i]);
    console.log(
      `e2e native-stall: ${label}: the call ended after ${ms} ms with ${outcome.slice(0, 160)}`,
    );
    // A clear error for its own caller: its runner was replaced under it, or the engine gave up
    // first (V8 may refuse the array at once: "RangeError: Invalid array length").
    check(
      outcome.includes("the sandbox runner running this program stopped") ||
        /^result: (ERROR|LIMIT): (RangeError|LimitError|InternalError|Error): /.test(outcome),
      `${label}: the offending call did not get a clear error: ${outcome}`,
    );
  }
  console.log(
    `e2e native-stall: the other client's longest gap between /health answers was ${maxGap} ms (${answers} answers)`,
  );
  const runners = outcomes.map((o) => runnerOf(o.text)).filter((r) => r !== undefined);
  check(
    new Set(runners).size === runners.length,
    `both programs blocked the same runner (${runners.join(", ")}): one never ran`,
  );
  check(!/runtime \d+ is replaced/.test(output()), `the host runtime was replaced:\n${output()}`);
  check(maxGap <= MAX_GAP_MS, `the other client waited ${maxGap} ms (> ${MAX_GAP_MS})`);
  await Promise.all(offenders.map((o) => o.close().catch(() => {})));
  // Still serving: a normal search answers.
  const client = await connect(url);
  const search = await client.callTool({ name: "search", arguments: { code: SEARCH } });
  check(!search.isError && text(search).includes("POST /tasks"), `search after: ${text(search)}`);
  await client.close();
  console.log("e2e native-stall: the server kept serving — ok");
});
