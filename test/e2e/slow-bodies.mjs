// Issue #28, fifth "Done when": under an artificial load of 2 busy processes, 400 sockets send
// `POST /mcp` bodies at one byte per second. The Node front reads each body whole before any
// runtime sees it, so the others are served as before: a second client's trivial `search`
// (polled every 100 ms) never waits more than 1 s, and nothing is replaced. Each slow socket gets
// the front's 408 (body_timeout) about 10 s after its headers (the front's BODY_TIMEOUT_MS; 2 s
// more are allowed for a loaded machine's timers).
import { connect as connectSocket } from "node:net";
import { BODY_TIMEOUT_MS } from "../../cli/local-server/front/front.mjs";
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { pollSearch } from "./support/load-clients.mjs";
import { replacements } from "./support/replacements.mjs";
import { check } from "./support/server.mjs";

const SOCKETS = 400;
const MAX_WAIT_MS = 1_000;
const REFUSED_WITHIN_MS = BODY_TIMEOUT_MS + 2_000;
const BODY_BYTES = 100;

/**
 * One slow client: headers at once, then the body one byte a second. Resolves to the status it
 * got (0: none) and when, in ms after its headers were sent.
 * @param {number} port
 * @returns {Promise<{ status: number, ms: number }>}
 */
function slowBody(port) {
  return new Promise((resolve) => {
    const socket = connectSocket(port, "127.0.0.1");
    let sentAt = 0;
    let answer = "";
    /** @type {NodeJS.Timeout | undefined} */
    let drip;
    const done = () => {
      clearInterval(drip);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, ms: Date.now() - sentAt });
    };
    socket.on("connect", () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`,
      );
      sentAt = Date.now();
      let sent = 0;
      drip = setInterval(() => {
        if (sent++ < BODY_BYTES) socket.write(" ");
      }, 1_000);
    });
    socket.on("data", (chunk) => {
      answer += chunk;
      if (answer.includes("\r\n\r\n")) done();
    });
    socket.on("error", done);
    socket.on("close", done);
    // Past any reasonable answer: count it as none.
    setTimeout(done, 60_000).unref();
  });
}

await withServerUnderLoad({}, async ({ url, port, output }) => {
  const poller = await pollSearch(url);
  let slow;
  let window;
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const from = Date.now();
    slow = await Promise.all(Array.from({ length: SOCKETS }, () => slowBody(port)));
    window = { from, to: Date.now() };
    await new Promise((r) => setTimeout(r, 1_000));
  } finally {
    const polled = await poller.stop();
    console.log(
      `e2e slow-bodies: the second client's trivial search: ${polled.calls} calls, p50 ${polled.p50Ms} ms, longest ${polled.longestMs} ms${window ? ` (${poller.longestWithin(window.from, window.to)} ms while the slow bodies came)` : ""}, ${polled.failures.length} failed`,
    );
    check(polled.failures.length === 0, `the poller's searches failed: ${polled.failures}`);
    check(
      polled.longestMs <= MAX_WAIT_MS,
      `the second client waited ${polled.longestMs} ms (> ${MAX_WAIT_MS})`,
    );
  }
  const statuses = new Map();
  for (const { status } of slow) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const times = slow.map((s) => s.ms).toSorted((a, b) => a - b);
  console.log(
    `e2e slow-bodies: ${SOCKETS} slow sockets got ${[...statuses].map(([s, n]) => `${n}× ${s || "nothing"}`).join(", ")}, after ${times[0]}–${times.at(-1)} ms`,
  );
  check(statuses.get(408) === SOCKETS, "not every slow socket got 408");
  check(
    (times.at(-1) ?? 0) <= REFUSED_WITHIN_MS,
    `a slow socket got its answer after ${times.at(-1)} ms (> ${REFUSED_WITHIN_MS})`,
  );
  const replaced = replacements(output());
  check(replaced.length === 0, `the supervisor replaced:\n${replaced.join("\n")}`);
  console.log(
    "e2e slow-bodies: others served within 1 s, every slow body refused, nothing replaced — ok",
  );
});
