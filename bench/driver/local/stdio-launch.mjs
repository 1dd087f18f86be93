/**
 * Rows I: a desktop launch (issue #43), the command a desktop client runs
 * (`code-mode-mcp --stdio --spec … --base-url …`, bin/code-mode-mcp.mjs from the clone) with
 * Cloudflare's spec and with GitHub's, timed from the spawn to the `initialize` answer on
 * stdout, and beside it when the first `tools/list` and a first trivial `tools/call` (`search`
 * with `async () => 1`) were answered: a warm launch answers `initialize` from the last launch's
 * kept answer (cli/kept/early-answers.mjs), so those two show what the host's start still costs a
 * client. Cold: an empty cache folder (XDG_CACHE_HOME of its own), so the launch validates and
 * compiles the spec; warm: the same folder again, as a desktop client's second start finds it
 * (cli/kept/spec-cache.mjs). Each launch is stopped (its process group) once it answered.
 *
 *   node bench/driver/local/stdio-launch.mjs [warm launches=3] [cloudflare,github]
 *
 * Progress lines on the launch's stderr are kept with the time they arrived, so the phases
 * (loading, the spec's check or cache, the runtimes) can be read off a slow launch.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { p50, round1 } from "../stats.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BIN = join(ROOT, "bin/code-mode-mcp.mjs");

/** The specs (test/.fixtures/, from `npm run fixtures`) and the base URL each is served for. */
export const LAUNCH_SPECS = {
  cloudflare: {
    file: join(ROOT, "test/.fixtures/cloudflare-api-2024-08-06.json"),
    baseUrl: "https://api.cloudflare.com/client/v4",
  },
  github: {
    file: join(ROOT, "test/.fixtures/api.github.com.json"),
    baseUrl: "https://api.github.com",
  },
};

const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench-stdio", version: "1.0.0" },
  },
})}\n`;

/** What the client sends once `initialize` is answered: its notification, a list, a call. */
const AFTER_INITIALIZE = [
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "search", arguments: { code: "async () => 1" } },
  },
]
  .map((m) => `${JSON.stringify(m)}\n`)
  .join("");

/**
 * CPU ms (user + system) spent so far by `root` and every process below it (the workerds are
 * the launcher's children in process groups of their own), in all and per process. Less
 * disturbed by a shared machine's load than the wall time, so it says what a launch costs on a
 * quiet one.
 * @param {number} root
 */
function treeCpu(root) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  /** @type {Map<number, number>} */
  const cpu = new Map();
  /** @type {string[]} */
  const parts = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(f[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
      // Its own time and its ended children's (the launch check's process, which has ended
      // by the answer: cli/plan-launch-child.mjs), as the launcher's.
      cpu.set(Number(name), (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = /** @type {number} */ (stack.pop());
    total += cpu.get(pid) ?? 0;
    let command = "";
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, 2).join(" ");
    } catch {
      // gone
    }
    const name = /workerd/.test(command)
      ? "workerd"
      : /code-mode-mcp/.test(command)
        ? "launcher"
        : (command.split("/").pop() ?? "?");
    parts.push(`${name} ${cpu.get(pid) ?? 0}`);
    stack.push(...(children.get(pid) ?? []));
  }
  return { total, parts };
}

/**
 * One launch; resolves to the ms from spawn to the `initialize` answer, to the first `tools/list`
 * answer and to the first `tools/call` answer, and the stderr lines with their arrival times.
 * @param {keyof typeof LAUNCH_SPECS} spec
 * @param {string} cacheHome
 * @param {number} [timeoutMs]
 * @returns {Promise<{ ms: number, listMs: number, callMs: number, cpuMs: number, lines: string[] }>}
 */
export async function launchOnce(spec, cacheHome, timeoutMs = 180_000) {
  const { file, baseUrl } = LAUNCH_SPECS[spec];
  // The launch's temporary folders (its data folder among them: no PERSIST_TO, as a desktop
  // client's command has none) in one of its own, removed after it whatever it left. A named
  // PERSIST_TO that holds no runtime data gets no host before the check (cli/serve.mjs), so a
  // fresh one per launch measured a launch no desktop client makes.
  const data = mkdtempSync(join(tmpdir(), "code-mode-bench-stdio-"));
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, "--stdio", "--spec", file, "--base-url", baseUrl], {
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: data, XDG_CACHE_HOME: cacheHome },
  });
  /** @type {string[]} */
  const lines = [];
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
    const parts = err.split("\n");
    err = parts.pop() ?? "";
    const at = Math.round(performance.now() - t0);
    for (const line of parts) if (line.trim()) lines.push(`${at} ms ${line.slice(0, 160)}`);
  });
  child.stdin.write(INITIALIZE);
  try {
    /** @type {Map<number, number>} ms from the spawn to each answer, by id */
    const answered = new Map();
    const ms = await new Promise((resolve, reject) => {
      let out = "";
      const timer = setTimeout(
        () => reject(new Error(`no answers in ${timeoutMs} ms:\n${lines.join("\n")}`)),
        timeoutMs,
      );
      child.stdout.on("data", (d) => {
        out += d;
        const parts = out.split("\n");
        out = parts.pop() ?? "";
        for (const line of parts) {
          /** @type {any} */
          let message;
          try {
            message = JSON.parse(line);
          } catch {
            continue;
          }
          if (message.id === undefined || answered.has(message.id)) continue;
          answered.set(message.id, performance.now() - t0);
          if (message.id === 1 && !line.includes('"serverInfo"'))
            reject(new Error(`initialize failed: ${line.slice(0, 300)}`));
          else if (message.id === 1) child.stdin.write(AFTER_INITIALIZE);
          else if (message.error || message.result?.isError)
            reject(new Error(`request ${message.id} failed: ${line.slice(0, 300)}`));
          if (answered.size === 3) {
            clearTimeout(timer);
            resolve(answered.get(1));
          }
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the launch exited (${code}) before answering:\n${lines.join("\n")}`));
      });
    });
    const cpu = treeCpu(/** @type {number} */ (child.pid));
    lines.push(`CPU ms by process at the answer: ${cpu.parts.join(", ")}`);
    return {
      ms: /** @type {number} */ (ms),
      listMs: /** @type {number} */ (answered.get(2)),
      callMs: /** @type {number} */ (answered.get(3)),
      cpuMs: cpu.total,
      lines,
    };
  } finally {
    child.removeAllListeners("exit");
    try {
      process.kill(-(/** @type {number} */ (child.pid)), "SIGTERM");
    } catch {
      // gone
    }
    await new Promise((r) => setTimeout(r, 2_000));
    try {
      process.kill(-(/** @type {number} */ (child.pid)), "SIGKILL");
    } catch {
      // gone
    }
    rmSync(data, { recursive: true, force: true });
  }
}

