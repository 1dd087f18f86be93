// Issue #40, "Host work bounded by what a program controls": a program asks the API, three times
// in a row, for an answer that never ends (an upstream that streams until the reader stops). The
// host reads a body within `maxResponseBytes` (16 MiB by default,
// src/codemode/request/response-budget.ts): each answer must be cut there with a LimitError
// naming the limit, none of it handed over; the API must see each one cancelled (it stops
// sending, a socket's buffers past the limit at most); the host runtime's workerd must grow less
// than 4× one limit (the bodies are cut one after another and never redacted); another client's
// trivial `search`, every 100 ms, waits at most 1 s; and the same run then reads a small answer.
// Before the cap the host read every answer whole: this program would have held it until the
// run's timeout with the API still sending (the stand-in stops at 512 MiB an answer).
//
// Three, not four: a cut answer's bytes were read, so they count against the run's 64 MiB of
// answers (`maxResponseBytesPerRun`); four cut at 16 MiB would leave no room for the small one.
//
// Run under the artificial load the load scripts use (2 busy processes), alone:
// `npm exec -- node test/e2e/huge-answer.mjs`.
import { readFileSync } from "node:fs";
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { runWhileSearching, startLocalApi } from "./support/heavy-program.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { activeWorkerd, cpuMs } from "./support/processes.mjs";
import { check } from "./support/server.mjs";

const MIB = 1_048_576;
const LIMIT = 16 * MIB;
const ANSWERS = 3;
const CHUNK = 64 * 1_024;
// The stand-in's own guard: an answer nobody cuts ends here (a host without the cap).
const GUARD = 512 * MIB;
// What a socket's buffers (the stand-in's, the kernel's, the runtime's) may hold past the limit
// when the host cancels: what the API sent beyond it, at most.
const SLACK = 16 * MIB;
const MAX_WAIT_MS = 1_000;
// In limits: the run reads 3 limits (48 MiB) in all; the bound is 3× what was read
// (+144 MiB). Holding one cut body at a time measured +31…+46 at load 6–18; 4 leaves room for a
// loaded machine's late collection and still fails clearly a host that keeps every answer
// (+378 MiB before the cap).
const MAX_GROWTH = 4;
const TOKEN = `huge-answer-${crypto.randomUUID()}`;

/** Bytes the stand-in sent, one entry per endless answer, and whether each was cut short. */
const answers = /** @type {{ sent: number, cut: boolean }[]} */ ([]);
const chunk = Buffer.alloc(CHUNK, "%2541a");

const api = await startLocalApi(
  "Huge answer e2e API",
  {
    "/endless": { get: { operationId: "endless", responses: { 200: { description: "ok" } } } },
    "/small": { get: { operationId: "small", responses: { 200: { description: "ok" } } } },
  },
  (req, res) => {
    if (req.url !== "/endless") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ fine: true }));
      return;
    }
    const answer = { sent: 0, cut: false };
    answers.push(answer);
    res.setHeader("content-type", "text/plain");
    res.on("close", () => {
      answer.cut = !res.writableEnded;
    });
    const more = () => {
      while (!res.destroyed && answer.sent < GUARD) {
        answer.sent += CHUNK;
        if (!res.write(chunk)) {
          res.once("drain", more);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    more();
  },
);

/** @param {number} pid */
const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

const PROGRAM = `async () => {
  const out = [];
  for (let i = 0; i < ${ANSWERS}; i++) {
    try {
      const body = await codemode.request({ method: "GET", path: "/endless" });
      out.push("whole: " + body.length);
    } catch (e) {
      out.push(e.name + ": " + e.message);
    }
  }
  const small = await codemode.request({ method: "GET", path: "/small" });
  return { out, small };
}`;

try {
  await withServerUnderLoad(
    { SPEC_FILE: api.specFile, API_BASE_URL: api.baseUrl, API_TOKEN: TOKEN },
    async ({ url, output }) => {
      const { client } = await connect(url, { name: "e2e-huge-answer" });
      const warm = await timedCall(client, "execute", `async () => 1`);
      check(warm.ok, `a trivial execute failed: ${warm.thrown ?? warm.text}`);
      const host = activeWorkerd(output());
      const before = rssMiB(host);
      let peak = before;
      const sampler = setInterval(() => {
        try {
          peak = Math.max(peak, rssMiB(host));
        } catch {
          // replaced meanwhile: the checks below say so
        }
      }, 50);
      const { heavy, waited, polled, measured } = await runWhileSearching(
        url,
        client,
        PROGRAM,
        () => cpuMs(host),
      );
      clearInterval(sampler);
      await client.close().catch(() => {});
      const growth = peak - before;
      const limit = (MAX_GROWTH * LIMIT) / MIB;
      const cpu = measured.after - measured.before;
      const sent = answers.map((a) => `${(a.sent / MIB).toFixed(1)}${a.cut ? "" : " (whole)"}`);
      console.log(
        `e2e huge-answer: ${ANSWERS} endless answers in ${heavy.ms} ms (${heavy.ok ? "ok" : "failed"}); the API sent ${sent.join(", ")} MiB; another client's search waited at most ${waited} ms meanwhile (${polled.calls} searches, p50 ${polled.p50Ms} ms); host workerd ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (+${growth.toFixed(0)}, limit +${limit}); host CPU ${cpu} ms`,
      );
      check(heavy.ok, `the program failed: ${heavy.thrown ?? heavy.text.slice(0, 300)}`);
      const result = JSON.parse(heavy.text);
      check(
        result.out.length === ANSWERS &&
          result.out.every((/** @type {string} */ line) =>
            /^LimitError: .*16777216 bytes the host reads of one response body/.test(line),
          ),
        `every endless answer should be a LimitError naming the limit: ${JSON.stringify(result.out).slice(0, 600)}`,
      );
      check(
        result.small?.fine === true,
        `the small answer after them: ${heavy.text.slice(0, 200)}`,
      );
      check(
        answers.length === ANSWERS && answers.every((a) => a.cut && a.sent <= LIMIT + SLACK),
        `the API should see every answer cancelled within ${(LIMIT + SLACK) / MIB} MiB: ${sent.join(", ")}`,
      );
      check(!output().includes(TOKEN), "the credential appeared in the server's output");
      check(polled.failures.length === 0, `searches failed:\n${polled.failures.join("\n")}`);
      check(
        waited <= MAX_WAIT_MS,
        `another client's search waited ${waited} ms while the host read the answers (at most ${MAX_WAIT_MS})`,
      );
      check(
        growth < limit,
        `the host grew by ${growth.toFixed(0)} MiB cutting endless answers at 16 MiB (less than ${MAX_GROWTH}× that)`,
      );
      console.log("e2e huge-answer: endless answers cut at the limit — ok");
    },
  );
} finally {
  api.close();
}
