/**
 * `ownFolder` (cli/private-files.mjs), the folder of every file the launcher keeps (the spec
 * cache and its key, workerd configurations, tools/list counts, the runtimes' data): an existing
 * folder must be this user's and writable by nobody else, or it is refused with an error naming
 * it and the fix. With `XDG_*` pointing at a shared place, another user's pre-made folder, or
 * one anybody may write in, could hold files planted for us; before, it was chmodded to 0700
 * (which root may do to another user's folder) and used. Another owner is shown by injecting
 * this user's id: a non-root test cannot make a folder that belongs to someone else.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownFolder } from "../../../cli/private-files.mjs";

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});
/** A folder of `mode` under a fresh scratch folder. */
const folderOf = (mode: number) => {
  const scratch = mkdtempSync(join(tmpdir(), "own-folder-test-"));
  made.push(scratch);
  const folder = join(scratch, "code-mode-mcp");
  mkdirSync(folder);
  chmodSync(folder, mode);
  return folder;
};
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === "win32")("ownFolder", () => {
  it("makes a new folder 0700 and tightens an older launcher's 0755", () => {
    const fresh = join(folderOf(0o700), "a", "b");
    ownFolder(fresh);
    expect(modeOf(fresh)).toBe(0o700);
    const older = folderOf(0o755);
    ownFolder(older);
    expect(modeOf(older)).toBe(0o700);
  });

  for (const [mode, who] of [
    [0o777, "its group"],
    [0o770, "its group"],
    [0o703, "other users"],
    [0o757, "other users"],
  ] as const)
    it(`refuses a folder of mode 0${mode.toString(8)}, naming it and the fix, and leaves it`, () => {
      const folder = folderOf(mode);
      expect(() => ownFolder(folder)).toThrow(
        new RegExp(`^${folder}.*${who} may write in it .*\\n  Fix: .*chmod 700 ${folder}`, "s"),
      );
      expect(modeOf(folder)).toBe(mode);
    });

  it("refuses a folder that belongs to another user (this user's id injected)", () => {
    const folder = folderOf(0o700);
    const other = statSync(folder).uid + 1;
    expect(() => ownFolder(folder, other)).toThrow(
      new RegExp(
        `^${folder} .*belongs to another user \\(uid ${other - 1}; this is uid ${other}\\)`,
      ),
    );
    expect(() => ownFolder(folder, other - 1)).not.toThrow();
  });

  it("refuses a link in the folder's place, its target left alone", () => {
    const target = folderOf(0o755);
    const link = `${target}-link`;
    symlinkSync(target, link);
    expect(() => ownFolder(link)).toThrow();
    expect(modeOf(target)).toBe(0o755);
  });
});
