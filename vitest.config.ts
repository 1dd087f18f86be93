import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig, type UserWorkspaceConfig } from "vitest/config";
import { REGEXP_FALLBACK_FLAGS, workerdV8Flags } from "./scripts/supervisor/v8-flags.mjs";
import { SHARED_SPECS_DIR } from "./test/helpers/shared-specs.mjs";

// The workerd of the test pool runs with the same V8 flags as `npm start` (Miniflare reads them
// from this variable when it starts workerd), so a catastrophic regex cannot hang a test run.
const v8Flags = workerdV8Flags(process.env.MINIFLARE_WORKERD_V8_FLAGS);
process.env.MINIFLARE_WORKERD_V8_FLAGS = v8Flags;
// Tests that would hang workerd without the fallback run only when it is really on (a user's own
// flag of the same name wins over ours).
const REGEXP_FALLBACK = REGEXP_FALLBACK_FLAGS.every((f) => v8Flags.split(" ").includes(f))
  ? "on"
  : "off";

// The package's entry names resolve to the sources, so tests and examples import them as users do.
const alias = [
  {
    find: /^code-mode-mcp\/mcp\/server$/,
    replacement: fileURLToPath(new URL("./src/mcp/server.ts", import.meta.url)),
  },
  {
    find: /^code-mode-mcp\/mcp$/,
    replacement: fileURLToPath(new URL("./src/mcp/index.ts", import.meta.url)),
  },
  {
    find: /^code-mode-mcp\/codemode$/,
    replacement: fileURLToPath(new URL("./src/codemode/index.ts", import.meta.url)),
  },
  {
    find: /^code-mode-mcp$/,
    replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)),
  },
  // The shared API specs outside the repository (`import text from "#shared-specs/x.json?raw"`).
  { find: /^#shared-specs\//, replacement: SHARED_SPECS_DIR },
];

/**
 * One vitest project per test area, each in workerd with its own small test Worker (a wrangler
 * config holding only the bindings its tests use): a file under test/workers/mcp/ never loads
 * the product Worker, only test/workers/app/ does.
 *
 * `isolate: false` with one worker per project: the pool starts one workerd per project and runs
 * every file of the project in it, so the libraries, the sources and the big specs are imported
 * once per project instead of once per file (isolated, every file started its own workerd and
 * imported everything again). Files must therefore leave no global state behind: give Durable
 * Object names, handler names and similar keys a per-file prefix.
 */
function workersProject(
  name: string,
  configPath: string,
  include: string[],
  bindings: Record<string, string> = {},
): UserWorkspaceConfig {
  return {
    plugins: [cloudflareTest({ wrangler: { configPath }, miniflare: { bindings } })],
    resolve: { alias },
    test: { name, include, testTimeout: 60_000, isolate: false, maxWorkers: 1 },
  };
}

export default defineConfig({
  test: {
    // Golden files are file snapshots (test/helpers/golden.ts); UPDATE_GOLDEN=1 is the old name for -u.
    ...(process.env.UPDATE_GOLDEN === "1" ? { update: true } : {}),
    projects: [
      // Pure logic in plain Node (fast).
      {
        resolve: {
          alias: [
            ...alias,
            // The shared worker's engine texts, for sandbox/engine-run.ts run in plain Node.
            {
              find: /^\.\/engine-modules\.json$/,
              replacement: fileURLToPath(
                new URL("./test/helpers/engine-module-texts.ts", import.meta.url),
              ),
            },
          ],
        },
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      // The MCP hosting layer (src/mcp): handlers, guards, clients, tasks.
      workersProject("mcp", "./test/workers/mcp/wrangler.jsonc", ["test/workers/mcp/**/*.test.ts"]),
      // Code mode (src/codemode) and the OpenAPI runtime (src/openapi, src/declarations).
      workersProject(
        "codemode",
        "./test/workers/codemode/wrangler.jsonc",
        ["test/workers/codemode/**/*.test.ts", "test/workers/openapi/**/*.test.ts"],
        { REGEXP_FALLBACK },
      ),
      // Both executors (src/executor) in the real sandbox.
      workersProject("executor", "./test/workers/executor/wrangler.jsonc", [
        "test/workers/executor/**/*.test.ts",
      ]),
      // The product Worker itself (src/app, src/worker.ts), configured by ../wrangler.jsonc.
      workersProject("app", "./wrangler.jsonc", ["test/workers/app/**/*.test.ts"]),
      // The stateful layer (McpAgent, legacy handler, WorkerTransport, OAuth).
      workersProject("agent", "./test/agent/wrangler.jsonc", ["test/agent/**/*.test.ts"]),
      // The seed documents' examples, verbatim but for import paths, each run by a real client.
      workersProject("seeds", "./test/seed-examples/wrangler.jsonc", [
        "test/seed-examples/**/*.test.ts",
      ]),
    ],
  },
});
