// Issue #40, "Done when": 120 connections each sending a 16 MiB − 1 body slowly. Before the
// front had a memory budget, the supervisor+front process (the `npm start` node process) grew to
// 2.1 GB and stayed there. Now every body is bounded by its route's limit (4 MiB on /mcp) and all
// bodies held at once by FRONT_BODY_BUDGET_MB (64 MiB by default), so:
// - the process grows by at most 300 MB while they come, and is back within 50 MB of where it
//   started within 30 s of their close (the bounds). What holds them: each piece the
//   parser hands over is freed as soon as it is copied, a refused body's buffer at once, and
//   nothing more of a refused body is read (front/body/collector.mjs, request-body.mjs); the
//   supervisor runs with glibc's malloc settings (malloc-env.mjs: it restarts itself in place
//   with them), so body buffers are mapped on their own and unmapped when freed. Measured on
//   2026-12-06 (2-core machine, load 11–18; 3 runs): growth +67…+69 MiB, +4…+8 MiB left
//   0.5–0.7 s after; before these, +255…+308 and +88…+108 MiB left 30 s after, with 2.1 GB
//   kept before the budget;
// - another client's MCP `tools/list` and trivial `search` (in turn, every 100 ms) are served
//   throughout (`ping` is not a method of the 2026-07-28 protocol the client speaks);
// - every upload gets a clear answer: 413 for a body over the route's limit (at once when its
//   length is declared), 503 server_busy (JSON-RPC, on /mcp) past the budget, or 408 for one
//   still not whole after the front's body time (a loaded machine).
// Two rounds of 120 connections: (1) 16 MiB − 1 each, half declared (Content-Length) and half
// chunked, sent in 64 KiB pieces; (2) the largest body /mcp takes, 4 MiB − 1, declared and sent
// but for its last byte, then held 5 s. Only 127.0.0.1; every loop is bounded in count and time.
import { readFileSync } from "node:fs";
import { connect as connectSocket } from "node:net";
import { DEFAULT_BODY_BUDGET_BYTES, MAX_BODY_BYTES } from "../../cli/local-server/front/front.mjs";
import { connect, timedCall, TRIVIAL_SEARCH } from "./support/load-clients.mjs";
import { processTree } from "./support/processes.mjs";
import { check, startServer } from "./support/server.mjs";

const CONNECTIONS = 120;
const LARGE_BODY = 16 * 1_048_576 - 1;
const PIECE = Buffer.alloc(64 * 1024, "x");
const PIECE_EVERY_MS = 5;
const HOLD_MS = 5_000;
const MAX_GROWTH_MIB = 300;
const MAX_LEFT_MIB = 50;
/** How long the process may take to give its memory back after the last connection closed. */
const RETURN_WITHIN_MS = 30_000;
/** No upload may take longer than this for its answer (a bound on each connection's loop). */
const UPLOAD_DEADLINE_MS = 60_000;

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The resident set of `pid`, in MiB. @param {number} pid */
function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

/**
 * One upload to POST /mcp: `bytes` in 64 KiB pieces, declared (Content-Length) or chunked; with
 * `holdLast`, all but the last byte, then nothing until `release` resolves. Resolves to the status
 * it got (0: none before it was released) and the bytes it sent.
 * @param {number} port
 * @param {{ bytes: number, chunked: boolean, holdLast?: boolean, release: Promise<void>, reached?: () => void }} options
 *   - `reached`: called once all but the last byte were sent, or the upload ended
 * @returns {Promise<{ status: number, sent: number, body: string }>}
 */
