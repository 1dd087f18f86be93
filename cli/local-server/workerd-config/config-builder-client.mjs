/**
 * The supervisor's side of the configuration builder (workerd-config-builder.mjs, a short-lived
 * Node process where Miniflare turns a runtime's options into workerd's configuration): started
 * when a configuration is needed, each build bounded by {@link BUILD_TIMEOUT_MS}, ended
 * {@link BUILDER_IDLE_MS} after its last build. runtime.mjs keeps what it builds.
 *
 * The process and the timers are injected (`spawnBuilder`, `after`) so that the bound and the
 * idle end are unit-tested with a builder that never answers and a clock the test moves
 * (test/unit/cli/workerd-config/config-builder-client.test.ts); the server uses a real Node process and timers
 * that keep no process alive.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { RUNTIME_HOST_NODE_FLAGS } from "../v8-flags.mjs";

const BUILDER = fileURLToPath(new URL("./workerd-config-builder.mjs", import.meta.url));

/**
 * How long one configuration build may take before it fails: Miniflare builds a configuration in
 * well under a second (a few seconds with a big spec on a loaded machine). A build that never
 * answers (a Miniflare that no longer hands workerd its configuration the way the builder
 * expects) would otherwise leave every later start waiting on the same cached promise; failed,
 * the builder is ended and the next start builds anew.
 */
export const BUILD_TIMEOUT_MS = 60_000;
/** How long the configuration builder stays after its last build (the next start's may follow). */
export const BUILDER_IDLE_MS = 15_000;

/**
 * @typedef {object} Built
 * @property {string} command - workerd's path
 * @property {string[]} args - workerd's command line as Miniflare built it
 * @property {Uint8Array} config - the configuration (Cap'n Proto)
 */

/**
 * What of a builder process this side uses (a `ChildProcess` started with an IPC channel).
 * @typedef {Pick<import("node:child_process").ChildProcess,
 *   "exitCode" | "signalCode" | "connected" | "stdout" | "stderr" | "send" | "kill" | "disconnect"
 *   | "on" | "once">} BuilderProcess
 */

/**
 * @typedef {object} ConfigBuilder
 * @property {(options: Record<string, unknown>, v8Flags: string, tmpdir?: string) => Promise<Built>} build -
 *   one configuration (tmpdir: Miniflare's temporary folder for it); rejects with the builder's
 *   reason, its exit, or the bound's message
 * @property {() => void} end - lets the builder go (it exits when its channel closes)
 */

/**
 * Starts the real builder: Node with the memory-saving flags (v8-flags.mjs), in its own process
 * group, with an IPC channel in Node's "advanced" serialization (the configuration's bytes
 * cross as a Uint8Array).
 * @param {Record<string, string>} env - its environment (TMPDIR: Miniflare's temporary folder)
 * @returns {BuilderProcess}
 */
export function spawnConfigBuilder(env) {
  mkdirSync(/** @type {string} */ (env.TMPDIR), { recursive: true, mode: 0o700 });
  return spawn(process.execPath, [...RUNTIME_HOST_NODE_FLAGS, BUILDER], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    serialization: "advanced",
    env: /** @type {NodeJS.ProcessEnv} */ (/** @type {unknown} */ (env)),
  });
}

/**
 * Runs `fn` after `ms` without keeping the process alive; returns its cancel.
 * @param {number} ms
 * @param {() => void} fn
 * @returns {() => void}
 */
function unrefAfter(ms, fn) {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * The configuration builder (see the header).
 * @param {Record<string, string>} env - its environment (TMPDIR: Miniflare's temporary folder)
 * @param {{ spawnBuilder?: (env: Record<string, string>) => BuilderProcess,
 *   after?: (ms: number, fn: () => void) => () => void }} [inject] - the process and the timers
 *   (tests)
 * @returns {ConfigBuilder}
 */
export function configBuilder(env, inject = {}) {
  const spawnBuilder = inject.spawnBuilder ?? spawnConfigBuilder;
  const after = inject.after ?? unrefAfter;
  /** @type {BuilderProcess | undefined} */
  let child;
  /** @type {Map<string, { resolve: (built: Built) => void, reject: (error: Error) => void }>} */
  const pending = new Map();
  /** @type {string[]} */
  const output = [];
  /** @type {() => void} */
  let cancelIdle = () => {};
  let builds = 0;
  const lastOutput = () => (output.length > 0 ? ` Its last output:\n${output.join("\n")}` : "");

  const end = () => {
    cancelIdle();
    if (child?.connected) child.disconnect();
  };
  const ensure = () => {
    if (child && child.exitCode === null && child.signalCode === null && child.connected)
      return child;
    const started = spawnBuilder(env);
    child = started;
    for (const stream of [started.stdout, started.stderr])
      if (stream)
        createInterface({ input: stream }).on("line", (text) => {
          output.push(text);
          if (output.length > 20) output.shift();
        });
    started.on("message", (/** @type {any} */ m) => {
      const waiter = pending.get(m?.id);
      if (!waiter) return;
      pending.delete(m.id);
      if (typeof m.error === "string") waiter.reject(new Error(m.error));
      else
        waiter.resolve({
          command: String(m.command),
          args: /** @type {string[]} */ (m.args).map(String),
          // As it came (a copy would hold the bytes twice until a collection).
          config: m.config instanceof Uint8Array ? m.config : new Uint8Array(m.config),
        });
      if (pending.size === 0) {
        cancelIdle();
        cancelIdle = after(BUILDER_IDLE_MS, end);
      }
    });
    started.once("exit", (code, signal) => {
      const why = new Error(
        `The configuration builder exited (${signal ?? `code ${code}`}) before it answered.${lastOutput()}`,
      );
      for (const waiter of pending.values()) waiter.reject(why);
      pending.clear();
    });
    return started;
  };

  return {
    end,
    build: (options, v8Flags, tmpdir) => {
      cancelIdle();
      const id = `b${++builds}`;
      const started = ensure();
      return new Promise((resolve, reject) => {
        const cancelBound = after(BUILD_TIMEOUT_MS, () => {
          if (!pending.delete(id)) return;
          reject(
            new Error(
              `The configuration builder did not answer within ${BUILD_TIMEOUT_MS / 1_000} s (a Miniflare version this server does not know?).${lastOutput()}`,
            ),
          );
          // A builder stuck once is not trusted with the next build: a fresh one starts (not
          // the stuck one, which may not have exited yet when the next build comes).
          if (child === started) child = undefined;
          if (started.exitCode === null) started.kill("SIGKILL");
        });
        pending.set(id, {
          resolve: (built) => {
            cancelBound();
            resolve(built);
          },
          reject: (error) => {
            cancelBound();
            reject(error);
          },
        });
        started.send({ build: id, options, v8Flags, ...(tmpdir ? { tmpdir } : {}) });
      });
    },
  };
}
