// One local runtime process (host or sandbox runner), started by the `npm start` supervisor
// (runtime.mjs) with an IPC channel: it receives its Miniflare options as one message (secrets
// travel in memory only, never through a file or the environment), runs workerd through
// Miniflare directly (no `wrangler dev`, no proxy Worker in front: one hop fewer per request),
// reports `{ ready: { url, rpcUrl? } }`, and exits when its workerd crashes (Miniflare would
// restart it, and a restarted runtime was seen to never answer again: the supervisor replaces it
// instead), when the supervisor goes away (the channel closes), or on SIGTERM.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// The Miniflare that wrangler (a dependency of this package) brings, wherever npm placed it.
const require = createRequire(import.meta.url);
const wranglerMain = require.resolve("wrangler/package.json");
const miniflarePath = createRequire(wranglerMain).resolve("miniflare");
const { Miniflare, Log, LogLevel, convertV4MiniflareOptions } = await import(
  pathToFileURL(miniflarePath).href
);

/**
 * @typedef {object} RuntimeMessage
 * @property {Record<string, unknown>} options - Miniflare (V4-style) options, plain data
 * @property {{ worker: string, entrypoint: string } | undefined} [rpc] - the entrypoint whose
 *   direct socket this runtime reports as `rpcUrl` (runners)
 * @property {boolean} [quiet] - leave request lines out of the log (runners: hundreds a second)
 */

/** @type {import("miniflare").Miniflare | undefined} */
let mf;
let ending = false;

/** @param {number} code */
async function end(code) {
  if (ending) return;
  ending = true;
  const timer = setTimeout(() => process.exit(code), 2_000);
  timer.unref();
  try {
    await mf?.dispose();
  } catch {
    // already gone
  }
  process.exit(code);
}

process.on("disconnect", () => void end(0));
process.on("SIGTERM", () => void end(0));
process.on("SIGINT", () => void end(0));

process.once("message", async (/** @type {RuntimeMessage} */ message) => {
  try {
    const runtime = new Miniflare(
      convertV4MiniflareOptions({
        ...message.options,
        log: new Log(LogLevel.INFO),
        logRequests: !message.quiet,
        unsafeHandleRuntimeRestart: () => {
          console.error("The Workers runtime crashed unexpectedly; this runtime ends.");
          void end(1);
        },
      }),
    );
    mf = runtime;
    const url = await runtime.ready;
    const rpcUrl = message.rpc
      ? (await runtime.unsafeGetDirectURL(message.rpc.worker, message.rpc.entrypoint)).href
      : undefined;
    process.send?.({ ready: { url: url.href, rpcUrl } });
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    await end(1);
  }
});
