/**
 * The local data folder of the runtimes (`<persist>/v3`: `.wrangler/state/v3` for `npm start`, a
 * PERSIST_TO's): every Durable Object's SQLite files (run history with its programs and results,
 * tasks, skills, OAuth grants and clients, approvals). workerd creates them with the process's
 * umask, 0755 folders and 0644 files under the usual 022: any user of the machine who could reach
 * the project folder read them. The folder Miniflare writes in is made (or tightened to) 0700
 * before any runtime starts, so nothing under it is reachable by another user, whatever the
 * files' own modes (the same rule as the spec cache: cli/private-files.mjs).
 *
 * Does not change: the persist folder itself (a PERSIST_TO the user chose may hold other
 * things); a `v3` that is a link is refused, never followed (its target is not ours to chmod).
 * But the persist folder is checked: another user who may write in it could rename our `v3`
 * away after the check and put a link to a folder of theirs in its place, and the runtimes would
 * write every Durable Object there (attack10 review). Node cannot open `v3` relative to a held
 * descriptor of its parent (no `openat`), so such a parent is refused instead: one that another
 * user may write in, unless it is sticky (`chmod +t`: then only an entry's owner, the folder's
 * owner or root may rename it) and owned by this user or root. Group write counts as another
 * user's unless the group is this user's own primary group (a user-private group under umask
 * 002, where a project folder is 0775). Only the direct parent: a user who names a PERSIST_TO
 * under a folder others may rename things in has chosen to trust them.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ownFolder } from "../private-files.mjs";

/**
 * What data-folder decisions need to know of the machine (tests inject their own).
 * @typedef {object} FolderFacts
 * @property {(path: string) => { mode: number, uid: number, gid: number }} stat - a folder's
 *   mode and owners (following links: a PERSIST_TO that is a link is the user's choice)
 * @property {number | undefined} uid - this user's id (none on Windows)
 * @property {number | undefined} gid - this user's primary group id
 */

/** @type {FolderFacts} */
const MACHINE = {
  stat: (path) => statSync(path),
  uid: process.getuid?.(),
  gid: process.getgid?.(),
};

/**
 * The runtimes' data folder in `persist` (Miniflare's layout).
 * @param {string} persist - the runtimes' `--persist-to` folder
 * @returns {string}
 */
export const runtimeDataFolder = (persist) => join(persist, "v3");

/**
 * Makes `<persist>/v3` a folder only this user can enter.
 * @param {string} persist - the runtimes' `--persist-to` folder
 * @param {FolderFacts} [facts] - the machine's (tests inject their own)
 * @returns {string} the data folder
 * @throws Error naming the folder and the fix when it cannot be made private (a link, another
 *   user's folder, a persist folder other users may write in: {@link parentProblem})
 */
export function privateDataFolder(persist, facts = MACHINE) {
  const folder = runtimeDataFolder(persist);
  if (facts.uid !== undefined) {
    mkdirSync(persist, { recursive: true, mode: 0o700 });
    const problem = parentProblem(facts.stat(persist), facts);
    if (problem)
      throw new Error(
        `the local data folder ${folder} is inside ${persist}, where ${problem}: they could put a link to a folder of theirs in place of ${folder} after it is checked, and the runtimes would write run history, skills and OAuth grants there.\n  Fix: if ${persist} is yours, \`chmod go-w ${persist}\` (or make it sticky with \`chmod +t\`); else point PERSIST_TO at a folder of your own.`,
      );
  }
  try {
    ownFolder(folder);
  } catch (error) {
    throw new Error(
      `the local data folder ${folder} cannot be made private to this user (${/** @type {Error} */ (error).message}).\n  Fix: remove it if it is a link or not yours, or point PERSIST_TO at a folder of your own.`,
      { cause: error },
    );
  }
  return folder;
}

/**
 * Why other users could swap the data folder inside a persist folder with this `stat`, or
 * undefined when they cannot (see the file's comment for the rule).
 * @param {{ mode: number, uid: number, gid: number }} stat - the persist folder's
 * @param {{ uid: number | undefined, gid: number | undefined }} user - this user's ids
 * @returns {string | undefined}
 */
export function parentProblem(stat, { uid, gid }) {
  const others = (stat.mode & 0o002) !== 0;
  const group = (stat.mode & 0o020) !== 0 && stat.gid !== gid;
  if (!others && !group) return undefined;
  const sticky = (stat.mode & 0o1000) !== 0;
  if (sticky && (stat.uid === uid || stat.uid === 0)) return undefined;
  const mode = `mode 0${(stat.mode & 0o7777).toString(8)}`;
  return `${others ? "other users" : `the members of its group (gid ${stat.gid})`} may rename what it holds (${mode}${sticky ? `, sticky but owned by uid ${stat.uid}` : ""})`;
}
