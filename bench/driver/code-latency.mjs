/**
 * P7 and P8: the `code` tool.
 *
 * P7: latency of one upstream call and of ten chained calls (each call's input depends on the
 * previous answer), ours vs the anchor, over the same in-Worker tool fixture (N = 5 and 50),
 * A/B interleaved after a warm-up of every row (`node bench/run.mjs --only p7` runs P7 alone).
 *
 * P8: our `code` tool over a remote upstream (the same 5 tools served over Streamable HTTP in
 * the Worker, every request delayed by `delayMs`: worker/remote-upstream.ts). For k = 1 and 10
 * calls, interleaved: the same program over the in-memory upstream (no network), over the
 * remote one with warm caches, and over a fresh code server per request (cold: nothing
 * negotiated or listed). Overhead above the upstream's round trips = remote p50 − in-memory
 * p50 − k × delay, also in round trips: ÷ the delay, and ÷ the measured direct round trip below
 * (what a client far from the upstream would count as one); it includes the upstream's own handling of
 * each request (an in-Worker SDK server here) and the client side of each call. A direct
 * `tools/call` to the upstream from the driver is shown beside it for reference (the delay, the
 * upstream's handling, and the driver-to-workerd HTTP hop the code server does not pay). The Worker counts the upstream requests each
 * run sent, exactly. The anchor cannot wrap a remote server (its `codeMcpServer` takes an
 * `McpServer` instance), so P8 has no anchor column.
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { connect } from "./clients.mjs";
import { rawClient } from "./raw-client.mjs";
import { p50, p95, round1 } from "./stats.mjs";

/** `k` calls, chained: each input uses the previous answer's `id` and `version`. */
export function chainedCalls(k) {
  return `async () => {
  let id = "start";
  let total = 0;
  for (let i = 0; i < ${k}; i++) {
    const r = await codemode.resource_0_update({ id: id + "-" + i, settings: { mode: "fast", retries: i } });
    id = r.id;
    total += r.version;
  }
  return { id, total };
}`;
}

/**
 * P7's sides: ours over the SDK v2 fixture (the row), the anchor over the SDK v1 fixture, and
 * ours over that same SDK v1 fixture (`oursV1`, a sub-row): the anchor cannot wrap an SDK v2
 * server, so only the last pair has the very same upstream; the gap between `ours` and `oursV1`
 * is the SDK v2 server's own per-call cost, not code mode's. `oursV1Client`: ours driven by the
 * anchor's client (SDK v1, 2025-era protocol) instead of the SDK v2 client (2026-07-28), so the
 * two sides' clients and protocol paths are told from the `code` tool itself. `oursRaw`,
 * `anchorRaw`, `oursRaw2025`: the same minimal client on both sides (raw JSON-RPC over fetch,
 * raw-client.mjs), ours in the 2026-07-28 framing the SDK v2 client sends and in the 2025-era
 * one, the anchor in the 2025-era one (stateless): these time the servers, not the clients.
 * `oursRawPlain`, `anchorRawPlain`: the same pair asking for an uncompressed answer. The dev
 * server gzips JSON answers (about 1 ms a call here) but not SSE ones, and ours answers a
 * 2025-era POST with SSE, the anchor with JSON: only the plain pair, and the pairs where both
 * answers are JSON, compare like with like. `sharedRaw`: ours on the shared-worker executor
 * (`/shared/code/<n>`: one sandbox engine per deployment, a fresh runtime per run, no Worker
 * built per run) through the same raw client as `oursRaw`, so it is judged against the same
 * `anchorRaw` of the same round. Every other side builds a Worker per call, and workerd's
 * Worker build drops the Liftoff code of every WebAssembly module in the process
 * (`Heap::CheckMemoryPressure` → `WasmEngine::FlushLiftoffCode`, seen with perf): so
 * `sharedRaw`'s engine compiles its functions again on each timed call, as in a process that
 * builds Workers between its runs. `sharedRawAgain` is the same client timed on its second
 * call in a row (the first untimed, see {@link UNTIMED_FIRST}): a process where the shared
 * worker's runs are all there is.
 */
