/**
 * The folder of a local server's sockets: each runner serves Workers RPC on a Unix socket here,
 * and every runtime its HTTP (runtime.mjs), not on a loopback TCP port. A TCP port is open to every process on the machine, and it
 * is free for anyone to take between a runner's end and its replacement's start: a process that
 * bound it then would have received the host's next runs, the cluster secret among them. A
 * socket in a folder only this user can enter (0700, made by mkdtemp) is reachable only by this
 * user's processes, and its name cannot be taken by anyone else (issue #40; a process of the same
 * user that can read the server's memory is out of scope, docs/security.md).
 *
 * Where it is made (each decided by a function below, tested with a fake file system owner and
 * environment): a parent that is safe (this user's or root's, and sticky when others may write
 * to it) and short enough for a socket path, else the next candidate, else a refusal naming
 * TMPDIR. The folder holds its lock from its making, and the folders of this user's servers
 * that were killed are removed: which those are, and the lock that tells, is
 * stale-folders.mjs's.
 *
 * workerd names a direct socket `<host>:<port>`, so a socket asked for at `unix:<path>` with port
 * 0 is the file `<path>:0`: {@link runnerSocket} gives both the file and the address to bind to.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { specCacheFolder } from "../kept/spec-cache.mjs";
import {
  FOLDER_NAME_MAX,
  folderPrefix,
  holdLock,
  probeSocket,
  processAlive,
  removeStaleFolders,
} from "./stale-folders.mjs";

/**
 * The longest socket path taken: a Unix socket's path must fit `sun_path` (108 bytes on Linux,
 * 104 on macOS, each with its closing NUL); past it workerd cannot bind.
 */
export const MAX_SOCKET_PATH_BYTES = 103;
/** Room for the longest name in a folder (`r123456.loopback.sock`, `runner-16.sock:0`). */
const NAME_ROOM = 24;

/**
 * Where the folder's making looks (the defaults are this process's).
 * @typedef {object} PlaceDeps
 * @property {Record<string, string | undefined>} env - TMPDIR, XDG_RUNTIME_DIR, XDG_CACHE_HOME
 * @property {NodeJS.Platform} platform
 * @property {(path: string) => { uid: number, mode: number, isDirectory(): boolean }} stat -
 *   a candidate parent's owner and mode (following links: the parent the user named)
 * @property {(path: string) => string} realpath - a candidate's path with every link resolved
 */

/**
 * All the folder's making depends on: where it looks, and what the clean-up of killed servers'
 * folders asks (its `uid`, `pid`, `alive`, `probe` and `now`: stale-folders.mjs).
 * @typedef {PlaceDeps & import("./stale-folders.mjs").StaleDeps} Deps
 */

/**
 * {@link Deps} as tests give them: each one missing is this process's.
 * @typedef {Partial<Deps>} FolderDeps
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
  return Buffer.byteLength(base) + 1 + FOLDER_NAME_MAX + 1 + NAME_ROOM <= MAX_SOCKET_PATH_BYTES;
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
    refused: `the local server's private socket folder cannot be made: ${reasons.join("; ")}.\n  Fix: point TMPDIR at a short folder of yours or a sticky one like /tmp (its path at most ${MAX_SOCKET_PATH_BYTES - 2 - FOLDER_NAME_MAX - NAME_ROOM} bytes), e.g. TMPDIR=/tmp`,
  };
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
  const path = mkdtempSync(join(chosen.base, folderPrefix(deps.pid)));
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
 * slot's: runners/slot-preparation.mjs). The listening socket goes with its file.
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