function upload(port, { bytes, chunked, holdLast = false, release, reached = () => {} }) {
  return new Promise((resolve) => {
    const socket = connectSocket(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    const state = { ended: false, told: false };
    const tell = () => {
      if (!state.told) reached();
      state.told = true;
    };
    const end = () => {
      if (state.ended) return;
      state.ended = true;
      tell();
      clearTimeout(deadline);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, sent, body: answer.slice(answer.indexOf("\r\n\r\n") + 4) });
    };
    const deadline = setTimeout(end, UPLOAD_DEADLINE_MS);
    socket.on("data", (chunk) => {
      answer += chunk;
      // One answer, then the front closes: read it whole (its body is small).
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) end();
    });
    // A write that fails (the front answered and closed) may come before the answer is read:
    // the answer is taken on "close", after every byte that came was read.
    socket.on("error", () => {});
    socket.on("close", end);
    socket.on("connect", async () => {
      const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${bytes}`;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${framing}\r\n\r\n`,
      );
      const toSend = holdLast ? bytes - 1 : bytes;
      while (!state.ended && sent < toSend) {
        const piece = PIECE.subarray(0, Math.min(PIECE.length, toSend - sent));
        // Each write queued whatever the one before returned (a chunk's framing must be whole).
        const writes = chunked ? [`${piece.length.toString(16)}\r\n`, piece, "\r\n"] : [piece];
        const ok = writes.map((w) => socket.write(w)).every(Boolean);
        sent += piece.length;
        if (!ok) await new Promise((r) => socket.once("drain", r).once("close", r));
        await sleep(PIECE_EVERY_MS);
      }
      tell();
      if (holdLast) await release;
      else if (chunked && !state.ended) socket.write("0\r\n\r\n");
      if (holdLast) end();
    });
  });
}

/**
 * Another client: MCP `tools/list` and a trivial `search` in turn, every 100 ms, until `stop()`.
 * @param {string} url
 */
async function pollMcp(url) {
  const { client } = await connect(url, { name: "e2e-front-memory" });
  const state = { running: true, calls: 0, longestMs: 0 };
  /** @type {string[]} */
  const failures = [];
  const loop = (async () => {
    while (state.running) {
      const started = Date.now();
      try {
        if (state.calls % 2 === 0) {
          const { tools } = await client.listTools(undefined, { timeout: 30_000 });
          if (!tools.some((t) => t.name === "search")) throw new Error("no search tool listed");
        } else {
          const outcome = await timedCall(client, "search", TRIVIAL_SEARCH, 30_000);
          if (!outcome.ok || outcome.text !== "2")
            throw new Error(outcome.thrown ?? outcome.text.slice(0, 300));
        }
      } catch (error) {
        failures.push(`call ${state.calls}: ${String(error)}`);
      }
      state.longestMs = Math.max(state.longestMs, Date.now() - started);
      state.calls++;
      await sleep(100);
    }
  })();
  return {
    stop: async () => {
      state.running = false;
      await loop;
      await client.close().catch(() => {});
      return { calls: state.calls, longestMs: state.longestMs, failures };
    },
  };
}

