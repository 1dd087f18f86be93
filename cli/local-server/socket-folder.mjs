/**
 * The folder of a local server's runner sockets: each runner serves Workers RPC on a Unix socket
 * here, not on a loopback TCP port. A TCP port is open to every process on the machine, and it
 * is free for anyone to take between a runner's end and its replacement's start: a process that
 * bound it then would have received the host's next runs, the cluster secret among them. A
 * socket in a folder only this user can enter (0700, made by mkdtemp) is reachable only by this
 * user's processes, and its name cannot be taken by anyone else (issue #40; a process of the same
 * user that can read the server's memory is out of scope, docs/security.md).
 *
 * workerd names a direct socket `<host>:<port>`, so a socket asked for at `unix:<path>` with port
 * 0 is the file `<path>:0`: {@link runnerSocket} gives both the file and the address to bind to.
 */
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
 * Makes the folder: fresh, private, this user's.
 * @param {string} [parent] - where (default: the system's temporary folder)
 * @returns {SocketFolder}
 */
export function createSocketFolder(parent = tmpdir()) {
  // Short: a Unix socket's path is limited to 107 bytes.
  const path = mkdtempSync(join(parent, "cmm-"));
  const made = lstatSync(path);
  if (!made.isDirectory() || (made.mode & 0o077) !== 0 || made.uid !== process.getuid?.())
    throw new Error(`the runner socket folder ${path} is not a private folder of this user`);
  return {
    path,
    runner: (index) => runnerSocket(path, index),
    remove: () => rmSync(path, { recursive: true, force: true }),
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
 * The sockets of runtime `id` (runtime-host.mjs names them; one id is never used twice in a
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
