// Tests run inside the Workers runtime (workerd) with this project's wrangler.jsonc: the real
// Worker Loader, so the sandbox is the one `wrangler dev` and a deployment use. The secrets are
// test values of their own (not .dev.vars'), so the tests never depend on your local keys.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          MCP_API_KEY: "test-mcp-api-key-0123456789abcdef",
          REQUEST_STATE_KEY: "test-request-state-key-0123456789abcdef",
        },
      },
    }),
  ],
  test: { testTimeout: 120_000 },
});
