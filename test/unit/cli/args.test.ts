/**
 * The `code-mode-mcp` command line (cli/args.mjs): flags stand for npm start's settings,
 * credentials are refused as flags with the environment variable to use instead, and every
 * mistake names the problem and the fix (a mistyped flag with the one it most likely meant).
 * Parsed by `node:util` `parseArgs` with tokens; on a Node.js without it, help and version still
 * answer.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HELP, parseArgs } from "../../../cli/args.mjs";

const BIN = join(import.meta.dirname, "../../../bin/code-mode-mcp.mjs");

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

  it("skills: a subcommand with its arguments, and --url only here", () => {
    expect(
      ok(["skills", "rollback", "blockedIn", "1", "--url", "http://127.0.0.1:9000"]),
    ).toMatchObject({
      command: "skills",
      positional: ["rollback", "blockedIn", "1"],
      url: "http://127.0.0.1:9000",
    });
    expect(refused(["skills"])).toMatch(/skills takes a subcommand[\s\S]*skills list/);
    expect(refused(["skills", "list", "--spec", "x.yaml"])).toMatch(/skills takes a subcommand/);
    expect(refused(["skills", "list", "--url", "ftp://x"])).toMatch(
      /--url: "ftp:\/\/x" is not an http/,
    );
    expect(refused(["serve", "--url", "http://x"])).toMatch(/--url is for the skills command/);
    expect(refused(["skills", "list", "--api-key", "k"])).toMatch(
      /credentials are never taken from flags/,
    );
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

  it("--oauth shapes an init project; elsewhere it is refused with the setting to use", () => {
    expect(ok(["init", "mine", "--oauth"])).toMatchObject({ command: "init", oauth: true });
    expect(ok(["init", "mine"]).oauth).toBe(false);
    expect(refused(["init", "--oauth=yes"])).toContain("--oauth takes no value");
    expect(refused(["init", "--oauth", "--stdio"])).toContain("init takes only --spec");
    expect(refused(["init", "--oauth", "--port", "9000"])).toContain("--oauth and --no-install");
    for (const [argv, fix] of [
      [["--oauth"], "OAUTH=on OAUTH_PASSWORD=<passphrase> npx code-mode-mcp serve"],
      [["serve", "--oauth", "--spec", "a.yaml"], "npx code-mode-mcp init my-api --oauth"],
      [["deploy", "--oauth"], "OAUTH=on OAUTH_PASSWORD=<passphrase> npx code-mode-mcp deploy"],
      [["check", "a.yaml", "--oauth"], "npx code-mode-mcp check <spec>"],
    ] as const) {
      const message = refused([...argv]);
      expect(message, argv.join(" ")).toContain("--oauth is an init option");
      expect(message, argv.join(" ")).toContain(fix);
    }
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

  it("a mistyped flag names the flag it most likely meant", () => {
    expect(refused(["serve", "--prot", "9000"])).toMatch(
      /^--prot: unknown option\. Did you mean --port\?\n {2}Fix: see npx code-mode-mcp --help/,
    );
    expect(refused(["--sepc=a.yaml"])).toContain("Did you mean --spec?");
    expect(refused(["--stdoi"])).toContain("Did you mean --stdio?");
    expect(refused(["--base-ulr", "https://x.test"])).toContain("Did you mean --base-url?");
    expect(refused(["--dryrun"])).toContain("Did you mean --dry-run?");
    // Nothing near: no guess.
    expect(refused(["--frobnicate"])).not.toContain("Did you mean");
    expect(refused(["-x"])).not.toContain("Did you mean");
  });

  it("short flags, switches given a value, and everything after --", () => {
    expect(ok(["-h"]).command).toBe("help");
    expect(ok(["check", "a.json", "-v"]).command).toBe("version");
    expect(refused(["--stdio=yes"])).toContain("--stdio takes no value");
    expect(ok(["deploy", "--", "--spec", "x", "--api-token"])).toMatchObject({
      passThrough: ["--spec", "x", "--api-token"],
      settings: {},
    });
    expect(refused(["serve", "--spec="])).toContain("--spec needs a value");
    expect(ok(["--port=8788", "--route", "/mcp"])).toMatchObject({
      settings: { PORT: "8788" },
      route: "/mcp",
    });
  });

  it("a credential flag is refused wherever it stands, its value never echoed", () => {
    for (const argv of [
      ["check", "spec.json", "--bearer", "s3cret-v4lue"],
      ["init", "x", "--cookie=s3cret-v4lue"],
      ["--stdio", "--Upstream-Token", "s3cret-v4lue"],
    ]) {
      const message = refused(argv);
      expect(message).toContain("never taken from flags");
      expect(message).not.toContain("s3cret-v4lue");
    }
  });

  it("on a Node.js without parseArgs, the command still answers --help and --version", () => {
    // The bin run for real, with node:util's parseArgs removed before it loads (as on Node < 18.7).
    const hideParseArgs = `data:text/javascript,import u from "node:util"; delete u.parseArgs;`;
    const run = (args: string[]) =>
      spawnSync(process.execPath, ["--import", hideParseArgs, BIN, ...args], {
        encoding: "utf8",
        timeout: 30_000,
      });
    expect(run(["--help"])).toMatchObject({ status: 0, stdout: expect.stringContaining("Usage:") });
    expect(run(["serve", "-v"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // Proof the fallback ran: it looks for --help alone, where parseArgs refuses the unknown flag.
    expect(run(["--frobnicate", "--help"]).status).toBe(0);
    expect(refused(["--frobnicate", "--help"])).toContain("--frobnicate: unknown option");
  });
});
