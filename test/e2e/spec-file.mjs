// Done-when (2): `SPEC_FILE=<Cloudflare spec> API_BASE_URL=<local test server> API_TOKEN=<canary>
// npm start` serves the Cloudflare spec at /mcp, and an execute call reaches the local server
// with the credential, which never shows in any output (tool results, server output). The status
// page's /mcp token figure is the o200k count `code-mode-mcp check` prints for the same spec.
// Issue #40: a compiled spec kept in the user's cache and then edited to another base URL (the
// spec's `servers`) never sends the credential there.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { text } from "./support/programs.mjs";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { check, withServer } from "./support/server.mjs";
import { CLOUDFLARE_SPEC_PATH } from "../helpers/specs/fixture-specs.mjs";

const SPEC = CLOUDFLARE_SPEC_PATH;
const execFileAsync = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/code-mode-mcp.mjs", import.meta.url));
// The vendored spec, unpacked into test/.fixtures/ by the fixtures step (only this file: no
// download, so it never races npm test's own fixtures step for the others).
execFileSync(
  process.execPath,
  [
    fileURLToPath(new URL("../../scripts/fetch-fixture-specs.mjs", import.meta.url)),
    "cloudflare-api-2024-08-06.json",
  ],
  { stdio: "inherit" },
);
const CANARY = `cf-e2e-canary-${crypto.randomUUID()}`;
const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";

/** @type {{ method: string, path: string, authorization: string | undefined }[]} */
const seen = [];
const upstream = createServer((req, res) => {
  seen.push({
    method: req.method ?? "",
    path: req.url ?? "",
    authorization: req.headers.authorization,
  });
  res.setHeader("content-type", "application/json");
  if (req.url?.startsWith("/zones?") || req.url === "/zones") {
    // Echoes the credential back, as a careless API might: it must come out redacted.
    res.end(
      JSON.stringify({
        success: true,
        result: [{ id: ZONE, name: "example.com" }],
        echo: req.headers.authorization,
      }),
    );
  } else if (req.url === `/zones/${ZONE}/dns_records`) {
    res.end(
      JSON.stringify({
        success: true,
        result: [{ id: "r1", type: "A", name: "www.example.com", content: "192.0.2.1" }],
      }),
    );
  } else {
    res.statusCode = 404;
    res.end(JSON.stringify({ success: false, errors: [{ code: 7003, message: "No route" }] }));
  }
});
const upstreamPort = await freePort();
await new Promise((resolve) =>
  upstream.listen(upstreamPort, "127.0.0.1", () => resolve(undefined)),
);