const P7_SIDES = /** @type {const} */ ([
  "ours",
  "anchor",
  "oursV1",
  // Between two sides that build a Worker per call, in either order of a round: always timed
  // right after a Worker build. The side after it pays for dropping the engine's compiled code
  // in its own build (a sub-row's side, never the judged pair's).
  "sharedRaw",
  "oursV1Client",
  "oursRaw",
  "anchorRaw",
  "oursRaw2025",
  "oursRawPlain",
  "anchorRawPlain",
  // Last: the side after it (`anchorRawPlain`, or the next row's `ours` when the next row goes
  // the same way) pays the flush, again never the judged pair.
  "sharedRawAgain",
]);

/** Sides timed on their second call in a row: the first, untimed, follows the other sides'. */
const UNTIMED_FIRST = new Set(["sharedRawAgain"]);

/** Opens every P7 side's client for the `n`-tool fixture. */
async function p7Clients(base, n) {
  const plain = { acceptEncoding: "identity" };
  return {
    ours: await connect("ours", `${base}/ours/code/${n}`),
    anchor: await connect("anchor", `${base}/anchor/code/${n}`),
    oursV1: await connect("ours", `${base}/ours/code-v1/${n}`),
    oursV1Client: await connect("anchor", `${base}/ours/code/${n}`),
    oursRaw: rawClient("2026-07-28", `${base}/ours/code/${n}`),
    anchorRaw: rawClient("2025-11-25", `${base}/anchor/code/${n}`),
    oursRaw2025: rawClient("2025-11-25", `${base}/ours/code/${n}`),
    oursRawPlain: rawClient("2026-07-28", `${base}/ours/code/${n}`, plain),
    anchorRawPlain: rawClient("2025-11-25", `${base}/anchor/code/${n}`, plain),
    sharedRaw: rawClient("2026-07-28", `${base}/shared/code/${n}`),
    sharedRawAgain: rawClient("2026-07-28", `${base}/shared/code/${n}`),
  };
}

/** One timed call; NaN when it failed. The text is re-serialized: spacing is not an answer. */
async function timed(client, code) {
  const r = await client.call("code", code);
  let text = r.text;
  try {
    text = JSON.stringify(JSON.parse(r.text));
  } catch {
    // not JSON: compared as is
  }
  return {
    ms: r.ok ? r.ms : Number.NaN,
    text,
    failure: r.failure ?? (r.ok ? "" : r.text),
  };
}

