// What a `--stdio` launch does before its server is served (bin/code-mode-mcp.mjs, issue #43):
// the channel by which a refused start reaches the client, and the early answer to the client's
// `initialize` from a kept answer (cli/kept/early-answers.mjs), which may come long before the
// supervisor listens for a stop.
import { rmSync } from "node:fs";
import { answerWithError } from "../answer-with-error.mjs";

/**
 * @typedef {object} Refusal - what the bridge reads a refusal from (cli/product/stdio-bridge.mjs)
 * @property {Promise<string>} text - the refusal's message, once a refusal comes
 * @property {() => void} answered - the bridge answered the client with it
 */

/**
 * @typedef {object} RefusalChannel
 * @property {Refusal} refusal - for a bridge that reads stdin before the check passed
 * @property {(text: string) => Promise<void>} refuse - serve's refusal (cli/serve.mjs): answered by
 *   the bridge once it reads stdin, else by answerWithError (answer-with-error.mjs), which then
 *   has stdin to itself; resolves once the client was answered
 * @property {() => void} bridgeReads - the bridge reads stdin from now on (it answered early)
 * @property {() => boolean} refusedFirst - a refusal came before the bridge read stdin: it was
 *   answered without the bridge, which must not start
 */

/**
 * The channel by which a refused start answers the client: through the bridge once the bridge
 * reads stdin (it started before the check, with an answer kept for `initialize`), else on its
 * own by answerWithError, as a launch without a kept answer did.
 * @param {(text: string) => Promise<void>} [answerAlone] - answers the client without the bridge
 *   (tests)
 * @returns {RefusalChannel}
 */
export function refusalChannel(answerAlone = answerWithError) {
  let reads = false;
  let first = false;
  /** @type {(text: string) => void} */
  let give = () => {};
  /** @type {() => void} */
  let answered = () => {};
  const done = new Promise((resolve) => (answered = () => resolve(undefined)));
  /** @type {Refusal} */
  const refusal = {
    text: new Promise((resolve) => (give = resolve)),
    answered: () => answered(),
  };
  return {
    refusal,
    refuse: async (text) => {
      if (!reads) {
        first = true;
        return answerAlone(text);
      }
      give(text);
      await done;
    },
    bridgeReads: () => void (reads = true),
    refusedFirst: () => first,
  };
}

/** The signals that stop a launch (serve's own stop listens for the same). */
const STOPS = /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]);

/**
 * Starts the bridge that answers `initialize` early and gives it a few turns of the event loop
 * before serve's synchronous start (the host's configuration read and filled: 0.3–1 s of a loaded
 * machine): the client's `initialize`, in the pipe since the spawn, is read and answered now.
 * A client answered this early may stop the launch at once: until serve listens for that, a stop
 * removes the launch's own data folder and exits 0 here (serve's stop takes over after).
 * @param {object} options
 * @param {() => Promise<void>} options.startBridge - starts the bridge; resolves when the client left
 * @param {boolean} options.ownData - the data folder is this launch's own (no PERSIST_TO)
 * @param {string} options.persist - the data folder
 * @param {(code: number) => void} [options.exit] - ends the process (tests)
 * @returns {Promise<{ bridged: Promise<void> }>} once the turns passed: the bridge's run (in an
 *   object: an async function's promise would wait for it)
 */
export async function answerBeforeServe({ startBridge, ownData, persist, exit = process.exit }) {
  const stopBeforeServe = () => {
    if (ownData) rmSync(persist, { recursive: true, force: true });
    exit(0);
  };
  for (const signal of STOPS) process.once(signal, stopBeforeServe);
  const bridged = startBridge();
  for (let turn = 0; turn < 3; turn++) await new Promise((next) => setImmediate(next));
  for (const signal of STOPS) process.off(signal, stopBeforeServe);
  return { bridged };
}
