/**
 * The folder of a local server's sockets: each runner serves Workers RPC on a Unix socket here,
 * and every runtime its HTTP (runtime.mjs), not on a loopback TCP port. A TCP port is open to every process on the machine, and it
 * is free for anyone to take between a runner's end and its replacement's start: a process that
 * bound it then would have received the host's next runs, the cluster secret among them. A
 * socket in a folder only this user can enter (0700, made by mkdtemp) is reachable only by this
 * user's processes, and its name cannot be taken by anyone else (issue #40; a process of the same
 * user that can read the server's memory is out of scope, docs/security.md).
 *
 * Where it is made, and what it cleans first (each decided by a function below, tested with a
 * fake file system owner, environment and process table): a parent that is safe (this user's or
 * root's, and sticky when others may write to it) and short enough for a socket path, else the
 * next candidate, else a refusal naming TMPDIR; the folders of this user's servers that were
 * killed are removed (staleFolder decides which, with a fake probe and process table in tests).
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
 * workerd names a direct socket `<host>:<port>`, so a socket asked for at `unix:<path>` with port
 * 0 is the file `<path>:0`: {@link runnerSocket} gives both the file and the address to bind to.
 */
import { connect, createServer } from "node:net";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { specCacheFolder } from "../kept/spec-cache.mjs";

/**
 * The longest socket path taken: a Unix socket's path must fit `sun_path` (108 bytes on Linux,
 * 104 on macOS, each with its closing NUL); past it workerd cannot bind.
 */
export const MAX_SOCKET_PATH_BYTES = 103;
/** Room for the longest name in a folder (`r123456.loopback.sock`, `runner-16.sock:0`). */
const NAME_ROOM = 24;
/** A folder's name: `cmm-<owner pid>-<6 random>` (mkdtemp adds the 6). */
const FOLDER = /^cmm-(\d{1,10})-[A-Za-z0-9]{6}$/;
/** The longest folder name (a pid of 10 digits). */
const FOLDER_ROOM = "cmm-".length + 10 + 1 + 6;
/** The lock's socket in a server's folder (see the header). */
export const LOCK_NAME = "lock.sock";
/** How old a folder without a lock must be before it may be removed (see the header). */
export const LOCKLESS_GRACE_MS = 60_000;
/** How long a probe of a socket waits for its connection. */
const PROBE_MS = 2_000;

/**
 * What the folder's making depends on, given by tests (the defaults are this process's).
 * @typedef {object} FolderDeps
 * @property {Record<string, string | undefined>} [env] - TMPDIR, XDG_RUNTIME_DIR, XDG_CACHE_HOME
 * @property {NodeJS.Platform} [platform]
 * @property {number | undefined} [uid] - this user's id (undefined where there is none: Windows)
 * @property {number} [pid] - this process's id, written into the folder's name
 * @property {(pid: number) => boolean} [alive] - whether a process runs (a folder's owner)
 * @property {(path: string) => { uid: number, mode: number, isDirectory(): boolean }} [stat] -
 *   a candidate parent's owner and mode (following links: the parent the user named)
 * @property {(path: string) => string} [realpath] - a candidate's path with every link resolved
 * @property {(path: string) => Promise<Probe>} [probe] - a connection to a socket file
 * @property {() => number} [now] - the time (Date.now())
 */

/**
 * What a connection to a socket file came to: `answers` (something listens), `refused` (the
 * file is there and nothing listens: its process is gone), `missing` (no such file), `unknown`
 * (anything else: a full backlog, a timeout, no permission; taken as alive).
 * @typedef {"answers" | "refused" | "missing" | "unknown"} Probe
 */

/**
 * {@link FolderDeps} with every default filled in.
 * @typedef {object} Deps
 * @property {Record<string, string | undefined>} env
 * @property {NodeJS.Platform} platform
 * @property {number | undefined} uid
 * @property {number} pid
 * @property {(pid: number) => boolean} alive
 * @property {(path: string) => { uid: number, mode: number, isDirectory(): boolean }} stat
 * @property {(path: string) => string} realpath
 * @property {(path: string) => Promise<Probe>} probe
 * @property {() => number} now
 */

/**
 * A parent the folder may be made in: a folder owned by this user or by root, that no one else
 * can write to, or only with the sticky bit set (as /tmp: others cannot rename or remove what
 * is ours there). In a folder others may write without it (a world-writable, non-sticky TMPDIR),
 * another user could swap our folder for one of theirs between its making and its use.
 * @param {string} path
 * @param {Deps["stat"]} stat
 * @param {number | undefined} uid
 * @returns {string | undefined} why not, or undefined when it may
 */
export function unsafeParent(path, stat, uid) {
  let info;
  try {
    info = stat(path);
  } catch {
    return "does not exist";
  }
  if (!info.isDirectory()) return "is not a folder";
  if (uid !== undefined && info.uid !== uid && info.uid !== 0)
    return `belongs to another user (uid ${info.uid})`;
  if ((info.mode & 0o022) !== 0 && (info.mode & 0o1000) === 0)
    return "is writable by other users without the sticky bit";
  return undefined;
}

