// Tests run inside the Workers runtime (workerd) with this project's wrangler.jsonc: the real
// Worker Loader, so the sandbox is the one `wrangler dev` and a deployment use.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.jsonc" } })],
  test: { testTimeout: 30_000 },
});
