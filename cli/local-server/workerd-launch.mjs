/**
 * Starting one workerd process from the supervisor (runtime.mjs) with a configuration built by
 * workerd-config-builder.mjs: its command line with the runtime's own sockets, the lifeline that
 * ends it when the supervisor is gone, its readiness, and its log lines.
 *
 * - **Sockets.** One configuration serves every runtime built from the same options (the host and
 *   its replacements, every runner): the sockets that differ are given on the command line
 *   (`--socket-addr=<name>=<address>` replaces a configured socket's address), each a Unix socket
 *   in the server's private folder (socket-folder.mjs; never a TCP port: runtime-host.mjs's old
 *   header, docs/security.md). Miniflare's loopback service is pointed at a file nobody listens
 *   on: this server uses none of it (its loopback server answered 403 to everything before).
 * - **Lifeline.** Nothing ends a child whose parent was SIGKILLed, and Node cannot ask Linux to
 *   (PR_SET_PDEATHSIG). workerd is started through `sh`, which leaves a small watcher reading a
 *   pipe from the supervisor (fd 4) and then becomes workerd (`exec`: the same pid). When the
 *   supervisor dies, the pipe closes and the watcher SIGKILLs workerd; when the supervisor ends a
 *   runtime itself, it first writes a line to the pipe, and the watcher leaves without killing.
 * - **Ready** when workerd has reported, on its control pipe (fd 3), listening on every socket the
 *   runtime needs.
 */
import { spawn } from "node:child_process";

/**
 * The `sh` script of the lifeline (see the header); `$@` is workerd's command line. The watcher is
 * a `sh` of its own (`lifeline <pid>` in the process list), not a fork of this one, so that no
 * process but workerd shows workerd's command line.
 */
export const LIFELINE = `sh -c '${'read -r _ || kill -KILL "$1"'}' lifeline "$$" <&4 >/dev/null 2>&1 3>&- & exec "$@" 4<&-`;

/**
 * workerd's command line for one runtime: Miniflare's, with its entry and loopback addresses
 * replaced and the runtime's other sockets added before the configuration argument (`-`), and the
 * inspector when asked for. A flag Miniflare did not give throws: the runtime then does not start,
 * rather than start on an address Miniflare chose (a newer Miniflare is noticed at once).
 * @param {string[]} args - as Miniflare built them (workerd-config-builder.mjs)
 * @param {object} sockets
 * @param {string} sockets.entry - the entry socket's file
 * @param {string} sockets.loopback - a file for the loopback service (nothing listens there)
 * @param {Record<string, string>} sockets.named - socket name → address (`unix:<path>`)
 * @param {number} [inspectorPort] - opens workerd's V8 inspector on 127.0.0.1 (diagnostics only)
 * @returns {string[]}
 */
export function workerdArguments(args, sockets, inspectorPort) {
  const replaced = /** @type {const} */ ([
    ["--socket-addr=entry=", sockets.entry],
    ["--external-addr=loopback=", sockets.loopback],
  ]);
  const out = [...args];
  for (const [flag, file] of replaced) {
    const at = out.findIndex((arg) => arg.startsWith(flag));
    if (at === -1)
      throw new Error(
        `workerd's command line from Miniflare has no ${flag}… (a newer Miniflare?): this server puts that socket in its private folder, and will not open it on a TCP port.`,
      );
    out[at] = `${flag}unix:${file}`;
  }
  const config = out.lastIndexOf("-");
  if (config === -1) throw new Error("workerd's command line from Miniflare reads no stdin (-)");
  const added = Object.entries(sockets.named).map(([name, address]) => {
    if (!address.startsWith("unix:"))
      throw new Error(`socket ${name}: ${address} is not a Unix socket`);
    return `--socket-addr=${name}=${address}`;
  });
  if (inspectorPort !== undefined) added.push(`--inspector-addr=127.0.0.1:${inspectorPort}`);
  out.splice(config, 0, ...added);
  return out;
}

/**
 * The text of one line of workerd's output: the message of a structured log line (workerd prints
 * JSON with `level` and `message`), the line itself otherwise; null for workerd's own noise
 * (symbolizer notes, hexadecimal stacks), as Miniflare drops it.
 * @param {string} line
 * @returns {string | null}
 */
export function logText(line) {
  if (line === "") return null;
  let text = line;
  if (line.startsWith("{")) {
    try {
      const parsed = JSON.parse(line);
      if (typeof parsed?.message === "string" && typeof parsed?.level === "string")
        text = parsed.message;
    } catch {
      // not JSON: the line as it is
    }
  }
  const internal =
    text.includes("Not symbolizing stack traces because $LLVM_SYMBOLIZER is not set") ||
    text.includes("took recursive isolate lock") ||
    /stack:( (0|[a-f\d]{4,})){3,}/.test(text) ||
    /CODE_MOVED for unknown code block/.test(text);
  return internal ? null : text;
}

/**
 * Which sockets are still to be reported listening, after one line of workerd's control pipe.
 * @param {Set<string>} waiting - socket names not yet reported (changed in place)
 * @param {string} line - `{"event":"listen","socket":"entry","port":0}` and the like
 * @returns {boolean} whether every socket is listening now
 */
export function controlLine(waiting, line) {
  try {
    const message = JSON.parse(line);
    if (message?.event === "listen" && typeof message.socket === "string")
      waiting.delete(message.socket);
  } catch {
    // not a control message
  }
  return waiting.size === 0;
}

/**
 * Starts workerd with its configuration on stdin, behind the lifeline, in a process group of its
 * own (a Ctrl-C in the terminal reaches the supervisor, which ends the runtimes in its order).
 * stdio: 0 the configuration, 1 and 2 its output, 3 its control pipe, 4 the lifeline.
 * @param {object} options
 * @param {string} options.command - workerd's path
 * @param {string[]} options.args - workerdArguments
 * @param {Uint8Array} options.config
 * @param {Record<string, string>} options.env
 */
export function spawnWorkerd({ command, args, config, env }) {
  const child = spawn("/bin/sh", ["-c", LIFELINE, "sh", command, ...args], {
    detached: true,
    stdio: ["pipe", "pipe", "pipe", "pipe", "pipe"],
    env: /** @type {NodeJS.ProcessEnv} */ (/** @type {unknown} */ (env)),
  });
  child.stdin?.on("error", () => {});
  child.stdin?.end(config);
  return child;
}
