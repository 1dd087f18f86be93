// Issue #17 (run history): `npm start` with a local API behind a canary credential and an API
// key; a session of search/execute/code calls (ok, error, limit); then /api/runs lists each run
// with its requests and no secret, and the console at / renders the runs, both charts and a
// run's detail in headless Chromium (Debian `chromium`). Screenshot: test/.artifacts/runs-console.png.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { z } from "zod";
import { json, mcpUpstream } from "./support/mcp-upstream.mjs";
import { requireChromium, withPage } from "./support/browser.mjs";
import { check, withServer } from "./support/server.mjs";

requireChromium("runs-console");
const CANARY = `runs-e2e-canary-${crypto.randomUUID()}`;
const KEY = `runs-e2e-key-${crypto.randomUUID()}`;
const artifacts = fileURLToPath(new URL("../.artifacts/", import.meta.url));
mkdirSync(artifacts, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "codemode-runs-"));
const specFile = join(work, "items.json");
writeFileSync(
  specFile,
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Items", version: "1.0.0" },
    paths: {
      "/items": { get: { operationId: "listItems", responses: { 200: { description: "ok" } } } },
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: { description: "ok" }, 404: { description: "missing" } },
        },
      },
    },
  }),
);

// A careless API: it echoes the credential in its answers, found or not.
const upstream = createServer((req, res) => {
  res.setHeader("content-type", "application/json");
  if (req.url === "/items") {
    res.end(JSON.stringify({ items: ["a", "b"], echo: req.headers.authorization }));
  } else {
    res.statusCode = 404;
    res.end(JSON.stringify({ error: `no such item (you sent ${req.headers.authorization})` }));
  }
});
const upstreamPort = await freePort();
await new Promise((resolve) =>
  upstream.listen(upstreamPort, "127.0.0.1", () => resolve(undefined)),
);
const profile = mkdtempSync(join(tmpdir(), "codemode-chromium-"));
const auth = { authorization: `Bearer ${KEY}` };

/**
 * One tool call over a fresh SDK v2 client, with the API key.
 * @param {string} url @param {string} route @param {string} tool @param {string} code
 */
async function call(url, route, tool, code) {
  const client = new Client(
    { name: "e2e-runs", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${route}`), {
      requestInit: { headers: auth },
    }),
  );
  try {
    return await client.callTool({ name: tool, arguments: { code } });
  } finally {
    await client.close();
  }
}

// /mcp/code's upstream: with a spec of one's own the demo's is not served (issue #32).
const projects = await mcpUpstream((server) => {
  server.registerTool(
    "list_projects",
    { description: "The projects.", inputSchema: { status: z.string().optional() } },
    async () => json([{ id: 1 }, { id: 2 }]),
  );
}, undefined);

try {
  const env = {
    SPEC_FILE: specFile,
    UPSTREAM_MCP_URL: projects.url,
    API_BASE_URL: `http://127.0.0.1:${upstreamPort}`,
    API_TOKEN: CANARY,
    MCP_API_KEY: KEY,
  };
  await withServer(env, async ({ url, output }) => {
    // The session: 2 searches, 3 executes (ok with 2 requests, error, operation limit), 1 code.
    await call(url, "/mcp", "search", `async () => Object.keys((await codemode.spec()).paths)`);
    await call(url, "/mcp", "search", `async () => (await codemode.spec()).info.title`);
    const ok = await call(
      url,
      "/mcp",
      "execute",
      `async () => {
  const list = await codemode.request({ method: "GET", path: "/items" });
  console.log("items", list.items.length, list.echo);
  try { await codemode.request({ method: "GET", path: "/items/zzz" }); } catch (e) { console.warn(e.message); }
  return list;
}`,
    );
    check(!ok.isError, `execute → ${JSON.stringify(ok)}`);
    await call(url, "/mcp", "execute", `async () => { throw new Error("deliberate failure"); }`);
    await call(url, "/mcp", "execute", `async () => { for (;;) {} }`);
    await call(url, "/mcp/code", "code", `async () => (await codemode.list_projects({})).length`);

    /** @type {any} */
    let listing;
    for (let i = 0; i < 100; i++) {
      listing = await (await fetch(`${url}/api/runs`, { headers: auth })).json();
      if (listing.runs?.length >= 6) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    check(listing.runs?.length === 6, `/api/runs → ${JSON.stringify(listing).slice(0, 400)}`);
    check((await fetch(`${url}/api/runs`)).status === 401, "/api/runs answers without the key");
    const outcomes = listing.runs.map((/** @type {any} */ r) => `${r.tool}:${r.outcome}`).join(" ");
    check(
      outcomes === "code:ok execute:limit execute:error execute:ok search:ok search:ok",
      `runs newest first: ${outcomes}`,
    );
    const details = await Promise.all(
      listing.runs.map(async (/** @type {any} */ r) =>
        (await fetch(`${url}/api/runs/${r.id}`, { headers: auth })).json(),
      ),
    );
    const executed = details.find(
      (/** @type {any} */ d) => d.tool === "execute" && d.outcome === "ok",
    );
    const calls = executed.calls
      .map((/** @type {any} */ c) => `${c.method} ${c.path} ${c.status}`)
      .join(", ");
    check(calls === "GET /items 200, GET /items/zzz 404", `execute's requests: ${calls}`);
    check(JSON.stringify(executed).includes("[REDACTED]"), "the echoed credential is not marked");
    check(
      details.find((/** @type {any} */ d) => d.tool === "code").calls[0]?.name === "list_projects",
      "code's call",
    );
    const stored = JSON.stringify([listing, details]);
    check(!stored.includes(CANARY), "/api/runs contains the credential");
    check(!stored.includes(KEY), "/api/runs contains the API key");

    await withPage(profile, { width: 1100, height: 1400 }, async (page) => {
      await page.goto(`${url}/`, { waitUntil: "load" });
      await page.fill("#page-key", KEY);
      await page.click("#runs-load");
      await page.waitForSelector(
        '#runs-table[data-state="loaded"], #runs-table[data-state="error"]',
      );
      const rows = await page.$$eval("#runs-table tbody tr", (trs) => trs.length);
      check(
        rows === 6,
        `the console shows ${rows} runs (${await page.textContent("#runs-status")})`,
      );
      const points = await page.$$eval("#chart-durations circle.point", (c) => c.length);
      check(points === 6, `the durations chart has ${points} points`);
      const bars = await page.$$eval("#chart-outcomes rect.bar", (r) =>
        r.map((b) => `${b.dataset.tool}:${b.dataset.outcome}`).toSorted(),
      );
      check(
        bars.join(" ") === "code:ok execute:error execute:limit execute:ok search:ok",
        `outcome bars: ${bars}`,
      );
      await page.click(`#runs-table tbody tr[data-id="${executed.id}"]`);
      await page.waitForSelector('#run-detail[data-state="loaded"]');
      const lines = await page.$$eval("#run-program li", (li) => li.length);
      check(lines === 6, `the program shows ${lines} numbered lines`);
      const detailCalls = (await page.textContent("#run-calls")) ?? "";
      check(detailCalls.includes("GET /items/zzz"), `detail calls: ${detailCalls}`);
      const html = await page.content();
      check(!html.includes(CANARY), "the console shows the credential");
      await page.screenshot({ path: join(artifacts, "runs-console.png"), fullPage: true });
    });
    check(!output().includes(CANARY), "npm start's output contains the credential");
    console.log(
      `e2e runs-console: 6 runs listed newest first with their requests, no credential in /api/runs or the console; charts drawn; screenshot in test/.artifacts/ — ok`,
    );
  });
} finally {
  upstream.close();
  projects.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
