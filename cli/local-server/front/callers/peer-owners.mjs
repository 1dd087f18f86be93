/**
 * Who is at the other end of a client's connection: the key by which the front serves waiting
 * requests in turns (issue #40, "one client can starve everyone"). Every local client comes from
 * 127.0.0.1, so the address tells no client from another; on Linux the process holding the
 * client's end of the TCP connection does, and /proc tells it (proc-net-tcp.mjs: the socket's
 * inode and uid; socket-process.mjs: the process holding that inode).
 *
 * Keys:
 * - `process:<pid>`: the process holding the client's socket.
 * - `user:<uid>`: its holder was not found, but the socket's owner was: another user (whose
 *   processes we may not read), a container sharing the network, or a process of ours that
 *   stayed hidden through {@link SCANS_PER_SOCKET} scans (50,000 descriptors, say). A key of its
 *   own, not `unknown`: new clients wait under `unknown` for their first look, and what hides must
 *   not share their turn.
 * - `address:<ip>`: a peer on another machine: its address is its identity (no /proc look).
 * - `unknown`: not known yet (the look is coming), or the client's socket closed before the look.
 * - {@link UNNAMED} (""): every local client where /proc/net/tcp cannot be read (macOS, a
 *   locked-down /proc): no caller named, so the gate keeps the first-come order
 *   of before and holds no caller's share (cut-off-gate.mjs).
 *
 * `of()` is called on each request, so it only reads a WeakMap: a socket it does not know is
 * remembered and looked up later, with every other socket asked about meanwhile, in one look at
 * a time, at most one per {@link LOOK_GAP_MS} (and fewer while looks are slow, {@link LOOK_REST}).
 * A socket keeps the key found for its life (a kept-alive connection is looked up once). So a new
 * connection's first request is `unknown` when it arrives; `onKnown` says when its key is found,
 * for a request still waiting to move to its own turn. Everything is bounded: sockets waiting for
 * a look ({@link WAITING_MAX}, more are asked again at their next request), sockets per look,
 * lines read, links read, processes remembered.
 *
 * Not a security boundary: a process of the same user can start many processes (one turn each)
 * or pass its sockets to others (SCM_RIGHTS: the key is then the first holder found, fewest
 * descriptors first). It keeps one process from starving the others; another user's clients
 * (whose processes are not ours to read) share one turn per user, remote ones one per address.
 */
import { endianness } from "node:os";
import { systemClock } from "../../clock.mjs";
import { isLoopback, normalAddress } from "./peer-address.mjs";
import { clientLineKeys, findClientSockets, TABLE_LINES_MAX } from "./proc-net-tcp.mjs";
import { systemProc } from "./proc-files.mjs";
import { createSocketProcesses } from "./socket-process.mjs";

/** The key of a client not known yet. */
export const UNKNOWN = "unknown";
/** The key of every local client where /proc cannot tell them apart: no caller named. */
export const UNNAMED = "";
/** Least time between the starts of two looks: the sockets asked about meanwhile share one. */
export const LOOK_GAP_MS = 200;
/**
 * A look rests at least this many times its own length before the next one starts: at most a
 * fifth of the time goes to looks. A look under a storm reads a table of thousands of lines and a
 * storm's thousand descriptors (25–45 ms of CPU, bench/README.md, "Callers' look"); a slow one
 * (a scan of big processes, a busy event loop) spaces the next ones out.
 */
export const LOOK_REST = 4;
/** How long the looks rest after one failed (a fault, not a missing table). */
export const FAULT_REST_MS = 5_000;
/** Errors that say this system has no such table: looking is given up for good. */
const ABSENT = new Set(["ENOENT", "ENOTDIR", "EACCES", "EPERM"]);
/** Sockets waiting for a look at most. */
export const WAITING_MAX = 4_096;
/** Sockets one look resolves at most (the oldest waiting first). */
export const SOCKETS_PER_LOOK = 1_024;
/**
 * Scans of every process (socket-process.mjs) a socket of ours is looked for in before it is
 * given its user's key: a socket is tried again at later looks, but never makes every look a scan.
 */
export const SCANS_PER_SOCKET = 2;
/**
 * Looks whose table lacked the connection before a socket is given up (`unknown`): the kernel
 * writes the table in pieces, and a line may be missed while it changes under a storm.
 */
const MISSES_PER_SOCKET = 2;

