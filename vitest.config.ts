import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Two projects: pure logic in plain Node (fast), and everything touching the runtime inside
// workerd with the real LOADER binding and Durable Objects, configured from wrangler.jsonc.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.jsonc" } })],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./test/agent/wrangler.jsonc" } })],
        test: {
          name: "agent",
          include: ["test/agent/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
