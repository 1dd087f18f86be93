/**
 * `npx node bench/diagnostics/p7-split.mjs [rounds]`: where P7's time goes, one `code` call making one
 * upstream call at 5 tools, on a fresh bench server. A diagnostic, not part of `npm run bench`.
 *
 * SDK rows: the MCP client library's call, split into the HTTP exchange (the transport's `fetch`,
 * wrapped and timed to the last body byte) and the client's own work around it (total − fetch).
 * Raw rows: one `fetch` of the same request framing, no MCP library (raw-client.mjs), with the
 * driver's default `Accept-Encoding` and with `identity`: the dev server (Miniflare's entry
 * Worker) gzips compressible answers the way Cloudflare's edge does, and `application/json` is
 * compressible while `text/event-stream` is not. All rows are interleaved, order alternating.
 */
import { loadavg } from "node:os";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chainedCalls } from "../driver/code-latency.mjs";
import { rawToolCall } from "../driver/raw-client.mjs";
import { buildBenchWorker, startServer } from "../driver/server-process.mjs";
import { p50 } from "../driver/stats.mjs";

const rounds = Number(process.argv[2] ?? 100);
const code = chainedCalls(1);
const INFO = { name: "code-mode-bench", version: "1.0.0" };

/** A fetch that records the time of each exchange, body included, in `spent`. */
function timedFetch(spent) {
  return async (url, init) => {
    const started = performance.now();
    const response = await fetch(url, init);
    const body = await response.arrayBuffer();
    spent.push(performance.now() - started);
    // The body is already decoded: drop the header that says it is compressed.
    const headers = new Headers(response.headers);
    headers.delete("content-encoding");
    return new Response(body, { status: response.status, headers });
  };
}

async function sdkSide(kind, url) {
  const spent = [];
  const fetch = timedFetch(spent);
  const client =
    kind === "v2"
      ? new V2Client(INFO, { versionNegotiation: { mode: "auto" } })
      : new V1Client(INFO);
  const transport =
    kind === "v2"
      ? new V2Transport(new URL(url), { fetch })
      : new V1Transport(new URL(url), { fetch });
  await client.connect(transport);
  return {
    close: () => client.close(),
    async run() {
      spent.length = 0;
      const started = performance.now();
      const result = await client.callTool({ name: "code", arguments: { code } });
      const total = performance.now() - started;
      const text = result.content?.[0]?.text ?? "";
      if (!text.includes("start-0")) throw new Error(`${url}: ${JSON.stringify(result)}`);
      return { total, fetch: spent.reduce((a, b) => a + b, 0) };
    },
  };
}

function rawSide(framing, url, encoding) {
  let id = 0;
  return {
    close: async () => {},
    async run() {
      const { headers, body } = rawToolCall(framing, id++, "code", { code });
      if (encoding) headers["accept-encoding"] = encoding;
      const started = performance.now();
      const response = await fetch(url, { method: "POST", headers, body });
      const text = await response.text();
      const total = performance.now() - started;
      if (!text.includes("start-0")) throw new Error(`${url}: ${text.slice(0, 300)}`);
      return { total, fetch: total };
    },
  };
}

const built = await buildBenchWorker();
const server = await startServer({ label: "p7-split", dir: built.dir });
const ours = `${server.base}/ours/code/5`;
const anchor = `${server.base}/anchor/code/5`;
const sides = {
  "SDK v2 client -> ours (2026-07-28, JSON)": await sdkSide("v2", ours),
  "SDK v1 client -> ours (2025-11-25, SSE)": await sdkSide("v1", ours),
  "SDK v1 client -> anchor (2025-11-25, JSON)": await sdkSide("v1", anchor),
  "raw -> ours 2026-07-28 (JSON, gzip)": rawSide("2026-07-28", ours),
  "raw -> ours 2026-07-28 (JSON, identity)": rawSide("2026-07-28", ours, "identity"),
  "raw -> ours 2025-11-25 (SSE, not compressed)": rawSide("2025-11-25", ours),
  "raw -> anchor 2025-11-25 (JSON, gzip)": rawSide("2025-11-25", anchor),
  "raw -> anchor 2025-11-25 (JSON, identity)": rawSide("2025-11-25", anchor, "identity"),
};
const samples = Object.fromEntries(Object.keys(sides).map((k) => [k, { total: [], fetch: [] }]));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
const before = load();
try {
  for (let round = -10; round < rounds; round++) {
    const names = Object.keys(sides);
    for (const name of round % 2 === 0 ? names : names.toReversed()) {
      const r = await sides[name].run();
      if (round < 0) continue;
      samples[name].total.push(r.total);
      samples[name].fetch.push(r.fetch);
    }
  }
} finally {
  await Promise.all(Object.values(sides).map((s) => s.close()));
  await server.stop();
  built.remove();
}
const f = (x) => x.toFixed(2).padStart(6);
console.log(`p50 ms over ${rounds} rounds; load before ${before}, after ${load()}`);
console.log("  total   fetch  client  side");
for (const [name, s] of Object.entries(samples)) {
  const own = s.total.map((t, i) => t - s.fetch[i]);
  console.log(`${f(p50(s.total))}  ${f(p50(s.fetch))}  ${f(p50(own))}  ${name}`);
}
