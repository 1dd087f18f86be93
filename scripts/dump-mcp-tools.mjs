// Dumps the `tools/list` result of real MCP servers published on npm into
// test/fixtures/mcp-tools/tools.json, the real-world half of the declarations corpus
// (test/unit/declarations/corpus.test.ts). Each server runs over stdio through `npx -y` at the
// pinned version below, with placeholder credentials: listing tools calls no upstream API.
//
// Usage: node scripts/dump-mcp-tools.mjs [--only <package>]   (needs the npm registry; ~1–3 min)
// A server that fails to start is reported and left out; the file keeps the others.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const OUT = fileURLToPath(new URL("../test/fixtures/mcp-tools/tools.json", import.meta.url));
const PLACEHOLDER = "placeholder-not-a-real-credential";
const scratch = mkdtempSync(join(tmpdir(), "mcp-dump-"));

/** @type {{ pkg: string, version: string, args?: string[], env?: Record<string, string> }[]} */
const SERVERS = [
  { pkg: "@modelcontextprotocol/server-everything", version: "2026.8.31", args: ["stdio"] },
  { pkg: "@modelcontextprotocol/server-filesystem", version: "2026.8.31", args: [scratch] },
  { pkg: "@modelcontextprotocol/server-memory", version: "2026.8.31" },
  { pkg: "@modelcontextprotocol/server-sequential-thinking", version: "2026.8.31" },
  {
    pkg: "@modelcontextprotocol/server-github",
    version: "2025.4.8",
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER },
  },
  {
    pkg: "@modelcontextprotocol/server-gitlab",
    version: "2025.4.25",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER },
  },
  {
    pkg: "@modelcontextprotocol/server-slack",
    version: "2025.4.25",
    env: { SLACK_BOT_TOKEN: PLACEHOLDER, SLACK_TEAM_ID: "T000" },
  },
  {
    pkg: "@modelcontextprotocol/server-brave-search",
    version: "0.6.2",
    env: { BRAVE_API_KEY: PLACEHOLDER },
  },
  {
    pkg: "@modelcontextprotocol/server-google-maps",
    version: "0.6.2",
    env: { GOOGLE_MAPS_API_KEY: PLACEHOLDER },
  },
  { pkg: "@notionhq/notion-mcp-server", version: "2.5.2", env: { NOTION_TOKEN: PLACEHOLDER } },
  { pkg: "@playwright/mcp", version: "0.0.83", env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" } },
];

/** A tools/list page, every tool kept as sent. */
const RAW_PAGE = z.looseObject({ tools: z.array(z.any()), nextCursor: z.string().optional() });

const only = process.argv.indexOf("--only");
const wanted = only >= 0 ? process.argv[only + 1] : undefined;
/** @type {{ package: string, version: string, tools: unknown[] }[]} */
const previous = readPrevious();
const servers = [];
for (const server of SERVERS) {
  if (wanted && server.pkg !== wanted) {
    const kept = previous.find((s) => s.package === server.pkg);
    if (kept) servers.push(kept);
    continue;
  }
  try {
    const tools = await listTools(server);
    servers.push({ package: server.pkg, version: server.version, tools });
    console.error(`dump-mcp-tools: ${server.pkg}@${server.version}: ${tools.length} tools`);
  } catch (error) {
    const reason = String(/** @type {Error} */ (error).message ?? error).split("\n")[0];
    console.error(`dump-mcp-tools: ${server.pkg}@${server.version} left out: ${reason}`);
  }
}
writeFileSync(
  OUT,
  JSON.stringify({ generatedBy: "scripts/dump-mcp-tools.mjs", servers }, null, 2) + "\n",
);
console.error(`dump-mcp-tools: wrote ${OUT}`);

/** @param {(typeof SERVERS)[number]} server @returns {Promise<unknown[]>} */
async function listTools(server) {
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["-y", `${server.pkg}@${server.version}`, ...(server.args ?? [])],
    env: /** @type {Record<string, string>} */ ({ ...process.env, ...server.env }),
    stderr: "ignore",
  });
  const client = new Client({ name: "dump-mcp-tools", version: "1.0.0" });
  const timer = setTimeout(() => void transport.close(), 180_000);
  try {
    await client.connect(transport);
    const tools = [];
    /** @type {string | undefined} */
    let cursor;
    do {
      // A raw request: the SDK's listTools() refuses (or reshapes) schemas it considers
      // invalid, such as a root without `type: "object"`, and those are corpus material too.
      /** @type {{ tools: any[], nextCursor?: string }} */
      const page = await client.request(
        { method: "tools/list", params: cursor ? { cursor } : {} },
        RAW_PAGE,
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    // Only what the emitter reads: the fixture stays about schemas, not server metadata.
    return tools.map(({ name, title, description, inputSchema, outputSchema }) => ({
      name,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      inputSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
    }));
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

/** @returns {{ package: string, version: string, tools: unknown[] }[]} */
function readPrevious() {
  try {
    return JSON.parse(readFileSync(OUT, "utf8")).servers ?? [];
  } catch {
    return [];
  }
}