/**
 * Why a folder may not hold ours, looking at it and at every folder above it: each must pass
 * {@link unsafeParent}. The last folder alone is not enough: a folder above it that another user
 * may change (theirs, or writable without the sticky bit) lets them rename it away and put one
 * of their own in its place between the check and the sockets' use.
 * @param {string} real - the folder's real path (no link in it: {@link chooseBase} resolves them)
 * @param {Deps["stat"]} stat
 * @param {number | undefined} uid
 * @returns {string | undefined} why not, or undefined when it may
 */
export function unsafePath(real, stat, uid) {
  const why = unsafeParent(real, stat, uid);
  if (why) return why;
  for (let at = dirname(real); ; at = dirname(at)) {
    const above = unsafeParent(at, stat, uid);
    if (above) return `is inside ${at}, which ${above}`;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Whether sockets made under `base` fit {@link MAX_SOCKET_PATH_BYTES}.
 * @param {string} base
 */
export function shortEnough(base) {
  return Buffer.byteLength(base) + 1 + FOLDER_ROOM + 1 + NAME_ROOM <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Where the folder is made, first that is safe and short enough: the temporary folder (TMPDIR),
 * the user's runtime folder (XDG_RUNTIME_DIR: /run/user/<uid>, private and short), then a
 * private folder of our own in the user's cache folder (made 0700).
 *
 * The base is the candidate's real path, links resolved, and every folder on it is checked
 * ({@link unsafePath}): a link on the way is read again at every use of a socket's path, and
 * whoever owns it can point it elsewhere after the check. `TMPDIR=/tmp/$USER`, with
 * `/tmp/$USER` a link another user planted to `/tmp`, passed the old check (it looked at `/tmp`),
 * and the link's owner could then turn it to a folder of theirs holding sockets of the same names.
 * @param {Pick<Deps, "env" | "platform" | "uid" | "stat" | "realpath">} deps
 * @returns {{ base: string } | { refused: string }}
 */
export function chooseBase({ env, platform, uid, stat, realpath }) {
  const temporary = env.TMPDIR?.trim() || env.TEMP?.trim() || env.TMP?.trim() || tmpdir();
  /** @type {{ path: string, ours?: boolean }[]} */
  const candidates = [{ path: temporary }];
  if (env.XDG_RUNTIME_DIR?.trim()) candidates.push({ path: env.XDG_RUNTIME_DIR.trim() });
  candidates.push({ path: join(dirname(specCacheFolder(env, platform)), "run"), ours: true });
  /** @type {string[]} */
  const reasons = [];
  for (const { path, ours } of candidates) {
    if (!shortEnough(path)) {
      reasons.push(`${path} is too long for a socket path`);
      continue;
    }
    if (ours) {
      try {
        mkdirSync(path, { recursive: true, mode: 0o700 });
        if (platform !== "win32") chmodSync(path, 0o700);
      } catch (error) {
        reasons.push(`${path} cannot be made (${/** @type {Error} */ (error).message})`);
        continue;
      }
    }
    let real;
    try {
      real = realpath(path);
    } catch {
      reasons.push(`${path} does not exist`);
      continue;
    }
    if (real !== path && !shortEnough(real)) {
      reasons.push(`${path} (${real}) is too long for a socket path`);
      continue;
    }
    const why = unsafePath(real, stat, uid);
    if (!why) return { base: real };
    reasons.push(`${real === path ? path : `${path} (${real})`} ${why}`);
  }
  return {
    refused: `the local server's private socket folder cannot be made: ${reasons.join("; ")}.\n  Fix: point TMPDIR at a short folder of yours or a sticky one like /tmp (its path at most ${MAX_SOCKET_PATH_BYTES - 2 - FOLDER_ROOM - NAME_ROOM} bytes), e.g. TMPDIR=/tmp`,
  };
}

/**
 * Whether the folder at `path`, named for owner pid `owner`, is stale: its server is gone (see
 * the header). A lock that answers (or cannot be told: a full backlog, a timeout) keeps it; a
 * refused lock removes it, whatever the pid; without a lock, the pid, the other sockets and the
 * folder's age decide.
 * @param {string} path
 * @param {number} owner - the pid in its name
 * @param {{ mtimeMs: number }} info - the folder's own stat
 * @param {Pick<Deps, "pid" | "alive" | "probe" | "now">} deps
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
 * @param {Deps} deps
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
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}

/**
 * @typedef {object} SocketFolder
 * @property {string} path - the folder (0700, this user's)
 * @property {(index: number) => RunnerSocket} runner - runner `index`'s socket
 * @property {() => void} remove - removes the folder and its sockets (at the server's end)
 */

/**
 * @typedef {object} RunnerSocket
 * @property {string} host - what the runner's direct socket is given as its host (`unix:<path>`)
 * @property {string} address - what the host's service binding connects to
 * @property {string} file - the socket file workerd creates
 * @property {() => void} clear - removes a socket file a runner that ended left behind (a
 *   replacement binds the same name)
 */

/**
 * Makes the folder: fresh, private, this user's, in a safe and short parent (chooseBase), with
 * its lock held (holdLock); then removes, in the background, the folders killed servers left
 * there (removeStaleFolders).
 *
 * Windows: Node reaches local sockets there only as named pipes, not Unix socket files, so the
 * local cluster cannot run; this throws the message that says so (serve.mjs prints it, nothing
 * is started). Where the platform has no user ids, the owner checks are skipped.
 * @param {FolderDeps} [given]
 * @returns {SocketFolder}
 * @throws Error with a message for the user (the fix included) when no folder can be made
 */
export function createSocketFolder(given = {}) {
  /** @type {Deps} */
  const deps = {
    env: process.env,
    platform: process.platform,
    uid: process.getuid?.(),
    pid: process.pid,
    alive: processAlive,
    stat: statSync,
    realpath: realpathSync,
    probe: probeSocket,
    now: Date.now,
    ...given,
  };
  if (deps.platform === "win32")
    throw new Error(
      "the local server runs its parts on Unix sockets, which Node does not offer on Windows.\n  Fix: run it in WSL (Windows Subsystem for Linux), or deploy it to Cloudflare (npm run deploy).",
    );
  const chosen = chooseBase(deps);
  if ("refused" in chosen) throw new Error(chosen.refused);
  const path = mkdtempSync(join(chosen.base, `cmm-${deps.pid}-`));
  const made = lstatSync(path);
  if (
    !made.isDirectory() ||
    (made.mode & 0o077) !== 0 ||
    (deps.uid !== undefined && made.uid !== deps.uid)
  )
    throw new Error(`the runner socket folder ${path} is not a private folder of this user`);
  // Bound before anything else is made here, so the folder is never seen without its lock
  // for longer than this call (Node binds a Unix socket within listen()).
  const unlock = holdLock(path);
  // Its probes take a moment each; meanwhile the server starts.
  void removeStaleFolders(chosen.base, deps).catch(() => {});
  return {
    path,
    runner: (index) => runnerSocket(path, index),
    remove: () => {
      unlock();
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * @typedef {object} RuntimeSockets
 * @property {string} entry - Miniflare's entry socket (workerd binds this path as given)
 * @property {string} loopback - Miniflare's loopback server (closed: it answers 403)
 * @property {{ host: string, file: string }} direct - a Worker's direct socket: the host given
 *   to Miniflare (`unix:<path>`) and the file workerd creates (`<path>:0`)
 * @property {() => void} clear - removes the three files (at the runtime's end)
 */

/**
 * The sockets of runtime `id` (runtime.mjs names them; one id is never used twice in a
 * server's life): its HTTP sockets, which answer the supervisor's probes and the front's
 * requests, are files in the private folder too, not loopback ports.
 * @param {string} folder
 * @param {string} id - "r1", "r2", …
 * @returns {RuntimeSockets}
 */
export function runtimeSockets(folder, id) {
  const base = join(folder, id);
  const sockets = {
    entry: `${base}.entry.sock`,
    loopback: `${base}.loopback.sock`,
    direct: { host: `unix:${base}.direct.sock`, file: `${base}.direct.sock:0` },
  };
  return {
    ...sockets,
    clear: () => {
      for (const file of [sockets.entry, sockets.loopback, sockets.direct.file])
        rmSync(file, { force: true });
    },
  };
}

/**
 * Moves a runner's socket file onto another name (a prepared replacement's socket onto its
 * slot's: runner-pool.mjs, prepared-replacement.mjs). The listening socket goes with its file.
 * One rename, which replaces the slot's file (the ended runner's) in one step: a host
 * connecting at that moment finds the old file (refused: the run is sent on) or the new
 * runner, never no file. The slot's file was removed first before, and a run sent in between
 * met "No such file or directory".
 * @param {string} from - the file the runner listens on
 * @param {string} to - the slot's file, which the host's service binding connects to
 * @param {{ renameSync: (from: string, to: string) => void }} [fs]
 */
export function moveSocketOnto(from, to, fs = { renameSync }) {
  fs.renameSync(from, to);
}

/**
 * Runner `index`'s socket in `folder`.
 * @param {string} folder
 * @param {number} index
 * @returns {RunnerSocket}
 */
export function runnerSocket(folder, index) {
  const base = join(folder, `runner-${index}.sock`);
  const file = `${base}:0`;
  return {
    host: `unix:${base}`,
    address: `unix:${file}`,
    file,
    clear: () => rmSync(file, { force: true }),
  };
}
