/**
 * Whether a runtime's socket file is still the one it listens on. The watchdog's probes go over
 * kept connections (health-request.mjs), which reach the listening socket whatever has become
 * of its file since: with the host's direct socket file removed (another process of the user, a
 * cleanup of the temporary folder), its probes were answered for ever while every new request
 * of the front found no file, and each client got "the runtime was restarted because its
 * connection broke; retry", never a replacement. A file replaced by another process's socket
 * (one of this user's, bound at the same name) took the front's next requests, with their
 * `Authorization` headers and the cluster secret. Either way the runtime can no longer be
 * reached at its name, so the watchdog takes it for stuck and it is replaced.
 */
import { lstatSync } from "node:fs";

/**
 * The file's identity (device and inode) when it is a socket, else undefined.
 * @param {string} file
 * @param {{ lstatSync: typeof lstatSync }} [fs] - for tests
 * @returns {string | undefined}
 */
export function socketIdentity(file, fs = { lstatSync }) {
  if (file === "") return undefined;
  try {
    const stat = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return stat?.isSocket() ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A check that `socket()`'s file is still the one first seen there: true until a socket has been
 * seen (a runtime not listening yet), then false once the file is gone or is another one.
 * @param {() => string} socket - the runtime's socket path (read at each check)
 * @param {{ lstatSync: typeof lstatSync }} [fs] - for tests
 * @returns {() => boolean}
 */
export function sameSocketFile(socket, fs = { lstatSync }) {
  /** @type {string | undefined} */
  let first;
  return () => {
    const now = socketIdentity(socket(), fs);
    if (first === undefined) {
      first = now;
      return true;
    }
    return now === first;
  };
}
