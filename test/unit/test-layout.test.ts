// The test layout of test/README.md, pinned: each workerd area runs in its own small test Worker
// (only app/ loads the product), and executor-sensitive suites use the executor matrix instead
// of re-importing a suite under a module mock (every re-import cost a whole extra file's import).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKERD_AREAS = ["test/workers", "test/agent", "test/seed-examples"];

/** Test files under `dir` (relative to the repository), recursively. */
function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => relative(ROOT, join(ROOT, dir, name)));
}

describe("the test layout", () => {
  const files = WORKERD_AREAS.flatMap(testFiles);

  it("finds the workerd test files", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("runs executor-sensitive suites through describeExecutors, not re-import twins", () => {
    const twins = files.filter((file) => /(^|\/)shared-suite-[^/]+\.test\.ts$/.test(file));
    const mocked = files.filter((file) =>
      /vi\.(do)?mock\([^)]*executor/.test(readFileSync(join(ROOT, file), "utf8")),
    );
    expect({ twins, mocked }).toEqual({ twins: [], mocked: [] });
  });

  it("gives each area its own wrangler config; only app's tests use the product's", () => {
    const config = readFileSync(join(ROOT, "vitest.config.ts"), "utf8");
    const configs = [...config.matchAll(/workersProject\(\s*"([^"]+)",\s*"([^"]+)"/g)].map(
      ([, name, path]) => [name, path],
    );
    expect(Object.fromEntries(configs)).toEqual({
      mcp: "./test/workers/mcp/wrangler.jsonc",
      codemode: "./test/workers/codemode/wrangler.jsonc",
      executor: "./test/workers/executor/wrangler.jsonc",
      app: "./wrangler.jsonc",
      agent: "./test/agent/wrangler.jsonc",
      seeds: "./test/seed-examples/wrangler.jsonc",
    });
  });
});
