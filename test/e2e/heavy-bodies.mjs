// Issue #40, "Host work bounded by what a program controls": a program that reads 16 MB of
// `%25`-heavy API bodies (4 bodies of 4 MiB; the credential's redaction decodes every
// percent-escape of them, twice over for `%2541`) must not hold the host for other clients:
// another client's trivial `search`, every 100 ms, waits at most 1 s while it runs; and the host
// runtime's workerd grows by less than 3× the bytes the program read.
//
// Run under the artificial load the load scripts use (2 busy processes): a user's machine is
// rarely idle, and the host's passes over the bodies share its cores with them.
//
// What holds the bounds (bench/README.md, "Redaction in slices" and "A byte per sequence"):
// redaction of a body from 64 KiB pauses every 32,768 positions (every pass over a view, runs of
// numbers included) and the host gives its thread away at each pause
// (src/codemode/redaction/slices.ts); a body from 1 MiB gets full collections during and after
// its redaction, at most 1.5 per MiB the run read and one per 250 ms in the host
// (src/codemode/request/large-body-collection.ts); a view's map keeps ~1.4 bytes per decoded
// sequence (it was 6), so one 4 MiB body's views and maps hold ~10 MB at their deepest (~20
// before), and its bytes are freed as soon as its text is made. Margins, 2026-12-06 on 2 cores
// at load 11–17: growth +32…+38 MiB against +48 (+39…+47 before); the same program with no
// credential configured (no redaction at all) grew +34 in the same hour, so what is left is
// reading and handing over the bodies. Waits 360–841 ms (1,176 and 1,267 before every pass
// over a view paused), 842 ms without any redaction: at that load the 1 s bound is mostly the
// machine's. The notation views (octal, code points, Morse, dumps) once took it to +95 MiB: their
// searches left V8's backtracking engine on this body (workerd's regexp flags); searched in
// windows (src/codemode/redaction/windowed-search.ts), +31…+37 MiB and 359–765 ms over six
// runs at load 7–23 (bench/README.md, "Notation views in windows").
//
// Two kinds of body, HEAVY_BODIES_KIND: `percent` (the default: the above, in run.mjs's list) and
// `random`: 4 × 4 MiB of seeded random bytes served as application/octet-stream, the costliest
// body for redaction per MB (bench/README.md, "Random bytes: only the stretches that may hold a
// form"), which a program gets as a Uint8Array (docs/library.md). HEAVY_BODIES_CREDENTIAL=none
// runs either kind with no credential configured: the host's own work, the baseline. Every run
// prints the host workerd's CPU time over the program (utime + stime, /proc/<pid>/stat) per MiB
// read. No bound on it is asserted: both kinds are over issue #40's 100 ms per MB in the real
// host, not by noise (2026-12-07, load 5–7: percent 138–206 ms/MiB, random 333–359, 7–15
// without a credential), so such a check would only fail; it can be asserted once redaction
// is under it, with room for the load (bench/README.md, "Random-byte bodies in the real host").
// Nor is the longest single hold (one slice of redaction): the host cannot time its own slices
// and from outside a pause does not stop its CPU; it is measured in Node by
// bench/redaction-slices.mjs and bounded in work units by the unit tests (bench/README.md,
// "Whole-body passes sliced").
// The random kind is in run.mjs's list too (`heavy-bodies-random`, 8 bodies: one random body's
// redaction peaks ~+38 MiB on its own, so 4 sit at the 3x bound; see run.mjs): its host grew +65…+121 MiB
// against +48 while every 64 pauses of a random body asked for a forced collection (the run's
// 24 were spent during the second body) and its whole byte view (8 MB, two bytes a character)
// was made; with neither, +37…+41 MiB at load 16–18 (bench/README.md, "Random bytes: the byte
// view not made, collections spread"). The hand-over is no longer in
// it: bytes cross beside the wire text (sandbox/codec.ts), and with no credential the host grows
// +24/+25 MiB at 6 ms/MiB (+38…+44 and 18–21 ms/MiB as base64 text; bench/README.md, "Binary
// bodies as bytes beside the wire text"). `EXECUTOR=shared-worker` runs it on the engine. Run it
// alone: `HEAVY_BODIES_KIND=random npm exec -- node test/e2e/heavy-bodies.mjs`; with
// `HEAVY_BODIES_COUNT=8`, 32 MiB in one run (bound +96 MiB).
import { readFileSync } from "node:fs";
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { percentBody, randomBody } from "./support/heavy-body-kinds.mjs";
import { runWhileSearching, startLocalApi } from "./support/heavy-program.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { activeWorkerd, cpuMs } from "./support/processes.mjs";
import { check } from "./support/server.mjs";

