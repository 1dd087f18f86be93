/**
 * A refused launch leaves nothing behind (cli/serve.mjs), the host started beside the check from
 * the last launch's memo included (early-host.mjs): in a data folder the user named
 * (PERSIST_TO) that holds no runtime data yet, that host made `v3/` (its cache and Durable
 * Objects folders) before the check refused, though the launch said "nothing was started".
 * And in a named folder that holds runtime data, another server's perhaps, that host shared its
 * SQLite files. A named folder now gets no host before the check at all. Real launcher, memo,
 * Miniflare and workerd; the check's refusal is handed in once that host could have made its
 * data.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";

const scratch = scratchFolders("early-refused-");
const SCRIPT = fileURLToPath(
  new URL("../../../helpers/cli/refused-early-launch.mjs", import.meta.url),
);

/** The refused launch in `persist` under `root`'s own cache, config and temporary folders. */
function refusedLaunch(root: string, persist: string) {
  const run = spawnSync(process.execPath, [SCRIPT, persist], {
    encoding: "utf8",
    timeout: 60_000,
    env: {
      ...process.env,
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_CONFIG_HOME: join(root, "config"),
      TMPDIR: root,
    },
  });
  expect(run.stderr).toContain("the configuration is invalid, nothing was started");
  expect(run.status).toBe(1);
  return run.stdout;
}

describe.skipIf(process.platform === "win32")("a refused launch with a memo", () => {
  it("adds nothing to a data folder the user named", () => {
    const root = scratch.folder();
    const persist = join(root, "data");
    mkdirSync(persist);
    writeFileSync(join(persist, "mine.txt"), "the user's");
    expect(refusedLaunch(root, persist)).toContain("early host: false");
    expect(readdirSync(persist)).toEqual(["mine.txt"]);
  }, 90_000);

  it("starts no workerd on a named data folder that holds runtime data", () => {
    // Another server may be using it: a host started before the check shared its SQLite files
    // (and could run its due alarms), though the launch was refused.
    const root = scratch.folder();
    const persist = join(root, "data");
    mkdirSync(join(persist, "v3"), { recursive: true });
    writeFileSync(join(persist, "v3", "mine.txt"), "another server's");
    expect(refusedLaunch(root, persist)).toContain("early host: false");
    expect(readdirSync(join(persist, "v3"))).toEqual(["mine.txt"]);
  }, 90_000);
});
