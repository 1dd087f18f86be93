// Issue #28, first "Done when": under an artificial load of 2 busy processes, one `execute` of
// Promise.all over 1,000 GETs (the default `maxHostCalls`: a program within its limits, and the
// commonest code-mode pattern) completes with the right count; no host runtime or runner is
// replaced; and a second client's trivial `search`, polled every 100 ms meanwhile, never waits
// more than 2 s. Before the runner design, this program made the supervisor replace the runtime
// and its caller got no answer for 120 s.
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { connect, pollSearch, timedCall } from "./support/load-clients.mjs";
import { replacements } from "./support/replacements.mjs";
import { check } from "./support/server.mjs";

const GETS = 1_000;
// One round: a second (until 2026-12-07) repeated the first, the same program and checks, and
// was no harder (1.4-3.6 s, longest wait 182-523 ms, against 3.1-3.4 s and 471-498 ms for the
// first; load 5-6). What follows the round is checked as before: nothing replaced, and the
// poller's bound over the whole script, a second after the round included.
const ROUNDS = 1;
const MAX_WAIT_MS = 2_000;
const FAN_OUT = `async () => {
  const pages = await Promise.all(
    Array.from({ length: ${GETS} }, () =>
      codemode.request({ method: "GET", path: "/projects", query: { limit: 1 } }),
    ),
  );
  return { count: pages.length, onePerPage: pages.filter((p) => p.items.length === 1).length };
}`;

await withServerUnderLoad({}, async ({ url, output }) => {
  const { client } = await connect(url, { name: "e2e-fanout" });
  const poller = await pollSearch(url);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      await new Promise((r) => setTimeout(r, 1_000));
      const outcome = await timedCall(client, "execute", FAN_OUT);
      console.log(
        `e2e fanout: round ${round}: ${GETS} GETs in one program answered in ${outcome.ms} ms → ${(outcome.thrown ?? outcome.text).slice(0, 200)}; the poller's longest wait meanwhile ${poller.longestWithin(outcome.startedAt, outcome.endedAt)} ms`,
      );
      check(outcome.ok, `round ${round}: the fan-out failed: ${outcome.thrown ?? outcome.text}`);
      const answer = JSON.parse(outcome.text);
      check(
        answer.count === GETS && answer.onePerPage === GETS,
        `round ${round}: wrong count: ${outcome.text}`,
      );
    }
    await new Promise((r) => setTimeout(r, 1_000));
  } finally {
    const polled = await poller.stop();
    console.log(
      `e2e fanout: the second client's trivial search: ${polled.calls} calls, p50 ${polled.p50Ms} ms, longest ${polled.longestMs} ms, ${polled.failures.length} failed`,
    );
    await client.close().catch(() => {});
    check(polled.failures.length === 0, `the poller's searches failed: ${polled.failures}`);
    check(
      polled.longestMs <= MAX_WAIT_MS,
      `the second client waited ${polled.longestMs} ms (> ${MAX_WAIT_MS})`,
    );
  }
  const replaced = replacements(output());
  check(replaced.length === 0, `the supervisor replaced:\n${replaced.join("\n")}`);
  console.log("e2e fanout: right counts, nothing replaced, the second client kept its bound — ok");
});
