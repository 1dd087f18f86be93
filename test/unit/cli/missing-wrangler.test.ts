/**
 * wrangler is a peer dependency of the package (cli/runtime-paths.mjs `findWrangler`): the real
 * `code-mode-mcp` command, copied without any node_modules beside it, refuses `serve` and
 * `deploy` with the reason and the install to run (under `--stdio` as an MCP error too, since a
 * desktop client reads stdout only), while `--help`, `--version` and `check`'s own refusals still
 * answer; and a wrangler older than the peer range is named as such.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { WRANGLER_RANGE, findWrangler } from "../../../cli/runtime-paths.mjs";

const ROOT = join(import.meta.dirname, "../../..");
const copy = mkdtempSync(join(tmpdir(), "code-mode-mcp-no-wrangler-"));
for (const part of ["bin", "cli", "package.json"])
  cpSync(join(ROOT, part), join(copy, part), { recursive: true });
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const run = (args: string[], input = "") =>
  spawnSync(process.execPath, [join(copy, "bin/code-mode-mcp.mjs"), ...args], {
    encoding: "utf8",
    input,
    timeout: 30_000,
  });

describe("code-mode-mcp without wrangler", () => {
  it("the repository's own wrangler satisfies the peer range", () => {
    expect(WRANGLER_RANGE).toBe("^4.124.0");
    expect(findWrangler()).toMatchObject({ ok: true, version: expect.stringMatching(/^4\./) });
  });

  it.each([[["serve"]], [["deploy", "--dry-run"]], [[]]])(
    "%j says wrangler is missing and how to install it",
    (args) => {
      const result = run(args);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("code-mode-mcp: wrangler is not installed");
      expect(result.stderr).toContain("a peer dependency of code-mode-mcp");
      expect(result.stderr).toContain(`Fix: npm install --save-dev wrangler@${WRANGLER_RANGE}`);
    },
  );

  it("--stdio answers the client's first request with the same reason", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    const result = run(["--stdio"], `${JSON.stringify(request)}\n`);
    expect(result.status).toBe(1);
    const reply = JSON.parse(result.stdout.trim());
    expect(reply).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(reply.error.message).toContain("wrangler is not installed");
  });

  it("--help and --version need no wrangler", () => {
    expect(run(["--help"])).toMatchObject({ status: 0, stdout: expect.stringContaining("Usage:") });
    expect(run(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("a wrangler older than the range is named with the version needed", () => {
    const project = join(copy, "old-project");
    mkdirSync(join(project, "node_modules/wrangler/bin"), { recursive: true });
    writeFileSync(
      join(project, "node_modules/wrangler/package.json"),
      JSON.stringify({ name: "wrangler", version: "4.20.0" }),
    );
    const found = findWrangler(pathToFileURL(join(project, "index.mjs")).href);
    expect(found).toEqual({
      ok: false,
      problem: `wrangler 4.20.0 is installed, and ${WRANGLER_RANGE} is needed`,
    });
  });
});
