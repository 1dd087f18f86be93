// The TCP ports a process listens on and its parent, from /proc (Linux): the e2e scripts that
// reach the local server's internal sockets the way any other process on the machine could.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * The TCP ports process `pid` listens on (its socket descriptors matched against the listening
 * sockets of /proc/net/tcp).
 * @param {number} pid
 * @returns {number[]}
 */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  /** @type {number[]} */
  const ports = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // f[1] local address:port (hex), f[3] state (0A: listening), f[9] inode
    if (f[3] === "0A" && inodes.has(f[9]))
      ports.push(parseInt(String(String(f[1]).split(":")[1]), 16));
  }
  return ports;
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
