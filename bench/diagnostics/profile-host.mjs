/**
 * A CPU profile of the host workerd (the Worker serving MCP) under `calls` calls of one kind
 * through the public port (issue #43): where the host's CPU per call goes. Opens workerd's
 * inspector (WORKERD_INSPECTOR_PORT, diagnostics only: never on a shared machine's open ports;
 * it listens on 127.0.0.1 for the few seconds of the run), takes a V8 CPU profile over the calls
 * and prints the functions with the most self time and the most total time (profile-summary.mjs:
 * shares of the non-idle samples).
 *
 * `deep` and `wide` send a client's heavy `search` arguments (issue #40, client-bodies): a 3.6 MiB
 * body whose `code` is a 1.9-million-level nested array, or a 2.2 MiB one with 200,000 keys in
 * one object (the server refuses both; what it costs the host to get there is the question).
 *
 *   node bench/diagnostics/profile-host.mjs ping|execute|search|deep|wide [calls=500] [out.cpuprofile]
 */
import { writeFileSync } from "node:fs";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { call, startLocal } from "../driver/local/local-server.mjs";
import { rawToolCall } from "../driver/raw-client.mjs";
import { inspectorSession } from "./inspector-session.mjs";
import { summarizeProfile } from "./profile-summary.mjs";

const [what = "ping", callsText = "500", out] = process.argv.slice(2);
const calls = Number(callsText);
const LEVELS = 1_900_000;
const DEEP = "[".repeat(LEVELS) + "]".repeat(LEVELS);
const WIDE = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(",")}}`;
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
  const { send, close } = await inspectorSession(socket);
  const one = async (/** @type {number} */ id) => {
    if (what === "deep" || what === "wide") {
      const { headers, body } = rawToolCall("2026-07-28", id, "search", { code: "HEAVY" });
      const res = await fetch(`${server.public}/mcp`, {
        method: "POST",
        headers,
        body: body.replace('"HEAVY"', what === "deep" ? DEEP : WIDE),
      });
      await res.text();
      return;
    }
    if (what !== "search") return call(server.public, id, /** @type {any} */ (what));
    const { headers, body } = rawToolCall("2026-07-28", id, "search", {
      code: "async () => Object.keys((await codemode.spec()).paths).length",
    });
    const res = await fetch(`${server.public}/mcp`, { method: "POST", headers, body });
    await res.text();
  };
  for (let i = 0; i < (what === "deep" || what === "wide" ? 2 : 100); i++) await one(i);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  for (let i = 0; i < calls; i++) await one(1000 + i);
  const { profile } = /** @type {any} */ (await send("Profiler.stop"));
  close();
  if (out) writeFileSync(out, JSON.stringify(profile));
  summarizeProfile(profile, calls);
} finally {
  await server.stop();
}