/**
 * One launch's answers as a log line.
 * @param {{ ms: number, listMs: number, callMs: number, cpuMs: number }} r
 */
const answers = (r) =>
  `initialize ${Math.round(r.ms)} ms, tools/list ${Math.round(r.listMs)} ms, tools/call ${Math.round(r.callMs)} ms (CPU to the call's answer ${r.cpuMs} ms)`;

/**
 * A cold launch then `warm` warm ones per spec.
 * @param {{ warm: number, specs?: (keyof typeof LAUNCH_SPECS)[] }} config
 * @param {(line: string) => void} log
 * @returns {Promise<Record<string, { coldMs: number, coldCpuMs: number, warmMs: number[], warmCpuMs: number[], warmP50: number, warmListP50: number, warmCallP50: number }>>}
 */
export async function stdioLaunches({ warm, specs = ["cloudflare", "github"] }, log) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const spec of specs) {
    const cacheHome = mkdtempSync(join(tmpdir(), "code-mode-bench-stdio-cache-"));
    try {
      const cold = await launchOnce(spec, cacheHome);
      log(`I ${spec} cold ${answers(cold)}`);
      const warmMs = [];
      const warmListMs = [];
      const warmCallMs = [];
      const warmCpuMs = [];
      for (let i = 0; i < warm; i++) {
        const w = await launchOnce(spec, cacheHome);
        warmMs.push(Math.round(w.ms));
        warmListMs.push(Math.round(w.listMs));
        warmCallMs.push(Math.round(w.callMs));
        warmCpuMs.push(w.cpuMs);
        log(`I ${spec} warm ${answers(w)}`);
        if (i === 0) for (const line of w.lines) log(`  ${line}`);
      }
      out[spec] = {
        coldMs: Math.round(cold.ms),
        coldCpuMs: cold.cpuMs,
        warmMs,
        warmCpuMs,
        warmP50: round1(p50(warmMs)),
        warmListP50: round1(p50(warmListMs)),
        warmCallP50: round1(p50(warmCallMs)),
      };
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
    }
  }
  return out;
}

/** Warm targets (issue #43), ms. */
const WARM_TARGET_MS = { cloudflare: 1_500, github: 2_500 };

/**
 * The table rows of I (cold rows have no target: validating and compiling happens once per
 * change of the spec).
 * @param {Record<string, { coldMs: number, coldCpuMs: number, warmCpuMs: number[], warmP50: number, warmListP50?: number, warmCallP50?: number }> | undefined} launches
 */
export function stdioRows(launches) {
  if (!launches) return [];
  return Object.entries(launches).flatMap(([spec, r]) => [
    {
      metric: `I \`--stdio\` launch to \`initialize\` answered, ${spec} spec, warm cache (p50) / cold cache, ms (warm p50 to the first tools/list ${r.warmListP50} ms, to the first tools/call ${r.warmCallP50} ms; CPU of the launch's processes to that call: warm ${r.warmCpuMs?.join(", ")} / cold ${r.coldCpuMs} ms)`,
      ours: `${r.warmP50} / ${r.coldMs}`,
      anchor: null,
      ratio: null,
      target: `warm ≤ ${WARM_TARGET_MS[/** @type {"cloudflare" | "github"} */ (spec)]}`,
      met: r.warmP50 <= WARM_TARGET_MS[/** @type {"cloudflare" | "github"} */ (spec)],
    },
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const warm = Number(process.argv[2] ?? 3);
  const specs = /** @type {any} */ (process.argv[3]?.split(",") ?? ["cloudflare", "github"]);
  const r = await stdioLaunches({ warm, specs }, (line) => console.log(line));
  console.log(JSON.stringify(r));
}
