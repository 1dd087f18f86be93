// Files only their user may read or write: the compiled-spec cache and its key, the kept workerd
// configurations and tools/list counts (issue #40: the
// cache folder was 0755 and its entries 0644, so every user of the machine could read which specs
// a user serves, and the folder's own modes were the only guard). Folders are made 0700 and files
// 0600; ones an older version made with looser modes are tightened when found. Windows has no
// POSIX modes (chmod changes only the read-only flag there): its user folders are private already.
//
// A path is opened without following a symbolic link and changed through that descriptor: a link
// planted in the cache folder (by whatever may write it: the threat the entries' HMAC is for) used
// to make chmod change the file or folder it pointed to (a script lost its execute bit, ~/.ssh
// became untraversable), and a check then chmod by name could be raced.
import { randomUUID } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

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
 * Makes `folder` (and any missing parent) 0700, or tightens it when it exists and is ours alone.
 *
 * An existing folder is first checked, through one descriptor opened without following a link:
 * it must belong to this user, and neither group nor others may write in it. With `XDG_*`
 * pointing at a shared place, another user's pre-made folder (or one anybody may write in) could
 * hold, swap or read our kept files; chmod made it look private while whoever planted files
 * there kept them (and root's chmod succeeds on another user's folder). An older launcher's
 * 0755 is still tightened: nobody else could write in it.
 * @param {string} folder
 * @param {number | undefined} [uid] - this user's id (tests inject one); none on Windows
 * @throws Error naming the folder, what is wrong and the fix, for a folder not ours alone
 */
export function ownFolder(folder, uid = process.getuid?.()) {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (process.platform === "win32") return;
  const fd = openSync(folder, OPEN_OWN);
  try {
    const stat = fstatSync(fd);
    const mode = stat.mode & 0o777;
    const problem = folderProblem(stat, uid);
    if (problem)
      throw new Error(
        `${folder} cannot hold this user's private files: ${problem}.\n  Fix: if it is yours, check what it holds, then \`chmod 700 ${folder}\` (or remove it); else point the XDG_CACHE_HOME / XDG_CONFIG_HOME / PERSIST_TO setting that leads there at a folder of your own.`,
      );
    if (mode !== 0o700) fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/**
 * Why a folder with this `stat` cannot hold this user's private files, or undefined when it can
 * ({@link ownFolder} refuses it then).
 * @param {{ isDirectory: () => boolean, uid: number, mode: number }} stat
 * @param {number | undefined} uid - this user's id (none on Windows)
 * @returns {string | undefined}
 */
export function folderProblem(stat, uid) {
  const mode = stat.mode & 0o777;
  return !stat.isDirectory()
    ? "it is not a folder"
    : uid !== undefined && stat.uid !== uid
      ? `it belongs to another user (uid ${stat.uid}; this is uid ${uid})`
      : (mode & 0o022) !== 0
        ? `${(mode & 0o020) !== 0 ? "its group" : "other users"} may write in it (mode 0${mode.toString(8)}), so files in it may not be ours`
        : undefined;
}

/**
 * A kept file's bytes, read through one descriptor opened without following a link or waiting on
 * a FIFO; undefined for anything but a regular file of at most `maxBytes` (a link to /dev/zero or
 * a FIFO planted under an entry's name made the launcher grow without bound or hang). An older
 * launcher's 0644 file is tightened through the same descriptor. A file over `maxBytes` is
 * refused from its size, before any byte of it is read.
 * @param {string} path
 * @param {number} maxBytes - the largest file that can be one of ours
 * @param {(size: number) => void} [tooLarge] - told the size of a file refused for it
 * @returns {ReturnType<typeof Buffer.alloc> | undefined}
 */
export function readOwnFile(path, maxBytes, tooLarge) {
  const fd = openSync(path, OPEN_OWN);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (stat.size > maxBytes) return void tooLarge?.(stat.size);
    if (process.platform !== "win32" && (stat.mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const read = readSync(fd, bytes, at, bytes.length - at, at);
      if (read === 0) return undefined;
      at += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `parts` as the file `path` (0600) in one step: into a new temporary file beside it, then
 * renamed over it. The temporary file is created new only (never through a link or anything
 * planted at its name: `writeFileSync` followed one and overwrote the file it named), and its name
 * is random (`<entry>.<pid>.tmp` was easy to plant, and a killed launch's file under it stopped
 * every later launch with the same pid, as in a container, from keeping that entry for good).
 * @param {string} path
 * @param {readonly Uint8Array[]} parts - written one after another
 * @throws when the file cannot be written (the caller keeps nothing)
 */
export function writeOwnFile(path, parts) {
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    for (const part of parts) {
      let at = 0;
      while (at < part.length) at += writeSync(fd, part, at, part.length - at);
    }
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

/**
 * Removes the least recently written entries (names ending in `suffix`) past `keep`, and the
 * temporary files a killed write left once they are a minute old. Only regular files are
 * counted, tightened (an older launcher's 0644 ones) or removed: a link, a FIFO or a folder
 * planted in the folder is never followed.
 * @param {string} folder
 * @param {{ keep: number, suffix: string, now: number }} options
 */
export function pruneOwnFolder(folder, { keep, suffix, now }) {
  const entries = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const stat = lstatSync(path);
    if (!stat.isFile()) continue;
    if (process.platform !== "win32" && (stat.mode & 0o777) !== 0o600) tighten(path, 0o600);
    if (name.endsWith(".tmp")) {
      if (now - stat.mtimeMs > 60_000) rmSync(path, { force: true });
    } else if (name.endsWith(suffix)) entries.push({ path, mtimeMs: stat.mtimeMs });
  }
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path } of entries.slice(keep)) rmSync(path, { force: true });
}