try {
  await withServer(
    { SPEC_FILE: SPEC, API_BASE_URL: `http://127.0.0.1:${upstreamPort}`, API_TOKEN: CANARY },
    async ({ url, output }) => {
      const status = await (await fetch(`${url}/api/status`)).json();
      check(status.spec.operations === 1533, `status: ${status.spec.operations} operations`);
      check(JSON.stringify(status).includes(CANARY) === false, "status leaks the credential");
      // One token count: the status page's /mcp figure is the o200k count `check` prints.
      // Asynchronously: a blocked event loop misses the server closing an idle keep-alive socket,
      // and the next request on it fails ("other side closed").
      const checked = await execFileAsync(process.execPath, [BIN, "check", SPEC], {
        encoding: "utf8",
      });
      const printed = /tools\/list: +(\d+) o200k tokens/.exec(checked.stdout)?.[1];
      const api = status.endpoints.find((/** @type {any} */ e) => e.route === "/mcp");
      check(
        printed !== undefined &&
          api?.count?.kind === "o200k" &&
          api.totalTokens === Number(printed),
        `status /mcp ${api?.totalTokens} (${api?.count?.kind}) vs check: ${checked.stdout}${checked.stderr}`,
      );
      console.log(
        `e2e spec-file: /mcp tools/list ${printed} o200k tokens, on the page as in check`,
      );

      const client = new Client(
        { name: "e2e-spec-file", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const search = await client.callTool({
        name: "search",
        arguments: {
          code: `async () => { const s = await codemode.spec(); return Object.keys(s.paths).filter((p) => p.endsWith("/dns_records")); }`,
        },
      });
      check(
        text(search).includes("/zones/{zone_id}/dns_records"),
        `search → ${text(search).slice(0, 300)}`,
      );
      const executed = await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => {
            const zones = await codemode.request({ method: "GET", path: "/zones", query: { name: "example.com" } });
            const records = await codemode.request({ method: "GET", path: "/zones/" + zones.result[0].id + "/dns_records" });
            return { echo: zones.echo, records: records.result.map((r) => r.name) };
          }`,
        },
      });
      const result = JSON.parse(text(executed));
      check(!executed.isError, `execute → ${text(executed)}`);
      check(
        JSON.stringify(result.records) === '["www.example.com"]',
        `execute → ${text(executed)}`,
      );
      check(
        String(result.echo).includes("[REDACTED]"),
        `the echoed credential is not redacted: ${text(executed)}`,
      );
      await client.close();

      check(seen.length === 2, `the local server saw ${seen.length} requests`);
      check(
        seen.every((r) => r.authorization === `Bearer ${CANARY}`),
        "the credential did not reach the local server",
      );
      check(!JSON.stringify(executed).includes(CANARY), "the tool result contains the credential");
      check(!JSON.stringify(search).includes(CANARY), "the search result contains the credential");
      check(!output().includes(CANARY), "npm start's output contains the credential");
      console.log(
        `e2e spec-file: 1533 operations served; execute reached the local server ${seen.length}× with the credential; it never showed — ok`,
      );
    },
  );
  // Per-user credentials: FORWARD_CALLER_TOKEN=on sends each caller's own bearer token upstream.
  seen.length = 0;
  const USER_TOKEN = `user-token-${crypto.randomUUID()}`;
  await withServer(
    {
      SPEC_FILE: SPEC,
      API_BASE_URL: `http://127.0.0.1:${upstreamPort}`,
      FORWARD_CALLER_TOKEN: "on",
    },
    async ({ url, output }) => {
      const client = new Client(
        { name: "e2e-forward", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${USER_TOKEN}` } },
        }),
      );
      const executed = await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => (await codemode.request({ method: "GET", path: "/zones" })).echo`,
        },
      });
      await client.close();
      check(
        seen.length === 1 && seen[0]?.authorization === `Bearer ${USER_TOKEN}`,
        `forwarded: ${JSON.stringify(seen)}`,
      );
      check(!output().includes(USER_TOKEN), "npm start's output contains the caller's token");
      check(
        text(executed).includes("[REDACTED]") && !text(executed).includes(USER_TOKEN),
        `the echoed caller token is not redacted: ${text(executed)}`,
      );
      console.log(
        `e2e spec-file: FORWARD_CALLER_TOKEN sent the caller's own token upstream (result: ${text(executed)}) — ok`,
      );
    },
  );
  // Issue #40: the cache of compiled specs cannot redirect the credential. A small spec whose
  // `servers` is the local upstream (no API_BASE_URL: the base URL comes from the spec) is
  // compiled and kept by a first start; its entry is then edited to name another local server,
  // and a second start with the same spec sends the canary to the upstream only.
  seen.length = 0;
  const home = mkdtempSync(join(tmpdir(), "codemode-e2e-cache-"));
  /** @type {{ path: string, authorization: string | undefined }[]} */
  const stolen = [];
  const attacker = createServer((req, res) => {
    stolen.push({ path: req.url ?? "", authorization: req.headers.authorization });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ success: true, result: [] }));
  });
  const attackerPort = await freePort();
  await new Promise((resolve) =>
    attacker.listen(attackerPort, "127.0.0.1", () => resolve(undefined)),
  );
  try {
    const spec = join(home, "cache-api.yaml");
    const honest = `http://127.0.0.1:${upstreamPort}`;
    writeFileSync(
      spec,
      `openapi: 3.0.3
info: { title: cache-api, version: "1" }
servers: [{ url: "${honest}" }]
paths:
  /zones:
    get:
      operationId: listZones
      responses: { "200": { description: ok } }
`,
    );
    const env = {
      SPEC_FILE: spec,
      API_TOKEN: CANARY,
      XDG_CACHE_HOME: join(home, "cache"),
      XDG_CONFIG_HOME: join(home, "config"),
    };
    await withServer(env, async () => {});
    const folder = join(home, "cache", "code-mode-mcp", "specs");
    const entries = readdirSync(folder).filter((name) => name.endsWith(".json"));
    check(entries.length === 1, `the first start kept ${entries.length} compiled specs`);
    const entry = join(folder, String(entries[0]));
    const kept = readFileSync(entry, "utf8");
    check(kept.includes(honest), "the kept entry does not name the spec's server");
    writeFileSync(entry, kept.replaceAll(honest, `http://127.0.0.1:${attackerPort}`));
    await withServer(env, async ({ url, output }) => {
      const client = new Client(
        { name: "e2e-spec-cache", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const executed = await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => (await codemode.request({ method: "GET", path: "/zones" })).success`,
        },
      });
      await client.close();
      check(
        stolen.length === 0,
        `the edited cache entry sent ${stolen.length} request(s) to another address: ${JSON.stringify(stolen.map((r) => r.path))}`,
      );
      check(
        seen.length === 1 && seen[0]?.authorization === `Bearer ${CANARY}`,
        `the spec's own server got: ${JSON.stringify(seen.map((r) => r.path))} (${text(executed)})`,
      );
      check(
        output().includes("validating and compiling"),
        "the second start did not compile the spec again",
      );
    });
    console.log(
      "e2e spec-file: a cache entry edited to another base URL was not used; the credential went to the spec's server only — ok",
    );
  } finally {
    attacker.close();
    rmSync(home, { recursive: true, force: true });
  }
} finally {
  upstream.close();
}