/**
 * @typedef {object} PeerOwners
 * @property {(socket: import("node:net").Socket) => string} of - the socket's key now (see the
 *   file's comment); a socket not known yet is looked up soon
 * @property {() => number} waiting - sockets waiting for a look
 * @property {(socket: import("node:net").Socket) => boolean} looking - whether the socket waits
 *   for a look (asked about, its key not found yet nor given up): a request on it may wait for
 *   its key (caller-wait.mjs)
 * @property {(socket: import("node:net").Socket) => string | undefined} seenAs - for a socket
 *   still waiting whose line the table showed (its holder not found yet): its holder's user's
 *   key (`user:<uid>`), the key it gets if it stays hidden; else undefined. A request that
 *   waited its most goes on by it rather than as `unknown` (caller-wait.mjs)
 */

/**
 * @typedef {object} PeerOwnersOptions
 * @property {import("./proc-files.mjs").ProcFiles} [proc] - /proc (tests: a made-up tree)
 * @property {import("../../clock.mjs").Clock} [clock]
 * @property {number} [uid] - our own uid (process.getuid())
 * @property {boolean} [littleEndian] - how the kernel writes addresses (the host's byte order)
 * @property {number} [lookGapMs]
 * @property {number} [waitingMax]
 * @property {number} [socketsPerLook]
 * @property {number} [tableLinesMax]
 * @property {(socket: import("node:net").Socket, key: string) => void} [onKnown] - called once
 *   when a socket that waited for a look gets its key (also `unknown`, when given up): a request
 *   queued under `unknown` when it came (every new connection's first request is) may then move
 *   to its own turn. A look never waits for it (what it throws is dropped).
 */

/**
 * A socket waiting for its key: its connection (read when first asked: a closed socket forgets
 * its addresses), its owner once the table showed it, the scans and misses it went through.
 * @typedef {{ connection: import("./proc-net-tcp.mjs").Connection, owner?: import("./proc-net-tcp.mjs").SocketOwner, scans: number, misses: number }} Waiting
 */

/**
 * Creates the keys' source.
 * @param {PeerOwnersOptions & import("./socket-process.mjs").SocketProcessLimits} [options]
 * @returns {PeerOwners}
 */
