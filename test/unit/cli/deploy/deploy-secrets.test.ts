/**
 * `code-mode-mcp deploy` uploads the product's secrets from its environment (issue #41 review,
 * cli/deploy.mjs and cli/secrets-file-run.mjs): only the product's own names, through a 0600
 * file in a 0700 folder that wrangler is handed by path, never a value on the command line or in
 * output, and the folder gone however deploy ends: wrangler done or failed, or deploy stopped by
 * SIGINT, SIGTERM or SIGHUP (which reach wrangler too). A dry run writes no secret at all. The
 * real command runs in its own process with a stand-in wrangler (test/helpers/cli/fake-wrangler.mjs).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEPLOY_SECRETS } from "../../../../cli/deploy-guard.mjs";

const ROOT = join(import.meta.dirname, "../../../..");
const FAKE = join(ROOT, "test/helpers/cli/fake-wrangler.mjs");

/** A value for each of the product's secrets, and ones deploy must leave alone. */
const PRODUCT = {
  API_TOKEN: "api-token-value-0123456789",
  UPSTREAM_MCP_AUTH: "Bearer upstream-value-0123456789",
  MCP_API_KEY: "mcp-api-key-value-0123456789",
  OAUTH_PASSWORD: "oauth-password-value-0123456789",
  REQUEST_STATE_KEY: "request-state-key-value-0123456789abcdef",
};
const OTHERS = {
  CLOUDFLARE_API_TOKEN: "cloudflare-value-0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-value-0123456789",
  GITHUB_TOKEN: "github-value-0123456789",
};
const VALUES = [...Object.values(PRODUCT), ...Object.values(OTHERS)];

let work: string;
/** The folder deploy makes its private folder in. */
let tmp: string;
let report: string;
let config: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "deploy-secrets-test-"));
  tmp = join(work, "tmp");
  mkdirSync(tmp);
  report = join(work, "report.json");
  config = join(work, "wrangler.json");
  writeFileSync(config, JSON.stringify({ name: "deploy-secrets-test", vars: {} }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

type Run = { status: number | null; output: string; report: Record<string, any> };

/**
 * Runs the real deploy in a process of its own, with the stand-in wrangler.
 * @param options.dryRun - `--dry-run`
 * @param options.env - more environment (the fake's switches)
 * @param options.stop - a signal to send deploy once wrangler is running
 */
function runDeploy(
  options: { dryRun?: boolean; env?: Record<string, string>; stop?: NodeJS.Signals } = {},
): Promise<Run> {
  const driver = `
    const { deploy } = await import(${JSON.stringify(join(ROOT, "cli/deploy.mjs"))});
    const code = await deploy({
      dryRun: ${Boolean(options.dryRun)},
      passThrough: [],
      progress: (line) => console.error(line),
      wrangler: ${JSON.stringify(FAKE)},
      config: ${JSON.stringify(config)},
      build: false,
      tmp: ${JSON.stringify(tmp)},
    });
    process.exit(code);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", driver], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...PRODUCT,
      ...OTHERS,
      FAKE_WRANGLER_REPORT: report,
      ...(options.stop ? { FAKE_WRANGLER_WAIT: "1" } : {}),
      ...options.env,
    } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let signalled = false;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (options.stop && !signalled && output.includes("ready")) {
      signalled = true;
      child.kill(options.stop);
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) =>
    child.on("close", (status) =>
      resolve({ status, output, report: JSON.parse(readFileSync(report, "utf8")) }),
    ),
  );
}

/** What deploy left in the folder it made its private folder in. */
function leftBehind(): string[] {
  return readdirSync(tmp);
}

describe("deploy's secret upload", () => {
  it("hands wrangler the product's secrets, and only those, in a private file it removes after", async () => {
    const run = await runDeploy();
    expect(run.status).toBe(0);
    expect(run.report.names.toSorted()).toEqual([...DEPLOY_SECRETS].toSorted());
    expect(run.report.secrets).toEqual(PRODUCT);
    expect(run.report.fileMode).toBe(0o600);
    expect(run.report.folderMode).toBe(0o700);
    // By path: no value on wrangler's command line, none in what deploy printed.
    for (const value of VALUES) {
      expect(run.report.args.join(" ")).not.toContain(value);
      expect(run.output).not.toContain(value);
    }
    expect(run.output).toContain(`--secrets-file <${DEPLOY_SECRETS.join(", ")}>`);
    expect(leftBehind()).toEqual([]);
  });

  it("removes the file when wrangler fails, and prints no value", async () => {
    const run = await runDeploy({ env: { FAKE_WRANGLER_EXIT: "1" } });
    expect(run.status).toBe(1);
    expect(run.report.file).toBeDefined();
    expect(leftBehind()).toEqual([]);
    for (const value of VALUES) expect(run.output).not.toContain(value);
  });

  it("keeps wrangler's logs sanitized, so its upload body with every value is never logged", async () => {
    // With WRANGLER_LOG_SANITIZE=false left in the shell, wrangler wrote each API request's body,
    // the secrets' values included, to ~/.wrangler/logs (it logs debug lines to disk always).
    const run = await runDeploy({ env: { WRANGLER_LOG_SANITIZE: "false" } });
    expect(run.status).toBe(0);
    expect(run.report.file).toBeDefined();
    expect(run.report.logSanitize).toBe("true");
  });

  it("a dry run names the secrets a deploy would upload and writes none of them", async () => {
    const run = await runDeploy({ dryRun: true });
    expect(run.status).toBe(0);
    expect(run.report.args).toContain("--dry-run");
    expect(run.report.file).toBeUndefined();
    expect(run.output).toContain(
      `would upload these secrets from the environment: ${DEPLOY_SECRETS.join(", ")}`,
    );
    for (const value of VALUES) expect(run.output).not.toContain(value);
    expect(leftBehind()).toEqual([]);
  });

  it.skipIf(process.platform === "win32").each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "removes the file when deploy is stopped by %s, and stops wrangler with it",
    async (signal) => {
      const run = await runDeploy({ stop: signal });
      // Wrangler was running with the file when the signal came.
      expect(run.report.file).toBeDefined();
      expect(run.report.stoppedBy).toBe(signal);
      expect(leftBehind()).toEqual([]);
      expect(run.status).toBe(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
      expect(() => process.kill(run.report.pid, 0)).toThrow();
    },
  );
});
