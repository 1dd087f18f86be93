/**
 * L1–L3: the local server itself (`npm start`: the Node front, the host runtime, the sandbox
 * runners), issue #28. No anchor side: `@cloudflare/codemode` has no local server.
 * - L1: `ping` and a trivial `execute` at p50 through the public port, against the host runtime
 *   as Miniflare serves it (its own port, through Miniflare's entry Worker: the runtime without
 *   our server around it) and against the host Worker's direct socket (the port the front sends
 *   to: what the front alone adds). Same server, interleaved.
 * - L2: throughput of mixed `search`/`execute` at concurrency 16 (and 4) on the offline demo,
 *   with one sandbox runner and with the default pool: what the runners add on this machine.
 * - L3: the peak resident memory of every process of the server (front, host, standby, runners)
 *   during L2.
 * Each server is `scripts/start.mjs` (what `npm start` runs) in its own process group on a free
 * port, stopped by group at the end whatever happens.
 */
import { spawn, spawnSync } from "node:child_process";
import { Agent, request } from "node:http";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLUSTER_SECRET_HEADER } from "../../../cli/local-server/cluster-secret.mjs";
import { freePort } from "../../../cli/local-server/free-port.mjs";
import { defaultRunnerCount } from "../../../cli/local-server/worker-options.mjs";
import { listeningUnixSockets } from "../../../test/e2e/support/listening-ports.mjs";
import { rawToolCall } from "../raw-client.mjs";
import { p50, round1 } from "../stats.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const START = join(ROOT, "scripts/start.mjs");
const SEARCH = `async () => Object.keys((await codemode.spec()).paths).filter((p) => p.includes("task")).length`;
const EXECUTE = `async () => (await codemode.request({ method: "GET", path: "/projects", query: { limit: 2 } }))`;

/**
 * @typedef {{ hostPid: number, public: string, own: string, direct: string, secret: string, group: number, stop(): Promise<void> }} LocalServer
 * `secret`: the server's cluster secret, which its runtimes' own ports ask for (the front adds it
 * to every request it passes on); the launcher sends it over the IPC channel it was started with.
 */

/**
 * Starts the launcher with `runners` sandbox runners; resolves once it and its standby are up.
 * @param {number} runners
 * @param {Record<string, string>} [env] - more environment for the launcher
 * @returns {Promise<LocalServer>}
 */
