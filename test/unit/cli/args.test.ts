/**
 * The `code-mode-mcp` command line (cli/args.mjs): flags stand for npm start's settings,
 * credentials are refused as flags with the environment variable to use instead, and every
 * mistake names the problem and the fix.
 */
import { describe, expect, it } from "vitest";
import { HELP, parseArgs } from "../../../cli/args.mjs";

const ok = (argv: string[]) => {
  const result = parseArgs(argv);
  if (!result.ok) throw new Error(result.message);
  return result.parsed;
};
const refused = (argv: string[]) => {
  const result = parseArgs(argv);
  if (result.ok) throw new Error(`accepted: ${argv.join(" ")}`);
  return result.message;
};

describe("code-mode-mcp arguments", () => {
  it("no arguments: serve the offline demo", () => {
    expect(ok([])).toMatchObject({ command: "serve", settings: {}, stdio: false });
  });

  it("maps flags to the settings npm start reads", () => {
    expect(
      ok([
        "serve",
        "--spec",
        "./openapi.yaml",
        "--base-url=https://api.example.com",
        "--port",
        "9000",
      ]).settings,
    ).toEqual({
      SPEC_FILE: "./openapi.yaml",
      API_BASE_URL: "https://api.example.com",
      PORT: "9000",
    });
    expect(ok(["--stdio", "--upstream", "https://mcp.example.com/mcp"])).toMatchObject({
      command: "serve",
      stdio: true,
      settings: { UPSTREAM_MCP_URL: "https://mcp.example.com/mcp" },
    });
  });

  it.each([
    ["--api-token"],
    ["--token=abc"],
    ["--auth"],
    ["--api-key"],
    ["--upstream-auth"],
    ["--password"],
  ])("refuses the credential flag %s and names the environment variables", (flag) => {
    const message = refused(["serve", flag, "secret-value"]);
    expect(message).toContain("never taken from flags");
    expect(message).toContain("API_TOKEN");
    expect(message).toContain("UPSTREAM_MCP_AUTH");
    expect(message).not.toContain("secret-value");
  });

  it("names unknown options, missing values and stray arguments with the fix", () => {
    expect(refused(["--frobnicate"])).toMatch(/--frobnicate: unknown option[\s\S]*--help/);
    expect(refused(["serve", "--spec"])).toContain("--spec needs a value");
    expect(refused(["serve", "--spec", "--stdio"])).toContain("--spec needs a value");
    expect(refused(["serve", "./openapi.yaml"])).toContain("--spec <file>");
    expect(refused(["check"])).toContain("check needs one spec file");
    expect(refused(["--stdio", "--route", "/other"])).toContain("/mcp/code");
  });

  it("check takes one spec; deploy takes --dry-run and wrangler's options after --", () => {
    expect(ok(["check", "spec.json"])).toMatchObject({
      command: "check",
      positional: ["spec.json"],
    });
    expect(ok(["deploy", "--dry-run", "--", "--name", "mine"])).toMatchObject({
      command: "deploy",
      dryRun: true,
      passThrough: ["--name", "mine"],
    });
    expect(refused(["deploy", "--base-url", "https://x.test"])).toContain(
      "deploy takes no settings flags",
    );
  });

  it("deploy --spec points to the supported path: init a project for the spec, deploy that", () => {
    const message = refused(["deploy", "--spec", "x.yaml"]);
    expect(message).toContain("cannot take a spec at deploy time");
    expect(message).toContain(
      "npx code-mode-mcp init my-api --spec x.yaml && cd my-api && npm run deploy",
    );
  });

  it.each([
    ["https://raw.githubusercontent.com/o/r/main/openapi.yaml"],
    ["HTTP://x.test/a.json"],
    ["file:///tmp/a.json"],
  ])("a spec URL (%s) is refused before anything runs, with the download to do", (url) => {
    for (const argv of [["serve", "--spec", url], ["init", "--spec", url], [`--spec=${url}`]]) {
      const message = refused(argv);
      expect(message).toContain("URLs are not fetched: download it first");
      expect(message).toContain(`curl -fLo openapi.json '${url}'`);
    }
  });

  it("init takes one folder and only the flags that shape the project", () => {
    expect(ok(["init"])).toMatchObject({ command: "init", positional: [], install: true });
    expect(
      ok(["init", "mine", "--spec", "a.yaml", "--upstream", "https://m.test/mcp", "--no-install"]),
    ).toMatchObject({
      command: "init",
      positional: ["mine"],
      install: false,
      settings: { SPEC_FILE: "a.yaml", UPSTREAM_MCP_URL: "https://m.test/mcp" },
    });
    expect(refused(["init", "a", "b"])).toContain("init takes one folder");
    expect(refused(["init", "--port", "9000"])).toContain("init takes only --spec");
    expect(refused(["init", "--stdio"])).toContain("init takes only --spec");
  });

  it("--help wins and its text shows every command", () => {
    expect(ok(["serve", "--help"]).command).toBe("help");
    for (const part of [
      "init [folder]",
      "serve --spec",
      "--upstream",
      "--stdio",
      "check",
      "deploy",
      "API_TOKEN",
      "Needs Node.js 22 or later",
    ])
      expect(HELP).toContain(part);
  });
});
