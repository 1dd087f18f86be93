// Issue #40, "Host work bounded by what a program controls", for what a program sends: every
// `codemode.request()` is searched for the credential before it is sent (issue #41), and the
// program chooses the bodies. A program that POSTs 16 MB of `%25`-heavy raw bodies (4 of ~4 MiB,
// the most one call may carry) must not hold the host for other clients: another client's trivial
// `search`, every 100 ms, waits at most 1 s while it runs. Under 2 busy processes, as
// heavy-bodies.mjs (which reads such bodies instead). In run.mjs's list (alone).
//
// What holds the bound: a request of 64 KiB or more is searched in slices, the thread given away
// between them, one such search at a time per run (src/codemode/request/sent-check.ts). Before,
// each body was searched in one synchronous pass. 2026-12-06 at load 15-19 (bench/README.md):
// waits 8,178 ms before, 2,162 ms after, 402 ms with no credential (nothing searched), and
// heavy-bodies.mjs's reads of such bodies 2,202 ms in the same hour. The redaction's own slices
// held the thread then (a notation search left V8's backtracking engine); with them searched in
// windows, 173 ms at load 7 (2026-12-06 13:10).
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { runWhileSearching, startLocalApi } from "./support/heavy-program.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { check } from "./support/server.mjs";

const BODIES = 4;
// Under the default maxCallBytes (4 MiB) with the call's own encoding.
const BODY_BYTES = 4 * 1_048_576 - 8_192;
const MAX_WAIT_MS = 1_000;
const TOKEN = `heavy-sends-${crypto.randomUUID()}`;

let received = 0;
const api = await startLocalApi(
  "Heavy sends e2e API",
  {
    "/uploads": {
      post: {
        operationId: "upload",
        requestBody: { content: { "text/plain": { schema: { type: "string" } } } },
        responses: { 201: { description: "Stored" } },
      },
    },
  },
  (req, res) => {
    let size = 0;
    req.on("data", (chunk) => (size += chunk.length));
    req.on("end", () => {
      if (size > 0) received++;
      res.setHeader("content-type", "application/json");
      res.statusCode = 201;
      res.end(JSON.stringify({ stored: size }));
    });
  },
);

const PROGRAM = `async () => {
  const unit = "%2541%25%41a%2525";
  const body = unit.repeat(Math.ceil(${BODY_BYTES} / unit.length)).slice(0, ${BODY_BYTES});
  let stored = 0;
  for (let i = 0; i < ${BODIES}; i++) {
    const answer = await codemode.request({ method: "POST", path: "/uploads", rawBody: body, contentType: "text/plain" });
    stored += answer.stored;
  }
  return stored;
}`;

try {
  await withServerUnderLoad(
    {
      SPEC_FILE: api.specFile,
      API_BASE_URL: api.baseUrl,
      // HEAVY_SENDS_TOKEN=off: no credential, so nothing is searched: the floor of what sending
      // such bodies costs the host anyway.
      ...(process.env["HEAVY_SENDS_TOKEN"] === "off" ? {} : { API_TOKEN: TOKEN }),
    },
    async ({ url, output }) => {
      const { client } = await connect(url, { name: "e2e-heavy-sender" });
      const warm = await timedCall(client, "execute", `async () => 1`);
      check(warm.ok, `a trivial execute failed: ${warm.thrown ?? warm.text}`);
      const { heavy, waited, polled } = await runWhileSearching(url, client, PROGRAM);
      await client.close().catch(() => {});
      console.log(
        `e2e heavy-sends: ${BODIES} × ${(BODY_BYTES / 1_048_576).toFixed(2)} MiB sent in ${heavy.ms} ms (${heavy.ok ? "ok" : "failed"}, ${received} received); another client's search waited at most ${waited} ms meanwhile (${polled.calls} searches, p50 ${polled.p50Ms} ms)`,
      );
      check(
        heavy.ok && heavy.text === String(BODIES * BODY_BYTES),
        `the heavy program did not send every body: ${heavy.thrown ?? heavy.text.slice(0, 300)}`,
      );
      check(!output().includes(TOKEN), "the credential appeared in the server's output");
      check(polled.failures.length === 0, `searches failed:\n${polled.failures.join("\n")}`);
      check(
        waited <= MAX_WAIT_MS,
        `another client's search waited ${waited} ms while the host checked the bodies (at most ${MAX_WAIT_MS})`,
      );
      console.log("e2e heavy-sends: host work bounded — ok");
    },
  );
} finally {
  api.close();
}
