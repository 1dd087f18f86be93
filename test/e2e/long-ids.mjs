// Issue #40, "Host work bounded by what a program controls" (a client's share): 60 MCP POSTs
// whose JSON-RPC id is a 3 MiB string, each body under the front's caps. Every one is refused
// with the JSON-RPC -32600 error that names the id limit (src/mcp/common/json-shape.ts). Then 60
// with a short id and the 3 MiB as an argument, each served. In both phases the host runtime's
// resident memory grows by less than 4× the 16 MiB of bodies it takes between two of its
// collections (src/app/host-collection.ts), however many bodies come.
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
import { check, MCP_POST_HEADERS } from "./support/server.mjs";

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
 * One MCP POST of `method` carrying 3 MiB: as its id (`where` "id"), or as an argument with a
 * short id ("argument"); its status and answer text.
 * @param {string} url
 * @param {string} method
 * @param {number} n
 * @param {"id" | "argument"} where
 */
async function post(url, method, n, where) {
  const big = `${n}`.padEnd(ID_CHARS, "x");
  const args = where === "argument" ? { code: "1", pad: big } : { code: "1" };
  const params = method === "tools/call" ? { name: "search", arguments: args } : {};
  if (method !== "tools/call" && where === "argument") Object.assign(params, { pad: big });
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: MCP_POST_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: where === "id" ? big : n, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * Whether an answer is the one expected: the id refusal, or (3 MiB as an argument) the call's
 * own answer.
 * @param {"id" | "argument"} where
 * @param {{ status: number, text: string }} answer
 */
function expected(where, { status, text }) {
  if (where === "id") return status === 400 && text.length < 2_000 && /JSON-RPC id/.test(text);
  return status === 200 && !/"error"/.test(text.slice(0, 2_000));
}

/** The phases: 3 MiB as the id (refused), then as an argument (served). */
const PHASES = /** @type {const} */ (["id", "argument"]);

await withServerUnderLoad(
  {},
  async ({ url, output }) => {
    const host = activeWorkerd(output());
    /** @type {string[]} */
    const problems = [];
    for (const [phase, where] of PHASES.entries()) {
      // One call first, so what the host holds for serving at all is in the baseline.
      const first = await post(url, "ping", 0, where).catch((error) => ({
        status: 0,
        text: String(error),
      }));
      const before = rssMiB(host);
      let peak = before;
      /** @type {string[]} */
      const other = expected(where, first) ? [] : [`${first.status} ${first.text.slice(0, 160)}`];
      for (let n = 1; n < POSTS; n++) {
        const answer = await post(url, n % 2 === 0 ? "ping" : "tools/call", n, where);
        peak = Math.max(peak, rssMiB(host));
        if (!expected(where, answer)) other.push(`${answer.status} ${answer.text.slice(0, 160)}`);
      }
      // Before the next phase, a moment for the collection the host schedules after bodies
      // (src/app/host-collection.ts), so that phase's baseline holds none of this one's garbage.
      // After the last, none: what the host holds then is printed, never checked (3 s saved).
      const last = phase === PHASES.length - 1;
      if (!last) await new Promise((r) => setTimeout(r, 3_000));
      const after = rssMiB(host);
      console.log(
        `${POSTS} POSTs with 3 MiB as the ${where}: ${POSTS - other.length} answered as expected; host RSS ${before} MiB before, peak ${peak} MiB, ${after} MiB ${last ? "at once after" : "3 s after"} (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
      );
      if (other.length > 0)
        problems.push(`${where}: ${other.length} other answers: ${other.slice(0, 3).join(" | ")}`);
      // 4× the bodies the host takes between two collections (src/app/host-collection.ts,
      // COLLECT_EVERY_BODY_BYTES: 16 MiB): a body leaves ~2× its bytes of garbage, and V8 keeps
      // some pages after a collection. Measured +4 (id) and +40 MiB (argument) at load 14;
      // before, +359 and +376 MiB.
      const bound = 64;
      if (peak - before >= bound)
        problems.push(
          `${where}: the host grew ${peak - before} MiB over ${POSTS} bodies (bound ${bound} MiB: 4× the 16 MiB of bodies between two collections)`,
        );
    }
    check(problems.length === 0, problems.join("\n"));
  },
  BUSY,
).then(() => console.log("long-ids: ok"));
