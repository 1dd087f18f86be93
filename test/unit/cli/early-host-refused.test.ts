/**
 * A refused launch leaves nothing behind (cli/serve.mjs), the host started beside the check from
 * the last launch's memo included (early-host.mjs): in a data folder the user named
 * (PERSIST_TO) that holds no runtime data yet, that host made `v3/` (its cache and Durable
 * Objects folders) before the check refused, though the launch said "nothing was started".
 * Real launcher, memo, Miniflare and workerd; the check's refusal is handed in once that host
 * could have made its data.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../helpers/scratch-folders.js";

const scratch = scratchFolders("early-refused-");
const SCRIPT = fileURLToPath(new URL("../../helpers/refused-early-launch.mjs", import.meta.url));

describe.skipIf(process.platform === "win32")("a refused launch with a memo", () => {
  it("adds nothing to a data folder the user named", () => {
    const root = scratch.folder();
    const persist = join(root, "data");
    mkdirSync(persist);
    writeFileSync(join(persist, "mine.txt"), "the user's");
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
    expect(readdirSync(persist)).toEqual(["mine.txt"]);
  }, 90_000);
});
