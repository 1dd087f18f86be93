/**
 * A CPU profile of the bench Worker under P7's calls (issue #43): where one `code` call's time
 * goes in the workerd that serves both sides, ours (`/ours/code/<n>`) or the anchor's
 * (`/anchor/code/<n>`), driven by P7's raw JSON-RPC client. Opens workerd's inspector
 * (BENCH_INSPECTOR_PORT, diagnostics only: 127.0.0.1, for the few seconds of the run), takes a
 * V8 CPU profile of the Worker's isolate over the calls and prints the functions with the most
 * self and total time. Sandbox isolates are not in it (each run's is its own isolate).
 *
 *   npx node bench/diagnostics/profile-code.mjs ours|anchor [tools=5] [chained=1] [calls=400] [out]
 */
import { writeFileSync } from "node:fs";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { chainedCalls } from "../driver/code-latency.mjs";
import { inspectorSession } from "./inspector-session.mjs";
import { summarizeProfile } from "./profile-summary.mjs";
import { rawClient } from "../driver/raw-client.mjs";

const [side = "ours", tools = "5", chained = "1", callsText = "400", out] = process.argv.slice(2);
const calls = Number(callsText);
const inspector = await freePort();
process.env["BENCH_INSPECTOR_PORT"] = String(inspector);
// Imported after the port is set: the server's environment is read when its module loads.
const { buildBenchWorker, startServer } = await import("../driver/server-process.mjs");
const built = await buildBenchWorker();
const server = await startServer({ label: "profile", dir: built.dir });
try {
  const list = await (await fetch(`http://127.0.0.1:${inspector}/json/list`)).json();
  const target = list.find((/** @type {any} */ t) =>
    String(t.title ?? "").endsWith("code-mode-bench"),
  );
  if (!target) throw new Error(`no bench Worker among: ${list.map((t) => t.title).join(", ")}`);
  const { send, close } = await inspectorSession(target.webSocketDebuggerUrl);
  const framing = side === "anchor" ? "2025-11-25" : "2026-07-28";
  const client = rawClient(framing, `${server.base}/${side}/code/${tools}`);
  const code = chainedCalls(Number(chained));
  const one = async () => {
    const r = await client.call("code", code);
    if (!r.ok) throw new Error(`call failed: ${r.text.slice(0, 300)}`);
    return r.ms;
  };
  for (let i = 0; i < 50; i++) await one();
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  const ms = [];
  for (let i = 0; i < calls; i++) ms.push(await one());
  const { profile } = /** @type {any} */ (await send("Profiler.stop"));
  close();
  if (out) writeFileSync(out, JSON.stringify(profile));
  ms.sort((a, b) => a - b);
  console.log(
    `${side} ${tools} tools, ${chained} call(s): p50 ${ms[ms.length >> 1].toFixed(2)} ms`,
  );
  summarizeProfile(profile, calls);
} finally {
  await server.stop();
  built.remove();
}
