/**
 * Another client's trivial `search` while one local process keeps CONNECTIONS keep-alive
 * connections busy with trivial `search`es back to back (issue #40, "one client can starve
 * everyone"; attack27). The attacker is a child process (callers are processes: the front keys
 * each connection by the local process holding its client end, cli/local-server/front/callers/);
 * the victim is this process (test/e2e/support/load-clients.mjs pollSearch). Phases, in turn:
 * - `alone`: no attacker (the victim's own baseline);
 * - `one`: the attacker's connections all held by the attacker alone (one caller);
 * - `holders`: each connection's socket also held by a `sleep` child (inherited as fd 3): the
 *   look names the holder with the fewest descriptors, so each connection becomes a caller of its
 *   own, at the cost of one tiny process each.
 * Printed per phase: what the attacker sent, the victim's longest and median wait from
 * WARM_MS after the phase began (its first burst left out), and how many of its calls failed.
 * Needs the product built (`npm run build:worker`).
 *
 *   npm exec -- node bench/diagnostics/one-against-another/many-callers.mjs [CONNECTIONS=100] [SECONDS=10] [PHASES=alone,one,holders]
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { pollSearch } from "../../../test/e2e/support/load-clients.mjs";
import { withSecretServer } from "../../../test/e2e/support/secret-server.mjs";
import { MCP_POST_HEADERS } from "../../../test/e2e/support/server.mjs";

const CONNECTIONS = Number(process.argv[2] ?? 100);
const SECONDS = Number(process.argv[3] ?? 10);
const PHASES = (process.argv[4] ?? "alone,one,holders").split(",");
const WARM_MS = 1_500;

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The attacker, run by a `node -e` child: its searches, each connection's `sleep` co-holder. */
const ATTACKER = `
  const http = require("node:http");
  const net = require("node:net");
  const { spawn } = require("node:child_process");
  const { port, connections, seconds, holders, headers } = JSON.parse(process.env.ATTACK);
  const kids = [];
  let sent = 0, answered = 0, errors = 0;
  const body = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call",
    params: { name: "search", arguments: { code: "async () => 1 + 1" } } });
  function agent() {
    const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
    a.createConnection = () => {
      const socket = net.createConnection({ host: "127.0.0.1", port });
      if (holders) socket.once("connect", () => {
        // Its fd number, not the socket: a socket given as stdio stops being read here.
        const kid = spawn("sleep", [String(seconds + 30)], { stdio: ["ignore", "ignore", "ignore", socket._handle.fd] });
        kid.on("error", () => {});
        kids.push(kid);
      });
      return socket;
    };
    return a;
  }
  const post = (a, id) => new Promise((resolve) => {
    const b = body(id);
    const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent: a,
      headers: { ...headers, "content-length": Buffer.byteLength(b) }, timeout: 30000 }, (res) => {
      res.resume();
      res.on("end", () => { answered++; resolve(); });
    });
    req.on("error", () => { errors++; resolve(); });
    req.on("timeout", () => req.destroy());
    req.end(b);
    sent++;
  });
  const end = Date.now() + seconds * 1000;
  Promise.all(Array.from({ length: connections }, async (_, i) => {
    const a = agent();
    while (Date.now() < end) await post(a, i);
    a.destroy();
  })).then(() => {
    for (const kid of kids) kid.kill("SIGKILL");
    process.stdout.write(JSON.stringify({ sent, answered, errors, holders: kids.length }));
    process.exit(0);
  });
`;

/**
 * Runs the attacker for SECONDS; killed if it overstays.
 * @param {number} port
 * @param {boolean} holders
 * @returns {Promise<string>} what it reported
 */
function attack(port, holders) {
  const child = spawn(process.execPath, ["-e", ATTACKER], {
    env: {
      ...process.env,
      ATTACK: JSON.stringify({
        port,
        connections: CONNECTIONS,
        seconds: SECONDS,
        holders,
        headers: MCP_POST_HEADERS,
      }),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const guard = setTimeout(() => child.kill("SIGKILL"), SECONDS * 1_000 + 60_000);
  return new Promise((resolve) =>
    child.once("exit", () => {
      clearTimeout(guard);
      resolve(out);
    }),
  );
}

await withSecretServer({}, async ({ url }) => {
  const port = Number(new URL(url).port);
  const poller = await pollSearch(url);
  await sleep(1_000);
  for (const phase of PHASES) {
    const began = Date.now();
    const load = loadavg()[0]?.toFixed(1);
    const sent =
      phase === "alone"
        ? (await sleep(SECONDS * 1_000), "")
        : await attack(port, phase === "holders");
    const until = Date.now();
    const before = poller.ended();
    console.log(
      `${phase}: load ${load}, attacker ${sent || "none"}; the victim's longest ${poller.longestWithin(began + WARM_MS, until)} ms, p50 ${poller.p50Within(began + WARM_MS, until)} ms (${before.calls} calls, ${before.failed} failed so far)`,
    );
    await sleep(3_000);
  }
  await poller.stop();
});
