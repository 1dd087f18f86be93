/**
 * Which socket folders (socket-folder.mjs) belong to servers that are gone, and their removal:
 * SIGKILL runs no clean-up, so a killed server's folder stays in the temporary folder until the
 * next server of this user removes it.
 *
 * **Which folder is stale: its lock.** Each server listens on `lock.sock` in its folder for as
 * long as its process lives (it accepts and closes; nothing is read or said). A killed process's
 * listening socket is closed by the kernel and its file stays, so a connection to it is refused:
 * that folder is stale. A folder whose lock answers is a live server's, whatever its owner pid
 * looks like from here: in another PID namespace sharing /tmp (a container) that pid may be a
 * live server while no process of that number runs here, or an unrelated process here while the
 * server is gone (the pid alone removed a live container's sockets, issue #40 review). The
 * kernel answers for a listening socket even while its process's thread is busy. A folder
 * without a lock (a server older than the lock, or one made a moment ago) is removed only when
 * its owner pid is gone here, none of its sockets answers, and it is older than
 * {@link LOCKLESS_GRACE_MS}.
 *
 * The folder's name is decided here too ({@link folderPrefix}): the name the server makes is the
 * name the clean-up recognises, and nothing else under the parent is ever touched.
 */
import { connect, createServer } from "node:net";
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** A folder's name: `cmm-<owner pid>-<6 random>` (mkdtemp adds the 6). */
const FOLDER = /^cmm-(\d{1,10})-[A-Za-z0-9]{6}$/;
/** The longest folder name {@link FOLDER} takes (a pid of 10 digits): socket paths are short. */
export const FOLDER_NAME_MAX = "cmm-".length + 10 + 1 + 6;
/** The lock's socket in a server's folder (see the header). */
export const LOCK_NAME = "lock.sock";
/** How old a folder without a lock must be before it may be removed (see the header). */
export const LOCKLESS_GRACE_MS = 60_000;
/** How long a probe of a socket waits for its connection. */
const PROBE_MS = 2_000;

/**
 * What a connection to a socket file came to: `answers` (something listens), `refused` (the
 * file is there and nothing listens: its process is gone), `missing` (no such file), `unknown`
 * (anything else: a full backlog, a timeout, no permission; taken as alive).
 * @typedef {"answers" | "refused" | "missing" | "unknown"} Probe
 */

/**
 * What the clean-up depends on, given by tests (socket-folder.mjs fills in this process's).
 * @typedef {object} StaleDeps
 * @property {number | undefined} uid - this user's id (undefined where there is none: Windows)
 * @property {number} pid - this process's id (its own folder is never stale)
 * @property {(pid: number) => boolean} alive - whether a process runs (a folder's owner)
 * @property {(path: string) => Promise<Probe>} probe - a connection to a socket file
 * @property {() => number} now - the time (Date.now())
 */

/**
 * What mkdtemp is given for a folder owned by process `pid`: the name {@link removeStaleFolders}
 * recognises once mkdtemp has added its 6 characters.
 * @param {number} pid
 */
export function folderPrefix(pid) {
  return `cmm-${pid}-`;
}

/**
 * Whether the folder at `path`, named for owner pid `owner`, is stale: its server is gone (see
 * the header). A lock that answers (or cannot be told: a full backlog, a timeout) keeps it; a
 * refused lock removes it, whatever the pid; without a lock, the pid, the other sockets and the
 * folder's age decide.
 * @param {string} path
 * @param {number} owner - the pid in its name
 * @param {{ mtimeMs: number }} info - the folder's own stat
 * @param {Pick<StaleDeps, "pid" | "alive" | "probe" | "now">} deps
 * @returns {Promise<boolean>}
 */
export async function staleFolder(path, owner, info, { pid, alive, probe, now }) {
  if (owner === pid) return false;
  const lock = await probe(join(path, LOCK_NAME));
  if (lock === "answers" || lock === "unknown") return false;
  if (lock === "refused") return true;
  // No lock: a server older than the lock, or one that is making its folder right now.
  if (alive(owner) || now() - info.mtimeMs < LOCKLESS_GRACE_MS) return false;
  let names;
  try {
    names = readdirSync(path);
  } catch {
    return false;
  }
  for (const name of names.filter((n) => n.includes(".sock")))
    if ((await probe(join(path, name))) !== "refused") return false;
  return true;
}

/**
 * Removes the folders that servers of this user left behind when they were killed (SIGKILL
 * runs no clean-up): in `base`, only folders named as ours that {@link staleFolder} finds stale,
 * only this user's, never following a link.
 * @param {string} base
 * @param {StaleDeps} deps
 * @returns {Promise<string[]>} the folders removed
 */
export async function removeStaleFolders(base, deps) {
  /** @type {string[]} */
  const removed = [];
  let names;
  try {
    names = readdirSync(base);
  } catch {
    return removed;
  }
  for (const name of names) {
    const owner = FOLDER.exec(name)?.[1];
    if (!owner) continue;
    const path = join(base, name);
    try {
      const info = lstatSync(path);
      // A link (to anywhere) or a file under our pattern is not ours to remove.
      if (!info.isDirectory() || info.isSymbolicLink()) continue;
      if (deps.uid !== undefined && info.uid !== deps.uid) continue;
      if (!(await staleFolder(path, Number(owner), info, deps))) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/**
 * A connection to the socket file at `path`, closed at once (see {@link Probe}).
 * @param {string} path
 * @returns {Promise<Probe>}
 */
export function probeSocket(path) {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (/** @type {Probe} */ result) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done("unknown"), PROBE_MS);
    socket.once("connect", () => done("answers"));
    socket.once("error", (/** @type {NodeJS.ErrnoException} */ error) =>
      done(
        error.code === "ECONNREFUSED" ? "refused" : error.code === "ENOENT" ? "missing" : "unknown",
      ),
    );
  });
}

/**
 * Listens on the folder's lock (see the header) for as long as this process lives: every
 * connection is closed at once. Never keeps the process alive.
 * @param {string} folder
 * @returns {() => void} stops listening (the folder's removal)
 */
export function holdLock(folder) {
  const server = createServer((socket) => socket.destroy());
  // A failure to listen leaves the folder lockless: the older rule keeps it while this pid runs.
  server.on("error", () => {});
  server.listen(join(folder, LOCK_NAME));
  server.unref();
  return () => server.close();
}

/**
 * Whether process `pid` runs (for a folder's owner): a signal 0 reaches it, or it belongs to
 * another user (EPERM: alive, not ours).
 * @param {number} pid
 */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}
