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
import { projectFiles } from "../../../../cli/init.mjs";
import { secretCommands } from "../../../../cli/init-readme.mjs";

const ROOT = join(import.meta.dirname, "../../../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const worker = { compatibility_date: "2026-08-01", compatibility_flags: ["nodejs_compat"] };
const spec = { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} };

const files = (options: { specDoc?: unknown; upstream?: string; oauth?: boolean } = {}) =>
  projectFiles({
    name: "my-api",
    manifest,
    worker,
    tarball: "code-mode-mcp-0.1.0.tgz",
    specDoc: options.specDoc,
    apiBase: options.specDoc === undefined ? undefined : "https://api.example.com",
    upstream: options.upstream,
    oauth: options.oauth,
  });
const key = (devVars: string | undefined, name: string) =>
  devVars?.match(new RegExp(`^${name}=(.*)$`, "m"))?.[1];

describe("init's project", () => {
  it("ships the operator's read-only skills from skills/, bundled before dev, test and deploy", () => {
    for (const options of [
      {},
      { specDoc: spec },
      { oauth: true },
      { upstream: "https://u.example/mcp" },
    ]) {
      const project = files(options);
      const scripts = JSON.parse(project["package.json"]!).scripts;
      expect(scripts.skills).toBe("code-mode-mcp skills pack skills src/skills.json");
      for (const step of ["predev", "pretest", "predeploy"])
        expect(scripts[step]).toBe("npm run skills");
      expect(project["src/skills.json"]).toBe("[]\n");
      expect(project["skills/README.md"]).toMatch(/scripts\/double\.js/);
      expect(project["README.md"]).toContain("- `skills/`: read-only skills this server ships");
      // Every server the project builds takes them.
      for (const file of ["src/api.ts", "src/code.ts"])
        if (project[file]) expect(project[file]).toContain("skills: { readOnly: operatorSkills }");
    }
  });

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

describe("init --oauth's project", () => {
  const variants = [
    [files({ oauth: true }), ["/mcp", "/mcp/code"], false],
    [files({ oauth: true, specDoc: spec }), ["/mcp"], true],
    [
      files({ oauth: true, specDoc: spec, upstream: "https://mcp.example.com/mcp" }),
      ["/mcp", "/mcp/code"],
      true,
    ],
  ] as const;

  it("puts the OAuth provider in front of every endpoint, and tests each", () => {
    for (const [project, endpoints] of variants) {
      expect(project["src/index.ts"]).toContain('from "./oauth"');
      const routes = project["src/index.ts"]!.match(/withOAuth\(\s*(\{[^}]*\})/)![1]!;
      for (const endpoint of endpoints) expect(routes).toContain(`"${endpoint}":`);
      expect(project["src/oauth.ts"]).toContain("new OAuthProvider");
      expect(project["src/consent.ts"]).toContain("timingSafeEqual");
      expect(project["src/attempt-limiter.ts"]).toContain("MAX_FAILURES = 5");
      expect(project["src/attempt-limiter.ts"]).toContain("extends DurableObject");
      expect(project["test/oauth.test.ts"]).toContain(
        `const ENDPOINTS = ${JSON.stringify(endpoints)};`,
      );
      // The OAuth client helper takes the key client's place; no key check is left behind.
      expect(project["test/client.ts"]).toContain("export async function signIn()");
      expect(project["src/caller-check.ts"]).toBeUndefined();
      expect(project["test/caller-check.test.ts"]).toBeUndefined();
    }
  });

  it("depends on the provider at the version this package is tested with, and binds OAUTH_KV", () => {
    const project = files({ oauth: true });
    const pkg = JSON.parse(project["package.json"]!);
    expect(pkg.dependencies["@cloudflare/workers-oauth-provider"]).toBe(
      manifest.devDependencies["@cloudflare/workers-oauth-provider"],
    );
    expect(JSON.parse(files()["package.json"]!).dependencies).not.toHaveProperty(
      "@cloudflare/workers-oauth-provider",
    );
    // No id: `wrangler deploy` provisions the namespace.
    expect(project["wrangler.jsonc"]).toContain('"kv_namespaces": [{ "binding": "OAUTH_KV" }]');
    // The consent counters: a Durable Object (one call at a time), exported by the entry.
    expect(project["wrangler.jsonc"]).toContain(
      '{ "name": "CONSENT_ATTEMPTS", "class_name": "ConsentAttempts" }',
    );
    expect(project["wrangler.jsonc"]).toContain('"new_sqlite_classes": ["ConsentAttempts"]');
    expect(project["src/index.ts"]).toContain(
      'export { ConsentAttempts } from "./attempt-limiter";',
    );
    expect(files()["wrangler.jsonc"]).not.toContain("durable_objects");
  });

  it("has a random OAUTH_PASSWORD in .dev.vars and a test one in vitest.config.ts, no API key", () => {
    const [a, b] = [files({ oauth: true }), files({ oauth: true })];
    expect(key(a[".dev.vars"], "OAUTH_PASSWORD")).toMatch(/^[0-9a-f]{64}$/);
    expect(key(a[".dev.vars"], "OAUTH_PASSWORD")).not.toBe(key(b[".dev.vars"], "OAUTH_PASSWORD"));
    expect(key(a[".dev.vars"], "MCP_API_KEY")).toBeUndefined();
    expect(a["vitest.config.ts"]).toContain("OAUTH_PASSWORD:");
    expect(a["vitest.config.ts"]).not.toContain("MCP_API_KEY");
    expect(secretCommands(true, true)).toEqual([
      "npx wrangler secret put OAUTH_PASSWORD",
      "npx wrangler secret put REQUEST_STATE_KEY",
      "npx wrangler secret put API_TOKEN",
    ]);
  });

  it("says first in its README how a client signs in and how the owner approves it", () => {
    for (const [project, , withSpec] of variants) {
      const first = project["README.md"]!.split(/^## /m)[1]!;
      expect(first).toMatch(/^Who can call it/);
      for (const part of [
        "/.well-known/oauth-protected-resource",
        "/register",
        "/authorize",
        "OAUTH_PASSWORD",
        "npx wrangler secret put OAUTH_PASSWORD",
        "five wrong passphrases",
        "/token",
      ])
        expect(first, part).toContain(part);
      expect(first).not.toContain("MCP_API_KEY");
      expect(first.includes("approval: true")).toBe(withSpec);
      const desktop = JSON.parse(first.match(/```json\n([\s\S]*?)```/)![1]!);
      expect(desktop.mcpServers["my-api"].args).toEqual([
        "-y",
        "mcp-remote",
        "https://my-api.<your-subdomain>.workers.dev/mcp",
      ]);
    }
  });
});
