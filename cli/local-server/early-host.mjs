/**
 * The first host runtime started beside the launch check instead of after it (issue #43): a warm
 * desktop launch spent ~0.5–0.7 s of CPU in the check's process (Node, the product module, the
 * kept spec's read) and then ~0.3 s in the host's workerd start (its 4.8 MB bundle), one after
 * the other, on a machine with two cores.
 *
 * The host's message is guessed from the last launch's memo (cli/kept/launch-memo.mjs: where each
 * binding came from, never a secret's value) with this launch's environment and kept spec, and
 * that host starts at once. It serves nothing before the check's plan comes: the front does not
 * listen yet, and no request reaches the host before the supervisor adopts it. When the plan
 * comes, the planned host message is compared with the guessed one, all of it (every binding's
 * value, the runner addresses, the V8 flags): the same, and the started host becomes the first
 * host; any difference, or a refused plan, and it is ended at once and the planned one started as
 * before. So the check still decides everything that runs, and a wrong guess costs one wasted
 * start's CPU.
 */
import { asciiJson } from "../ascii-json.mjs";
import { jsonDigest } from "./workerd-config/json-digest.mjs";

/**
 * The host's bindings as the memo says the last launch had them, from this launch's environment
 * and kept spec; undefined when any is missing or not what the memo names (a variable unset
 * since, a spec changed or no longer kept).
 * @param {import("../kept/launch-memo.mjs").LaunchMemo} memo
 * @param {Record<string, string | undefined>} env - this launch's environment (settings included)
 * @param {() => string | undefined} keptSpec - SPEC_FILE's compiled spec's text from the spec
 *   cache (read only when the memo names one)
 * @returns {Record<string, string> | undefined}
 */
export function guessedBindings(memo, env, keptSpec) {
  /** @type {Record<string, string>} */
  const bindings = {};
  for (const [name, source] of memo.bindings) {
    if (source[0] === "env") {
      const value = env[name];
      if (typeof value !== "string") return undefined;
      bindings[name] = value;
    } else if (source[0] === "text") bindings[name] = source[1];
    else {
      // No digest to check it against: a kept spec other than the plan's makes another message.
      const text = keptSpec();
      if (text === undefined) return undefined;
      bindings[name] = `{${asciiJson(source[1])}:${text}}`;
    }
  }
  return bindings;
}

/**
 * A digest of everything a runtime's message says: two messages with the same one make the same
 * runtime (workerd-config/json-digest.mjs, the key its configurations are built under too).
 * @param {import("./runtime.mjs").RuntimeMessage} message
 * @returns {string}
 */
export function messageDigest(message) {
  return jsonDigest(message);
}

/**
 * @typedef {object} EarlyHost
 * @property {(planned: import("./runtime.mjs").RuntimeMessage, onCrash: () => void) => import("./runtime.mjs").Runtime | undefined} take -
 *   the started host when `planned` is the message it was started with and it still runs (its
 *   crash lines go to `onCrash` from then on); otherwise it is ended and undefined comes back.
 *   Once only: later calls give undefined.
 * @property {(reason: string) => Promise<void>} end - ends it unless it was taken
 */

/**
 * Starts a host runtime from a guessed message (see the header).
 * @param {Pick<import("./runtime.mjs").RuntimeHost, "start">} runtimes
 * @param {import("./runtime.mjs").RuntimeMessage} guessed
 * @param {string} name - the first host's name ("runtime 1")
 * @returns {EarlyHost}
 */
export function startEarlyHost(runtimes, guessed, name) {
  /** @type {() => void} */
  let onCrash = () => {};
  const runtime = runtimes.start({ name, message: guessed, onCrashLine: () => onCrash() });
  /** @type {import("./runtime.mjs").RuntimeMessage | undefined} Not held once settled. */
  let message = guessed;
  /** @type {string | undefined} */
  let digest;
  // After workerd's spawn (a microtask away), while the check works.
  setImmediate(() => {
    if (message) digest ??= messageDigest(message);
  });
  let settled = false;
  /** @param {string} reason */
  const end = async (reason) => {
    if (settled) return;
    settled = true;
    message = undefined;
    await runtime.kill(reason);
  };
  return {
    take: (planned, crashed) => {
      if (settled || !message) return undefined;
      digest ??= messageDigest(message);
      if (runtime.isRunning() && messageDigest(planned) === digest) {
        settled = true;
        message = undefined;
        onCrash = crashed;
        return runtime;
      }
      void end("the launch check planned another host");
      return undefined;
    },
    end,
  };
}
