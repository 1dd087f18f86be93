// Issue #40, "starting is not stopping": the front listens before any runtime is ready, and it
// used to answer every request in that window `503 "the server is stopping"` (an MCP POST got
// that non-JSON-RPC body): scripts that waited for the port to open failed their first calls.
// Here an MCP POST (`initialize`) is sent every 100 ms from the moment `npm start` is run until
// the server has answered one: no answer may say the server is stopping; each is the request's
// own answer (once the first host is ready: the requests wait for it), or a JSON-RPC error that
// says the server is starting.
//
// With an empty cache folder (XDG_CACHE_HOME of its own): a warm start reads its kept workerd
// configurations and the window before the first runtime is ready can be shorter than the
// requests' spacing, so the script could not tell it was exercised. A first start (nothing kept:
// the configurations are built) is the start whose window every new user meets.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, spawnServer } from "./support/server.mjs";

const EVERY_MS = 100;
const DEADLINE_MS = 180_000;

const cache = mkdtempSync(join(tmpdir(), "codemode-e2e-cache-"));
process.on("exit", () => rmSync(cache, { recursive: true, force: true }));
const server = await spawnServer({ XDG_CACHE_HOME: cache });
const { port } = server;
const output = server.output;

/** @type {{ n: number, status: number, body: string, ms: number }[]} */
const answers = [];
let refused = 0;
/** @param {number} n */
const send = async (n) => {
  const sent = Date.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: n,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "e2e-starting", version: "1.0.0" },
        },
      }),
      signal: AbortSignal.timeout(120_000),
    });
    answers.push({ n, status: res.status, body: await res.text(), ms: Date.now() - sent });
  } catch (error) {
    // Before the front listens the port refuses: that is not an answer.
    if (/ECONNREFUSED/.test(String(/** @type {any} */ (error)?.cause?.code ?? error))) refused++;
    else answers.push({ n, status: 0, body: String(error), ms: Date.now() - sent });
  }
};

try {
  const started = Date.now();
  /** @type {Promise<void>[]} */
  const inFlight = [];
  for (let n = 1; Date.now() - started < DEADLINE_MS; n++) {
    inFlight.push(send(n));
    if (answers.some((a) => a.status === 200)) break;
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
  await Promise.all(inFlight);
  const stopping = answers.filter((a) => /stopping/i.test(a.body));
  const wrong = answers.filter(
    (a) =>
      !(
        (a.status === 200 && /"result"/.test(a.body) && /"protocolVersion"/.test(a.body)) ||
        (/"jsonrpc"/.test(a.body) && /"error"/.test(a.body) && /starting/i.test(a.body))
      ),
  );
  const waited = answers.filter((a) => a.status === 200 && a.ms > 500);
  console.log(
    `e2e starting: ${inFlight.length} POSTs from the start: ${refused} refused before the port opened, ${answers.length} answered (${waited.length} of them waited for the first runtime, up to ${Math.max(0, ...answers.map((a) => a.ms))} ms)`,
  );
  check(stopping.length === 0, `answers said "stopping":\n${stopping[0]?.body}`);
  check(
    wrong.length === 0,
    `answers that were neither the request's own nor a JSON-RPC "starting" error:\n${wrong
      .slice(0, 3)
      .map((a) => `${a.status} ${a.body.slice(0, 300)}`)
      .join("\n")}`,
  );
  check(
    waited.length > 0,
    `no request was answered from before the runtime was ready:\n${output()}`,
  );
  console.log("e2e starting: no request sent while starting heard 'stopping' — ok");
} finally {
  await server.stop();
}
