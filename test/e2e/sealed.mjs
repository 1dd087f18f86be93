// Issue #40, "only the cluster talks to the cluster": a running local server listens on one TCP
// port, its front's; every internal socket (a runner's Workers RPC, a runner's `/health` and
// `/retire`, the host runtime's direct socket and Miniflare entry socket, Miniflare's loopback
// servers) is a Unix socket in one folder only this user can enter (0700), which no other
// user can reach or take over after a runtime's exit. From another process of this user
// (beyond that folder's guard), each still refuses without the cluster secret: a runner's RPC
// (`load`/`get`, in the old form and with a guessed secret, from a real workerd the way the
// attack was made), a runner's `/health` (no counts) and `POST /retire`, the host's sockets
// (with a forged CF-Connecting-IP), and the loopback servers (a forged log line). Meanwhile and
// after, the public front serves, no runner retires or is replaced, and the forged line never
// reaches the server's output.
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { listeningPorts, listeningUnixSockets } from "./support/listening-ports.mjs";
import { connect, timedCall } from "./support/load-clients.mjs";
import { processTree } from "./support/processes.mjs";
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
      "loadWithBase with a guessed secret": () => env.RUNNER.loadWithBase("guess", "0".repeat(64), code, "b.js", "", {}, new Host()),
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
 * One request to a Unix socket of the server, as any process of this user may send it.
 * @param {string} socket
 * @param {string} path
 * @param {{ method?: string, headers?: Record<string, string>, body?: string }} [init]
 * @returns {Promise<{ status: number, headers: import("node:http").IncomingHttpHeaders, text: string }>}
 */
function knock(socket, path, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path, method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error("no answer in 10 s")));
    req.on("error", (error) => resolve({ status: 0, headers: {}, text: String(error) }));
    req.end(body);
  });
}

// A secret in the launcher's environment (as a user's shell holds one): it must not reach the
// environment of any runtime process (cli/local-server/runtime-env.mjs).
const ENV_SECRET = `e2e-sealed-env-${process.pid}-${Date.now()}`;

const SETTINGS = { SANDBOX_RUNNERS: "2", E2E_SEALED_SECRET: ENV_SECRET };

