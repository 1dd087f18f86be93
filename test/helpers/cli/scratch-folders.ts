/**
 * Real folders for tests of file-system decisions (socket folders, stale ones): each fresh,
 * with the mode the case needs, inside one scratch folder that is removed after the file's
 * tests, so a failed case leaves nothing behind in the temporary folder.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A test file's scratch folder and the fresh folders made in it. */
export interface ScratchFolders {
  /** The scratch folder itself. */
  root: string;
  /** Makes a fresh folder in it with `mode` (default 0700), and gives its path. */
  folder(mode?: number): string;
  /** A fresh path in it that nothing is at yet (`stem` and a number). */
  unusedPath(stem: string): string;
}

/**
 * Makes a scratch folder named `prefix` and some random characters in the temporary folder;
 * call it at a test file's top level (it registers the removal with `afterAll`).
 * @param prefix - what the scratch folder's name starts with
 */
export function scratchFolders(prefix: string): ScratchFolders {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let count = 0;
  const unusedPath = (stem: string) => join(root, `${stem}${++count}`);
  return {
    root,
    unusedPath,
    folder(mode = 0o700) {
      const path = unusedPath("f");
      mkdirSync(path);
      chmodSync(path, mode);
      return path;
    },
  };
}
