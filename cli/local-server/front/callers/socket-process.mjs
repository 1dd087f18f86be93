/**
 * Which process holds a socket, from its inode: the process whose /proc/<pid>/fd has a link
 * `socket:[<inode>]`. Linux keeps no map from a socket to its holder, so finding one means
 * reading descriptors' links, one system call each, and a machine holds thousands: this is the
 * costly part of knowing who a caller is (peer-owners.mjs), and it is budgeted.
 *
 * - The processes that held earlier callers' sockets are read first (a client keeps calling):
 *   {@link OWNERS_MAX} of them, those that held one last kept.
 * - Then, at most once per {@link SCAN_GAP_MS}, every process, those with FEWEST descriptors
 *   first (counted by the kernel where it does, Linux 6.2 on, else by listing them). So a process
 *   holding 50,000 descriptors cannot hide an honest client behind its own reading: an honest
 *   client holds a few dozen and is read before it.
 * - At most {@link LINKS_PER_LOOK} links are read per look, and at most {@link LISTED_PER_LOOK}
 *   descriptors listed ({@link FDS_LISTED_MAX} of one process): when listing runs out, the next
 *   scan starts at the process where this one stopped, so many big processes delay the rest by a
 *   few scans, never for good. The remembered processes get half of each budget: an attacker's
 *   process is remembered too, and must not leave a scan nothing to read with.
 *
 * Another user's processes (EACCES), processes that ended meanwhile (ENOENT) and descriptors
 * closed meanwhile are skipped, never thrown: the socket is then simply not found.
 */
import { systemClock } from "../../clock.mjs";
import { LINKS_AT_ONCE, systemProc } from "./proc-files.mjs";

/** Links read per look: ~5,000 system calls, a few tens of milliseconds of one core at most. */
export const LINKS_PER_LOOK = 5_000;
/** Descriptors listed per look, over every process listed. */
export const LISTED_PER_LOOK = 50_000;
/** Descriptors listed of one process: past that, its further descriptors are not read. */
export const FDS_LISTED_MAX = 20_000;
/** Least time between two scans of every process. */
export const SCAN_GAP_MS = 1_000;
/** Processes remembered as holders of earlier callers' sockets. */
export const OWNERS_MAX = 64;
/** Most entries of /proc read for one scan (processes alive at once are far fewer). */
const PROCESSES_MAX = 1_000_000;

/**
 * @typedef {object} SocketProcessLimits
 * @property {number} [linksPerLook]
 * @property {number} [listedPerLook]
 * @property {number} [fdsListedMax]
 * @property {number} [scanGapMs]
 * @property {number} [ownersMax]
 */

/**
 * What one look found: inode to pid, and whether it scanned every process (else only the
 * remembered owners were read: a socket not found may still be found at the next scan).
 * @typedef {{ found: Map<string, number>, scanned: boolean }} Holders
 */

/**
 * @typedef {object} SocketProcesses
 * @property {(inodes: ReadonlySet<string>) => Promise<Holders>} find - the holders of the sockets
 *   (one look; never rejects)
 * @property {() => number} owners - processes remembered now
 */

/**
 * Creates the finder.
 * @param {{ proc?: import("./proc-files.mjs").ProcFiles, clock?: import("../../clock.mjs").Clock } & SocketProcessLimits} [options]
 * @returns {SocketProcesses}
 */
