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
 */
import { join } from "node:path";
import { ownFolder } from "../private-files.mjs";

/**
 * The runtimes' data folder in `persist` (Miniflare's layout).
 * @param {string} persist - the runtimes' `--persist-to` folder
 * @returns {string}
 */
export const runtimeDataFolder = (persist) => join(persist, "v3");

/**
 * Makes `<persist>/v3` a folder only this user can enter.
 * @param {string} persist - the runtimes' `--persist-to` folder
 * @returns {string} the data folder
 * @throws Error naming the folder and the fix when it cannot be made private (a link, another
 *   user's folder)
 */
export function privateDataFolder(persist) {
  const folder = runtimeDataFolder(persist);
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
