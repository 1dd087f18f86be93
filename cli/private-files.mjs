// Files only their user may read or write: the compiled-spec cache and its key (issue #40: the
// cache folder was 0755 and its entries 0644, so every user of the machine could read which specs
// a user serves, and the folder's own modes were the only guard). Folders are made 0700 and files
// 0600; ones an older version made with looser modes are tightened when found. Windows has no
// POSIX modes (chmod changes only the read-only flag there): its user folders are private already.
//
// A path is opened without following a symbolic link and changed through that descriptor: a link
// planted in the cache folder (by whatever may write it: the threat the entries' HMAC is for) used
// to make chmod change the file or folder it pointed to (a script lost its execute bit, ~/.ssh
// became untraversable), and a check then chmod by name could be raced.
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync } from "node:fs";

/** Open flags: never through a link, never waiting on a FIFO (0 where the platform lacks them). */
export const OPEN_OWN =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Sets `path`'s permission bits to `mode` when they differ (an older launcher's 0755/0644).
 * @param {string} path
 * @param {number} mode - 0o700 for folders, 0o600 for files
 * @throws when `path` is a symbolic link (ELOOP) or cannot be opened: the caller treats it as
 *   unusable
 */
export function tighten(path, mode) {
  if (process.platform === "win32") return;
  const fd = openSync(path, OPEN_OWN);
  try {
    if ((fstatSync(fd).mode & 0o777) !== mode) fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `folder` (and any missing parent) 0700, or tightens it when it exists.
 * @param {string} folder
 */
export function ownFolder(folder) {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  tighten(folder, 0o700);
}
