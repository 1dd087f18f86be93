// Source of a tree (this checkout, another worktree, or a git ref's src/) bundled for a script
// that runs it in plain Node: the diagnostics and the standalone benches compare trees by
// bundling the same exports of each and running them side by side.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";

/**
 * Bundles the named exports of a tree's source files into one ES module.
 * @param {string} tree - the tree's root
 * @param {Record<string, string[] | "*">} exports - each file (relative to the tree) and the
 *   names to take from it, or `"*"` for all it exports
 * @param {string} outfile - where the bundle goes
 * @param {{ platform?: "neutral" | "node" }} [options] - `node` when a file imports Node's
 *   modules or a package that does
 * @returns {Promise<string>} the outfile
 */
export async function bundleTree(tree, exports, outfile, { platform = "neutral" } = {}) {
  const lines = Object.entries(exports).map(
    ([file, names]) =>
      `export ${names === "*" ? "*" : `{ ${names.join(", ")} }`} from ${JSON.stringify(`./${file}`)};`,
  );
  await build({
    stdin: { contents: lines.join("\n"), resolveDir: tree, loader: "ts" },
    bundle: true,
    format: "esm",
    platform,
    outfile,
    logLevel: "error",
  });
  return outfile;
}

/**
 * Writes `ref`'s `src/` (as committed in the repository at `root`) into `into`: a tree to bundle
 * beside this one.
 * @param {string} root - a checkout of the repository
 * @param {string} ref - a commit, branch or tag
 * @param {string} into - an empty folder (made when missing)
 * @returns {string} `into`
 */
export function archiveTree(root, ref, into) {
  mkdirSync(into, { recursive: true });
  execFileSync("sh", ["-c", `git -C "${root}" archive "${ref}" src | tar -x -C "${into}"`]);
  return into;
}
