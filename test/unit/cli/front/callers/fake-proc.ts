/**
 * A made-up /proc for the callers' tests (cli/local-server/front/callers/): the two TCP tables
 * as text, and processes with their descriptors' links, counting every read so a test can tell
 * how much a look cost. Built as the kernel writes it (little-endian host).
 */
import type { ProcFiles } from "../../../../../cli/local-server/front/callers/proc-files.mjs";

/** A process: its descriptors' links (fd -> link), or an error code its folder answers with. */
export type FakeProcess = { fds: number; link: (fd: number) => string } | "EACCES" | "ENOENT";

/** A process holding `sockets` (inodes) after `others` non-socket descriptors. */
export function holding(sockets: string[], others = 3): FakeProcess {
  return {
    fds: others + sockets.length,
    link: (fd: number) => (fd < others ? `/dev/pts/${fd}` : `socket:[${sockets[fd - others]}]`),
  };
}

/** `HEXADDR:PORT` as the table writes it, for an IPv4 address on a little-endian host. */
export function v4(address: string, port: number): string {
  const bytes = address.split(".").map(Number).toReversed();
  return `${bytes.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join("")}:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** One table line, laid out as the kernel's (`sl: local rem st … uid timeout inode …`). */
export function line(
  sl: number,
  local: string,
  rem: string,
  uid: number,
  inode: string,
  st = "01",
) {
  return `${String(sl).padStart(4)}: ${local} ${rem} ${st} 00000000:00000000 00:00000000 00000000 ${String(uid).padStart(5)}        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;
}

/** The tables' first line, as the kernel writes it. */
export const HEADER =
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";

/** Why a fake call fails, as Node's fs does. */
function fsError(code: string, path: string) {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * The fake /proc and its counters. `tcp === undefined`: /proc/net/tcp is missing. `uncounted`:
 * a kernel older than 6.2, whose /proc/<pid>/fd has no size (the descriptors must be listed to
 * be counted).
 */
export function fakeProc(state: {
  tcp?: string;
  tcp6?: string;
  processes: Map<number, FakeProcess>;
  uncounted?: boolean;
}) {
  const counts = { tables: 0, scans: 0, listed: 0, links: 0, reads: new Map<number, number>() };
  /** Readers held until the test releases them (a slow /proc). */
  let hold: Promise<void> | undefined;
  const proc: ProcFiles = {
    async readFile(path) {
      if (path === "/proc/net/tcp") counts.tables++;
      await hold;
      const text =
        path === "/proc/net/tcp" ? state.tcp : path === "/proc/net/tcp6" ? state.tcp6 : undefined;
      if (text === undefined) throw fsError("ENOENT", path);
      return text;
    },
    async readdir(path, max) {
      if (path === "/proc") {
        counts.scans++;
        return ["self", "net", ...[...state.processes.keys()].map(String)].slice(0, max);
      }
      const pid = Number(/^\/proc\/(\d+)\/fd$/.exec(path)?.[1]);
      const process = state.processes.get(pid);
      if (process === undefined) throw fsError("ENOENT", path);
      if (typeof process === "string") throw fsError(process, path);
      const names = Array.from({ length: Math.min(max, process.fds) }, (_, fd) => String(fd));
      counts.listed += names.length;
      return names;
    },
    async readlinks(paths) {
      return paths.map((path) => {
        const [, pid, fd] = /^\/proc\/(\d+)\/fd\/(\d+)$/.exec(path) ?? [];
        const process = state.processes.get(Number(pid));
        counts.links++;
        counts.reads.set(Number(pid), (counts.reads.get(Number(pid)) ?? 0) + 1);
        return process === undefined || typeof process === "string" ? "" : process.link(Number(fd));
      });
    },
    async fdCounts(paths) {
      return paths.map((path) => {
        const process = state.processes.get(Number(/^\/proc\/(\d+)\/fd$/.exec(path)?.[1]));
        return state.uncounted || process === undefined || typeof process === "string"
          ? undefined
          : process.fds;
      });
    },
  };
  return {
    proc,
    counts,
    /** Holds every readFile until the function returned is called. */
    holdReads() {
      let release = () => {};
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}
