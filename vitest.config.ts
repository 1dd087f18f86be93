import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig, type UserWorkspaceConfig } from "vitest/config";
import { REGEXP_FALLBACK_FLAGS, workerdV8Flags } from "./cli/local-server/v8-flags.mjs";
import { dropExpectedRuntimeLogs } from "./test/helpers/vitest/expected-runtime-logs.mjs";
import { FIXTURES_DIR } from "./test/helpers/specs/fixture-specs.mjs";
import { stripDependencySourceMaps } from "./test/helpers/vitest/strip-dependency-source-maps.mjs";
import { TimingReporter } from "./test/helpers/vitest/timing-reporter.mjs";

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
  // The big API specs of test/.fixtures/ (`npm run fixtures`): `import text from "#fixtures/x.json?raw"`.
  { find: /^#fixtures\//, replacement: FIXTURES_DIR },
];

/**
 * One vitest project per test area, each in workerd with its own small test Worker (a wrangler
 * config holding only the bindings its tests use): a file under test/workers/mcp/ never loads
 * the product Worker, only test/workers/app/ does.
 *
 * `isolate: false` with one worker per project: the pool starts one workerd per project and runs
 * every file of the project in it, so the libraries, the sources and the big specs are imported
 * once per project instead of once per file (isolated, every file started its own workerd and
 * imported everything again). The files of a project share one isolate and its storage, so a
 * file must not depend on state another file leaves behind: name Durable Objects, task handlers
 * and similar keys after the file (test/README.md).
 */
function workersProject(
  name: string,
  configPath: string,
  include: string[],
  bindings: Record<string, string> = {},
): UserWorkspaceConfig {
  return {
    plugins: [
      stripDependencySourceMaps(),
      quietly(() => cloudflareTest({ wrangler: { configPath }, miniflare: { bindings } })),
    ],
    resolve: { alias },
    test: { name, include, testTimeout: 60_000, isolate: false, maxWorkers: 1 },
  };
}

/**
 * Calls `make` with console.warn muted for one message: the pool's rename banner
 * ("@cloudflare/vitest-pool-workers has been renamed to @cloudflare/vitest-plugin"), printed on
 * every run. The move to @cloudflare/vitest-plugin pins another wrangler and workerd, so it is a
 * dependency change of its own (toolchain.md); until then the banner only hides real warnings.
 */
function quietly<T>(make: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes("has been renamed to @cloudflare/vitest-plugin")) warn(...args);
  };
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}

// workerd's own log lines of failures tests provoke on purpose (a refused connection, a program
// that never settles) are dropped: a passing run prints no warnings (the helper says which and why).
dropExpectedRuntimeLogs();

export default defineConfig({
  test: {
    // The default report, then one timing line per project (test/helpers/vitest/timing-reporter.mjs).
    reporters: ["default", new TimingReporter()],
    // A dependency's configuration notice, printed by every file that builds an OAuthProvider
    // (the test Workers do not fetch client metadata documents); anything else is printed.
    onConsoleLog: (log) => !log.includes("CIMD (Client ID Metadata Document) is disabled"),
    // Golden files are file snapshots (test/helpers/golden.ts); UPDATE_GOLDEN=1 is the old name for -u.
    ...(process.env.UPDATE_GOLDEN === "1" ? { update: true } : {}),
    projects: [
      // Pure logic in plain Node (fast).
      {
        plugins: [stripDependencySourceMaps()],
        resolve: {
          alias: [
            ...alias,
            // The shared worker's engine texts, for sandbox/engine/run.ts run in plain Node.
            {
              find: /^\.\/engine-modules\.json$/,
              replacement: fileURLToPath(
                new URL("./test/helpers/executor/engine-module-texts.ts", import.meta.url),
              ),
            },
          ],
        },
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          // Its own group (vitest runs groups one after another): the workerd projects' group
          // has one worker each, and projects of one group must agree on maxWorkers, while unit
          // files may use every core.
          sequence: { groupOrder: 1 },
          // Every core but one (vitest's default), and at least two: on a 2-core machine (CI)
          // the default is one fork, and this project (~125 s of CPU, nearly all of it busy)
          // ran on one core while the other was idle, last on CI's critical path.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // One process for all files: modules (the 4 MB spec, TypeScript) load once, not per file.
          isolate: false,
          // Compiler- and spec-heavy cases take 1-3 s alone and several times that on a loaded
          // 2-core machine; the 5 s default turned load into failures.
          testTimeout: 30_000,
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
