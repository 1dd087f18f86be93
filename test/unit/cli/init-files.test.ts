/**
 * What `code-mode-mcp init` writes (cli/init.mjs `projectFiles`), guarded from the first deploy
 * (issue #41): a random MCP_API_KEY in the git-ignored .dev.vars, the caller check in front of
 * every MCP endpoint with its test, approvals in the `--spec` template, and a README whose first
 * section says how the endpoint is protected and how a client sends the key. The generated
 * project's own `npm test` runs in test/package/fresh-project.mjs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectFiles, secretCommands } from "../../../cli/init.mjs";

const ROOT = join(import.meta.dirname, "../../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const worker = { compatibility_date: "2026-08-01", compatibility_flags: ["nodejs_compat"] };
const spec = { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} };

const files = (options: { specDoc?: unknown; upstream?: string } = {}) =>
  projectFiles({
    name: "my-api",
    manifest,
    worker,
    tarball: "code-mode-mcp-0.1.0.tgz",
    specDoc: options.specDoc,
    apiBase: options.specDoc === undefined ? undefined : "https://api.example.com",
    upstream: options.upstream,
  });
const key = (devVars: string | undefined, name: string) =>
  devVars?.match(new RegExp(`^${name}=(.*)$`, "m"))?.[1];

describe("init's project", () => {
  it("has a random MCP_API_KEY in .dev.vars, which git ignores", () => {
    const [a, b] = [files(), files()];
    expect(key(a[".dev.vars"], "MCP_API_KEY")).toMatch(/^[0-9a-f]{64}$/);
    expect(key(a[".dev.vars"], "MCP_API_KEY")).not.toBe(key(b[".dev.vars"], "MCP_API_KEY"));
    expect(a[".gitignore"]).toMatch(/^\.dev\.vars$/m);
  });

  it("checks the caller in front of every MCP endpoint, and tests each", () => {
    for (const [project, endpoints] of [
      [files(), ["/mcp", "/mcp/code"]],
      [files({ specDoc: spec }), ["/mcp"]],
      [files({ specDoc: spec, upstream: "https://mcp.example.com/mcp" }), ["/mcp", "/mcp/code"]],
    ] as const) {
      expect(project["src/caller-check.ts"]).toContain("timingSafeEqual");
      for (const endpoint of endpoints)
        expect(project["src/index.ts"]).toMatch(
          new RegExp(
            `pathname === "${endpoint}"\\)\\s*return \\(await refuseCaller\\(request, env\\)\\)`,
          ),
        );
      expect(project["test/caller-check.test.ts"]).toContain(
        `const ENDPOINTS = ${JSON.stringify(endpoints)};`,
      );
    }
  });

  it("asks before non-GET requests in the --spec template, with a state key", () => {
    const project = files({ specDoc: spec });
    expect(project["src/api.ts"]).toContain("approval: true");
    expect(project["test/approvals.test.ts"]).toBeDefined();
    expect(key(project[".dev.vars"], "REQUEST_STATE_KEY")).toMatch(/^[0-9a-f]{64}$/);
    expect(secretCommands(true)).toContain("npx wrangler secret put REQUEST_STATE_KEY");
  });

  it("says first in its README how the endpoint is protected and how clients send the key", () => {
    for (const project of [files(), files({ specDoc: spec })]) {
      const readme = project["README.md"]!;
      const first = readme.split(/^## /m)[1]!;
      expect(first).toMatch(/^Who can call it/);
      expect(first).toContain("Authorization: Bearer <MCP_API_KEY>");
      expect(first).toContain("npx wrangler secret put MCP_API_KEY");
      expect(first).toContain("ALLOW_ANONYMOUS");
      const desktop = JSON.parse(first.match(/```json\n([\s\S]*?)```/)![1]!);
      expect(desktop.mcpServers["my-api"].args).toEqual(
        expect.arrayContaining(["mcp-remote", "--header", "Authorization:${AUTH_HEADER}"]),
      );
      expect(first).toMatch(/npx mcp-remote \S+ --header "Authorization: Bearer \$MCP_API_KEY"/);
    }
  });
});