/** A client calling the upstream's tool directly (the upstream's own round trip). */
async function directClient(url) {
  const client = new V2Client(
    { name: "code-mode-bench", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(new V2Transport(new URL(url)), { timeout: 30_000 });
  return {
    async call() {
      const started = performance.now();
      try {
        const args = { id: "direct", settings: { mode: "fast" } };
        const result = await client.callTool(
          { name: "resource_0_update", arguments: args },
          { timeout: 60_000 },
        );
        return {
          ms: result.isError ? Number.NaN : performance.now() - started,
        };
      } catch {
        return { ms: Number.NaN };
      }
    },
    close: () => client.close().catch(() => {}),
  };
}

const round2 = (x) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);

function stats(xs) {
  const ok = xs.filter(Number.isFinite);
  return {
    p50: round1(p50(ok)),
    p95: round1(p95(ok)),
    min: round1(Math.min(...ok)),
    n: ok.length,
    errors: xs.length - ok.length,
  };
}

/**
 * P7: ours vs anchor `code` latency at each tool count, 1 call and 10 chained calls.
 *
 * Every client is connected and every row warmed (`warmUp` runs of each side, all tool counts)
 * before the first timed sample: an earlier version warmed each row with one run just before
 * timing it, so the first row (5 tools) paid for code both sides had never run (JIT, lazily
 * built caches, the first isolates of a program) and read slower than the 50-tool rows. Then the
 * rows are timed round-robin, each round visiting every row with the sides alternating first,
 * so a busy moment on the machine lands on every row and side alike.
 * @param {string} base
 * @param {{ reps: number, warmUp?: number, toolCounts: number[], log: (line: string) => void }} options
 */
export async function codeToolLatency(base, { reps, warmUp = 5, toolCounts, log }) {
  const rows = toolCounts.flatMap((n) => [1, 10].map((k) => ({ n, k, code: chainedCalls(k) })));
  const clients = new Map();
  for (const n of toolCounts) clients.set(n, await p7Clients(base, n));
  const samples = rows.map(() => ({
    ...Object.fromEntries(P7_SIDES.map((side) => [side, []])),
    same: true,
  }));
  try {
    for (let rep = -warmUp; rep < reps; rep++) {
      for (const [i, { n, code }] of rows.entries()) {
        const answers = {};
        for (const side of (rep + i) % 2 === 0 ? P7_SIDES : P7_SIDES.toReversed()) {
          if (UNTIMED_FIRST.has(side)) await timed(clients.get(n)[side], code);
          const r = await timed(clients.get(n)[side], code);
          if (rep >= 0) samples[i][side].push(r.ms);
          answers[side] = r.text;
        }
        if (P7_SIDES.some((side) => answers[side] !== answers.anchor)) samples[i].same = false;
      }
      if (rep === -1) log(`  code: ${warmUp} warm-up round(s) done; timing ${reps} rounds`);
    }
  } finally {
    await Promise.all([...clients.values()].flatMap((cs) => P7_SIDES.map((s) => cs[s].close())));
  }
  const out = {};
  for (const [i, { n, k }] of rows.entries()) {
    out[`n${n}-k${k}`] = {
      n,
      k,
      ...Object.fromEntries(P7_SIDES.map((side) => [side, stats(samples[i][side])])),
      sameAnswer: samples[i].same,
    };
  }
  return out;
}

async function upstreamRequests(base) {
  const response = await fetch(`${base}/upstream-requests`, {
    signal: AbortSignal.timeout(10_000),
  });
  return (await response.json()).sent;
}

/**
 * P8: remote-upstream overhead, warm and cold, with an injected round trip of `delayMs`.
 * @param {string} base
 * @param {{ reps: number, warmUp?: number, delayMs: number, log: (line: string) => void }} options
 */
export async function remoteUpstreamOverhead(base, { reps, warmUp = 3, delayMs, log }) {
  const cs = {
    local: await connect("ours", `${base}/ours/code/5`),
    warm: await connect("ours", `${base}/ours/code-remote/${delayMs}`),
    cold: await connect("ours", `${base}/ours/code-remote-cold/${delayMs}`),
  };
  const direct = await directClient(`${base}/upstream/${delayMs}`);
  const own = [];
  const out = { delayMs };
  try {
    for (const k of [1, 10]) {
      const code = chainedCalls(k);
      const ms = { local: [], warm: [], cold: [] };
      const sent = { warm: [], cold: [] };
      for (let rep = -warmUp; rep < reps; rep++) {
        const order = rep % 2 === 0 ? ["local", "warm", "cold"] : ["cold", "warm", "local"];
        for (const kind of order) {
          const before = kind === "local" ? 0 : await upstreamRequests(base);
          const r = await timed(cs[kind], code);
          if (rep < 0) continue;
          ms[kind].push(r.ms);
          if (kind !== "local") sent[kind].push((await upstreamRequests(base)) - before);
          if (!Number.isFinite(r.ms)) log(`  ${kind} k=${k} failed: ${r.failure.slice(0, 200)}`);
        }
        if (rep >= 0) own.push((await direct.call()).ms);
      }
      const roundTrip = p50(own.filter(Number.isFinite));
      const row = { k, upstreamRoundTripMs: round1(roundTrip) };
      for (const kind of ["local", "warm", "cold"]) row[kind] = stats(ms[kind]);
      for (const kind of ["warm", "cold"]) {
        const above = row[kind].p50 - row.local.p50 - k * delayMs;
        row[kind].requestsPerRun = Math.max(...sent[kind]);
        row[kind].overheadMs = round1(above);
        row[kind].overheadRoundTrips = round2(above / delayMs);
        // The same overhead in units of the measured direct round trip (delay + the upstream's
        // own handling + the driver's HTTP hop), as a client far from the upstream would see it.
        row[kind].overheadDirectRoundTrips = round2(above / roundTrip);
      }
      out[`k${k}`] = row;
      log(`  remote upstream, ${k} call(s), ${delayMs} ms round trip done`);
    }
  } finally {
    await Promise.all([...Object.values(cs), direct].map((c) => c.close()));
  }
  return out;
}