// HEAVY_BODIES_COUNT: how many bodies the program reads (default 4, the 16 MB), run by
// hand: 8 reads past what a fixed 24 forced collections a run lasted (the run's collections are
// earned per MiB read now: src/codemode/request/large-body-collection.ts). HEAVY_BODIES_KIB: the
// size of each body in KiB (default 4,096), run by hand: 200 bodies of 100 KiB are many small
// bodies, each under the 1 MiB from which a body earned collections of its own (bench/README.md,
// "Many small bodies"). Their total stays within the run's default 64 MiB of answers
// (`maxResponseBytesPerRun`: src/codemode/request/response-budget.ts).
const BODIES = Number(process.env.HEAVY_BODIES_COUNT ?? "4");
const BODY_KIB = Number(process.env.HEAVY_BODIES_KIB ?? "4096");
if (!Number.isInteger(BODY_KIB) || BODY_KIB < 1 || BODY_KIB > 4_096)
  throw new Error(`HEAVY_BODIES_KIB must be an integer from 1 to 4096, not ${BODY_KIB}`);
if (!Number.isInteger(BODIES) || BODIES < 1 || BODIES > 1_000 || BODIES * BODY_KIB > 65_536)
  throw new Error(
    `HEAVY_BODIES_COUNT must be an integer from 1 to 1,000 with at most 64 MiB in all, not ${BODIES} × ${BODY_KIB} KiB`,
  );
const BODY_BYTES = BODY_KIB * 1_024;
const MIB = (BODIES * BODY_BYTES) / 1_048_576;
// More than 16 MiB get 2.5 s a MiB (LIMIT_TIMEOUT_MS; the client waits 300 s): eight random
// bodies of 4 MiB did not finish within the default 30 s at load 12.
/** @type {Record<string, string>} */
const TIMEOUT = MIB > 16 ? { LIMIT_TIMEOUT_MS: String(Math.ceil(MIB * 2_500)) } : {};
const MAX_WAIT_MS = 1_000;
const MAX_GROWTH = 3;
const KIND = process.env.HEAVY_BODIES_KIND ?? "percent";
if (KIND !== "percent" && KIND !== "random")
  throw new Error(`HEAVY_BODIES_KIND must be percent or random, not ${KIND}`);
// HEAVY_BODIES_CREDENTIAL=none: the same program with no credential configured (no redaction),
// the baseline of the host's own work (reading and handing over the bodies), run by hand.
const CREDENTIAL = process.env.HEAVY_BODIES_CREDENTIAL !== "none";
// HEAVY_BODIES_RSS_LINE=1: also print the host's growth at every sample (`ms:MiB` since the
// program started), to see when in a body the peak comes (each forced collection shows as a
// drop), run by hand.
const RSS_LINE = process.env.HEAVY_BODIES_RSS_LINE === "1";
const TOKEN = `heavy-bodies-${crypto.randomUUID()}`;
const NAME = `heavy-bodies (${KIND}${CREDENTIAL ? "" : ", no credential"})`;

// The program's checksum reads every STRIDE-th byte (~1,000 a body): a loop over every byte
// would spend the run's operation budget (20 million by default) on 16 million bytes.
const STRIDE = 4_099;

/**
 * What the program's checksum of `bytes` is (see PROGRAM).
 * @param {Uint8Array} bytes
 */
function checksum(bytes) {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += STRIDE) sum = (Math.imul(sum, 31) + (bytes[i] ?? 0)) >>> 0;
  return sum;
}

/** @type {(string | Uint8Array)[]} */
const BODY_LIST =
  KIND === "percent"
    ? Array.from({ length: BODIES }, () => percentBody(BODY_BYTES))
    : Array.from({ length: BODIES }, (_, n) => randomBody(n, BODY_BYTES));
const CONTENT_TYPE = KIND === "percent" ? "text/plain" : "application/octet-stream";

const api = await startLocalApi(
  "Heavy bodies e2e API",
  {
    "/blobs/{n}": {
      parameters: [{ name: "n", in: "path", required: true, schema: { type: "integer" } }],
      get: { operationId: "getBlob", responses: { 200: { description: "A blob" } } },
    },
  },
  (req, res) => {
    const n = /^\/blobs\/(\d+)$/.exec(req.url ?? "")?.[1];
    const body = n === undefined ? undefined : BODY_LIST[Number(n)];
    res.setHeader("content-type", body === undefined ? "text/plain" : CONTENT_TYPE);
    res.end(body ?? "not found");
  },
);

