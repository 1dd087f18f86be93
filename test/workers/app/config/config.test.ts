// readConfig: the product's settings read, checked and reported.
import { describe, expect, it } from "vitest";
import { formatProblems, readConfig } from "../../../../src/app/config/config";
import { configuredSecrets } from "../../../../src/app/endpoints";

const SPECS = ["demo-api", "petstore", "relative"];
const servers = (name: string) =>
  name === "petstore" ? [{ url: "https://petstore.example/v3" }] : [{ url: "/v1" }];

describe("readConfig", () => {
  it("defaults to the offline demo with no protection", () => {
    const checked = readConfig({}, SPECS, servers);
    expect(checked).toEqual({
      ok: true,
      config: {
        specName: "demo-api",
        api: { kind: "demo" },
        upstream: { kind: "demo" },
        approvals: false,
        withheldOperations: [],
        responses: { maxBytes: 16 * 1_048_576, maxBytesPerRun: 64 * 1_048_576 },
        limits: {},
        executor: "isolate-per-run",
        oauth: false,
        allowAnonymous: false,
        allowedHostnames: ["localhost", "127.0.0.1", "[::1]", "*.workers.dev"],
        runs: {
          enabled: true,
          retentionDays: 7,
          retentionCount: 1_000,
          retentionBytes: 16 * 1024 * 1024,
        },
        skills: {
          enabled: true,
          limits: {
            maxSkills: 100,
            maxVersions: 20,
            maxCodeChars: 32_000,
            maxDescriptionChars: 1_000,
            maxRunCodeChars: 131_072,
            maxSchemaChars: 8_000,
          },
          maxTokenOwners: 1_000,
        },
        warnings: [],
      },
    });
  });

  it("sends a spec's requests to its absolute server URL with the credential as a bearer token", () => {
    const checked = readConfig({ SPEC: "petstore", API_TOKEN: "t0k3n-long" }, SPECS, servers);
    expect(checked.ok && checked.config.api).toEqual({
      kind: "http",
      baseUrl: "https://petstore.example/v3",
      credential: { header: "Authorization", value: "Bearer t0k3n-long" },
      forwardCallerToken: false,
      callerHeader: "Authorization",
      callerScheme: "Bearer",
    });
    const custom = readConfig(
      {
        API_BASE_URL: "http://127.0.0.1:9/api",
        API_TOKEN: "key-12345",
        API_AUTH_HEADER: "X-Api-Key",
      },
      SPECS,
      servers,
    );
    expect(custom.ok && custom.config.api).toMatchObject({
      baseUrl: "http://127.0.0.1:9/api",
      credential: { header: "X-Api-Key", value: "key-12345" },
    });
  });

  it("notes a missing API_TOKEN when the spec defines authentication (issue #42)", () => {
    const note =
      /^API_TOKEN is not set: requests to the API go out without credentials\. Set API_TOKEN/;
    const warned = (settings: Record<string, string>, auth?: boolean) => {
      const checked = readConfig(
        settings,
        SPECS,
        servers,
        auth === undefined ? undefined : () => auth,
      );
      if (!checked.ok) throw new Error(formatProblems(checked.problems));
      return checked.config.warnings.filter((w) => note.test(w));
    };
    expect(warned({ SPEC: "petstore" }, true)).toHaveLength(1);
    expect(warned({ API_BASE_URL: "https://api.example.com" }, true)).toHaveLength(1);
    // Not known whether the spec needs auth: noted too.
    expect(warned({ SPEC: "petstore" })).toHaveLength(1);
    // A spec without security schemes, a token, a forwarded token, or the demo API: quiet.
    expect(warned({ SPEC: "petstore" }, false)).toEqual([]);
    expect(warned({ SPEC: "petstore", API_TOKEN: "t0k3n-long" }, true)).toEqual([]);
    expect(warned({ SPEC: "petstore", FORWARD_CALLER_TOKEN: "on" }, true)).toEqual([]);
    expect(warned({}, true)).toEqual([]);
  });

  it("asks whether the spec defines authentication once per check (issue #43)", () => {
    // The launchers answer by parsing the spec's text (4 MB for Cloudflare's): it was asked once
    // per rule, a dozen parses per launch.
    const asked: string[] = [];
    const checked = readConfig({ SPEC: "petstore" }, SPECS, servers, (name) => {
      asked.push(name);
      return true;
    });
    expect(checked.ok).toBe(true);
    expect(asked).toEqual(["petstore"]);
  });

  it("reads the upstream MCP server, approvals and limits", () => {
    const checked = readConfig(
      {
        UPSTREAM_MCP_URL: "https://mcp.example/mcp",
        UPSTREAM_MCP_AUTH: "Bearer up-token",
        APPROVALS: "on",
        LIMIT_TIMEOUT_MS: "5000",
        LIMIT_MAX_HOST_CALLS: "50",
      },
      SPECS,
      servers,
    );
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.config.upstream).toEqual({
      kind: "url",
      servers: [
        { name: "", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer up-token" } },
      ],
    });
    expect(checked.config.approvals).toBe(true);
    expect(checked.config.warnings.join(" ")).toContain("REQUEST_STATE_KEY");
    expect(checked.config.limits).toEqual({ timeoutMs: 5000, maxHostCalls: 50 });
  });

  it("reads several upstream MCP servers by name, with auth per server", () => {
    const checked = readConfig(
      {
        UPSTREAM_MCP_URL: "github=https://gh.example/mcp, jira=https://jira.example/mcp",
        UPSTREAM_MCP_AUTH: '{"github":"Bearer gh-secret"}',
      },
      SPECS,
      servers,
    );
    expect(checked.ok && checked.config.upstream).toEqual({
      kind: "url",
      servers: [
        {
          name: "github",
          url: "https://gh.example/mcp",
          headers: { Authorization: "Bearer gh-secret" },
        },
        { name: "jira", url: "https://jira.example/mcp", headers: {} },
      ],
    });
    const bad = readConfig(
      {
        UPSTREAM_MCP_URL: "https://a.example/mcp,jira=ftp://x,jira=https://b.example/mcp",
        UPSTREAM_MCP_AUTH: "{not json secret-value",
      },
      SPECS,
      servers,
    );
    expect(bad.ok).toBe(false);
    const text = JSON.stringify(bad);
    expect(text).toContain("needs a name");
    expect(text).toContain('must be an http(s) URL for \\"jira\\"');
    expect(text).toContain("not a JSON object");
    expect(text).not.toContain("secret-value");
  });

  it("names every bad setting with a fix, and never echoes secrets", () => {
    const checked = readConfig(
      {
        SPEC: "relative",
        FORWARD_CALLER_TOKEN: "on",
        MCP_API_KEY: "secret-key-that-is-long-enough",
        APPROVALS: "maybe",
        REQUEST_STATE_KEY: "short-state-key",
        LIMIT_WHATEVER: "1",
        UPSTREAM_MCP_URL: "ftp://x",
      },
      SPECS,
      servers,
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems.map((p) => p.setting).toSorted()).toEqual([
      "API_BASE_URL",
      "APPROVALS",
      "FORWARD_CALLER_TOKEN",
      "LIMIT_WHATEVER",
      "REQUEST_STATE_KEY",
      "UPSTREAM_MCP_URL",
    ]);
    const text = formatProblems(checked.problems);
    expect(text).toContain("Fix:");
    expect(text).not.toContain("secret-key-that-is-long-enough");
    expect(text).not.toContain("short-state-key");
  });

  it("refuses credentials too short to redact safely, without echoing them", () => {
    const checked = readConfig(
      {
        API_BASE_URL: "https://api.example",
        API_TOKEN: "x",
        UPSTREAM_MCP_URL: "github=https://gh.example/mcp,jira=https://jira.example/mcp",
        UPSTREAM_MCP_AUTH: '{"github":"Bearer q","jira":"Bearer long-enough-token"}',
      },
      SPECS,
      servers,
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems.map((p) => p.setting).toSorted()).toEqual([
      "API_TOKEN",
      "UPSTREAM_MCP_AUTH",
    ]);
    const text = formatProblems(checked.problems);
    expect(text).toContain("at least 8 characters");
    expect(text).toContain('"github"');
    expect(text).not.toContain("jira");
    expect(text).not.toMatch(/Bearer q|"x"/);
    // A single value for every server: its bare token counts, not the scheme.
    const single = readConfig(
      { UPSTREAM_MCP_URL: "https://mcp.example/mcp", UPSTREAM_MCP_AUTH: "Bearer abc" },
      SPECS,
      servers,
    );
    expect(!single.ok && single.problems.map((p) => p.setting)).toEqual(["UPSTREAM_MCP_AUTH"]);
  });

  it("gives both endpoints every upstream credential to redact: whole, bare and decoded", () => {
    const checked = readConfig(
      {
        API_BASE_URL: "https://api.example",
        API_TOKEN: "api-token-123",
        UPSTREAM_MCP_URL: "github=https://gh.example/mcp,jira=https://jira.example/mcp",
        UPSTREAM_MCP_AUTH: JSON.stringify({
          github: "Bearer gh-token-456",
          jira: `Basic ${btoa("me:jira-password")}`,
        }),
      },
      SPECS,
      servers,
    );
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(configuredSecrets(checked.config).toSorted()).toEqual(
      [
        "Bearer api-token-123",
        "api-token-123",
        "Bearer gh-token-456",
        "gh-token-456",
        `Basic ${btoa("me:jira-password")}`,
        btoa("me:jira-password"),
        "me:jira-password",
      ].toSorted(),
    );
  });
});
