/**
 * `node:http` for the launcher's modules, taken through `require` rather than `import`: an ESM
 * import of a built-in module makes its facade by reading every export, and `node:http`'s
 * `WebSocket`, `CloseEvent` and `MessageEvent` are getters that load Node's whole fetch
 * implementation (undici) when read. The front imported it so, and a warm desktop launch
 * compiled undici (~0.1 s of a loaded machine, issue #43) before it could start its host
 * runtime. The `--stdio` bridge still needs undici for its `fetch`: it loads it while the
 * runtimes start (bin/code-mode-mcp.mjs).
 */
import { createRequire } from "node:module";

/** The `node:http` module. @type {typeof import("node:http")} */
export const http = createRequire(import.meta.url)("node:http");