export function createSocketProcesses({
  proc = systemProc,
  clock = systemClock,
  linksPerLook = LINKS_PER_LOOK,
  listedPerLook = LISTED_PER_LOOK,
  fdsListedMax = FDS_LISTED_MAX,
  scanGapMs = SCAN_GAP_MS,
  ownersMax = OWNERS_MAX,
} = {}) {
  /**
   * Processes that held a caller's socket, to the descriptors they held when last listed; the one
   * that held one longest ago first (a Map keeps insertion order), dropped past ownersMax.
   * @type {Map<number, number>}
   */
  const owners = new Map();
  let scannedAt = -Infinity;
  /** The pid the next scan starts listing at (where the last one ran out of listing). */
  let cursor = 0;

  /** @param {number} pid @param {number} fds */
  const remember = (pid, fds) => {
    owners.delete(pid);
    owners.set(pid, fds);
    if (owners.size > ownersMax) owners.delete(/** @type {number} */ (owners.keys().next().value));
  };

  /**
   * @typedef {{ links: number, listed: number }} Budget
   * @typedef {{ wanted: ReadonlySet<string>, found: Map<string, number>, budget: Budget }} Look
   */
  /** The process's descriptors (within the budget), or undefined when they cannot be listed. */
  const list = async (/** @type {Look} */ look, /** @type {number} */ pid) => {
    const max = Math.min(fdsListedMax, look.budget.listed);
    if (max <= 0) return undefined;
    try {
      const fds = await proc.readdir(`/proc/${pid}/fd`, max);
      look.budget.listed -= fds.length;
      return fds;
    } catch {
      return undefined;
    }
  };
  const done = (/** @type {Look} */ look) =>
    look.found.size >= look.wanted.size || look.budget.links <= 0;
  /** Reads the process's links until every wanted socket is found or the budget is spent. */
  const read = async (
    /** @type {Look} */ look,
    /** @type {number} */ pid,
    /** @type {string[]} */ fds,
  ) => {
    for (let i = 0; i < fds.length && !done(look);) {
      const part = fds.slice(i, i + Math.min(LINKS_AT_ONCE, look.budget.links));
      i += part.length;
      look.budget.links -= part.length;
      const links = await proc.readlinks(part.map((fd) => `/proc/${pid}/fd/${fd}`));
      for (const link of links) {
        if (!link.startsWith("socket:[")) continue;
        const inode = link.slice(8, -1);
        if (!look.wanted.has(inode) || look.found.has(inode)) continue;
        look.found.set(inode, pid);
        remember(pid, fds.length);
      }
    }
  };

  /**
   * Every process but `skip`, fewest descriptors first, with its descriptors where listed
   * already. Where the kernel counts a process's descriptors (Linux 6.2 on: the size of
   * /proc/<pid>/fd) a process is listed only when its turn comes, so big processes never use up
   * the listing before small ones; else every process is listed first, from the cursor on, while
   * the listing budget lasts.
   * @returns {Promise<{ pid: number, count: number, fds?: string[] }[]>}
   */
  const everyProcess = async (/** @type {Look} */ look, /** @type {Set<number>} */ skip) => {
    let names;
    try {
      names = await proc.readdir("/proc", PROCESSES_MAX);
    } catch {
      return [];
    }
    const pids = names
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .toSorted((a, b) => a - b);
    const from = Math.max(
      0,
      pids.findIndex((pid) => pid >= cursor),
    );
    const ordered = [...pids.slice(from), ...pids.slice(0, from)].filter((pid) => !skip.has(pid));
    /** @type {{ pid: number, count: number, fds?: string[] }[]} */
    const found = [];
    /** @type {number[]} */
    const uncounted = [];
    for (let i = 0; i < ordered.length; i += LINKS_AT_ONCE) {
      const part = ordered.slice(i, i + LINKS_AT_ONCE);
      const counts = await proc.fdCounts(part.map((pid) => `/proc/${pid}/fd`));
      part.forEach((pid, j) => {
        const count = counts[j];
        if (count) found.push({ pid, count });
        else uncounted.push(pid); // an older kernel's 0, or not readable
      });
    }
    cursor = 0;
    for (const pid of uncounted) {
      if (look.budget.listed <= 0) {
        cursor = pid;
        break;
      }
      const fds = await list(look, pid);
      if (fds?.length) found.push({ pid, count: fds.length, fds });
    }
    // Stable: among equals, the cursor's order.
    return found.toSorted((a, b) => a.count - b.count);
  };

  return {
    async find(wanted) {
      // The remembered owners get half of each budget, the scan the rest: an attacker's process
      // is remembered as well as an honest one's, and reading its 20,000 descriptors first
      // would leave no budget to find a new client with.
      const links = Math.ceil(linksPerLook / 2);
      const listed = Math.ceil(listedPerLook / 2);
      /** @type {Look} */
      const look = { wanted, found: new Map(), budget: { links, listed } };
      if (wanted.size === 0) return { found: look.found, scanned: false };
      /** @type {Set<number>} */
      const readAlready = new Set();
      // Fewest descriptors first here too.
      for (const [pid] of [...owners].toSorted((a, b) => a[1] - b[1])) {
        if (done(look)) break;
        const fds = await list(look, pid);
        if (!fds) {
          if (look.budget.listed > 0) owners.delete(pid); // ended (or no longer readable)
          continue;
        }
        if (owners.has(pid)) owners.set(pid, fds.length);
        readAlready.add(pid);
        await read(look, pid, fds);
      }
      if (look.found.size >= wanted.size || clock.now() - scannedAt < scanGapMs)
        return { found: look.found, scanned: false };
      scannedAt = clock.now();
      look.budget.links += linksPerLook - links;
      look.budget.listed += listedPerLook - listed;
      for (const { pid, fds } of await everyProcess(look, readAlready)) {
        if (done(look)) break;
        const names = fds ?? (await list(look, pid));
        if (names) await read(look, pid, names);
      }
      return { found: look.found, scanned: true };
    },
    owners: () => owners.size,
  };
}
