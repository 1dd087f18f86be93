// Memory of a whole local server: the resident set (VmRSS) summed over every process descended
// from `npm start` (the supervisor, both host runtimes, every runner, their workerd), read from
// /proc. Summed RSS counts shared pages once per process, so it overstates a little: a bound
// that holds for it holds for the real figure.
import { readFileSync } from "node:fs";
import { processTree } from "./processes.mjs";

/**
 * The summed RSS of `root` and all its descendants, in MiB.
 * @param {number} root
 */
export function treeRssMiB(root) {
  return treeRssByProcess(root).reduce((sum, p) => sum + p.mib, 0);
}

/**
 * The RSS of each process of the tree, in MiB, with its process group and command.
 * @param {number} root
 * @returns {{ pid: number, group: number, command: string, mib: number }[]}
 */
export function treeRssByProcess(root) {
  const found = [];
  for (const { pid, group, command } of processTree(root)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      found.push({ pid, group, command, mib: Number(m?.[1] ?? 0) / 1024 });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Samples {@link treeRssMiB} every `everyMs` until `stop()`, which resolves to the peak and the
 * last sample.
 * @param {number} root
 * @param {number} [everyMs]
 */
export function sampleTreeMemory(root, everyMs = 500) {
  let peak = treeRssMiB(root);
  let last = peak;
  const timer = setInterval(() => {
    last = treeRssMiB(root);
    peak = Math.max(peak, last);
  }, everyMs);
  return {
    peak: () => peak,
    last: () => last,
    stop: () => {
      clearInterval(timer);
      return { peakMiB: peak, lastMiB: last };
    },
  };
}
