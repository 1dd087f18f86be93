// Issue #13, hole 5: a program that blocks workerd in native code (where the operation budget
// cannot count) must not stop the server answering others. One client runs such a program while
// another calls /health every 100 ms; the longest gap between its answers is printed and must
// stay under 2 s (a call that was waiting on the blocked runtime gets the clear 503 error); the
// offending call gets a clear error; the server keeps serving.
//
// The programs: a catastrophic regex with the `i` flag (V8's linear fallback does not take `i`,
// so it backtracks for days) and the `new Array(2**31).fill(0)` the issue reported.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SEARCH, text } from "./programs.mjs";
import { check, withServer } from "./server.mjs";

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

/** Resolves once the output has `count` "stands by" lines (a warm standby is ready). */
async function standbyReady(/** @type {() => string} */ output, /** @type {number} */ count) {
  const deadline = Date.now() + 120_000;
  while ((output().match(/ stands by\./g) ?? []).length < count) {
    check(Date.now() < deadline, `no standby ready:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

await withServer({}, async ({ url, output }) => {
  for (const [index, [label, program]] of STALLS.entries()) {
    await standbyReady(output, index + 1);
    const offender = await connect(url);
    const watch = { stalled: true };
    let last = Date.now();
    let maxGap = 0;
    let answers = 0;
    let cutOff = 0;
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
          // A call that was waiting on the blocked runtime is cut off with the clear error.
          check(
            res.status === 503 && body.includes("the runtime was restarted because"),
            `/health answered ${res.status} ${body}`,
          );
          cutOff++;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // Handled at `await watcher` below; this keeps an early failure from ending the script before
    // withServer stops the server.
    watcher.catch(() => {});
    const started = Date.now();
    const outcome = await offender.callTool({ name: "execute", arguments: { code: program } }).then(
      (r) => `result: ${text(r)}`,
      (e) => `error: ${/** @type {Error} */ (e).message}`,
    );
    const tookMs = Date.now() - started;
    await new Promise((r) => setTimeout(r, 1_000));
    watch.stalled = false;
    await watcher;
    console.log(
      `e2e native-stall: ${label}: the call ended after ${tookMs} ms with ${outcome.slice(0, 160)}; the other client's longest gap was ${maxGap} ms (${answers} answers, ${cutOff} cut off)`,
    );
    check(
      outcome.includes("the runtime was restarted because a run blocked it; retry"),
      `${label}: the offending call did not get the clear error: ${outcome}`,
    );
    check(maxGap <= MAX_GAP_MS, `${label}: the other client waited ${maxGap} ms (> ${MAX_GAP_MS})`);
    await offender.close().catch(() => {});
  }
  // Still serving: a normal search answers.
  const client = await connect(url);
  const search = await client.callTool({ name: "search", arguments: { code: SEARCH } });
  check(!search.isError && text(search).includes("POST /tasks"), `search after: ${text(search)}`);
  await client.close();
  console.log("e2e native-stall: the server kept serving — ok");
});
