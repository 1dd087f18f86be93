/**
 * A CPU profile of the host workerd (the Worker serving MCP) under `calls` calls of one kind
 * through the public port (issue #43): where the host's CPU per call goes. Opens workerd's
 * inspector (WORKERD_INSPECTOR_PORT, diagnostics only: never on a shared machine's open ports;
 * it listens on 127.0.0.1 for the few seconds of the run), takes a V8 CPU profile over the calls
 * and prints the functions with the most self time and the most total time.
 *
 *   node bench/diagnostics/profile-host.mjs ping|execute|search [calls=500] [out.cpuprofile]
 */
import { writeFileSync } from "node:fs";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { call, startLocal } from "../driver/local/local-server.mjs";
import { rawToolCall } from "../driver/raw-client.mjs";

const [what = "ping", callsText = "500", out] = process.argv.slice(2);
const calls = Number(callsText);
const base = await freePort();
const server = await startLocal(3, { WORKERD_INSPECTOR_PORT: String(base) });
try {
  /** @type {string | undefined} */
  let socket;
  for (let port = base; port < base + 8 && !socket; port++) {
    try {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      const host = list.find((/** @type {any} */ t) =>
        String(t.title ?? "").endsWith("core:user:code-mode-mcp"),
      );
      if (host) socket = host.webSocketDebuggerUrl;
      else console.error(`port ${port}: ${list.map((/** @type {any} */ t) => t.title).join(", ")}`);
    } catch {
      // not a runtime's inspector
    }
  }
  if (!socket) throw new Error("no inspector lists the host Worker");
  const ws = new WebSocket(socket);
  await new Promise((r, j) => {
    ws.addEventListener("open", r, { once: true });
    ws.addEventListener("error", j, { once: true });
  });
  let next = 0;
  /** @type {Map<number, (v: any) => void>} */
  const waiting = new Map();
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  });
  const send = (/** @type {string} */ method, /** @type {object} */ params = {}) =>
    new Promise((r) => {
      const id = ++next;
      waiting.set(id, r);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const one = async (/** @type {number} */ id) => {
    if (what !== "search") return call(server.public, id, /** @type {any} */ (what));
    const { headers, body } = rawToolCall("2026-07-28", id, "search", {
      code: "async () => Object.keys((await codemode.spec()).paths).length",
    });
    const res = await fetch(`${server.public}/mcp`, { method: "POST", headers, body });
    await res.text();
  };
  for (let i = 0; i < 100; i++) await one(i);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  for (let i = 0; i < calls; i++) await one(1000 + i);
  const { profile } = /** @type {any} */ (await send("Profiler.stop"));
  ws.close();
  if (out) writeFileSync(out, JSON.stringify(profile));
  summarize(profile);
} finally {
  await server.stop();
}

/** Prints the top functions by self and by total time. @param {any} profile */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((/** @type {any} */ n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** @type {Map<number, number>} */
  const hits = new Map();
  for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
  const total = profile.samples.length;
  const name = (/** @type {any} */ n) =>
    `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
  /** @type {Map<string, number>} */
  const self = new Map();
  /** @type {Map<string, number>} */
  const inclusive = new Map();
  for (const [id, count] of hits) {
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = name(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + count);
    }
  }
  const ms = (profile.endTime - profile.startTime) / 1000;
  console.log(`${total} samples over ${Math.round(ms)} ms, ${calls} calls`);
  const top = (/** @type {Map<string, number>} */ m, n) =>
    [...m].toSorted((a, b) => b[1] - a[1]).slice(0, n);
  console.log("--- self");
  for (const [k, v] of top(self, 40)) console.log(`${((v / total) * 100).toFixed(1)}% ${k}`);
  console.log("--- total");
  for (const [k, v] of top(inclusive, 70)) console.log(`${((v / total) * 100).toFixed(1)}% ${k}`);
}
