// Runs a command that reads secrets from a file (`wrangler deploy --secrets-file <path>`), so the
// values never appear on a command line (process lists), in output or in an error message. The
// file lives in a folder of its own that only this user can enter (mkdtemp: 0700), is created
// new (never through a planted link) with mode 0600, and is removed on every way out: the command
// ends or fails to start, this process is stopped by SIGINT, SIGTERM or SIGHUP (the folder goes
// at once, and the signal is passed on to the command, which would otherwise go on uploading
// after its parent was stopped), or this process exits for any other reason. Only SIGKILL of this
// process can leave it behind: nothing runs then.
//
// Before (issue #41 review): deploy ran wrangler with spawnSync and removed the folder after it
// returned; a SIGTERM or a closed terminal killed deploy at once, leaving the secrets in /tmp and
// wrangler running on as an orphan.
import { spawn } from "node:child_process";
import {
  closeSync,
  constants as fsConstants,
  mkdtempSync,
  openSync,
  rmSync,
  writeSync,
} from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

/** The signals that remove the file and are passed on to the command. */
export const FORWARDED_SIGNALS = /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]);

/**
 * The exit code a shell reports for a command stopped by `signal`: 128 + its number.
 * @param {NodeJS.Signals | null} signal
 * @returns {number}
 */
function signalExit(signal) {
  const number = signal ? constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}

/**
 * Writes `secrets` as JSON to a new private file, runs `command` with `flag <file>` appended,
 * and removes the file's folder however the run ends.
 * @param {object} options
 * @param {string} options.command - the program (e.g. process.execPath)
 * @param {string[]} options.args - its arguments before `flag <file>`
 * @param {Record<string, string>} options.secrets - name → value; none runs without a file
 * @param {string} [options.flag] - the option that names the file (default --secrets-file)
 * @param {string} [options.tmp] - where the private folder is made (default: the OS's)
 * @param {NodeJS.ProcessEnv} [options.env] - the command's environment (default: this process's)
 * @returns {Promise<number>} the command's exit code (128 + n when stopped by signal n)
 */
export async function runWithSecretsFile({
  command,
  args,
  secrets,
  flag = "--secrets-file",
  tmp = tmpdir(),
  env = process.env,
}) {
  /** @type {string | undefined} */
  let folder;
  const remove = () => {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  };
  /** @type {import("node:child_process").ChildProcess | undefined} */
  let child;
  /** @type {NodeJS.Signals | undefined} */
  let stoppedBy;
  /** @param {NodeJS.Signals} signal */
  const onSignal = (signal) => {
    stoppedBy ??= signal;
    remove();
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    // Nothing running yet (the file was being written): stop here, as the signal asked.
    if (!child) process.exit(signalExit(signal));
  };
  // Handlers first, so no moment exists where the file is on disk and a signal skips its removal.
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  process.on("exit", remove);
  const done = () => {
    remove();
    for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
    process.off("exit", remove);
  };
  try {
    /** @type {string[]} */
    let fileArgs = [];
    if (Object.keys(secrets).length > 0) {
      folder = mkdtempSync(join(tmp, "code-mode-mcp-deploy-"));
      const file = join(folder, "secrets.json");
      // O_EXCL: a new file or nothing, never one (or a link) that was already there.
      const fd = openSync(
        file,
        fsConstants.O_WRONLY |
          fsConstants.O_CREAT |
          fsConstants.O_EXCL |
          (fsConstants.O_NOFOLLOW ?? 0),
        0o600,
      );
      try {
        writeSync(fd, JSON.stringify(secrets));
      } finally {
        closeSync(fd);
      }
      fileArgs = [flag, file];
    }
    /** @type {number} */
    const code = await new Promise((resolve) => {
      child = spawn(command, [...args, ...fileArgs], { stdio: "inherit", env });
      child.once("error", (error) => {
        // The program could not be started: its name, never its arguments' file contents.
        console.error(`could not start ${command}: ${error.message}`);
        resolve(1);
      });
      child.once("exit", (exitCode, signal) => resolve(exitCode ?? signalExit(signal)));
    });
    return stoppedBy ? signalExit(stoppedBy) : code;
  } finally {
    done();
  }
}