/** @param {number} pid */
const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

// Text is counted by its length; bytes (a Uint8Array: codemode.request hands a body that is not
// text or JSON over as bytes, docs/library.md) by their length and a checksum, which says they
// came through whole and unchanged (no secret in them, so nothing is cut).
const PROGRAM =
  KIND === "percent"
    ? `async () => {
  let read = 0;
  for (let i = 0; i < ${BODIES}; i++) {
    const body = await codemode.request({ method: "GET", path: "/blobs/" + i });
    read += typeof body === "string" ? body.length : JSON.stringify(body).length;
  }
  return read;
}`
    : `async () => {
  const sums = [];
  let read = 0;
  for (let i = 0; i < ${BODIES}; i++) {
    const body = await codemode.request({ method: "GET", path: "/blobs/" + i });
    if (!(body instanceof Uint8Array)) return "not bytes: " + typeof body + " " + String(body).slice(0, 200);
    read += body.byteLength;
    let sum = 0;
    for (let j = 0; j < body.length; j += ${STRIDE}) sum = (Math.imul(sum, 31) + body[j]) >>> 0;
    sums.push(sum);
  }
  return read + " " + sums.join(",");
}`;
const EXPECTED =
  KIND === "percent"
    ? String(BODIES * BODY_BYTES)
    : `${BODIES * BODY_BYTES} ${BODY_LIST.map((b) => checksum(/** @type {Uint8Array} */ (b))).join(",")}`;

try {
  await withServerUnderLoad(
    {
      SPEC_FILE: api.specFile,
      API_BASE_URL: api.baseUrl,
      ...(CREDENTIAL ? { API_TOKEN: TOKEN } : {}),
      ...TIMEOUT,
    },
    async ({ url, output }) => {
      const { client } = await connect(url, { name: "e2e-heavy-reader" });
      // Warm: the first call compiles and loads what every later one uses.
      const warm = await timedCall(client, "execute", `async () => 1`);
      check(warm.ok, `a trivial execute failed: ${warm.thrown ?? warm.text}`);
      const host = activeWorkerd(output());
      const before = rssMiB(host);
      let peak = before;
      const started = Date.now();
      /** @type {string[]} */
      const samples = [];
      const sampler = setInterval(() => {
        try {
          const rss = rssMiB(host);
          if (RSS_LINE) samples.push(`${Date.now() - started}:${(rss - before).toFixed(0)}`);
          peak = Math.max(peak, rss);
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
      if (RSS_LINE) console.log(`e2e ${NAME}: host growth over time (ms:MiB) ${samples.join(" ")}`);
      await client.close().catch(() => {});
      const growth = peak - before;
      const limit = MAX_GROWTH * MIB;
      // The host's CPU over the program: its reads, redaction and hand-over of the bodies, and
      // the other client's searches meanwhile (a few ms each).
      const cpu = measured.after - measured.before;
      console.log(
        `e2e ${NAME}: ${BODIES} × ${BODY_KIB} KiB read in ${heavy.ms} ms (${heavy.ok ? "ok" : "failed"}); another client's search waited at most ${waited} ms meanwhile (${polled.calls} searches, p50 ${polled.p50Ms} ms); host workerd ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (+${growth.toFixed(0)}, limit +${limit}); host CPU ${cpu} ms (${(cpu / MIB).toFixed(0)} ms/MiB)`,
      );
      check(
        heavy.ok && heavy.text === EXPECTED,
        `the heavy program did not read every body whole: ${heavy.thrown ?? heavy.text.slice(0, 300)}`,
      );
      check(!output().includes(TOKEN), "the credential appeared in the server's output");
      check(polled.failures.length === 0, `searches failed:\n${polled.failures.join("\n")}`);
      check(
        waited <= MAX_WAIT_MS,
        `another client's search waited ${waited} ms while the host read the bodies (at most ${MAX_WAIT_MS})`,
      );
      check(
        growth < limit,
        `the host grew by ${growth.toFixed(0)} MiB reading ${MIB} MiB (less than ${MAX_GROWTH}× that)`,
      );
      console.log(`e2e ${NAME}: host work bounded — ok`);
    },
  );
} finally {
  api.close();
}
