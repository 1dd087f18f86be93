// Issue #13, hole 5: a catastrophic regular expression answers at once under `npm start`, thanks
// to V8's linear-time fallback that npm start turns on for workerd (cli/local-server/v8-flags.mjs):
// in a sandbox program, and in a spec's `pattern` the host applies to a model-supplied value.
// The supervisor must not have had to replace the runtime (that would also "answer", slower).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "./support/programs.mjs";
import { check, withServer } from "./support/server.mjs";

// Coarse liveness bound; without the fallback each call backtracks for days.
const FAST_MS = 3_000;
const EVIL = `"a".repeat(45) + "!"`;

const folder = mkdtempSync(join(tmpdir(), "codemode-e2e-regex-"));
const spec = join(folder, "patterns.json");
writeFileSync(
  spec,
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "patterns", version: "1" },
    servers: [{ url: "http://127.0.0.1:9" }],
    paths: {
      "/names/{name}": {
        get: {
          operationId: "getName",
          parameters: [
            {
              name: "name",
              in: "path",
              required: true,
              schema: { type: "string", pattern: "^(a+)+$" },
            },
          ],
          responses: { 200: { description: "ok" } },
        },
      },
    },
  }),
);

try {
  await withServer(
    { SPEC_FILE: spec, API_BASE_URL: "http://127.0.0.1:9" },
    async ({ url, output }) => {
      const client = new Client(
        { name: "e2e-regex", version: "1.0.0" },
        { versionNegotiation: { mode: "auto" } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const calls = [
        [
          "search",
          `async () => /(a+)+$/.test(${EVIL})`,
          (/** @type {string} */ t) => t === "false",
        ],
        [
          "execute",
          `async () => (await codemode.request({ method: "GET", path: "/names/" + ${EVIL} })).status`,
          // The host never applies this pattern (src/openapi/pattern-safety.ts: nested
          // quantifiers), so the request goes on to the closed port and fails there, at once.
          (/** @type {string} */ t) => /Network connection lost|connect/i.test(t),
        ],
      ];
      for (const [tool, code, ok] of /** @type {[string, string, (t: string) => boolean][]} */ (
        calls
      )) {
        const started = Date.now();
        const result = await client.callTool({ name: tool, arguments: { code } });
        const ms = Date.now() - started;
        console.log(`e2e regex: ${tool}: ${ms} ms → ${text(result).slice(0, 160)}`);
        check(ok(text(result)), `${tool}: unexpected answer ${text(result)}`);
        check(ms < FAST_MS, `${tool}: took ${ms} ms`);
      }
      await client.close();
      check(!output().includes("is replaced"), `the supervisor had to step in:\n${output()}`);
      console.log("e2e regex: both answered at once, no runtime replaced — ok");
    },
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
