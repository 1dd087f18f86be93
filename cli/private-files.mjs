// Files only their user may read or write: the compiled-spec cache and its key (issue #40: the
// cache folder was 0755 and its entries 0644, so every user of the machine could read which specs
// a user serves, and the folder's own modes were the only guard). Folders are made 0700 and files
// 0600; ones an older version made with looser modes are tightened when found. Windows has no
// POSIX modes (chmod changes only the read-only flag there): its user folders are private already.
import { chmodSync, mkdirSync, statSync } from "node:fs";

/**
 * Sets `path`'s permission bits to `mode` when they differ (an older launcher's 0755/0644).
 * @param {string} path
 * @param {number} mode - 0o700 for folders, 0o600 for files
 */
export function tighten(path, mode) {
  if (process.platform === "win32") return;
  if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
}

/**
 * Makes `folder` (and any missing parent) 0700, or tightens it when it exists.
 * @param {string} folder
 */
export function ownFolder(folder) {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  tighten(folder, 0o700);
}
