// The processes of a local server, read from /proc (Linux): the e2e scripts find the runtime to
// kill and check that nothing of a stopped server is left.
import { readdirSync, readFileSync } from "node:fs";

/**
 * @typedef {{ pid: number, ppid: number, group: number, command: string }} Proc
 */

/** Every live (not zombie) process. @returns {Proc[]} */
export function allProcesses() {
  /** @type {Proc[]} */
  const all = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z") continue;
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      all.push({ pid: Number(name), ppid: Number(ppid), group: Number(group), command });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/**
 * `root` and all its descendants, including those in other process groups.
 * @param {number} root
 * @returns {Proc[]}
 */
export function processTree(root) {
  const all = allProcesses();
  const found = all.filter((p) => p.pid === root);
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i]?.pid));
  return found;
}

/**
 * Which of `pids` still run.
 * @param {number[]} pids
 */
export function stillRunning(pids) {
  const live = new Set(allProcesses().map((p) => p.pid));
  return pids.filter((pid) => live.has(pid));
}

/**
 * The workerd of the host runtime that serves now, from the supervisor's last "serves"/"ready"
 * line in the output.
 * @param {string} output
 * @returns {number} its pid
 */
export function activeWorkerd(output) {
  return activeRuntime(output).pid;
}

/**
 * The host runtime that serves now (its workerd's pid), from the supervisor's last
 * "serves"/"ready" line in the output.
 * @param {string} output
 * @returns {{ pid: number }}
 */
export function activeRuntime(output) {
  const found = [
    ...output.matchAll(/runtime \d+ \(workerd pid (\d+)\)( serves now|; a standby|; no standby)/g),
  ];
  const last = found.at(-1);
  if (!last) throw new Error(`no runtime in the output:\n${output}`);
  return { pid: Number(last[1]) };
}

/**
 * CPU time a process has used so far (user + system, all its threads), in ms, from
 * /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms: Linux's USER_HZ is 100 for
 * user space whatever the kernel's own tick).
 * @param {number} pid
 * @returns {number}
 */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
