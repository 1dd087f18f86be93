/**
 * Rows M: the local server's memory with Cloudflare's spec (issue #43): the resident memory of
 * the whole process tree of `npm start` (the launcher's process: supervisor and front; every
 * workerd: host, standby, runners) idle, then its peak under 16 concurrent clients. npm's own
 * process is not in the tree here (the bench starts scripts/start.mjs directly; `npm start` adds
 * ~50 MB).
 *
 *   node bench/driver/local/local-memory.mjs [idle seconds=40] [load seconds=15]
 *
 * Idle: the tree sampled every 250 ms for the last 5 s of `idle` seconds after the server said
 * it is ready (runners started for the start-up are given their idle time to end); the figure
 * is the last sample's. Load: 16 clients, each alternating a search over the spec's paths and a
 * trivial execute (no upstream: the spec's API is not reachable from a bench) on its own
 * connection, back to back, for `load` seconds; the figure is the peak sample.
 */
import { fileURLToPath } from "node:url";
import { startLocal, treeRssBytes } from "./local-server.mjs";
import { rawToolCall } from "../raw-client.mjs";
import { LAUNCH_SPECS } from "./stdio-launch.mjs";

const SEARCH = `async () => Object.keys((await codemode.spec()).paths).filter((p) => p.includes("zones")).length`;

/**
 * @param {{ idleSeconds: number, loadSeconds: number, clients?: number }} config
 * @param {(line: string) => void} log
 */
export async function localMemory({ idleSeconds, loadSeconds, clients = 16 }, log) {
  const { file, baseUrl } = LAUNCH_SPECS.cloudflare;
  const server = await startLocal(Number(process.env.SANDBOX_RUNNERS ?? 3), {
    SPEC_FILE: file,
    API_BASE_URL: baseUrl,
  });
  try {
    const mib = () => Math.round(treeRssBytes(server.group) / 1_048_576);
    await new Promise((r) => setTimeout(r, Math.max(0, idleSeconds - 5) * 1000));
    const idleSamples = [];
    for (let i = 0; i < 20; i++) {
      idleSamples.push(mib());
      await new Promise((r) => setTimeout(r, 250));
    }
    const idleMiB = /** @type {number} */ (idleSamples.at(-1));
    log(
      `M idle (${idleSeconds} s after ready): ${idleMiB} MiB (last 5 s: ${Math.min(...idleSamples)}–${Math.max(...idleSamples)})`,
    );
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, mib())), 250);
    const end = Date.now() + loadSeconds * 1000;
    let done = 0;
    let errors = 0;
    let id = 0;
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let k = client; Date.now() < end; k++) {
          const tool = k % 2 === 0 ? "search" : "execute";
          const { headers, body } = rawToolCall("2026-07-28", ++id, tool, {
            code: tool === "search" ? SEARCH : "async () => 1",
          });
          try {
            const res = await fetch(`${server.public}/mcp`, { method: "POST", headers, body });
            const text = await res.text();
            if (res.status !== 200 || text.includes('"isError":true')) errors++;
            else done++;
          } catch {
            errors++;
          }
        }
      }),
    );
    clearInterval(sampler);
    peak = Math.max(peak, mib());
    log(
      `M ${clients} clients for ${loadSeconds} s: peak ${peak} MiB, ${done} calls, ${errors} errors`,
    );
    return { idleMiB, idleSamples, peakMiB: peak, clients, calls: done, errors };
  } finally {
    await server.stop();
  }
}

/**
 * The table rows of M (issue #43's targets).
 * @param {{ idleMiB: number, peakMiB: number, clients: number, calls: number, errors: number } | undefined} m
 */
export function memoryRows(m) {
  if (!m) return [];
  return [
    {
      metric:
        "M local server tree RSS MiB idle, Cloudflare spec (launcher + every workerd; npm not included)",
      ours: m.idleMiB,
      anchor: null,
      ratio: null,
      target: "≤ 350",
      met: m.idleMiB <= 350,
    },
    {
      metric: `M local server tree peak RSS MiB, ${m.clients} clients (search/execute, ${m.calls} calls, ${m.errors} errors), Cloudflare spec`,
      ours: m.peakMiB,
      anchor: null,
      ratio: null,
      target: "≤ 900",
      met: m.peakMiB <= 900,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const idleSeconds = Number(process.argv[2] ?? 40);
  const loadSeconds = Number(process.argv[3] ?? 15);
  console.log(
    JSON.stringify(await localMemory({ idleSeconds, loadSeconds }, (line) => console.log(line))),
  );
}
