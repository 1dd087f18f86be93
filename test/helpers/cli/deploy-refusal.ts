/**
 * The real `code-mode-mcp deploy --dry-run` run with a chosen environment, and what every one of
 * its early refusals must show (the deploy guard, the secret lengths): exit 1, the refusal's
 * words, "Nothing was deployed", no build started, and the secret nowhere in the output.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";

const ROOT = join(import.meta.dirname, "../../..");

/**
 * Runs `deploy --dry-run` in its own process with only PATH, HOME and `settings` in its
 * environment: nothing of the test runner's own settings decides the outcome.
 * @param settings - the product's settings the command sees
 * @returns the process's exit status and output
 */
export function deployDryRun(settings: Record<string, string>): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  return spawnSync(process.execPath, [join(ROOT, "bin/code-mode-mcp.mjs"), "deploy", "--dry-run"], {
    encoding: "utf8",
    timeout: 30_000,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...settings,
    } as unknown as NodeJS.ProcessEnv,
  });
}

/**
 * Checks that a deploy was refused before anything was built or sent, saying `says`, and never
 * printed `secret`.
 * @param result - what {@link deployDryRun} gave
 * @param says - words the refusal must hold
 * @param secret - a value that must not appear in the output
 */
export function expectRefusedUnbuilt(
  result: ReturnType<typeof deployDryRun>,
  says: string,
  secret: string,
): void {
  expect(result.status).toBe(1);
  expect(result.stderr).toContain(says);
  expect(result.stderr).toContain("Nothing was deployed");
  expect(result.stderr).not.toContain("building");
  expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
}
