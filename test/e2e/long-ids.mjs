// Issue #40, "Host work bounded by what a program controls" (a client's share): 60 MCP POSTs
// whose JSON-RPC id is a 3 MiB string, each body under the front's caps. Every one is refused
// with the JSON-RPC -32600 error that names the id limit (src/mcp/common/json-shape.ts), and the
// host runtime's resident memory grows by less than 3× the bytes of one body over the whole run.
//
// Before, each id was parsed, echoed in the answer and copied on the way, and each body's garbage
// (~2× its bytes) waited for a collection counted by requests (every 250): 60 such POSTs grew the
// host runtime 127 → 486 MiB (bench/README.md, "Long JSON-RPC ids"; a 3 MiB argument instead of
// the id grew it as much, which the collection every 16 MiB of bodies now bounds).
//
// LONG_IDS_BUSY (default 0) busy processes spin beside the server, as in the other load scripts.
import { readFileSync } from "node:fs";
import { withServerUnderLoad } from "./support/busy-load.mjs";
import { activeWorkerd } from "./support/processes.mjs";
import { check } from "./support/server.mjs";

const POSTS = 60;
const ID_CHARS = 3 * 1_048_576;
const BUSY = Number(process.env.LONG_IDS_BUSY ?? "0");
check(
  Number.isInteger(BUSY) && BUSY >= 0 && BUSY <= 8,
  `LONG_IDS_BUSY must be a whole number from 0 to 8; got "${process.env.LONG_IDS_BUSY}"`,
);

/**
 * The resident memory of one process, in MiB.
 * @param {number} pid
 */
function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

/**
 * One MCP POST of `method` with the 3 MiB id; its status and answer text.
 * @param {string} url
 * @param {string} method
 * @param {number} n
 */
async function post(url, method, n) {
  const id = `${n}`.padEnd(ID_CHARS, "x");
  const params = method === "tools/call" ? { name: "search", arguments: { code: "1" } } : {};
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, text: await res.text() };
}

await withServerUnderLoad(
  {},
  async ({ url, output }) => {
    const host = activeWorkerd(output());
    // One ordinary call first, so what the host holds for serving at all is in the baseline.
    const warm = await post(url, "ping", 0).catch((error) => ({ status: 0, text: String(error) }));
    const before = rssMiB(host);
    let peak = before;
    /** @type {string[]} */
    const other = [];
    let refused = warm.status === 400 ? 1 : 0;
    for (let n = 1; n < POSTS; n++) {
      const { status, text } = await post(url, n % 2 === 0 ? "ping" : "tools/call", n);
      peak = Math.max(peak, rssMiB(host));
      if (status === 400 && text.length < 2_000 && /JSON-RPC id/.test(text)) refused++;
      else other.push(`${status} ${text.slice(0, 160)}`);
    }
    if (warm.status !== 400) other.unshift(`${warm.status} ${warm.text.slice(0, 160)}`);
    // A moment for the collection the host schedules after bodies (src/app/host-collection.ts).
    await new Promise((r) => setTimeout(r, 3_000));
    const after = rssMiB(host);
    console.log(
      `${POSTS} POSTs with ${ID_CHARS / 1_048_576} MiB ids: ${refused} refused; host RSS ${before} MiB before, peak ${peak} MiB, ${after} MiB after (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
    );
    check(other.length === 0, `${other.length} other answers: ${other.slice(0, 3).join(" | ")}`);
    const bound = Math.round((3 * ID_CHARS) / 1_048_576);
    check(
      peak - before < bound,
      `the host grew ${peak - before} MiB over ${POSTS} bodies (bound ${bound} MiB: 3× one body)`,
    );
  },
  BUSY,
).then(() => console.log("long-ids: ok"));
