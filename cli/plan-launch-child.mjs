// The short-lived Node process in which `serve` (serve.mjs) checks the settings and compiles the
// spec: it loads the product module, plans the launch, sends the plan (or the problem) over its
// IPC channel and ends, and the memory all of that took goes with it. Its log and progress lines
// travel as messages, so the launcher sends each where it belongs (stderr under --stdio).
//
// A process, not a worker thread: a thread's JavaScript heap goes with it, but what it took
// from malloc (the compilers' and parser's zones for the product module, the validation's native
// buffers) stays in the launcher's malloc arenas as free holes that glibc never gives back while
// anything lives above them: ~24 MiB of the supervisor's idle memory with Cloudflare's spec
// (issue #43; bench/README.md). A process's memory all goes back when it exits.
//
// The settings (the launcher's reading of its environment, .dev.vars and flags) come as the first
// message, never as arguments or added environment variables: secrets may be among them. The
// process inherits the launcher's own environment as any child does, so nothing is exposed to
// another process that the launcher's environment did not already show.
//
// The same first message may hold digests of files the launcher hashed already (the product
// module and the spec file under `--stdio`: kept/file-digest.mjs), taken as this process's own.
// They are trusted as the settings are: the IPC channel is a socket pair made by the fork and
// held by the launcher alone, so nothing but the launcher that started this process writes to it
// (an environment variable would do as well, but the settings' channel needs no new one). Each
// digest still holds only while its file has the size and time it was hashed at.
import { rememberDigests } from "./kept/file-digest.mjs";
import { loadProduct } from "./runtime-paths.mjs";
import { LaunchProblem, planLaunch } from "./plan-launch.mjs";

/** @param {unknown} message */
const send = (message) =>
  new Promise((sent) => {
    // The launcher may be gone (ended meanwhile): nothing is left to tell.
    if (!process.connected) return sent(undefined);
    process.send?.(message, undefined, {}, () => sent(undefined));
  });

// With the launcher gone there is no one to plan for.
process.on("disconnect", () => process.exit(0));
const { label, env, digests } = await new Promise((settings) =>
  process.once("message", (/** @type {any} */ message) => settings(message)),
);
rememberDigests(digests);
const product = await loadProduct(label);
try {
  const plan = await planLaunch({
    label,
    product,
    env,
    log: (line) => void send({ log: line }),
    progress: (line) => void send({ progress: line }),
    warn: (line) => void send({ progress: line }),
  });
  await send({ plan });
} catch (error) {
  await send({
    fail:
      error instanceof LaunchProblem
        ? error.message
        : `${label}: the launch check failed: ${/** @type {Error} */ (error)?.stack ?? error}`,
  });
}
process.disconnect();
