/**
 * One warning per launch for the kept folders this user's launches cannot use (issue #43's
 * leftover): a folder another user owns or that group or others may write in is refused by
 * ownFolder (cli/private-files.mjs), and every cache then falls back without a word: no compiled
 * spec kept (each launch validates and compiles again), no workerd configuration, launch memo
 * or early `initialize` answer kept, and no user key, so a `--stdio` launch gets a random caller key each time
 * (stdio-caller-key.mjs) and the skills it saves change owner. Users with umask 002 have such
 * folders (0775) from older launchers or their own `mkdir`. The warning names each folder, what
 * is wrong and the fix; it changes nothing itself.
 */
import { closeSync, fstatSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { OPEN_OWN, folderProblem } from "../private-files.mjs";
import { configCacheFolder } from "../local-server/workerd-config/config-cache.mjs";
import { earlyAnswersFolder } from "./early-answers.mjs";
import { launchMemoFolder } from "./launch-memo.mjs";
import { specCacheKeyFile } from "./spec-cache-key.mjs";
import { specCacheFolder } from "./spec-cache.mjs";
import { toolsListCacheFolder } from "./tools-list-cache.mjs";

/**
 * The kept folders of a launch with `env`: the user key's, the compiled specs', the workerd
 * configurations', the tools/list counts', the launch memos' and the early `initialize` answers'.
 * @param {Record<string, string | undefined>} env
 * @returns {string[]}
 */
export function keptFolders(env) {
  return [
    dirname(specCacheKeyFile(env)),
    specCacheFolder(env),
    configCacheFolder(env),
    toolsListCacheFolder(env),
    launchMemoFolder(env),
    earlyAnswersFolder(env),
  ];
}

/**
 * Why `folder` cannot hold this user's private files, or undefined when it can or is not there
 * yet (it is then made 0700).
 * @param {string} folder
 * @param {number | undefined} uid
 * @returns {string | undefined}
 */
function problemOf(folder, uid) {
  /** @type {number} */
  let fd;
  try {
    fd = openSync(folder, OPEN_OWN);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    if (code === "ENOENT") return undefined;
    return code === "ELOOP" ? "it is a symbolic link" : `it cannot be opened (${code})`;
  }
  try {
    return folderProblem(fstatSync(fd), uid);
  } finally {
    closeSync(fd);
  }
}

/**
 * The warning for the kept folders of `env` that cannot be used, or undefined when all can.
 * @param {Record<string, string | undefined>} env - the launch's environment (XDG_CACHE_HOME,
 *   XDG_CONFIG_HOME)
 * @param {string} label - "npm start" or "code-mode-mcp"
 * @param {number | undefined} [uid] - this user's id (tests inject one); none on Windows
 * @returns {string | undefined}
 */
export function keptFoldersWarning(env, label, uid = process.getuid?.()) {
  if (process.platform === "win32") return undefined;
  const refused = keptFolders(env).flatMap((folder) => {
    const problem = problemOf(folder, uid);
    return problem ? [{ folder, problem }] : [];
  });
  if (refused.length === 0) return undefined;
  const writable = refused.filter(({ problem }) => / may write in it /.test(problem));
  const fixes = [
    ...(writable.length > 0
      ? [
          `if ${writable.length === 1 ? "it is" : "they are"} yours, check what ${writable.length === 1 ? "it holds" : "they hold"}, then \`chmod go-w ${writable.map(({ folder }) => folder).join(" ")}\` (a umask of 002 makes folders so)`,
        ]
      : []),
    ...(writable.length < refused.length
      ? ["for a folder not yours, point XDG_CACHE_HOME / XDG_CONFIG_HOME at folders of your own"]
      : []),
  ];
  return [
    `${label}: warning: ${refused.length === 1 ? "a folder" : "folders"} for this user's kept files cannot be used, so nothing is kept there: each launch validates and compiles the spec again, and a --stdio launch gets a new caller key each time (skills it saves change owner).`,
    ...refused.map(({ folder, problem }) => `  ${folder}: ${problem}.`),
    `  Fix: ${fixes.join("; ")}.`,
  ].join("\n");
}
