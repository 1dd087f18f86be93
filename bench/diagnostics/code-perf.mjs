/**
 * Where a P7 call's CPU goes in the whole workerd, not only in JavaScript (issue #43): `perf
 * record` (2,000 Hz, call graphs) of the bench server's workerd over `calls` P7 calls of one
 * side, each sample then put in the first category its stack matches: building the run's
 * sandbox Worker (`makeWorkerImpl`: its modules compiled, its context made), garbage
 * collection, lazy compilation of functions on their first call (mostly the new isolate's),
 * compression, JSON, the RPC machinery (JS RPC and Cap'n Proto: the run's call into its
 * sandbox, the sandbox's calls to the host bridge, and the JavaScript they run), HTTP,
 * system calls, and the rest (the host Worker's own JavaScript and the runtime). Needs `perf`
 * and a `perf_event_paranoid` that lets a user profile its own processes (≤ 2). A diagnostic,
 * not part of `npm run bench`; profile-code.mjs splits the host isolate's JavaScript itself.
 *
 *   npx node bench/diagnostics/code-perf.mjs ours|shared|anchor [tools=5] [chained=1] [calls=300]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chainedCalls } from "../driver/code-latency.mjs";
import { rawClient } from "../driver/raw-client.mjs";
import { buildBenchWorker, startServer } from "../driver/server-process.mjs";

const HZ = 2_000;
/** First match wins, so the order is the attribution. */
const CATEGORIES = [
  ["the run's sandbox Worker built (makeWorkerImpl)", /makeWorkerImpl/],
  [
    "garbage collection",
    /Heap::|Scavenge|MarkCompact|ConcurrentMarking|Sweeper|MinorMS|IncrementalMarking/,
  ],
  ["lazy compilation", /CompileLazy|Compiler::Compile|Parser::/],
  ["compression", /deflate|Deflate|gzip|zlib|Gzip|brotli/],
  ["JSON", /JsonStringif|JsonParse|JSON::/],
  ["RPC machinery and what runs in it", /JsRpc|capnp::|ValueSerializer|ValueDeserializer/],
  ["HTTP", /Http/],
  ["system calls", /do_syscall|entry_SYSCALL/],
];

const [side = "ours", tools = "5", chained = "1", callsText = "300"] = process.argv.slice(2);
const calls = Number(callsText);
const dir = mkdtempSync(join(tmpdir(), "code-perf-"));
const data = join(dir, "perf.data");
const built = await buildBenchWorker();
const server = await startServer({ label: "code-perf", dir: built.dir });
try {
  const framing = side === "anchor" ? "2025-11-25" : "2026-07-28";
  const client = rawClient(framing, `${server.base}/${side}/code/${tools}`);
  const code = chainedCalls(Number(chained));
  for (let i = 0; i < 50; i++) await client.call("code", code);
  const [pid] = server.workerdPids();
  const perf = spawn(
    "perf",
    ["record", "-q", "-F", String(HZ), "-g", "-p", String(pid), "-o", data],
    {
      stdio: "inherit",
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (let i = 0; i < calls; i++) {
    const r = await client.call("code", code);
    if (!r.ok) throw new Error(`call failed: ${r.text.slice(0, 300)}`);
  }
  perf.kill("SIGINT");
  await new Promise((resolve) => perf.once("exit", resolve));
  const script = execFileSync("perf", ["script", "-i", data, "-F", "comm,tid,ip,sym"], {
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();
  const counts = new Map();
  let total = 0;
  // One sample: a header line (`workerd <tid>`), then one frame per indented line.
  for (const sample of script.split(/\n(?=\S)/)) {
    if (!sample.trim()) continue;
    total++;
    const found = CATEGORIES.find(([, pattern]) => pattern.test(sample))?.[0] ?? "the rest";
    counts.set(found, (counts.get(found) ?? 0) + 1);
  }
  const perCall = (n) => ((n / HZ) * 1_000) / calls;
  console.log(
    `${side}, ${tools} tools, ${chained} call(s): workerd ${perCall(total).toFixed(2)} ms CPU per call`,
  );
  for (const [name, n] of [...counts].toSorted((a, b) => b[1] - a[1]))
    console.log(
      `${((n / total) * 100).toFixed(1).padStart(5)}% ${perCall(n).toFixed(2)} ms  ${name}`,
    );
} finally {
  await server.stop();
  built.remove();
  rmSync(dir, { recursive: true, force: true });
}
