import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
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

// Projects: pure logic in plain Node (fast), and everything touching the runtime inside
// workerd with the real LOADER binding and Durable Objects, configured from wrangler.jsonc.
export default defineConfig({
  test: {
    // Golden files are file snapshots (test/helpers/golden.ts); UPDATE_GOLDEN=1 is the old name for -u.
    ...(process.env.UPDATE_GOLDEN === "1" ? { update: true } : {}),
    projects: [
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
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.jsonc" },
            miniflare: { bindings: { REGEXP_FALLBACK } },
          }),
        ],
        resolve: { alias },
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./test/agent/wrangler.jsonc" } })],
        resolve: { alias },
        test: {
          name: "agent",
          include: ["test/agent/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        // The seed documents' examples, verbatim but for import paths, each run by a real client.
        plugins: [
          cloudflareTest({ wrangler: { configPath: "./test/seed-examples/wrangler.jsonc" } }),
        ],
        resolve: { alias },
        test: {
          name: "seeds",
          include: ["test/seed-examples/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
