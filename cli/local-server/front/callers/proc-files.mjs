/**
 * The files of /proc the callers' look reads, behind four functions so that its tests give it
 * a made-up process tree (a process with 50,000 descriptors, another user's, a /proc that is
 * missing) instead of the machine's.
 *
 * The system's reads are synchronous, a bounded piece at a time, each piece followed by a turn
 * of the event loop: one descriptor's link read through the thread pool cost 31–58 µs of CPU,
 * read in place 18 µs (bench/README.md, "Callers' look"), and a look reads thousands. A piece
 * (one folder's first names, {@link LINKS_AT_ONCE} links) holds the loop ~1 ms at most.
 */
import { opendirSync, readlinkSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** Links one `readlinks` call reads: the most any caller asks of it at once. */
export const LINKS_AT_ONCE = 64;

/**
 * @typedef {object} ProcFiles
 * @property {(path: string) => Promise<string>} readFile - a file's text
 * @property {(path: string, max: number) => Promise<string[]>} readdir - at most `max` names of
 *   a folder (a process may hold a million descriptors: listing them all is not bounded)
 * @property {(paths: string[]) => Promise<string[]>} readlinks - the links' targets, `""` for one
 *   that cannot be read (gone, another user's); at most {@link LINKS_AT_ONCE} paths
 * @property {(paths: string[]) => Promise<(number | undefined)[]>} fdCounts - how many
 *   descriptors each /proc/<pid>/fd holds, as the kernel counts them (Linux 6.2 on: the folder's
 *   size, one call for 20,000 descriptors); 0 or undefined where it does not (older kernels, a
 *   process gone); at most {@link LINKS_AT_ONCE} paths
 */

/** A turn of the event loop: the front's own I/O goes on between two pieces of a look. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The system's /proc (paths are whole: `/proc/net/tcp`). @type {ProcFiles} */
export const systemProc = {
  readFile: (path) => readFile(path, "utf8"),
  async readdir(path, max) {
    /** @type {string[]} */
    const names = [];
    const dir = opendirSync(path, { bufferSize: 1024 });
    try {
      for (let entry; names.length < max && (entry = dir.readSync());) names.push(entry.name);
    } finally {
      dir.closeSync();
    }
    await turn();
    return names;
  },
  async readlinks(paths) {
    const links = paths.map((path) => {
      try {
        return readlinkSync(path);
      } catch {
        return "";
      }
    });
    await turn();
    return links;
  },
  async fdCounts(paths) {
    const counts = paths.map((path) => {
      try {
        return statSync(path).size;
      } catch {
        return undefined;
      }
    });
    await turn();
    return counts;
  },
};
