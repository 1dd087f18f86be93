// `npm start`: checks the configuration from the environment, then serves 127.0.0.1:8787 (PORT
// overrides) through a supervisor that keeps a healthy `wrangler dev` runtime behind the port
// (cli/local-server/supervise.mjs). With no settings it serves the offline demo.
//
//   SPEC_FILE=/path/to/spec.yaml API_BASE_URL=https://api.example.com API_TOKEN=… npm start
//   UPSTREAM_MCP_URL=https://mcp.example.com/mcp UPSTREAM_MCP_AUTH="Bearer …" npm start
//
// The same launcher as the `code-mode-mcp` command (cli/serve.mjs), over the same prebuilt Worker
// (npm's prestart ran build:worker): the settings are the ones src/app/config/setting-names.ts lists,
// checked by the Worker's own check, and SPEC_FILE is compiled and handed to the Worker in a var.
import { join, resolve } from "node:path";
import { restartWithMallocSettings } from "../cli/local-server/malloc-env.mjs";

// First of all: this process hosts the front, which needs glibc's malloc settings to give request
// bodies' memory back; glibc reads them only at start, so the process starts again in place with
// them (malloc-env.mjs). The rest is imported after.
restartWithMallocSettings();
const { checkBuilt } = await import("../cli/runtime-paths.mjs");
const { serve } = await import("../cli/serve.mjs");
const { ROOT } = await import("./import-ts.mjs");

checkBuilt("npm start");
await serve({
  label: "npm start",
  env: process.env,
  // PERSIST_TO gives a run its own local data (the e2e scripts use a fresh folder each).
  persist: resolve(process.env.PERSIST_TO ?? join(ROOT, ".wrangler/state")),
  log: (line) => console.log(line),
  progress: (line) => console.error(line),
});
