// Issue #40, "only the cluster talks to the cluster": from another process on the machine (this
// script), every internal socket of a running local server refuses: a runner's Workers RPC port
// (`load`/`get`, in the old form and with a guessed secret, from a real workerd the way the
// attack was made), a runner's own port (`/health` without counts, `POST /retire`), the host
// runtime's direct socket (with a forged CF-Connecting-IP) and its Miniflare port, and
// Miniflare's loopback servers (a forged log line). Meanwhile and after, the public front serves,
// no runner retires or is replaced, and the forged line never reaches the server's output.
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { listeningPorts, parentOf } from "./support/listening-ports.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { SEARCH } from "./support/programs.mjs";
import { replacements } from "./support/replacements.mjs";
import { check, withServer } from "./support/server.mjs";

const require = createRequire(import.meta.url);
const miniflarePath = createRequire(require.resolve("wrangler/package.json")).resolve("miniflare");
const { Miniflare, Log, LogLevel, convertV4MiniflareOptions } = await import(
  pathToFileURL(miniflarePath).href
);

const FORGED = "runner 1 is replaced because a forged line from e2e sealed";

// A Worker of the attacker's own, calling a runner's RPC socket through an external service
// binding (as the host does): each try runs code that would make a request to the network, in
// the runner's old call form and in the new one with a guessed secret.
const ATTACKER = `
import { RpcTarget } from "cloudflare:workers";
class Host extends RpcTarget { begin() { return true; } call() { return null; } }
const code = {
  compatibilityDate: "2026-08-01",
  mainModule: "a.js",
  modules: { "a.js": 'import { WorkerEntrypoint } from "cloudflare:workers"; export default class extends WorkerEntrypoint { async run() { try { await fetch("http://127.0.0.1:9/"); return "network"; } catch (e) { return "ran: " + e.message; } } }' },
};
export default {
  async fetch(request, env) {
    const tries = {
      "load(code, …), the old form": () => env.RUNNER.load(code, {}, new Host()),
      "load with a guessed secret": () => env.RUNNER.load("guess", code, {}, new Host()),
      "get(id, code, …), the old form": () => env.RUNNER.get("code-mode-shared:default", code, {}, new Host()),
      "get with a guessed secret": () => env.RUNNER.get("guess", "0".repeat(64), code, {}, new Host()),
    };
    const out = {};
    for (const [name, attempt] of Object.entries(tries)) {
      try { out[name] = { answered: await attempt() }; }
      catch (error) { out[name] = { refused: String(error?.message ?? error) }; }
    }
    return Response.json(out);
  },
};`;

/**
 * The Unix sockets the processes `pids` listen on (/proc/net/unix, matched by the sockets in
 * each process's open files): a runner's RPC socket file.
 * @param {number[]} pids
 * @returns {string[]}
 */
function unixSocketsOf(pids) {
  const inodes = new Set();
  for (const pid of pids)
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  return [
    ...new Set(
      readFileSync("/proc/net/unix", "utf8")
        .split("\n")
        .map((line) => line.trim().split(/\s+/))
        .filter((f) => f.length >= 8 && inodes.has(f[6]) && /runner-\d+\.sock:0$/.test(f[7] ?? ""))
        .map((f) => /** @type {string} */ (f[7])),
    ),
  ];
}

/**
 * Tries the runner RPC socket at `address` from a workerd of this script's own.
 * @param {string} address - an external service address (`unix:<path>`)
 * @returns {Promise<Record<string, { answered?: unknown, refused?: string }>>}
 */
async function attackRpc(address) {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      log: new Log(LogLevel.NONE),
      workers: [
        {
          name: "attacker",
          modules: true,
          script: ATTACKER,
          compatibilityDate: "2026-08-01",
          serviceBindings: { RUNNER: { external: { address, http: {} } } },
        },
      ],
    }),
  );
  try {
    const answer = await mf.dispatchFetch("http://attacker/");
    return /** @type {any} */ (await answer.json());
  } finally {
    await mf.dispose();
  }
}

/**
 * One request to a port of the server, as any local process may send it.
 * @param {number} port
 * @param {string} path
 * @param {RequestInit} [init]
 */
async function knock(port, path, init = {}) {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, init);
    return { status: answer.status, headers: answer.headers, text: await answer.text() };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String(error) };
  }
}

