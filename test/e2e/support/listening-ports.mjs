// The TCP ports and Unix sockets a process listens on and its parent, from /proc (Linux): the
// e2e scripts that reach the local server's internal sockets the way another process could.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * The socket inodes among process `pid`'s open files.
 * @param {number} pid
 * @returns {Set<string>}
 */
export function socketInodes(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * The TCP ports (IPv4 and IPv6) process `pid` listens on (its socket descriptors matched against
 * the listening sockets of /proc/net/tcp and tcp6).
 * @param {number} pid
 * @returns {number[]}
 */
export function listeningPorts(pid) {
  const inodes = socketInodes(pid);
  /** @type {number[]} */
  const ports = [];
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue; // no IPv6
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port (hex), f[3] state (0A: listening), f[9] inode
      if (f[3] === "0A" && inodes.has(String(f[9])))
        ports.push(parseInt(String(String(f[1]).split(":").at(-1)), 16));
    }
  }
  return ports;
}

/**
 * The Unix sockets process `pid` listens on: their paths (/proc/net/unix, matched by the
 * sockets among its open files; flag 00010000 is a listening socket). None when the process
 * ended since it was listed: e2e retire-storm lists runners while the pool replaces them, and a
 * runner ended between the listing and this read failed the script with ENOENT.
 * @param {number} pid
 * @returns {string[]}
 */
export function listeningUnixSockets(pid) {
  let inodes;
  let table;
  try {
    inodes = socketInodes(pid);
    table = readFileSync(`/proc/${pid}/net/unix`, "utf8");
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  }
  return table
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && f[3] === "00010000" && inodes.has(String(f[6])))
    .map((f) => f.slice(7).join(" "));
}

/**
 * The parent of process `pid`.
 * @param {number} pid
 */
export function parentOf(pid) {
  // The command may hold spaces and parentheses: the fields after its closing one.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}
