// MCP clients for the load scripts (issue #28): a connect helper that can take the legacy lane
// (whose answers are event streams) and note each answer's media type, timed tool calls that
// never throw, and the "second client" that polls a trivial `search` every 100 ms and reports
// its longest wait.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { text } from "./programs.mjs";

/** A `search` that needs nothing but the sandbox: its wait measures the server, not the work. */
export const TRIVIAL_SEARCH = "async () => 1 + 1";

/**
 * @typedef {{ ok: boolean, ms: number, text: string, isError: boolean, thrown?: string, startedAt: number, endedAt: number }} Outcome
 * @typedef {{ client: Client, streamed: () => number, answers: () => number }} Connected
 */

/**
 * Connects an SDK v2 client to `url` + `path`. `legacy` makes it take the 2025 lane
 * (`initialize`, answers as event streams) instead of the 2026-07-28 one (JSON answers).
 * @param {string} url
 * @param {{ legacy?: boolean, path?: string, name?: string }} [options]
 * @returns {Promise<Connected>}
 */
export async function connect(url, options = {}) {
  const counts = { streamed: 0, answers: 0 };
  /** @type {typeof fetch} */
  const counting = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === "POST") {
      counts.answers++;
      if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream"))
        counts.streamed++;
    }
    return res;
  };
  const client = new Client(
    { name: options.name ?? "e2e-load", version: "1.0.0" },
    { versionNegotiation: { mode: options.legacy ? "legacy" : "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${options.path ?? "/mcp"}`), {
      fetch: counting,
    }),
  );
  return { client, streamed: () => counts.streamed, answers: () => counts.answers };
}

/**
 * Calls a tool and times it; never throws (a thrown error becomes `thrown`).
 * @param {Client} client
 * @param {string} tool
 * @param {string} code
 * @param {number} [timeoutMs] - the client's own request timeout
 * @returns {Promise<Outcome>}
 */
export async function timedCall(client, tool, code, timeoutMs = 120_000) {
  const startedAt = Date.now();
  try {
    const result = await client.callTool(
      { name: tool, arguments: { code } },
      { timeout: timeoutMs },
    );
    const endedAt = Date.now();
    const isError = result.isError === true;
    return {
      ok: !isError,
      ms: endedAt - startedAt,
      text: text(result),
      isError,
      startedAt,
      endedAt,
    };
  } catch (error) {
    const endedAt = Date.now();
    const thrown = /** @type {Error} */ (error).message;
    return {
      ok: false,
      ms: endedAt - startedAt,
      text: "",
      isError: false,
      thrown,
      startedAt,
      endedAt,
    };
  }
}

/**
 * The second client: from now until `stop()`, a trivial `search` every 100 ms (after the
 * previous one answered). `stop()` resolves to how many answered, the longest wait and the
 * failures (an answer other than "2", or none); `longestWithin` tells when the long waits were.
 * @param {string} url
 */
export async function pollSearch(url) {
  const { client } = await connect(url, { name: "e2e-poller" });
  const state = { running: true };
  // When the call under way started (0: none).
  const pending = { at: 0 };
  /** @type {{ at: number, ms: number }[]} */
  const samples = [];
  /** @type {string[]} */
  const failures = [];
  const loop = (async () => {
    while (state.running) {
      pending.at = Date.now();
      const outcome = await timedCall(client, "search", TRIVIAL_SEARCH, 60_000);
      pending.at = 0;
      samples.push({ at: outcome.startedAt, ms: outcome.ms });
      if (!outcome.ok || outcome.text !== "2")
        failures.push(`after ${outcome.ms} ms: ${outcome.thrown ?? outcome.text.slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    /** The longest wait so far (ms). */
    longest: () => Math.max(0, ...samples.map((s) => s.ms)),
    /** How many searches have ended so far, and how many of them failed. */
    ended: () => ({ calls: samples.length, failed: failures.length }),
    /**
     * The longest wait of a call that overlapped [from, to] (ms since the epoch), one still
     * waiting included.
     * @param {number} from
     * @param {number} to
     */
    longestWithin: (from, to) => {
      const waiting = pending.at !== 0 && pending.at <= to ? [Date.now() - pending.at] : [];
      const overlapping = samples.filter((s) => s.at + s.ms >= from && s.at <= to);
      return Math.max(0, ...waiting, ...overlapping.map((s) => s.ms));
    },
    /**
     * The median wait of the calls that overlapped [from, to] (ms since the epoch).
     * @param {number} from
     * @param {number} to
     */
    p50Within: (from, to) => {
      const waits = samples
        .filter((s) => s.at + s.ms >= from && s.at <= to)
        .map((s) => s.ms)
        .toSorted((a, b) => a - b);
      return waits[Math.floor(waits.length / 2)] ?? 0;
    },
    stop: async () => {
      state.running = false;
      await loop;
      await client.close().catch(() => {});
      const sorted = samples.map((s) => s.ms).toSorted((a, b) => a - b);
      return {
        calls: sorted.length,
        longestMs: sorted.at(-1) ?? 0,
        p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
        failures,
      };
    },
  };
}