export async function startLocal(runners, env = {}) {
  const port = await freePort();
  const persist = mkdtempSync(join(tmpdir(), "code-mode-bench-local-"));
  const child = spawn(process.execPath, [START], {
    detached: true,
    // The IPC channel carries the cluster secret to this process alone (cli/local-server/
    // cluster-secret.mjs): L1 measures the runtimes' own ports, which answer no one without it.
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: {
      ...process.env,
      PORT: String(port),
      PERSIST_TO: persist,
      SANDBOX_RUNNERS: String(runners),
      LOCAL_CLUSTER_SECRET_TO_PARENT: "1",
      ...env,
    },
  });
  let secret = "";
  child.on("message", (/** @type {any} */ m) => {
    if (typeof m?.clusterSecret === "string") {
      secret = m.clusterSecret;
      child.disconnect();
    }
  });
  const group = /** @type {number} */ (child.pid);
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const signal = (/** @type {NodeJS.Signals} */ name) => {
    try {
      process.kill(-group, name);
    } catch {
      // gone
    }
  };
  const stop = async () => {
    signal("SIGTERM");
    await new Promise((r) => setTimeout(r, 3_000));
    signal("SIGKILL");
    rmSync(persist, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ready = /ready on \S+ \(runtime \d+ \(workerd pid (\d+)\)/.exec(output);
    const serving = output.includes("stands by.") || output.includes("; no standby;");
    if (ready && serving && secret) {
      // The host's sockets are Unix sockets in the server's private folder (runtime.mjs).
      const sockets = listeningUnixSockets(Number(ready[1]));
      const own = sockets.filter((file) => file.endsWith(".entry.sock"));
      const direct = sockets.filter((file) => file.endsWith(".direct.sock:0"));
      if (own.length !== 1 || direct.length !== 1) {
        await stop();
        throw new Error(`the host runtime's sockets are not recognised: ${sockets.join(", ")}`);
      }
      return {
        hostPid: Number(ready[1]),
        public: `http://127.0.0.1:${port}`,
        own: `unix:${own[0]}`,
        direct: `unix:${direct[0]}`,
        secret,
        group,
        stop,
      };
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the local server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Resident memory (bytes) of `root` and every process below it: the runtimes run in process
 * groups of their own but are the supervisor's children, so the tree holds them all.
 * @param {number} root
 */
export function treeRssBytes(root) {
  /** @type {{ pid: number, ppid: number }[]} */
  const all = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      all.push({
        pid: Number(name),
        ppid: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]),
      });
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = /** @type {number} */ (stack.pop());
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      total += Number(m?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
    for (const p of all) if (p.ppid === pid) stack.push(p.pid);
  }
  return total;
}

/**
 * One raw JSON-RPC POST to `/mcp` (2026-07-28 framing, no session); resolves to its time in ms.
 * @param {string} base
 * @param {number} id
 * @param {"ping" | "execute"} what
 * @param {string} [secret] - the cluster secret, for a runtime's own port
 */
export async function call(base, id, what, secret = "") {
  // `ping` is gone from the 2026-07-28 revision: it is sent as a 2025-11-25 client sends it.
  const { headers, body } =
    what === "execute"
      ? rawToolCall("2026-07-28", id, "execute", { code: "async () => 1" })
      : {
          headers: {
            accept: "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": "2025-11-25",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
        };
  const t0 = performance.now();
  // The runtimes' own sockets answer only with the cluster secret; the front adds it itself.
  const sent = secret ? { ...headers, [CLUSTER_SECRET_HEADER]: secret } : headers;
  const { status, text } = base.startsWith("unix:")
    ? await postUnix(base.slice("unix:".length), sent, body)
    : await fetch(`${base}/mcp`, { method: "POST", headers: sent, body }).then(async (res) => ({
        status: res.status,
        text: await res.text(),
      }));
  const ms = performance.now() - t0;
  if (status !== 200 || text.includes('"error"'))
    throw new Error(`${what}: ${status} ${text.slice(0, 200)}`);
  return ms;
}

/** Kept-alive connections to the runtimes' Unix sockets, as fetch keeps them to a port. */
const unixAgent = new Agent({ keepAlive: true });

/**
 * POST /mcp to a runtime's Unix socket.
 * @param {string} socket
 * @param {Record<string, string>} headers
 * @param {string} body
 * @returns {Promise<{ status: number, text: string }>}
 */
function postUnix(socket, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: socket,
        host: "127.0.0.1",
        method: "POST",
        path: "/mcp",
        headers,
        agent: unixAgent,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Rounds of L1 calls not counted: the server has just started, so the first calls also pay for
 * V8 compiling the paths they take in each process (the front, the host runtime); a user's
 * server answers nearly all its calls warm. 100 rounds is about 4 s.
 */
const WARM_UP_REPS = 100;

/** The ports L1 compares: the public one, Miniflare's own, the host Worker's direct socket. */
const PORTS = /** @type {const} */ (["public", "own", "direct"]);

/**
 * L1: p50 of `reps` interleaved calls through the three ports, after {@link WARM_UP_REPS}
 * rounds.
 * @param {LocalServer} server
 * @param {number} reps
 */
async function hops(server, reps) {
  /** @type {Record<string, number[]>} */
  const times = {};
  let id = 0;
  for (let i = 0; i < reps + WARM_UP_REPS; i++) {
    for (const what of /** @type {const} */ (["ping", "execute"])) {
      // Each port takes each place in turn. The call right after an `execute` pays for that
      // run's trailing work (its runner and the host finishing up, on 2 cores): with the public
      // port always first, its `ping` took ~1 ms more than when it went second (2026-12-05).
      for (let k = 0; k < PORTS.length; k++) {
        const side = PORTS[(i + k) % PORTS.length] ?? "public";
        const ms = await call(server[side], ++id, what, side === "public" ? "" : server.secret);
        if (i >= WARM_UP_REPS) (times[`${what} ${side}`] ??= []).push(ms);
      }
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, round1(p50(v))]));
}

/**
 * L2/L3: `concurrency` loops of search/execute for `windowMs`; completed calls per second, errors,
 * and the server tree's peak memory.
 * @param {LocalServer} server
 * @param {number} concurrency
 * @param {number} windowMs
 */
async function throughput(server, concurrency, windowMs) {
  let done = 0;
  let errors = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(server.group))), 250);
  const end = Date.now() + windowMs;
  const started = performance.now();
  let id = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let k = worker; Date.now() < end; k++) {
        const tool = k % 2 === 0 ? "search" : "execute";
        const { headers, body } = rawToolCall("2026-07-28", ++id, tool, {
          code: tool === "search" ? SEARCH : EXECUTE,
        });
        try {
          const res = await fetch(`${server.public}/mcp`, { method: "POST", headers, body });
          const text = await res.text();
          if (res.status !== 200 || text.includes('"isError":true') || text.includes('"error"'))
            errors++;
          else done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: round1(done / seconds), errors, peakMiB: Math.round(peak / 1_048_576) };
}

/**
 * Runs L1–L3 and returns their rows.
 * @param {{ reps: number, windowMs: number }} config
 * @param {(line: string) => void} log
 */
export async function localServerRows(config, log) {
  const built = spawnSync(process.execPath, [join(ROOT, "scripts/build-worker.mjs")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("build-worker failed");
  // The launcher's default pool (cli/local-server/worker-options.mjs).
  const pool = defaultRunnerCount();
  /** @type {Record<string, unknown>} */
  const rows = { cores: cpus().length, pool };
  for (const runners of [1, pool]) {
    if (runners === 1 && pool === 1 && rows["1 runner"]) continue;
    const server = await startLocal(runners);
    try {
      if (runners === pool) {
        rows.hops = await hops(server, config.reps);
        log(`L1 p50 ms: ${JSON.stringify(rows.hops)}`);
      }
      const at4 = await throughput(server, 4, config.windowMs);
      const at16 = await throughput(server, 16, config.windowMs);
      rows[runners === 1 ? "1 runner" : `${runners} runners`] = { at4, at16 };
      log(`L2/L3 ${runners} runner(s): c=4 ${JSON.stringify(at4)}; c=16 ${JSON.stringify(at16)}`);
    } finally {
      await server.stop();
    }
  }
  return rows;
}

/**
 * The table rows of L1–L3 (the "anchor" column holds the baseline each row compares with).
 * @param {any} local - what {@link localServerRows} returned, if it ran
 */
export function localRows(local) {
  if (!local) return [];
  const pool = local[`${local.pool} runners`] ?? local["1 runner"];
  const one = local["1 runner"];
  const hop = (/** @type {"ping" | "execute"} */ what, /** @type {"own" | "direct"} */ to) => {
    const a = local.hops?.[`${what} public`];
    const b = local.hops?.[`${what} ${to}`];
    const apart = typeof a === "number" && typeof b === "number";
    return {
      metric:
        to === "own"
          ? `L1 ${what === "ping" ? "ping" : "trivial execute"} p50 ms through the public port (ours) vs the host runtime's own port, as Miniflare serves it (anchor column)`
          : `L1 ${what === "ping" ? "ping" : "trivial execute"} p50 ms through the public port (ours) vs the host Worker's direct socket, the front's target (anchor column): the front alone`,
      ours: a,
      anchor: b,
      ratio: apart ? round1(a - b) : null,
      target:
        to === "own" ? "≤ 1 ms apart (ratio column: difference)" : "– (ratio column: difference)",
      met: to === "own" && apart ? a - b <= 1 : null,
    };
  };
  const perSecond = (/** @type {any} */ side, /** @type {"at4" | "at16"} */ at) =>
    side?.[at]?.perSecond ?? null;
  const rows = [
    hop("ping", "own"),
    hop("execute", "own"),
    hop("ping", "direct"),
    hop("execute", "direct"),
  ];
  rows.push({
    metric: `L2 mixed search/execute per s at concurrency 16: ${local.pool} runners (ours) vs 1 runner (anchor column), ${local.cores} cores`,
    ours: perSecond(pool, "at16"),
    anchor: perSecond(one, "at16"),
    ratio: ratioOf(perSecond(pool, "at16"), perSecond(one, "at16")),
    target: "ratio ≥ 1.6",
    met: metRatio(perSecond(pool, "at16"), perSecond(one, "at16"), 1.6),
  });
  rows.push({
    metric: `L2 the pool's throughput at concurrency 16 (ours) vs 4 (anchor column); errors ${pool?.at4?.errors ?? "?"} + ${pool?.at16?.errors ?? "?"}`,
    ours: perSecond(pool, "at16"),
    anchor: perSecond(pool, "at4"),
    ratio: ratioOf(perSecond(pool, "at16"), perSecond(pool, "at4")),
    target: "ratio ≥ 1, 0 errors",
    met:
      metRatio(perSecond(pool, "at16"), perSecond(pool, "at4"), 1) === true &&
      pool?.at4?.errors === 0 &&
      pool?.at16?.errors === 0,
  });
  rows.push({
    metric: "L3 peak MiB of every local server process together, concurrency 16, the pool",
    ours: pool?.at16?.peakMiB ?? null,
    anchor: null,
    ratio: null,
    target: "< 1536",
    met: typeof pool?.at16?.peakMiB === "number" ? pool.at16.peakMiB < 1536 : null,
  });
  return rows;
}

/** @param {number | null} a @param {number | null} b */
function ratioOf(a, b) {
  return typeof a === "number" && typeof b === "number" && b > 0
    ? Number((a / b).toPrecision(3))
    : null;
}

/** @param {number | null} a @param {number | null} b @param {number} at */
function metRatio(a, b, at) {
  const r = ratioOf(a, b);
  return r === null ? null : r >= at;
}
