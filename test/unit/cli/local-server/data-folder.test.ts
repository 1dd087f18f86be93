/**
 * The runtimes' local data folder (cli/local-server/data-folder.mjs): every Durable Object's
 * SQLite files live under it, so no other user of the machine may enter it, also when an older
 * launcher (or workerd, with the usual umask) made it 0755, and a link planted there is refused
 * rather than followed.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parentProblem, privateDataFolder } from "../../../../cli/local-server/data-folder.mjs";

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const scratch = () => {
  const folder = mkdtempSync(join(tmpdir(), "data-folder-test-"));
  made.push(folder);
  return folder;
};
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === "win32")("privateDataFolder", () => {
  it("makes <persist>/v3 0700 when it is new, persist and all", () => {
    const persist = join(scratch(), "state");
    expect(privateDataFolder(persist)).toBe(join(persist, "v3"));
    expect(modeOf(join(persist, "v3"))).toBe(0o700);
  });

  it("tightens a data folder workerd made world-readable", () => {
    const persist = scratch();
    const data = join(persist, "v3");
    mkdirSync(join(data, "do", "code-mode-mcp-RunStore"), { recursive: true });
    chmodSync(data, 0o755);
    privateDataFolder(persist);
    expect(modeOf(data)).toBe(0o700);
  });

  it("refuses a link in its place, and leaves the link's target alone", () => {
    const persist = scratch();
    const elsewhere = join(scratch(), "elsewhere");
    mkdirSync(elsewhere, { mode: 0o755 });
    chmodSync(elsewhere, 0o755);
    symlinkSync(elsewhere, join(persist, "v3"));
    expect(() => privateDataFolder(persist)).toThrow(/cannot be made private.*\n  Fix: /s);
    expect(modeOf(elsewhere)).toBe(0o755);
  });

  it("refuses a persist folder others may write in: they could swap v3 for a link after the check", () => {
    const persist = scratch();
    chmodSync(persist, 0o777);
    expect(() => privateDataFolder(persist)).toThrow(
      new RegExp(`inside ${persist}, where other users may rename .*\n  Fix: .*chmod go-w`, "s"),
    );
    // Nothing was made in it.
    expect(() => statSync(join(persist, "v3"))).toThrow();
    // Sticky and ours: others may add entries but not rename ours.
    chmodSync(persist, 0o1777);
    expect(privateDataFolder(persist)).toBe(join(persist, "v3"));
  });

  it("decides by the persist folder's mode and owners (facts injected)", () => {
    const me = { uid: 1000, gid: 1000 };
    const folder = (mode: number, uid = 1000, gid = 1000) => ({ mode: 0o40000 | mode, uid, gid });
    expect(parentProblem(folder(0o755), me)).toBeUndefined();
    expect(parentProblem(folder(0o700), me)).toBeUndefined();
    // A user-private group under umask 002: the group is this user's own.
    expect(parentProblem(folder(0o775), me)).toBeUndefined();
    expect(parentProblem(folder(0o775, 1000, 100), me)).toMatch(/members of its group \(gid 100\)/);
    expect(parentProblem(folder(0o777), me)).toMatch(/other users may rename .*0777/);
    // Sticky: safe when owned by this user or root (/tmp), not by another user.
    expect(parentProblem(folder(0o1777), me)).toBeUndefined();
    expect(parentProblem(folder(0o1777, 0, 0), me)).toBeUndefined();
    expect(parentProblem(folder(0o1777, 1001, 1001), me)).toMatch(/sticky but owned by uid 1001/);
    // The check comes before anything is made private, with the facts given.
    const persist = scratch();
    const facts = { stat: () => folder(0o777, 1001, 1001), uid: 1000, gid: 1000 };
    expect(() => privateDataFolder(persist, facts)).toThrow(/other users may rename/);
    expect(() => statSync(join(persist, "v3"))).toThrow();
  });
});