/** @param {{ status: number }[]} results */
const statusCounts = (results) => {
  const counts = new Map();
  for (const { status } of results) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${n}× ${s || "none"}`).join(", ");
};

const server = await startServer({});
try {
  // The node process itself, not the shell npm runs it in (its command ends the same).
  const supervisor = processTree(server.pid)
    .filter((p) => p.command.endsWith("scripts/start.mjs"))
    .at(-1);
  check(supervisor, "no supervisor (scripts/start.mjs) in the server's process tree");
  const pid = /** @type {{ pid: number }} */ (supervisor).pid;
  const poller = await pollMcp(server.url);
  await sleep(2_000);
  const start = rssMiB(pid);
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 200);
  // Whether it restarted itself with glibc's malloc settings (malloc-env.mjs): said, not checked
  // (the bounds are what counts; on another libc or an older Node they do not apply).
  const settings = readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .filter((entry) => entry.startsWith("MALLOC_"));
  console.log(
    `e2e front-memory: the supervisor+front (pid ${pid}) holds ${start.toFixed(0)} MiB; ${settings.join(" ") || "no malloc settings"}`,
  );
  /** @type {(() => void) | undefined} */
  let letGo;
  const released = new Promise((r) => (letGo = () => r(undefined)));
  try {
    const large = await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, i) =>
        upload(server.port, { bytes: LARGE_BODY, chunked: i % 2 === 1, release: released }),
      ),
    );
    for (const r of large.filter((u) => u.status === 0))
      console.log(
        `e2e front-memory: no answer after ${r.sent} bytes sent: ${JSON.stringify(r.body.slice(0, 200))}`,
      );
    console.log(
      `e2e front-memory: round 1, ${CONNECTIONS} uploads of ${LARGE_BODY} bytes: ${statusCounts(large)}; peak ${peak.toFixed(0)} MiB`,
    );
    const declared = large.filter((_, i) => i % 2 === 0);
    check(
      declared.every((r) => r.status === 413),
      "a declared 16 MiB − 1 body did not get 413",
    );
    // 408 too: on a loaded machine a chunked one may not reach the route's limit within the
    // front's body time.
    check(
      large.every((r) => [408, 413, 503].includes(r.status)),
      "an upload of 16 MiB − 1 got no clear refusal (408, 413 or 503)",
    );
    const progress = { reached: 0 };
    const holding = Array.from({ length: CONNECTIONS }, () =>
      upload(server.port, {
        bytes: MAX_BODY_BYTES - 1,
        chunked: false,
        holdLast: true,
        release: released,
        reached: () => progress.reached++,
      }),
    );
    // Every upload sent all but its last byte, or was answered (bounded by UPLOAD_DEADLINE_MS).
    const since = Date.now();
    while (progress.reached < CONNECTIONS && Date.now() - since < UPLOAD_DEADLINE_MS)
      await sleep(100);
    await sleep(HOLD_MS);
    const peakHeld = peak;
    /** @type {() => void} */ (letGo)();
    const held = await Promise.all(holding);
    console.log(
      `e2e front-memory: round 2, ${CONNECTIONS} uploads of ${MAX_BODY_BYTES - 1} bytes held: ${statusCounts(held)}; peak ${peakHeld.toFixed(0)} MiB`,
    );
    // 408: held past the front's body time, as any body that never ends.
    check(
      held.every((r) => [0, 408, 503].includes(r.status)),
      "a held upload of the largest body got an answer other than 503 or 408",
    );
    const holdingAtOnce = held.filter((r) => r.status === 0).length;
    check(
      holdingAtOnce <= Math.floor(DEFAULT_BODY_BUDGET_BYTES / (MAX_BODY_BYTES - 1)),
      `${holdingAtOnce} uploads of ${MAX_BODY_BYTES - 1} bytes were held at once: more than the budget takes`,
    );
    const busy = held.find((r) => r.status === 503);
    check(busy, "no held upload was refused: the budget did not bound them");
    const error = JSON.parse(/** @type {{ body: string }} */ (busy).body);
    check(
      error.jsonrpc === "2.0" &&
        error.error.code === -32000 &&
        /server_busy/.test(error.error.message),
      `the 503 was not a JSON-RPC server_busy error: ${busy?.body}`,
    );
  } finally {
    letGo?.();
    clearInterval(sampler);
  }
  const closedAt = Date.now();
  let now = rssMiB(pid);
  while (now > start + MAX_LEFT_MIB && Date.now() - closedAt < RETURN_WITHIN_MS) {
    await sleep(500);
    now = rssMiB(pid);
  }
  const polled = await poller.stop();
  console.log(
    `e2e front-memory: start ${start.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (+${(peak - start).toFixed(0)}), ${now.toFixed(0)} MiB ${((Date.now() - closedAt) / 1000).toFixed(1)} s after the last closed; the other client: ${polled.calls} calls, longest ${polled.longestMs} ms, ${polled.failures.length} failed`,
  );
  check(
    polled.failures.length === 0,
    `the other client's calls failed:\n${polled.failures.join("\n")}`,
  );
  check(
    peak - start <= MAX_GROWTH_MIB,
    `the supervisor+front grew by ${(peak - start).toFixed(0)} MiB (> ${MAX_GROWTH_MIB})`,
  );
  check(
    now - start <= MAX_LEFT_MIB,
    `the supervisor+front still holds ${(now - start).toFixed(0)} MiB more than at its start (> ${MAX_LEFT_MIB}) ${RETURN_WITHIN_MS / 1000} s after the uploads closed`,
  );
  console.log("e2e front-memory: memory bounded and given back, the other client served — ok");
} finally {
  await server.stop();
}
