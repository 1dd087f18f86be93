// Issue #40, "A run that is given up on ends everywhere": "Timeout, cancel or a gone client end
// the run's isolate (or engine context) in the runner, and the runner counts it ended." e2e
// stuck-runs covers the timeout (its bound is the pool's retirement deadline); here the runner's
// own count is read, as the supervisor reads it (`/health` with the cluster secret,
// support/secret-server.mjs), for the ways a client gives a run up long before its timeout
// (WAYS): its connection cut, or cancelled by the SDK on either lane. The program keeps awaiting
// and catching (`for (;;) { try { await sleep } catch {} }`), so only its host giving it up ends
// it. With the run timeout at 30 s (the default), the runner must count it ended within ENDED_MS
// of the client giving up, on both executors (GONE_CLIENT_EXECUTORS picks).
//
// Before (main, 2026-12-07, load 8-10): a gone client's run was counted until 31.5 s after the
// client left on both executors (the host's request was cancelled with its call to the runner,
// whose context for the run was dropped: src/executor/runners/sandbox-runner.ts), and a run
// cancelled on the 2025 lane until the host's own timeout (each POST there is served by a server
// of its own, which knew no such request: src/mcp/common/cancel-board.ts). Measured after:
// 0.4-2.0 s (RUN_WANTED_POLL_MS, 1 s, is most of it).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { internal, runnerEntries, withSecretServer } from "./support/secret-server.mjs";
import { check } from "./support/server.mjs";

const RUN_TIMEOUT_MS = 30_000;
/**
 * How long after the client gave the run up the runner may still count it under way: the
 * runner's asking interval (1 s, run-wanted.ts) plus the cancel board's (0.25 s), the engine's
 * end and a loaded machine's delays.
 */
const ENDED_MS = 3_000;
/** How long the run may take to be counted under way once sent. */
const BEGIN_MS = 15_000;
const STUCK = `async () => {
  for (;;) {
    try {
      await new Promise((r) => setTimeout(r, 200));
    } catch {}
  }
}`;
/**
 * How the client gives the run up: its connection cut ("gone"); cancelled by the SDK on the
 * 2026-07-28 lane (which closes the request's stream) and on the 2025 lane (which sends
 * `notifications/cancelled` in a POST of its own, served by another server than the run's).
 */
const WAYS = ["gone", "cancelled", "cancelled-2025"];
const ALL_EXECUTORS = ["isolate-per-run", "shared-worker"];
const EXECUTORS = (process.env.GONE_CLIENT_EXECUTORS ?? ALL_EXECUTORS.join(","))
  .split(",")
  .filter((e) => e !== "");
check(
  EXECUTORS.length > 0 && EXECUTORS.every((e) => ALL_EXECUTORS.includes(e)),
  `GONE_CLIENT_EXECUTORS must list ${ALL_EXECUTORS.join(" and/or ")}, comma-separated; got "${process.env.GONE_CLIENT_EXECUTORS}"`,
);

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The runs every running runner counts under way now (their `/health` headers).
 * @param {number} group
 * @param {string} secret
 */
async function underWay(group, secret) {
  const answers = await Promise.all(
    runnerEntries(group).map((socket) => internal(socket, "/health", "HEAD", secret)),
  );
  return answers.reduce((sum, a) => sum + (Number(a.headers["x-runs-under-way"]) || 0), 0);
}

/**
 * An SDK client whose `tools/call` requests can be cut off as a gone client's would be: the
 * connection closes (its fetch aborted), and nothing else is sent.
 * @param {string} url
 */
async function droppingClient(url, legacy = false) {
  /** @type {AbortController[]} */
  const calls = [];
  /** @type {typeof fetch} */
  const dropping = (input, init) => {
    if (typeof init?.body === "string" && init.body.includes('"tools/call"')) {
      const controller = new AbortController();
      calls.push(controller);
      // The SDK's own signal is kept: on the 2026-07-28 lane it cancels a request by closing
      // its stream (before, this dropped it, and "cancelled" there sent nothing at all).
      const signals = [controller.signal, ...(init.signal ? [init.signal] : [])];
      return fetch(input, { ...init, signal: AbortSignal.any(signals) });
    }
    return fetch(input, init);
  };
  const client = new Client(
    { name: "e2e-gone-client", version: "1.0.0" },
    { versionNegotiation: { mode: legacy ? "legacy" : "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: dropping }),
  );
  return { client, dropLast: () => calls.at(-1)?.abort() };
}

/** @type {string[]} */
const failures = [];
for (const executor of EXECUTORS)
  await withSecretServer(
    { EXECUTOR: executor, SANDBOX_RUNNERS: "2", LIMIT_TIMEOUT_MS: String(RUN_TIMEOUT_MS) },
    async ({ url, group, secret }) => {
      const modern = await droppingClient(url);
      const legacy = await droppingClient(url, true);
      // Warm: the first run loads what later ones use (and, on the shared worker, its engine).
      await modern.client.callTool({ name: "execute", arguments: { code: "async () => 1" } });
      const base = await underWay(group, secret);
      check(base === 0, `${executor}: ${base} runs under way before any was sent`);
      for (const way of WAYS) {
        const { client, dropLast } = way === "cancelled-2025" ? legacy : modern;
        const cancel = new AbortController();
        const call = client
          .callTool(
            { name: "execute", arguments: { code: STUCK } },
            // "cancelled": the SDK sends notifications/cancelled when its signal aborts; "gone":
            // the request outlives the test (its connection is cut below instead).
            { signal: cancel.signal, timeout: 120_000 },
          )
          .then(
            () => "answered",
            (error) => String(error),
          );
        const sent = Date.now();
        let counted = 0;
        while (counted === 0 && Date.now() - sent < BEGIN_MS) {
          await sleep(100);
          counted = await underWay(group, secret);
        }
        if (counted === 0) {
          failures.push(`${executor} (${way}): the run was never counted under way`);
          cancel.abort();
          continue;
        }
        // Given up on well before its timeout.
        await sleep(500);
        if (way === "gone") dropLast();
        else cancel.abort();
        const gaveUp = Date.now();
        let left = counted;
        while (left > 0 && Date.now() - gaveUp < RUN_TIMEOUT_MS + 5_000) {
          await sleep(100);
          left = await underWay(group, secret);
        }
        const endedMs = Date.now() - gaveUp;
        console.log(
          `e2e gone-client (${executor}, ${way}): the runner counted the run ended ${endedMs} ms after the client gave it up (run timeout ${RUN_TIMEOUT_MS} ms); the client's call: ${(await Promise.race([call, sleep(0).then(() => "pending")])).slice(0, 80)}`,
        );
        if (left > 0 || endedMs > ENDED_MS)
          failures.push(
            `${executor} (${way}): the runner still counted the run ${endedMs} ms after the client gave it up (at most ${ENDED_MS})`,
          );
      }
      await modern.client.close().catch(() => {});
      await legacy.client.close().catch(() => {});
    },
  );
check(failures.length === 0, `\n${failures.join("\n")}`);
console.log("e2e gone-client: runs a client gave up on ended in their runner at once — ok");
