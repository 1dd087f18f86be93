/**
 * cli/kept/tools-list-cache.mjs: the o200k count of what /mcp lists, kept between launches. Read back
 * only under the name the same product, spec text and tool text give, and only when written under
 * the user's key; an edited or forged entry, a link or a FIFO in its place means counting again,
 * never a failed start and never a file outside the folder touched. Real files; the clock given.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import {
  openToolsListCache,
  toolsListCacheFolder,
  toolsListKey,
} from "../../../../cli/kept/tools-list-cache.mjs";

const scratch = scratchFolders("tools-list-cache-");
const modeOf = (path: string) => statSync(path).mode & 0o777;
const measure = {
  tools: ["search", "execute"],
  tokens: 646,
  perTool: { search: 300, execute: 346 },
  digest: "d1",
};

function setUp(now = () => 1_700_000_000_000) {
  const root = scratch.folder();
  const product = join(root, "product.js");
  writeFileSync(product, "export {}");
  const folder = toolsListCacheFolder({ XDG_CACHE_HOME: join(root, "cache") });
  const keyFile = join(root, "config", "spec-cache.key");
  return {
    root,
    product,
    folder,
    keyFile,
    cache: openToolsListCache(folder, keyFile, { now }),
    now,
  };
}

describe("toolsListKey", () => {
  it("changes with the spec text, the tool text and the product module's bytes", () => {
    const s = setUp();
    const base = toolsListKey(s.product, "{spec}", { limits: {} });
    expect(toolsListKey(s.product, "{spec}", { limits: {} })).toBe(base);
    expect(toolsListKey(s.product, "{spec2}", { limits: {} })).not.toBe(base);
    expect(toolsListKey(s.product, "{spec}", { limits: { timeoutMs: 1 } })).not.toBe(base);
    // Rebuilt with the same bytes (npm start's prestart): the same count.
    rmSync(s.product);
    writeFileSync(s.product, "export {}");
    expect(toolsListKey(s.product, "{spec}", { limits: {} })).toBe(base);
    writeFileSync(s.product, "export const rebuilt = 1;");
    expect(toolsListKey(s.product, "{spec}", { limits: {} })).not.toBe(base);
  });
});

describe.skipIf(process.platform === "win32")("openToolsListCache", () => {
  it("reads back what it kept, 0600 in a 0700 folder, and nothing under another name", () => {
    const s = setUp();
    const key = toolsListKey(s.product, "{spec}", {});
    expect(s.cache.read(key)).toBeUndefined();
    expect(s.cache.write(key, measure)).toBe(true);
    expect(s.cache.read(key)).toEqual(measure);
    expect(modeOf(s.folder)).toBe(0o700);
    expect(modeOf(join(s.folder, `${key}.json`))).toBe(0o600);
    expect(s.cache.read(toolsListKey(s.product, "{other}", {}))).toBeUndefined();
  });

  it("refuses an edited entry, one forged under another key, one moved under another name", () => {
    const s = setUp();
    const key = toolsListKey(s.product, "{spec}", {});
    const otherKey = toolsListKey(s.product, "{other}", {});
    s.cache.write(key, measure);
    const path = join(s.folder, `${key}.json`);
    const good = readFileSync(path, "utf8");
    writeFileSync(path, good.replace('"tokens":646', '"tokens":6'));
    expect(s.cache.read(key)).toBeUndefined();
    const forger = openToolsListCache(s.folder, join(s.root, "other", "spec-cache.key"));
    forger.write(key, { ...measure, tokens: 1 });
    expect(s.cache.read(key)).toBeUndefined();
    s.cache.write(otherKey, { ...measure, tokens: 2 });
    renameSync(join(s.folder, `${otherKey}.json`), path);
    expect(s.cache.read(key)).toBeUndefined();
  });

  it("follows no link at an entry's name or a temporary name, and waits on no FIFO", () => {
    const now = () => 1_700_000_000_777;
    const s = setUp(now);
    const key = toolsListKey(s.product, "{spec}", {});
    s.cache.write(key, measure);
    const elsewhere = join(s.root, "elsewhere.json");
    renameSync(join(s.folder, `${key}.json`), elsewhere);
    chmodSync(elsewhere, 0o644);
    symlinkSync(elsewhere, join(s.folder, `${key}.json`));
    expect(s.cache.read(key)).toBeUndefined();
    expect(modeOf(elsewhere)).toBe(0o644);

    const victim = join(s.root, "victim.txt");
    writeFileSync(victim, "the user's file");
    const other = toolsListKey(s.product, "{x}", {});
    symlinkSync(victim, join(s.folder, `${other}.json.${process.pid}.${now()}.tmp`));
    // The temporary name is random (cli/private-files.mjs): the write goes past the link.
    expect(s.cache.write(other, measure)).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("the user's file");

    const fifo = toolsListKey(s.product, "{fifo}", {});
    execFileSync("mkfifo", [join(s.folder, `${fifo}.json`)]);
    expect(s.cache.read(fifo)).toBeUndefined();
  });

  it("tightens an entry left 0644 and keeps nothing without a usable key", () => {
    const s = setUp();
    const key = toolsListKey(s.product, "{spec}", {});
    s.cache.write(key, measure);
    chmodSync(join(s.folder, `${key}.json`), 0o644);
    expect(s.cache.read(key)).toEqual(measure);
    expect(modeOf(join(s.folder, `${key}.json`))).toBe(0o600);

    const t = setUp();
    mkdirSync(t.keyFile, { recursive: true });
    expect(t.cache.write(key, measure)).toBe(false);
    expect(t.cache.read(key)).toBeUndefined();
  });
});
