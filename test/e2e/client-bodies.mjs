// Issue #40, "One client can starve everyone" (the host's share): 16 clients each post MCP
// bodies built to be costly to parse, back to back: a 3.6 MiB `tools/call` whose arguments nest
// 1.9 million arrays deep, and a 2.2 MiB one with 200,000 keys in one object. Another client's
// trivial `search`, every 100 ms, waits at most 1 s throughout, and every heavy body gets the
// JSON-RPC -32600 refusal that names the limit (src/mcp/common/json-shape.ts), its id echoed.
// Then the same bytes as one string: a program far past `maxCodeChars` (64 Ki characters), which
// every tool refuses before anything else is done with it, so the search waits at most 1 s then
// too. The host's CPU per body is printed beside each.
//
// Before the host read a body's shape before its parse, each deep body held the host's one
// thread ~0.4–1.7 s in JSON.parse and the collection after it, and 16 at once made the search
// wait 13.8 s (attack17; bench/README.md, "Client bodies bounded by shape").
//
// The senders run in a process of their own: on a local server a client is a process (the
// front's turns and shares go by caller: docs/local-runtime.md). Before the front counted a
// caller's body bytes at the host (cli/local-server/front/cut-off-gate.mjs, FRESH_BYTES), all 16
// bodies went at once and the search waited up to 1,010 ms behind them (p50 259 ms, CI at load ~3).
//
// CLIENT_BODIES_BUSY (default 2) busy processes spin beside the server, as in the other load
// scripts; CLIENT_BODIES_KINDS (default every phase) names the phases to run.
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { pollSearch } from "./support/load-clients.mjs";
import { activeWorkerd } from "./support/processes.mjs";
import { check, MCP_POST_HEADERS } from "./support/server.mjs";

const SENDERS = 16;
// How long each phase's senders post: 6 s holds three waves of 16 bodies or more (51-56 deep,
// 89-116 wide at load 4-5, 2026-12-07). The bound is met or missed from the first wave on, where
// all 16 come at once: without the shape check the search waited 4.3 s (deep) and 2.6 s (wide)
// within 6 s phases (2.6-16.5 s in 12 s ones); before the front counted a caller's body bytes,
// 1,010 ms behind the first 16. It was 12 s: ~19 s more a run, for more of the same waves.
const SEND_MS = 6_000;
const MAX_WAIT_MS = 1_000;
const BUSY = Number(process.env.CLIENT_BODIES_BUSY ?? "2");
check(
  Number.isInteger(BUSY) && BUSY >= 0 && BUSY <= 8,
  `CLIENT_BODIES_BUSY must be a whole number from 0 to 8; got "${process.env.CLIENT_BODIES_BUSY}"`,
);

const LEVELS = 1_900_000;
/** @type {Record<string, string>} */
const HEAVY = {
  deep: "[".repeat(LEVELS) + "]".repeat(LEVELS),
  wide: `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(",")}}`,
  // As many bytes in one string, cheap to parse: a program of 3.8 million characters. Before
  // `maxCodeChars` each was run (held a runner while it compiled: 16 at once made the search
  // wait 3.1–9.6 s); now each is answered at once with the limit.
  string: JSON.stringify("x".repeat(2 * LEVELS)),
};

// CLIENT_BODIES_KINDS (default all): the phases to run, e.g. `string` alone for the bench.
const KINDS = (process.env.CLIENT_BODIES_KINDS ?? Object.keys(HEAVY).join(",")).split(",");
check(
  KINDS.every((kind) => kind in HEAVY),
  `CLIENT_BODIES_KINDS must name phases of ${Object.keys(HEAVY).join(", ")}`,
);

/**
 * A 2025-era `tools/call` of `search` whose `code` is `value` (JSON text).
 * @param {number} id
 * @param {string} value
 */
