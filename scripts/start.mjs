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
import { checkBuilt } from "../cli/runtime-paths.mjs";
import { serve } from "../cli/serve.mjs";
import { ROOT } from "./import-ts.mjs";

checkBuilt("npm start");
await serve({
  label: "npm start",
  env: process.env,
  // PERSIST_TO gives a run its own local data (the e2e scripts use a fresh folder each).
  persist: resolve(process.env.PERSIST_TO ?? join(ROOT, ".wrangler/state")),
  log: (line) => console.log(line),
  progress: (line) => console.error(line),
});
