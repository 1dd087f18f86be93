/**
 * CPU per call per process of the local server (issue #43): `ping`, a trivial `execute` and a
 * `search` sent one after another through the public port, and the user+system time each
 * process of the server's tree spent over them (`/proc/<pid>/stat`), divided by the calls.
 * The processes: the front (the launcher's own process: supervisor and front), the runtime
 * host (Node, which starts the workerds), the host workerd (the Worker serving MCP) and the
 * other workerds (sandbox runners and the standby host, which serves nothing). CPU time is far
 * less disturbed by the rest of the machine's load than wall time, so these compare across runs.
 *
 *   node bench/driver/local/cpu-per-call.mjs [calls=400] [rounds=3] [ping,execute,search]
 *
 * Runs with `SANDBOX_RUNNERS=3` on the offline demo; `WORKERD_INSPECTOR_PORT` passes through
 * (cli/local-server/runtime.mjs) for a profile of the same load. "runtime host": the Node
 * process that held the runtimes before issue 43, now the config builder and workerd lifelines.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { rawToolCall } from "../raw-client.mjs";
import { call, startLocal } from "./local-server.mjs";

/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ). */
const TICKS = 100;

/** @param {number} pid */
function statOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command: state(0) ppid(1) … utime(11) stime(12)
  return { ppid: Number(f[1]), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TICKS };
}

/**
 * Resident MiB of one process (0 once it is gone): the host's, printed with each round, since
 * how often the host collects its garbage trades its CPU per call against this.
 * @param {number} pid
 */
function hostRssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return Math.round(Number(m?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** @param {number} pid */
function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/**
 * CPU ms so far of each process below `root` (the launcher's process group leader), with its role.
 * @param {number} root
 * @param {number} hostPid - the host workerd
 * @returns {Map<number, { role: string, ms: number }>}
 */
function cpuByProcess(root, hostPid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const { ppid } = statOf(Number(name));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  /** @type {Map<number, { role: string, ms: number }>} */
  const found = new Map();
  const stack = [root];
  while (stack.length > 0) {
    const pid = /** @type {number} */ (stack.pop());
    stack.push(...(children.get(pid) ?? []));
    let ms = 0;
    try {
      ms = statOf(pid).cpuMs;
    } catch {
      continue;
    }
    const command = commandOf(pid);
    const role =
      pid === root
        ? "front"
        : pid === hostPid
          ? "host"
          : /workerd/.test(command)
            ? "runners+standby"
            : /runtime-host|workerd-config-builder|lifeline/.test(command)
              ? "runtime host"
              : "front";
    found.set(pid, { role, ms });
  }
  return found;
}

/**
 * CPU ms each role spent between two readings: per process, so one that ended meanwhile (a
 * retired runner) takes nothing away, and one that started (its replacement) counts from zero.
 * @param {Map<number, { role: string, ms: number }>} before
 * @param {Map<number, { role: string, ms: number }>} after
 */
function spentByRole(before, after) {
  /** @type {Record<string, number>} */
  const roles = { front: 0, "runtime host": 0, host: 0, "runners+standby": 0 };
  for (const [pid, { role, ms }] of after)
    roles[role] = (roles[role] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  return roles;
}

/** The calls measured, in this order. */
const KINDS = /** @type {const} */ (["ping", "execute", "search"]);

const SEARCH = `async () => Object.keys((await codemode.spec()).paths).length`;

/**
 * One call of `what` through `base`; throws on a failed answer.
 * @param {string} base
 * @param {number} id
 * @param {"ping" | "execute" | "search"} what
 */
async function oneCall(base, id, what) {
  if (what !== "search") return call(base, id, what);
  const { headers, body } = rawToolCall("2026-07-28", id, "search", { code: SEARCH });
  const res = await fetch(`${base}/mcp`, { method: "POST", headers, body });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true'))
    throw new Error(`search: ${res.status} ${text.slice(0, 200)}`);
  return 0;
}

/**
 * CPU ms per call of each role, for `calls` calls of each kind after a warm-up, `rounds` times.
 * @param {{ calls: number, rounds: number, env?: Record<string, string>, kinds?: readonly ("ping" | "execute" | "search")[] }} config
 * @param {(line: string) => void} log
 */
export async function cpuPerCall({ calls, rounds, env = {}, kinds = KINDS }, log) {
  const server = await startLocal(3, env);
  /** @type {Record<string, Record<string, number[]>>} */
  const results = {};
  try {
    let id = 0;
    for (const what of kinds)
      for (let i = 0; i < 100; i++) await oneCall(server.public, ++id, what);
    for (let round = 0; round < rounds; round++) {
      for (const what of kinds) {
        const before = cpuByProcess(server.group, server.hostPid);
        const client = process.cpuUsage();
        for (let i = 0; i < calls; i++) await oneCall(server.public, ++id, what);
        const used = process.cpuUsage(client);
        const spent = spentByRole(before, cpuByProcess(server.group, server.hostPid));
        const per = Object.fromEntries(
          Object.entries(spent).map(([role, ms]) => [role, Math.round((ms / calls) * 100) / 100]),
        );
        per.client = Math.round(((used.user + used.system) / 1000 / calls) * 100) / 100;
        log(
          `${what} round ${round + 1}: ${JSON.stringify(per)}; host workerd RSS ${hostRssMiB(server.hostPid)} MiB`,
        );
        for (const [role, ms] of Object.entries(per))
          ((results[what] ??= {})[role] ??= []).push(ms);
      }
    }
  } finally {
    await server.stop();
  }
  return results;
}

/** Targets of issue #43, ms of CPU per call: by role, then by kind of call. */
const CPU_TARGETS = /** @type {Record<string, Record<string, number>>} */ ({
  host: { ping: 0.5, execute: 2.5 },
  front: { ping: 0.5, execute: 0.5, search: 0.5 },
});

/** What each role's row calls it. */
const ROLE_NAMES = /** @type {Record<string, string>} */ ({
  host: "host workerd (the Worker serving MCP)",
  front: "front (launcher: supervisor and front)",
  "runners+standby": "runner workerds (and the standby, if any)",
  client: "this benchmark's client",
});

/**
 * The table rows of C (same shape as report.mjs's rows): the median over the rounds of each
 * role's CPU ms per call, for each kind of call.
 * @param {Record<string, Record<string, number[]>> | undefined} results - what {@link cpuPerCall} returned
 */
export function cpuRows(results) {
  if (!results) return [];
  const rows = [];
  for (const role of ["host", "front", "runners+standby", "client"])
    for (const [what, roles] of Object.entries(results)) {
      const values = roles[role];
      if (!values?.length) continue;
      const sorted = values.toSorted((a, b) => a - b);
      const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? null;
      const target = CPU_TARGETS[role]?.[what];
      rows.push({
        metric: `C CPU ms per \`${what}\` (${what === "execute" ? "`async () => 1`" : what === "search" ? "the demo spec's paths" : "2025-11-25 framing"}), ${ROLE_NAMES[role] ?? role}: median of ${values.length} rounds (range ${sorted[0]}–${sorted.at(-1)})`,
        ours: median,
        anchor: null,
        ratio: null,
        target: target === undefined ? "" : `≤ ${target}`,
        met: target === undefined || median === null ? null : median <= target,
      });
    }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const calls = Number(process.argv[2] ?? 400);
  const rounds = Number(process.argv[3] ?? 3);
  const env = process.env.WORKERD_INSPECTOR_PORT
    ? { WORKERD_INSPECTOR_PORT: process.env.WORKERD_INSPECTOR_PORT }
    : {};
  const kinds = /** @type {any} */ (process.argv[4]?.split(",") ?? KINDS);
  const results = await cpuPerCall({ calls, rounds, env, kinds }, (line) => console.log(line));
  for (const [what, roles] of Object.entries(results))
    console.log(
      `${what}: ${Object.entries(roles)
        .map(([role, v]) => `${role} ${Math.min(...v)}–${Math.max(...v)} ms`)
        .join(", ")}`,
    );
}