const body = (id, value) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"search","arguments":{"code":${value}}}}`;

/**
 * One sender: posts `kind` bodies back to back until `until`; returns what came back.
 * @param {string} url
 * @param {string} kind
 * @param {number} until
 * @param {number} sender
 */
async function send(url, kind, until, sender) {
  /** @type {{ sent: number, refused: number, other: string[] }} */
  const tally = { sent: 0, refused: 0, other: [] };
  for (let n = 0; Date.now() < until; n++) {
    const id = sender * 100_000 + n;
    tally.sent++;
    try {
      const res = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: MCP_POST_HEADERS,
        body: body(id, HEAVY[kind] ?? "null"),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      /** @type {any} */
      let answer;
      try {
        answer = JSON.parse(text);
      } catch {
        answer = undefined;
      }
      if (res.status === 400 && answer?.error?.code === -32600 && answer.id === id) tally.refused++;
      else if (kind === "string" && res.status === 200 && /\(maxCodeChars\)/.test(text))
        tally.refused++;
      else tally.other.push(`${res.status} ${text.slice(0, 200)}`);
    } catch (error) {
      tally.other.push(String(error));
    }
  }
  return tally;
}

/**
 * The 16 senders of one kind, in a process of their own: another client than the poller (and
 * the bodies are built and uploaded beside it, not in its event loop, where 16 uploads of
 * 3.6 MiB delayed its calls by as much as the server did). Their tallies come back as JSON.
 * @param {string} url
 * @param {string} kind
 * @param {number} until
 * @returns {Promise<{ sent: number, refused: number, other: string[] }[]>}
 */
function sendersInProcess(url, kind, until) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), "--senders", url, kind, String(until)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", (status) => {
      if (status !== 0) return reject(new Error(`the senders' process ended with ${status}`));
      try {
        resolve(JSON.parse(out));
      } catch (error) {
        reject(new Error(`the senders' process printed no tallies: ${String(error)}`));
      }
    });
  });
}

/**
 * CPU time a process has used (user + system), in ms (clock ticks of 10 ms).
 * @param {number} pid
 */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

if (process.argv[2] === "--senders") {
  const [url = "", kind = "", until = "0"] = process.argv.slice(3);
  const tallies = await Promise.all(
    Array.from({ length: SENDERS }, (_, s) => send(url, kind, Number(until), s)),
  );
  process.stdout.write(JSON.stringify(tallies));
} else
  await withServerUnderLoad(
    {},
    async ({ url, output }) => {
      const host = activeWorkerd(output());
      const poller = await pollSearch(url);
      try {
        // A few calls before the senders: the poller's own wait on this machine, now.
        await new Promise((r) => setTimeout(r, 2_000));
        console.log(`alone: another client's search waited at most ${poller.longest()} ms`);
        /** @type {string[]} */
        const problems = [];
        for (const kind of KINDS) {
          const from = Date.now();
          const hostBefore = cpuMs(host);
          const until = from + SEND_MS;
          const tallies = await sendersInProcess(url, kind, until);
          const to = Date.now();
          const hostMs = cpuMs(host) - hostBefore;
          const sent = tallies.reduce((n, t) => n + t.sent, 0);
          const refused = tallies.reduce((n, t) => n + t.refused, 0);
          const longest = poller.longestWithin(from, to);
          console.log(
            `${kind}: ${sent} bodies from ${SENDERS} clients in ${to - from} ms, ${refused} refused; another client's search waited at most ${longest} ms, p50 ${poller.p50Within(from, to)} ms; host CPU ${hostMs} ms (${Math.round(hostMs / sent)} ms a body)`,
          );
          const other = tallies.flatMap((t) => t.other);
          if (other.length > 0)
            problems.push(`${kind}: ${other.length} other answers: ${other[0]}`);
          if (refused < sent) problems.push(`${kind}: ${sent - refused} bodies not refused`);
          if (longest > MAX_WAIT_MS)
            problems.push(`${kind}: the search waited ${longest} ms (bound ${MAX_WAIT_MS})`);
        }
        const { calls, p50Ms, longestMs, failures } = await poller.stop();
        console.log(`search: ${calls} calls, p50 ${p50Ms} ms, longest ${longestMs} ms`);
        check(failures.length === 0, `searches failed: ${failures.slice(0, 3).join(" | ")}`);
        check(problems.length === 0, problems.join("\n"));
      } finally {
        await poller.stop().catch(() => {});
      }
    },
    BUSY,
  ).then(() => console.log("client-bodies: ok"));
