/**
 * `npx node bench/diagnostics/client-profile.mjs [calls]`: the CPU the MCP client libraries spend per
 * `code` call, in this Node process, which is why P7 judges the servers with one client on both
 * sides. A diagnostic, not part of `npm run bench`.
 *
 * One fresh bench server; the SDK v2 client calls ours (2026-07-28), the SDK v1 client calls the
 * anchor (2025-era), each warmed by 100 calls, then profiled over `calls` calls with V8's
 * sampling profiler (`node:inspector`, 20 µs). Prints wall time per call, the client process's
 * busy time per call (every sample that is not idle), and where it went, by package.
 */
import { Session } from "node:inspector/promises";
import { Client as V2Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chainedCalls } from "../driver/code-latency.mjs";
import { buildBenchWorker, startServer } from "../driver/server-process.mjs";

const calls = Number(process.argv[2] ?? 400);
const code = chainedCalls(1);
const INFO = { name: "code-mode-bench", version: "1.0.0" };

/** Where a sample's time goes: a package name, a Node internal, or V8's own bucket. */
function bucket(url, functionName) {
  if (url.includes("node_modules/")) {
    const parts = url.split("node_modules/").at(-1).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith("node:")) return url;
  return url === "" ? functionName || "(anonymous)" : "(this script)";
}

async function profile(session, client) {
  for (let i = 0; i < 100; i++) await client.callTool({ name: "code", arguments: { code } });
  await session.post("Profiler.start");
  const started = performance.now();
  for (let i = 0; i < calls; i++) await client.callTool({ name: "code", arguments: { code } });
  const wall = (performance.now() - started) / calls;
  const { profile: p } = await session.post("Profiler.stop");
  const nodes = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const spent = new Map();
  p.samples.forEach((id, i) => {
    const frame = nodes.get(id);
    const key = bucket(frame.url, frame.functionName);
    spent.set(key, (spent.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const idle = spent.get("(idle)") ?? 0;
  spent.delete("(idle)");
  const busy = [...spent.values()].reduce((a, b) => a + b, 0);
  return { wall, busy: busy / 1000 / calls, spent, idle };
}

const built = await buildBenchWorker();
const server = await startServer({ label: "client-profile", dir: built.dir });
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 20 });
const sides = [
  [
    "SDK v2 client -> ours (2026-07-28)",
    new V2Client(INFO, { versionNegotiation: { mode: "auto" } }),
    (u) => new StreamableHTTPClientTransport(u),
    "ours",
  ],
  ["SDK v1 client -> anchor (2025-11-25)", new V1Client(INFO), (u) => new V1Transport(u), "anchor"],
];
try {
  for (const [label, client, transport, prefix] of sides) {
    await client.connect(transport(new URL(`${server.base}/${prefix}/code/5`)));
    const r = await profile(session, client);
    await client.close();
    console.log(
      `${label}: ${r.wall.toFixed(2)} ms a call, client busy ${r.busy.toFixed(2)} ms a call`,
    );
    for (const [key, us] of [...r.spent].toSorted((a, b) => b[1] - a[1]).slice(0, 8))
      console.log(`  ${(us / 1000 / calls).toFixed(3).padStart(6)} ms  ${key}`);
  }
} finally {
  session.disconnect();
  await server.stop();
  built.remove();
}