export function createPeerOwners({
  proc = systemProc,
  clock = systemClock,
  uid = process.getuid?.(),
  littleEndian = endianness() === "LE",
  lookGapMs = LOOK_GAP_MS,
  waitingMax = WAITING_MAX,
  socketsPerLook = SOCKETS_PER_LOOK,
  tableLinesMax = TABLE_LINES_MAX,
  onKnown,
  ...limits
} = {}) {
  /** @type {WeakMap<import("node:net").Socket, string>} */
  const keys = new WeakMap();
  /** Sockets waiting for a look, the longest waiting first. @type {Map<import("node:net").Socket, Waiting>} */
  const waiting = new Map();
  const processes = createSocketProcesses({ proc, clock, ...limits });
  /** /proc/net/tcp is absent here (no such table, or not ours to read): no look is tried again. */
  let blind = false;
  let looking = false;
  let lookAt = -Infinity;
  let lookEnd = -Infinity;
  /** No look before this time: the last one failed. */
  let restUntil = -Infinity;

  /** @param {import("node:net").Socket} socket @param {string} key */
  const settle = (socket, key) => {
    keys.set(socket, key);
    waiting.delete(socket);
    try {
      onKnown?.(socket, key);
    } catch {
      // The listener's fault is not the look's: the other sockets still get their keys.
    }
  };
  /** Waits at the end of the line again (others get their turn first). */
  const again = (/** @type {import("node:net").Socket} */ socket, /** @type {Waiting} */ entry) => {
    waiting.delete(socket);
    waiting.set(socket, entry);
  };
  /** A table's text, or undefined where this system has none (no /proc, no IPv6); any other
   * failure (EMFILE while the front holds many connections) is a fault of this look only. */
  const table = async (/** @type {string} */ path) => {
    try {
      return await proc.readFile(path);
    } catch (error) {
      if (ABSENT.has(/** @type {{ code?: string }} */ (error)?.code ?? "")) return undefined;
      throw error;
    }
  };

  /** One look: the tables once, then the holders of every socket waiting in it. */
  const look = async () => {
    /** @type {[import("node:net").Socket, Waiting][]} */
    const batch = [];
    for (const [socket, entry] of waiting) {
      if (socket.destroyed) waiting.delete(socket);
      else if (batch.length < socketsPerLook) batch.push([socket, entry]);
    }
    if (batch.length === 0) return;
    const unplaced = batch.filter(([, entry]) => !entry.owner);
    if (unplaced.length > 0) {
      const v4 = await table("/proc/net/tcp");
      if (v4 === undefined) {
        blind = true;
        waiting.clear();
        return;
      }
      // No IPv6 in this kernel: no table, and no line to find there.
      const v6 = (await table("/proc/net/tcp6")) ?? "";
      const lineKeys = unplaced.map(([, entry]) => clientLineKeys(entry.connection, littleEndian));
      const found4 = findClientSockets(
        v4,
        new Set(lineKeys.flatMap((k) => (k.tcp ? [k.tcp] : []))),
        tableLinesMax,
      );
      const found6 = findClientSockets(
        v6,
        new Set(lineKeys.flatMap((k) => (k.tcp6 ? [k.tcp6] : []))),
        tableLinesMax,
      );
      unplaced.forEach(([socket, entry], i) => {
        const k = lineKeys[i] ?? {};
        const a = k.tcp === undefined ? undefined : found4.get(k.tcp);
        const b = k.tcp6 === undefined ? undefined : found6.get(k.tcp6);
        const owner = a && a.inode !== "0" ? a : b && b.inode !== "0" ? b : (a ?? b);
        if (!owner) {
          if (++entry.misses >= MISSES_PER_SOCKET) settle(socket, UNKNOWN);
          else again(socket, entry);
        } else if (owner.inode === "0") settle(socket, UNKNOWN); // its holder closed it
        else entry.owner = owner;
      });
    }
    /** @type {Map<string, [import("node:net").Socket, Waiting][]>} */
    const byInode = new Map();
    for (const [socket, entry] of batch) {
      const owner = entry.owner;
      if (!owner || !waiting.has(socket)) continue;
      // Another user's processes cannot be read (root's can be read by root only).
      if (owner.uid !== uid && uid !== 0) settle(socket, `user:${owner.uid}`);
      else byInode.set(owner.inode, [...(byInode.get(owner.inode) ?? []), [socket, entry]]);
    }
    if (byInode.size === 0) return;
    const { found, scanned } = await processes.find(new Set(byInode.keys()));
    for (const [inode, sockets] of byInode) {
      const pid = found.get(inode);
      for (const [socket, entry] of sockets) {
        if (pid !== undefined) settle(socket, `process:${pid}`);
        else if (scanned && ++entry.scans >= SCANS_PER_SOCKET)
          settle(socket, `user:${entry.owner?.uid}`);
        else again(socket, entry);
      }
    }
  };

  /**
   * Starts the next look when one is due: one at a time, at most one per lookGapMs, and each
   * after a rest of LOOK_REST times the last one's length.
   */
  const schedule = () => {
    if (looking || blind || waiting.size === 0) return;
    looking = true;
    const length = Number.isFinite(lookAt) ? lookEnd - lookAt : 0;
    const due = Math.max(lookAt + lookGapMs, lookEnd + LOOK_REST * length, restUntil);
    void clock
      .sleep(Math.max(0, due - clock.now()))
      .then(() => {
        lookAt = clock.now();
        return look();
      })
      // A fault (no descriptor left for the table, say) must not blind the front for good: an
      // attacker holding connections at that moment would turn the turns off for the server's
      // life. The sockets keep waiting, and the next look comes after a rest, so a fault that
      // comes back costs one failed look per FAULT_REST_MS.
      .catch(() => {
        restUntil = clock.now() + FAULT_REST_MS;
      })
      .finally(() => {
        lookEnd = clock.now();
        looking = false;
        schedule();
      });
  };

  return {
    of(socket) {
      const known = keys.get(socket);
      if (known !== undefined) return known;
      if (waiting.has(socket)) return UNKNOWN;
      const { remoteAddress, remotePort, localAddress, localPort } = socket;
      if (!remoteAddress || !remotePort || !localAddress || !localPort) return UNKNOWN;
      const client = normalAddress(remoteAddress);
      const server = normalAddress(localAddress);
      // A peer at the server's own address is on this machine too (it dialled the machine's
      // address rather than loopback); any other is a remote machine, known by its address.
      if (!isLoopback(client) && client !== server) {
        const key = `address:${client}`;
        keys.set(socket, key);
        return key;
      }
      if (blind) return UNNAMED;
      if (socket.destroyed || waiting.size >= waitingMax) return UNKNOWN;
      waiting.set(socket, {
        connection: {
          client: { address: client, port: remotePort },
          server: { address: server, port: localPort },
        },
        scans: 0,
        misses: 0,
      });
      schedule();
      return UNKNOWN;
    },
    waiting: () => waiting.size,
    looking: (socket) => waiting.has(socket),
    seenAs(socket) {
      const owner = waiting.get(socket)?.owner;
      return owner ? `user:${owner.uid}` : undefined;
    },
  };
}
