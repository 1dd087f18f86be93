// Build of the published package (`npm run build`, run by `prepack`): one ESM file and one `.d.ts`
// per public entry in dist/lib/, matching package.json `exports`. The sandbox modules are prebuilt text
// (scripts/build-sandbox.mjs writes src/executor/generated/) and bundled in, so a user's bundler
// needs nothing special. Everything in dependencies/peerDependencies stays an import.
import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "codemode/index": "src/codemode/index.ts",
    "mcp/index": "src/mcp/index.ts",
    "mcp/server": "src/mcp/server.ts",
  },
  format: "esm",
  // Workers are neither Node nor a browser: keep `cloudflare:workers` and `node:*` (nodejs_compat)
  // as imports, resolved by the user's wrangler.
  platform: "neutral",
  target: "es2022",
  // dist/worker and dist/cli hold the prebuilt product of the `code-mode-mcp` command (build:worker).
  outDir: "dist/lib",
  clean: true,
  dts: true,
  hash: false,
  // One output module per source module (not a few shared chunks), so a user's bundler drops what
  // a Worker does not use: an openApiMcpServer-only Worker then leaves out the MCP client and the
  // SDK v1 that codeMcpServer's upstream connection imports (2.9 MB → 2.2 MB, measured with
  // `wrangler deploy --dry-run`). Needs `"sideEffects": false` in package.json.
  unbundle: true,
  deps: {
    neverBundle: [/^cloudflare:/, /^node:/],
    // The emitted JS may import only the package's declared runtime packages and the platform.
    onlyImport: [
      /^cloudflare:/,
      /^node:/,
      "@cfworker/json-schema",
      "@modelcontextprotocol/client",
      "@modelcontextprotocol/sdk",
      "@modelcontextprotocol/server",
      "acorn",
      "sucrase",
      "zod",
    ],
  },
});
