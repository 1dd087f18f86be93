/**
 * One JSON-RPC batch POST of many large programs, and how long it holds the thread (issue #40,
 * branch `code-budget`): `createMcpHandler` over `openApiMcpServer` in plain Node, its executor
 * preparing each program for real (`startRun`: parse, TypeScript retry, instrumentation) and
 * answering without a sandbox. A `setTimeout(0)` probe runs beside the POST; its longest gap is
 * the longest time another request would have waited for the thread. Also printed: the members
 * prepared and refused, and the POST's CPU time. Two trees side by side (bench/support/
 * tree-bundle.mjs): this checkout and a git ref's src/, alternating per round.
 *
 *   npm exec -- node bench/diagnostics/batch-hold.mjs [base ref=HEAD~1] [members=60] [rounds=3]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { bundleTree } from "../support/tree-bundle.mjs";

const [base = "HEAD~1", membersText = "60", roundsText = "3"] = process.argv.slice(2);
const members = Number(membersText);
const rounds = Number(roundsText);
const root = new URL("../..", import.meta.url).pathname;
// Inside the checkout, so the base tree's imports find node_modules and sandbox/ as ours do.
const work = join(root, ".batch-hold");
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, "base"), { recursive: true });
execFileSync("sh", [
  "-c",
  `git -C "${root}" archive "${base}" src sandbox | tar -x -C "${work}/base"`,
]);
const exports = {
  "src/mcp/stateless/create-mcp-handler.ts": ["createMcpHandler"],
  "src/codemode/openapi-mcp-server.ts": ["openApiMcpServer"],
  "src/openapi/openapi-spec.ts": ["loadSpec"],
  "src/executor/run-start.ts": ["startRun"],
  "src/executor/limits.ts": ["DEFAULT_LIMITS"],
};
const trees = {
  [base]: await import(
    await bundleTree(join(work, "base"), exports, join(work, "base.mjs"), {
      platform: "node",
    })
  ),
  here: await import(await bundleTree(root, exports, join(work, "here.mjs"), { platform: "node" })),
};
rmSync(work, { recursive: true, force: true });
const require = createRequire(import.meta.url);
const spec = JSON.parse(
  readFileSync(require.resolve("@readme/oas-examples/3.0/json/petstore.json"), "utf8"),
);

/** A program of `n` characters, new every call (no kept preparation), as a model writes them. */
let made = 0;
function program(n) {
  const tag = made++;
  let body = "";
  for (let i = 0; body.length < n - 60; i++) body += `const a${i} = [${tag}, ${i}, "x${i}"]; `;
  return `async () => { ${body} return 1; }`.slice(0, n);
}

async function round(tree) {
  const executor = {
    limits: tree.DEFAULT_LIMITS,
    execute: async (request) => {
      const started = tree.startRun(request, tree.DEFAULT_LIMITS);
      return {
        status: started.ok ? "ok" : "error",
        result: 1,
        ...(started.ok ? {} : { error: started.outcome.error }),
        logs: [],
        droppedLogs: 0,
        calls: 0,
        truncated: false,
        resultBytes: 1,
        operations: 0,
        durationMs: 0,
      };
    },
  };
  const handler = tree.createMcpHandler(
    tree.openApiMcpServer({
      spec: tree.loadSpec(spec),
      executor,
      request: () => ({ status: 200, body: {} }),
    }),
  );
  const size = tree.DEFAULT_LIMITS.maxCodeChars - 100;
  const body = JSON.stringify(
    Array.from({ length: members }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "execute", arguments: { code: program(size) } },
    })),
  );
  let longest = 0;
  let last = performance.now();
  let probing = true;
  const probe = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (probing) setTimeout(probe, 0);
  };
  setTimeout(probe, 0);
  const cpu = process.cpuUsage();
  const response = await handler(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-03-26",
      },
      body,
    }),
    {},
    { waitUntil() {}, passThroughOnException() {}, props: {} },
  );
  const text = await response.text();
  const used = process.cpuUsage(cpu);
  probing = false;
  // A POST served without one turn of the event loop never let the probe run: its whole time.
  longest = Math.max(longest, performance.now() - last);
  const refused = (text.match(/programs may hold/g) ?? []).length;
  const answered = (text.match(/"jsonrpc"/g) ?? []).length;
  return { longest, refused, answered, cpuMs: (used.user + used.system) / 1000 };
}

console.log(
  `batch of ${members} execute calls, ~64 KiB each; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? [base, "here"] : ["here", base];
  for (const name of order) {
    const { longest, refused, answered, cpuMs } = await round(trees[name]);
    console.log(
      `${name.padEnd(8)} longest hold ${longest.toFixed(0).padStart(5)} ms  cpu ${cpuMs.toFixed(0).padStart(5)} ms  answered ${answered}  refused ${refused}`,
    );
  }
}
console.log(
  `load after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
