/**
 * What the launcher's modules load before a warm desktop launch can start its host (issue #43):
 * not Node's fetch implementation (undici). An ESM import of `node:http` read every export of it
 * to make its facade, `WebSocket` among them, a getter that loads undici (~0.1 s of a loaded
 * machine); the front did so, and a launch compiled undici before its host's spawn
 * (cli/local-server/front/node-http.mjs). Node lists the internal modules a process loaded in
 * `process.moduleLoadList`; each graph is imported in a fresh Node.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** Node's internal undici modules loaded once `specifier` (a built-in or a repository path) is. */
function undiciAfterImport(specifier: string): string[] {
  const url = specifier.startsWith("node:")
    ? specifier
    : new URL(`../../../${specifier}`, import.meta.url).href;
  const run = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(url)}); console.log(JSON.stringify(process.moduleLoadList.filter((m) => /undici/.test(m))));`,
    ],
    { encoding: "utf8", timeout: 30_000, cwd: fileURLToPath(new URL("../../..", import.meta.url)) },
  );
  expect(run.stderr).toBe("");
  return JSON.parse(run.stdout) as string[];
}

describe("the launcher's modules", () => {
  it.each(["cli/serve.mjs", "cli/local-server/supervise.mjs"])(
    "%s loads no undici",
    (module) => {
      expect(undiciAfterImport(module)).toEqual([]);
    },
    60_000,
  );

  it("the check can fail: importing node:http as ESM loads undici", () => {
    expect(undiciAfterImport("node:http").length).toBeGreaterThan(0);
  }, 60_000);
});