await withServer(SETTINGS, async ({ url, pid, output }) => {
  const { client } = await connect(url, { name: "e2e-sealed" });
  const served = async (/** @type {string} */ when) => {
    const outcome = await timedCall(client, "search", SEARCH, 60_000);
    check(
      outcome.ok,
      `the front did not serve a search ${when}: ${outcome.thrown ?? outcome.text}`,
    );
  };
  await served("before");

  // Every socket the server's processes listen on, found as another process would (/proc).
  const tree = processTree(pid).map((p) => p.pid);
  const tcp = [...new Set(tree.flatMap((p) => listeningPorts(p)))];
  const front = Number(new URL(url).port);
  check(
    tcp.length === 1 && tcp[0] === front,
    `TCP ports listened on besides the front's ${front}: ${tcp.filter((p) => p !== front).join(", ") || "none"} (the front's own: ${tcp.includes(front)})`,
  );
  // A runner slot's socket is briefly unbound while its runner starts (the doorbell closed, the
  // runner not listening yet): the search above may have rung one (the warm reserve). Looked at
  // until every slot (2 and the spare) has its socket again.
  const listening = () => [
    ...new Set(processTree(pid).flatMap((p) => listeningUnixSockets(p.pid))),
  ];
  let unix = listening();
  for (
    const started = Date.now();
    unix.filter((file) => /\/runner-\d+\.sock:0$/.test(file)).length < 3 &&
    Date.now() - started < 30_000;
    unix = listening()
  )
    await new Promise((r) => setTimeout(r, 250));
  const folders = [...new Set(unix.map((file) => dirname(file)))];
  check(folders.length === 1, `the Unix sockets are not in one folder: ${unix.join(", ")}`);
  const folder = statSync(/** @type {string} */ (folders[0]));
  check(
    (folder.mode & 0o077) === 0 && folder.uid === process.getuid?.(),
    `socket folder ${folders[0]} is mode ${(folder.mode & 0o777).toString(8)}, owner ${folder.uid}`,
  );
  const named = (/** @type {RegExp} */ pattern) => unix.filter((file) => pattern.test(file));
  const rpc = named(/\/runner-\d+\.sock:0$/);
  const direct = named(/\/r\d+\.direct\.sock:0$/);
  const hostIds = new Set(direct.map((file) => /\/(r\d+)\./.exec(file)?.[1]));
  const entries = named(/\/r\d+\.entry\.sock$/);
  const hostEntries = entries.filter((file) => hostIds.has(/\/(r\d+)\./.exec(file)?.[1]));
  const runnerEntries = entries.filter((file) => !hostEntries.includes(file));
  const loopbacks = named(/\/r\d+\.loopback\.sock$/);
  // The server's lock (stale-folders.mjs): while it listens, no other server's clean-up takes
  // this folder for stale. It answers nothing.
  const locks = named(/\/lock\.sock$/);
  // SANDBOX_RUNNERS 2 and a spare: 3 runner slots, each RPC socket listened on by its runner or,
  // for a slot not running (runners start on demand, issue #43), by the supervisor's doorbell;
  // one runner and one host running (no standby by default).
  check(
    rpc.length === 3 && runnerEntries.length >= 1 && direct.length === 1,
    `expected 3 runner slots, a runner and a host runtime, found: ${unix.join(", ")}`,
  );
  // No loopback server at all (runtime.mjs: workerd's loopback service points at no listener).
  check(
    loopbacks.length === 0 &&
      locks.length === 1 &&
      unix.length === rpc.length + entries.length + direct.length + locks.length,
    `expected the runners' and hosts' sockets and nothing else: ${unix.join(", ")}`,
  );
  const failures = [];

  // Every workerd and its lifeline: started with an allow-listed environment only.
  const runtimeProcesses = processTree(pid).filter((p) => /workerd|lifeline/.test(p.command));
  check(runtimeProcesses.length >= 4, `runtime processes: ${runtimeProcesses.length}`);
  for (const p of runtimeProcesses) {
    const environ = readFileSync(`/proc/${p.pid}/environ`, "utf8");
    if (environ.includes(ENV_SECRET))
      failures.push(`the launcher's secret is in the environment of ${p.command.slice(0, 80)}`);
  }

  // A runner's RPC: a process of this user may reach it; load/get are still refused without the
  // cluster secret, in both forms.
  // The running runners' (a slot's doorbell, in the supervisor, only starts its runner).
  const workerdSockets = new Set(
    processTree(pid)
      .filter((p) => p.command.includes("workerd"))
      .flatMap((p) => listeningUnixSockets(p.pid)),
  );
  const runningRpc = rpc.filter((f) => workerdSockets.has(f));
  check(runningRpc.length >= 1, `no runner RPC socket held by a workerd: ${rpc.join(", ")}`);
  for (const file of runningRpc) {
    const tries = await attackRpc(`unix:${file}`);
    for (const [name, outcome] of Object.entries(tries))
      if (!outcome.refused?.includes("serves only the local server that started it"))
        failures.push(`runner RPC ${name}: ${JSON.stringify(outcome).slice(0, 300)}`);
  }

  // A runner's HTTP socket: no counts, no retiring; its RPC socket takes no HTTP either.
  for (const file of runnerEntries) {
    const health = await knock(file, "/health", { method: "HEAD" });
    if (health.status !== 403 || health.headers["x-runs-begun"] !== undefined)
      failures.push(
        `runner /health answered ${health.status} (counts: ${health.headers["x-runs-begun"]})`,
      );
  }
  for (const file of [...runnerEntries, ...rpc]) {
    const retire = await knock(file, "/retire", { method: "POST" });
    if (retire.status !== 403 || retire.headers["x-runs-begun"] !== undefined)
      failures.push(`runner POST /retire on ${file} answered ${retire.status}`);
  }
  // Nor does it hand out or take stable worker code (the supervisor's warm runners).
  for (const file of runnerEntries) {
    const code = await knock(file, `/stable?hash=${"0".repeat(64)}`);
    const warm = await knock(file, "/warm", { method: "POST" });
    if (code.status !== 403 || warm.status !== 403)
      failures.push(`runner GET /stable answered ${code.status}, POST /warm ${warm.status}`);
  }

  // The host runtimes: their direct sockets with a forged client address, and Miniflare's.
  for (const file of [...direct, ...hostEntries]) {
    for (const path of ["/health", "/mcp", "/authorize"]) {
      const answer = await knock(file, path, { headers: { "cf-connecting-ip": "203.0.113.77" } });
      if (answer.status !== 403 || !answer.text.includes("internal port of the local server"))
        failures.push(
          `host ${file} ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`,
        );
    }
  }

  // Miniflare's loopback servers: a forged log line.
  for (const file of loopbacks) {
    const answer = await knock(file, "/core/log", {
      method: "POST",
      headers: { "MF-Log-Level": "3" },
      body: FORGED,
    });
    if (answer.status !== 403)
      failures.push(`loopback ${file} /core/log answered ${answer.status}`);
  }

  // Two looks of the supervisor at the runners' counts, then the front again.
  await new Promise((r) => setTimeout(r, 5_000));
  await served("after");
  await client.close().catch(() => {});
  const after = output();
  if (after.includes(FORGED)) failures.push("the forged log line reached the server's output");
  // HTTP on a runner's RPC socket once printed workerd's uncaught "does not export a fetch()".
  if (/does not export a fetch|Uncaught/.test(after))
    failures.push("another process's HTTP printed an exception into the server's output");
  if (/retiring without the supervisor asking/.test(after))
    failures.push("a runner was retiring without the supervisor asking");
  const replaced = replacements(after);
  if (replaced.length > 0) failures.push(`the supervisor replaced:\n${replaced.join("\n")}`);
  check(
    failures.length === 0,
    `internal sockets answered another process:\n${failures.join("\n")}`,
  );
  console.log(
    `e2e sealed: ${runtimeProcesses.length} runtime processes without the launcher's environment; one TCP port (the front's); ${unix.length} Unix sockets in a 0700 folder: ${rpc.length} runner RPC, ${runnerEntries.length} runner HTTP, ${direct.length + hostEntries.length} host, ${loopbacks.length} loopback: all refused without the secret; the front served — ok`,
  );
});
