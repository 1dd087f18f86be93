/**
 * Many requests waiting at once for their connection's caller (attack29): the cut-off gate
 * asks each waiting request's `caller()` as it walks its queue (cut-off-gate.mjs), so thousands
 * not named yet might cost the front's one thread a walk per arrival. One local process keeps
 * CONNECTIONS new connections in flight for SECONDS, each carrying one trivial `execute` (a new
 * connection opened as each answers); with FDS > 0 it first opens FDS descriptors of /dev/null,
 * so the scan never finds its sockets (hidden-holder.mjs) and each request waits its most
 * (callers/caller-wait.mjs). Beside it, a victim process sends a trivial `search` every 100 ms,
 * each on a NEW connection (VICTIM=fresh, the default: its own first look every time) or on
 * one kept-alive MCP client (VICTIM=kept).
 *
 * Prints the victim's searches (longest, median, failures), the hostile answers by status and
 * the front process's CPU over the phase (utime+stime from /proc). Bounded: every child has a
 * deadline and the server is stopped whatever happens.
 *
 *   npm exec -- node bench/diagnostics/one-against-another/unnamed-crowd.mjs [CONNECTIONS=2000] [SECONDS=15] [FDS=0]
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { listeningPorts } from "../../../test/e2e/support/listening-ports.mjs";
import { processTree } from "../../../test/e2e/support/processes.mjs";
import { pollSearch } from "../../../test/e2e/support/load-clients.mjs";
import { runToEnd } from "./child-run.mjs";
import { MCP_POST_HEADERS, startServer } from "../../../test/e2e/support/server.mjs";

const CONNECTIONS = Number(process.argv[2] ?? 2000);
const SECONDS = Number(process.argv[3] ?? 15);
const FDS = Number(process.argv[4] ?? 0);
const VICTIM = process.env.VICTIM ?? "fresh";
const SELF = fileURLToPath(import.meta.url);

/** The hostile process (node -e): CONNECTIONS new connections in flight, each one `execute`. */
const HOSTILE = `
  const fs = require("node:fs");
  const net = require("node:net");
  const { port, connections, seconds, fds } = JSON.parse(process.env.HOSTILE);
  for (let i = 0; i < fds; i++) fs.openSync("/dev/null", "r");
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call",
    params: { name: "execute", arguments: { code: "async () => 1" } } });
  const head = "POST /mcp HTTP/1.1\\r\\nHost: 127.0.0.1:" + port + "\\r\\nContent-Type: application/json\\r\\n" +
    "Accept: application/json, text/event-stream\\r\\nConnection: close\\r\\nContent-Length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n";
  const end = Date.now() + seconds * 1000;
  const statuses = {};
  let ms = 0, count = 0;
  const one = () => {
    if (Date.now() >= end) return;
    const start = Date.now();
    const s = net.connect(port, "127.0.0.1");
    let got = "";
    s.setTimeout(30000, () => s.destroy());
    s.on("connect", () => s.write(head + body));
    s.on("data", (d) => { if (got.length < 20) got += d; });
    s.on("error", () => {});
    s.on("close", () => {
      const status = got.startsWith("HTTP/") ? got.split(" ")[1] : "none";
      statuses[status] = (statuses[status] ?? 0) + 1;
      ms += Date.now() - start; count++;
      setImmediate(one);
    });
  };
  for (let i = 0; i < connections; i++) one();
  setTimeout(() => { console.log(JSON.stringify({ statuses, meanMs: Math.round(ms / Math.max(1, count)) })); process.exit(0); }, seconds * 1000 + 5000);
`;

if (process.env.CROWD_VICTIM) {
  const { url, ms } = JSON.parse(process.env.CROWD_VICTIM);
  if (VICTIM === "kept") {
    const poll = await pollSearch(url);
    await new Promise((r) => setTimeout(r, ms));
    // A call still under way counts too (longestWithin): a stuck one is the worst wait.
    const all = poll.ended();
    console.log(JSON.stringify({ ...all, longest: poll.longestWithin(0, Date.now()) }));
  } else {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search", arguments: { code: "async () => 1 + 1" } },
    });
    /** @type {number[]} */
    const waits = [];
    let failed = 0;
    /** @type {string[]} */
    const reasons = [];
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const start = Date.now();
      try {
        // A connection of its own each time (no keep-alive: undici's fetch would keep one).
        const res = await fetch(url + "/mcp", {
          method: "POST",
          headers: { ...MCP_POST_HEADERS, connection: "close" },
          body,
          signal: AbortSignal.timeout(30_000),
          keepalive: false,
        });
        const text = await res.text();
        if (!res.ok || !text.includes('"text":"2"')) {
          failed++;
          reasons.push(`${res.status} ${text.slice(0, 120)}`);
        }
      } catch (error) {
        failed++;
        reasons.push(`after ${Date.now() - start} ms: ${error?.cause?.code ?? error?.message}`);
      }
      waits.push(Date.now() - start);
      await new Promise((r) => setTimeout(r, 100));
    }
    const sorted = waits.toSorted((a, b) => a - b);
    console.log(
      JSON.stringify({
        calls: waits.length,
        failed,
        longest: sorted.at(-1),
        p50: sorted[Math.floor(sorted.length / 2)],
        over1s: waits.filter((w) => w > 1000).length,
        reasons: [...new Set(reasons)].slice(0, 4),
      }),
    );
  }
  process.exit(0);
}

/** CPU seconds (user + system) of `pid` so far. */
function cpu(/** @type {number} */ pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

const server = await startServer({});
try {
  const front = processTree(server.pid).find((p) => listeningPorts(p.pid).includes(server.port));
  if (!front) throw new Error("no front process found");
  for (const phase of ["alone", "crowd"]) {
    const victim = runToEnd(
      process.execPath,
      [SELF],
      { CROWD_VICTIM: JSON.stringify({ url: server.url, ms: (SECONDS + 2) * 1000 }) },
      120_000,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const before = cpu(front.pid);
    const hostile =
      phase === "alone"
        ? await new Promise((r) => setTimeout(() => r("(none)"), SECONDS * 1000))
        : await runToEnd(
            process.execPath,
            ["-e", HOSTILE],
            {
              HOSTILE: JSON.stringify({
                port: server.port,
                connections: CONNECTIONS,
                seconds: SECONDS,
                fds: FDS,
              }),
            },
            120_000,
          );
    const used = cpu(front.pid) - before;
    console.log(
      `${phase}: front CPU ${used.toFixed(1)} s, load ${loadavg()[0].toFixed(1)}\n  hostile ${hostile}\n  victim(${VICTIM}) ${await victim}`,
    );
    await new Promise((r) => setTimeout(r, 3_000));
  }
} finally {
  await server.stop();
}
