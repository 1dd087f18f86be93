// Done-when (5, start-up half): bad configuration stops `npm start` before anything listens,
// with a message naming the setting and the fix. (Wrong API key → 401 is a workers test.)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { check, npmStartArgs } from "./support/server.mjs";

const dir = mkdtempSync(join(tmpdir(), "codemode-badconfig-"));
const invalidSpec = join(dir, "broken.yaml");
writeFileSync(
  invalidSpec,
  "openapi: 3.0.3\ninfo: { title: Broken }\npaths:\n  /things:\n    get:\n      responses: {}\n",
);
const relativeSpec = join(dir, "relative.yaml");
writeFileSync(
  relativeSpec,
  "openapi: 3.0.3\ninfo: { title: Relative, version: '1' }\nservers: [{ url: /v1 }]\npaths:\n  /things:\n    get:\n      operationId: listThings\n      responses: { '200': { description: ok } }\n",
);

/** @type {[Record<string, string>, string[]][]} */
const CASES = [
  [{ SPEC_FILE: join(dir, "missing.yaml") }, ["SPEC_FILE", "does not exist", "Fix:"]],
  [{ SPEC_FILE: invalidSpec }, ["SPEC_FILE", "broken.yaml", "#/info", "Fix:"]],
  [{ SPEC_FILE: relativeSpec }, ["API_BASE_URL", "no absolute server URL", "Fix:"]],
  [
    { API_BASE_URL: "api.example.com", LIMIT_TIMEOUT_MS: "soon" },
    ["API_BASE_URL", "LIMIT_TIMEOUT_MS", "Fix:"],
  ],
  [{ SPEC: "nope" }, ["SPEC", 'No compiled spec named "nope"', "Fix:"]],
  [{ MCP_API_KEY: "short" }, ["MCP_API_KEY", "shorter than 16", "Fix:"]],
  [{ OAUTH: "on" }, ["OAUTH_PASSWORD", "Fix:"]],
];

try {
  for (const [env, expected] of CASES) {
    const port = await freePort();
    const run = await new Promise((resolve) => {
      const child = spawn("npm", npmStartArgs(), {
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: {
          ...process.env,
          PORT: String(port),
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          WRANGLER_SEND_METRICS: "false",
          ...env,
        },
      });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      // A bad configuration must stop in seconds; past the deadline this case failed: kill it.
      const timer = setTimeout(
        () => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"),
        90_000,
      );
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
    const { code, output } = /** @type {{ code: number | null, output: string }} */ (run);
    const label = JSON.stringify(env);
    check(code !== 0, `${label}: npm start exited ${code}; output:\n${output}`);
    check(
      output.includes("the configuration is invalid"),
      `${label}: no configuration message:\n${output}`,
    );
    for (const text of expected)
      check(output.includes(text), `${label}: output lacks "${text}":\n${output}`);
    check(!output.includes("Ready on"), `${label}: a server started`);
    console.log(`e2e bad-config: ${label} → refused naming ${expected[0]} — ok`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