await withServer({ SANDBOX_RUNNERS: "2" }, async ({ url, output }) => {
  const { client } = await connect(url, { name: "e2e-sealed" });
  const served = async (/** @type {string} */ when) => {
    const outcome = await timedCall(client, "search", SEARCH, 60_000);
    check(
      outcome.ok,
      `the front did not serve a search ${when}: ${outcome.thrown ?? outcome.text}`,
    );
  };
  await served("before");

  // The sockets, found as another process would (the supervisor's lines name the workerd pids
  // and the ports it uses; the rest of each process's listening ports are the other sockets).
  const log = output();
  const host = /ready on \S+ \(runtime \d+ \(workerd pid (\d+), port (\d+)\)/.exec(log);
  check(host, `no ready line:\n${log}`);
  const [hostPid, direct] = [Number(host[1]), Number(host[2])];
  const hostOwn = listeningPorts(hostPid).filter((p) => p !== direct);
  const runners = [...log.matchAll(/runner \d+ \(workerd pid (\d+), port (\d+)\) is ready\./g)].map(
    (m) => {
      const [pid, port] = [Number(m[1]), Number(m[2])];
      return { pid, port, rpc: listeningPorts(pid).filter((p) => p !== port) };
    },
  );
  check(runners.length === 2, `expected 2 runners:\n${log}`);
  const loopbacks = listeningPorts(parentOf(hostPid));
  check(hostOwn.length === 1, `the host's Miniflare port is not one of ${hostOwn.join(", ")}`);
  check(loopbacks.length >= 3, `Miniflare's loopback ports: ${loopbacks.join(", ") || "none"}`);
  const failures = [];

  // A runner's RPC: on no TCP port at all (a port is open to every process and free to take
  // between a runner's end and its replacement's start), but a Unix socket in a folder only this
  // user can enter (cli/local-server/socket-folder.mjs). A process of this user may reach it:
  // load/get are still refused without the cluster secret, in both forms.
  for (const runner of runners)
    check(runner.rpc.length === 0, `runner RPC on TCP port(s) ${runner.rpc.join(", ")}`);
  const sockets = unixSocketsOf(runners.map((r) => r.pid));
  check(sockets.length === 2, `expected 2 runner sockets, found: ${sockets.join(", ")}`);
  for (const file of sockets) {
    const folder = statSync(dirname(file));
    if ((folder.mode & 0o077) !== 0 || folder.uid !== process.getuid?.())
      failures.push(
        `runner socket folder ${dirname(file)} is mode ${(folder.mode & 0o777).toString(8)}`,
      );
    const tries = await attackRpc(`unix:${file}`);
    for (const [name, outcome] of Object.entries(tries))
      if (!outcome.refused?.includes("serves only the local server that started it"))
        failures.push(`runner RPC ${name}: ${JSON.stringify(outcome).slice(0, 300)}`);
  }

  // A runner's own port: no counts, no retiring; its RPC port takes no HTTP either.
  for (const runner of runners) {
    const health = await knock(runner.port, "/health", { method: "HEAD" });
    if (health.status !== 403 || health.headers.has("x-runs-begun"))
      failures.push(
        `runner /health answered ${health.status} (counts: ${health.headers.get("x-runs-begun")})`,
      );
    for (const port of [runner.port, ...runner.rpc]) {
      const retire = await knock(port, "/retire", { method: "POST" });
      if (retire.status < 400 || retire.headers.has("x-runs-begun"))
        failures.push(`runner POST /retire on port ${port} answered ${retire.status}`);
    }
  }

  // The host: its direct socket with a forged client address, and Miniflare's port.
  for (const [name, port] of [
    ["direct socket", direct],
    ["Miniflare port", hostOwn[0]],
  ]) {
    for (const path of ["/health", "/mcp", "/authorize"]) {
      const answer = await knock(/** @type {number} */ (port), path, {
        headers: { "cf-connecting-ip": "203.0.113.77" },
      });
      if (answer.status !== 403 || !answer.text.includes("internal port of the local server"))
        failures.push(
          `host ${name} ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`,
        );
    }
  }

  // Miniflare's loopback servers: a forged log line.
  for (const port of loopbacks) {
    const answer = await knock(port, "/core/log", {
      method: "POST",
      headers: { "MF-Log-Level": "3" },
      body: FORGED,
    });
    if (answer.status !== 403)
      failures.push(`loopback ${port} /core/log answered ${answer.status}`);
  }

  // Two looks of the supervisor at the runners' counts, then the front again.
  await new Promise((r) => setTimeout(r, 5_000));
  await served("after");
  await client.close().catch(() => {});
  const after = output();
  if (after.includes(FORGED)) failures.push("the forged log line reached the server's output");
  if (/retiring without the supervisor asking/.test(after))
    failures.push("a runner was retiring without the supervisor asking");
  const replaced = replacements(after);
  if (replaced.length > 0) failures.push(`the supervisor replaced:\n${replaced.join("\n")}`);
  check(
    failures.length === 0,
    `internal sockets answered another process:\n${failures.join("\n")}`,
  );
  console.log(
    `e2e sealed: ${runners.length} runner RPC sockets, ${runners.length * 3} runner HTTP requests, the host's direct socket and Miniflare port, ${loopbacks.length} loopback servers: all refused; the front served — ok`,
  );
});
