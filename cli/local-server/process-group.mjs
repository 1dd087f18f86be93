/**
 * Ending a runtime's whole process group (wrangler, its Node child and workerd) and waiting until
 * no process of it is left: the next runtime may only open the shared local data after that.
 */

import { readdirSync, readFileSync } from "node:fs";

/**
 * The pids of the group's live (not zombie) processes, from /proc; `undefined` where there is no
 * /proc (macOS). Zombies are skipped: a container's init may never reap them, and they hold
 * neither ports nor files.
 * @param {number} group - the process group id (the leader's pid)
 * @returns {number[] | undefined}
 */
export function groupMembers(group) {
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const pids = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === group && state !== "Z") pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Whether any live process of the group still exists.
 * @param {number} group - the process group id (the leader's pid)
 */
export function groupAlive(group) {
  const members = groupMembers(group);
  if (members) return members.length > 0;
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}

/**
 * Sends `signal` to the group, ignoring a group that is already gone.
 * @param {number} group
 * @param {NodeJS.Signals} signal
 */
export function signalGroup(group, signal) {
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
}

/**
 * SIGKILLs the group and resolves once none of its processes remains (or after `timeoutMs`, with
 * `false`).
 * @param {number} group
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean>}
 */
export async function killGroup(group, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  signalGroup(group, "SIGKILL");
  while (groupAlive(group)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
