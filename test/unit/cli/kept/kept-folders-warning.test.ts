/**
 * The warning for kept folders a launch cannot use (cli/kept/kept-folders-warning.mjs): with
 * umask 002 a cache folder is 0775, ownFolder refuses it, and every cache fell back without a
 * word (a random `--stdio` caller key each launch among it). Real folders; and one real launch,
 * refused by its check, that prints the warning once on stderr.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { keptFolders, keptFoldersWarning } from "../../../../cli/kept/kept-folders-warning.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";

const scratch = scratchFolders("kept-folders-");
const BIN = fileURLToPath(new URL("../../../../bin/code-mode-mcp.mjs", import.meta.url));

/** Cache and config homes under a scratch folder, every kept folder made with `mode`. */
function homes(mode: number) {
  const root = scratch.folder();
  const env = { XDG_CACHE_HOME: join(root, "cache"), XDG_CONFIG_HOME: join(root, "config") };
  for (const folder of keptFolders(env)) {
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, mode);
  }
  return { root, env };
}

describe.skipIf(process.platform === "win32")("keptFoldersWarning", () => {
  it("says nothing when every kept folder is private or not made yet", () => {
    expect(keptFoldersWarning(homes(0o700).env, "code-mode-mcp")).toBeUndefined();
    const root = scratch.folder();
    expect(
      keptFoldersWarning(
        { XDG_CACHE_HOME: join(root, "c"), XDG_CONFIG_HOME: join(root, "k") },
        "x",
      ),
    ).toBeUndefined();
  });

  it("names each group-writable folder, what it costs and the fix", () => {
    const { env } = homes(0o700);
    const specs = keptFolders(env)[1] as string;
    chmodSync(specs, 0o775);
    const warning = keptFoldersWarning(env, "code-mode-mcp") ?? "";
    expect(warning).toContain(`${specs}: its group may write in it (mode 0775)`);
    expect(warning).toContain(`chmod go-w ${specs}`);
    expect(warning).toContain("new caller key each time");
    expect(warning.split("\n").filter((line) => line.includes(": its group may"))).toHaveLength(1);
  });

  it("tells a folder of another user from one of ours", () => {
    const { env } = homes(0o700);
    const warning = keptFoldersWarning(env, "code-mode-mcp", 12345) ?? "";
    expect(warning).toContain("it belongs to another user");
    expect(warning).toContain("point XDG_CACHE_HOME / XDG_CONFIG_HOME at folders of your own");
    expect(warning).not.toContain("chmod go-w");
  });

  it("is printed once by a launch, on stderr", () => {
    const { root, env } = homes(0o775);
    const run = spawnSync(
      process.execPath,
      [BIN, "--stdio", "--spec", join(root, "missing.json")],
      {
        encoding: "utf8",
        timeout: 60_000,
        input: "",
        env: { ...process.env, ...env, TMPDIR: root },
      },
    );
    expect(
      run.stderr.split("code-mode-mcp: warning: folders for this user's kept files"),
    ).toHaveLength(2);
    expect(run.stderr).toContain(`chmod go-w ${keptFolders(env).join(" ")}`);
    expect(run.stdout).not.toContain("warning");
  }, 90_000);
});
