// Done-when (3): the MCP Inspector CLI (@modelcontextprotocol/inspector --cli) lists tools and
// calls `search` against `npm start`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, withServer } from "./support/server.mjs";

const home = mkdtempSync(join(tmpdir(), "codemode-inspector-"));
/**
 * Runs the Inspector CLI with a private HOME (it keeps a catalog there; never the user's).
 * @param {string[]} args
 */
function inspector(args) {
  const run = spawnSync(
    "npx",
    ["--no-install", "@modelcontextprotocol/inspector", "--cli", ...args],
    {
      encoding: "utf8",
      timeout: 90_000,
      env: {
        ...process.env,
        HOME: home,
        MCP_CATALOG_PATH: join(home, "mcp.json"),
        npm_config_update_notifier: "false",
      },
    },
  );
  check(
    run.status === 0,
    `inspector ${args.join(" ")} exited ${run.status}: ${run.stderr}${run.stdout}`,
  );
  return run.stdout;
}

try {
  await withServer({}, async ({ url }) => {
    const listed = JSON.parse(
      inspector([`${url}/mcp`, "--transport", "http", "--method", "tools/list"]),
    );
    const names = listed.tools.map((/** @type {{ name: string }} */ t) => t.name).toSorted();
    check(JSON.stringify(names) === '["execute","search"]', `inspector tools/list → ${names}`);
    const called = JSON.parse(
      inspector([
        `${url}/mcp`,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "search",
        "--tool-arg",
        "code=async () => (await codemode.spec()).info.title",
      ]),
    );
    check(
      called.content?.[0]?.text === "Demo projects API",
      `inspector search → ${JSON.stringify(called)}`,
    );
    console.log("e2e inspector: tools/list and tools/call search — ok");
  });
} finally {
  rmSync(home, { recursive: true, force: true });
}
