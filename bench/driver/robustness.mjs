/**
 * The robustness probes (the foundation issue's list) and how each ends: the tool call's
 * outcome, its time, and whether the server still answers a trivial run afterwards.
 */
import { connect } from "./clients.mjs";
import { ALIVE } from "./programs.mjs";

/** Probes that hang the anchor's whole workerd: run last, in a throwaway process. */
export const RUNAWAY = new Set(["while(true){}", "for(;;){}"]);

/** The probes, in the order they run (runaways last). */
export const PROBES = [
  { name: "syntax error", code: "async () => { return 1 +; }" },
  { name: "thrown error", code: 'async () => { throw new Error("boom"); }' },
  {
    name: "failing host function",
    code: 'async () => { return await codemode.request({ method: "GET", path: "/accounts" }); }',
  },
  {
    name: 'fetch("http://127.0.0.1:1")',
    code: 'async () => { const r = await fetch("http://127.0.0.1:1"); return "fetched " + r.status; }',
  },
  {
    name: "Object.prototype pollution",
    code: 'async () => { Object.prototype.polluted = "yes"; return ({}).polluted; }',
    // The pollution is contained when the next run does not see it.
    check: 'async () => ({}).polluted ?? "clean"',
  },
  {
    name: "unbounded recursion",
    code: "async () => { const f = (n) => f(n + 1) + 1; return f(0); }",
  },
  { name: "await new Promise(() => {})", code: "async () => { await new Promise(() => {}); }" },
  { name: "50 MB string result", code: 'async () => "x".repeat(50 * 1024 * 1024)' },
  {
    name: "16 parallel runs",
    parallel: 16,
    code: "async () => { let s = 0; for (let i = 0; i < 1e5; i++) s += i; return s; }",
  },
  { name: "while(true){}", code: "async () => { while (true) {} }" },
  { name: "for(;;){}", code: "async () => { for (;;) {} }" },
];

function brief(r) {
  const text = (r.failure ?? r.text).replace(/\s+/g, " ").trim();
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

/**
 * Whether a trivial run still answers "2".
 * @param {"ours" | "anchor"} side
 * @param {string} url
 * @param {number} timeoutMs
 */
export async function answers(side, url, timeoutMs) {
  try {
    const client = await Promise.race([
      connect(side, url),
      new Promise((_, reject) => setTimeout(() => reject(new Error("connect timeout")), timeoutMs)),
    ]);
    const r = await client.call("execute", ALIVE, timeoutMs);
    void client.close();
    return r.ok && r.text.trim() === "2";
  } catch {
    return false;
  }
}

/**
 * Runs one probe against `url` (an OpenAPI endpoint) and checks the server afterwards.
 * @param {"ours" | "anchor"} side
 * @param {string} url
 * @param {(typeof PROBES)[number]} probe
 * @param {{ timeoutMs: number }} options
 */
export async function runProbe(side, url, probe, { timeoutMs }) {
  let client;
  try {
    client = await connect(side, url);
  } catch (error) {
    return {
      probe: probe.name,
      outcome: "server down",
      detail: String(error).slice(0, 140),
      ms: 0,
      answersAfter: false,
    };
  }
  let outcome;
  let detail;
  let ms;
  if (probe.parallel) {
    const results = await Promise.all(
      Array.from({ length: probe.parallel }, () => client.call("execute", probe.code, timeoutMs)),
    );
    const ok = results.filter((r) => r.ok).length;
    ms = Math.max(...results.map((r) => r.ms));
    outcome = ok === results.length ? "all ok" : `${ok}/${results.length} ok`;
    detail = results.find((r) => !r.ok) ? brief(results.find((r) => !r.ok)) : "";
  } else {
    const r = await client.call("execute", probe.code, timeoutMs);
    ms = r.ms;
    outcome = r.failure ? "no answer" : r.ok ? "ok" : "error result";
    detail = brief(r);
    if (probe.check && !r.failure) {
      const after = await client.call("execute", probe.check, timeoutMs);
      outcome = after.text.includes("clean")
        ? "contained (next run clean)"
        : "LEAKED into next run";
      detail = `${detail} → next run: ${brief(after)}`;
    }
  }
  void client.close();
  const answersAfter = await answers(side, url, Math.min(timeoutMs, 15_000));
  if (!answersAfter && outcome === "no answer") outcome = "server down";
  return { probe: probe.name, outcome, detail, ms: Math.round(ms), answersAfter };
}
