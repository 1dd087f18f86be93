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
import { privateDataFolder } from "../../../cli/local-server/data-folder.mjs";

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
});
