/**
 * cli/local-server/workerd-config/config-cache.mjs: workerd configurations kept between launches. An entry is read
 * back only under the name its inputs give, written under the user's key (kept outside the cache
 * folder) and with the workerd it was built for; an edited, moved or planted entry, a link, a FIFO
 * or a missing key means a build, never a failed start and never a file outside the folder
 * touched. Real files; the clock is injected where it decides (pruning, temporary names).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import {
  KEEP,
  MAX_ENTRY_BYTES,
  configCacheFolder,
  configKey,
  entryBound,
  openConfigCache,
} from "../../../../cli/local-server/workerd-config/config-cache.mjs";

const scratch = scratchFolders("config-cache-");
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A fresh cache folder, key file, fake workerd and modules folder. */
function setUp(now = () => 1_700_000_000_000) {
  const root = scratch.folder();
  mkdirSync(join(root, "modules"));
  const workerd = join(root, "workerd");
  writeFileSync(workerd, "#!/bin/sh\n");
  writeFileSync(join(root, "modules", "worker.js"), "export default {}");
  const miniflare = join(root, "miniflare.js");
  writeFileSync(miniflare, "// miniflare");
  const builder = join(root, "builder.mjs");
  writeFileSync(builder, "// builder");
  const folder = join(root, "cache", "code-mode-mcp", "workerd");
  const keyFile = join(root, "config", "code-mode-mcp", "spec-cache.key");
  const cache = openConfigCache(folder, keyFile, { now });
  const kept = {
    command: workerd,
    args: ["serve", "--binary", "-"],
    config: Buffer.from("the configuration's bytes\n\0\u0001 with a newline"),
    folders: ["/cmmslot7e3f:persist;/v3/do"],
  };
  const inputs: { options: Record<string, unknown>; v8Flags: string; env: Record<string, string> } =
    {
      options: {
        workers: [
          {
            name: "w",
            scriptPath: join(root, "modules", "worker.js"),
            modulesRoot: join(root, "modules"),
          },
        ],
      },
      v8Flags: "--max-semi-space-size=2",
      env: { PATH: "/bin", TMPDIR: "/tmp/a" },
    };
  const key = (i = inputs) => configKey(i, { miniflare, builder });
  return { root, folder, keyFile, cache, kept, inputs, key, workerd, miniflare, now };
}

describe("configCacheFolder", () => {
  it("sits beside the spec cache, under XDG_CACHE_HOME when set", () => {
    expect(configCacheFolder({ XDG_CACHE_HOME: "/x/cache" }, "linux")).toBe(
      "/x/cache/code-mode-mcp/workerd",
    );
  });
});

describe("configKey", () => {
  it("changes with every input the build reads, and not with the temporary folder", () => {
    const s = setUp();
    const base = s.key();
    expect(s.key({ ...s.inputs, env: { ...s.inputs.env, TMPDIR: "/tmp/b" } })).toBe(base);
    expect(s.key({ ...s.inputs, v8Flags: "" })).not.toBe(base);
    expect(s.key({ ...s.inputs, env: { ...s.inputs.env, PATH: "/usr/bin" } })).not.toBe(base);
    expect(s.key({ ...s.inputs, options: { ...s.inputs.options, host: "127.0.0.1" } })).not.toBe(
      base,
    );
    // A module's bytes (a rebuilt bundle), a new file beside it, Miniflare, the builder.
    writeFileSync(join(s.root, "modules", "worker.js"), "export default { fetch() {} }");
    const rebuilt = s.key();
    expect(rebuilt).not.toBe(base);
    writeFileSync(join(s.root, "modules", "extra.wasm"), "x");
    expect(s.key()).not.toBe(rebuilt);
    const withExtra = s.key();
    writeFileSync(s.miniflare, "// miniflare 2");
    expect(s.key()).not.toBe(withExtra);
  });
});

describe.skipIf(process.platform === "win32")("openConfigCache", () => {
  it("reads back what it kept, in a 0700 folder as a 0600 file, and misses anything else", () => {
    const s = setUp();
    const key = s.key();
    expect(s.cache.read(key)).toBeUndefined();
    expect(s.cache.write(key, s.kept)).toBe(true);
    const read = s.cache.read(key)!;
    expect(read.command).toBe(s.workerd);
    expect(read.args).toEqual(s.kept.args);
    expect(read.folders).toEqual(s.kept.folders);
    expect(Buffer.compare(read.config, s.kept.config)).toBe(0);
    expect(modeOf(s.folder)).toBe(0o700);
    expect(modeOf(join(s.folder, `${key}.bin`))).toBe(0o600);
    // The key lives outside the cache folder.
    expect(existsSync(s.keyFile)).toBe(true);
    expect(readdirSync(s.folder)).toEqual([`${key}.bin`]);
    expect(s.cache.read(s.key({ ...s.inputs, v8Flags: "" }))).toBeUndefined();
  });

  it("refuses an entry edited anywhere: the configuration, workerd's path, its arguments", () => {
    const s = setUp();
    const key = s.key();
    s.cache.write(key, s.kept);
    const path = join(s.folder, `${key}.bin`);
    const good = readFileSync(path);
    const text = readFileSync(path, "latin1");
    const edits = [
      Buffer.from(text.replace("configuration's", "configuratiOn's"), "latin1"),
      Buffer.from(text.replace(s.workerd, "/bin/sh"), "latin1"),
      Buffer.from(text.replace('"--binary"', '"--binarx"'), "latin1"),
      Buffer.from(text.replace("persist;/v3/do", "persist;/../..//"), "latin1"),
    ];
    for (const edited of edits) {
      expect(edited.equals(good)).toBe(false);
      writeFileSync(path, edited, { mode: 0o600 });
      expect(s.cache.read(key)).toBeUndefined();
    }
    writeFileSync(path, good);
    expect(s.cache.read(key)).toBeDefined();
  });

  it("refuses an entry forged without the user's key, or moved under another name", () => {
    const s = setUp();
    const key = s.key();
    s.cache.write(key, s.kept);
    // Another user's key (another config folder) writes an entry of the same name.
    const other = openConfigCache(s.folder, join(s.root, "other-config", "spec-cache.key"));
    const otherKey = s.key({ ...s.inputs, v8Flags: "other" });
    other.write(otherKey, { ...s.kept, args: ["forged"] });
    renameSync(join(s.folder, `${otherKey}.bin`), join(s.folder, `${key}.bin`));
    expect(s.cache.read(key)).toBeUndefined();
    // Our own entry, moved under another name.
    s.cache.write(otherKey, s.kept);
    renameSync(join(s.folder, `${otherKey}.bin`), join(s.folder, `${key}.bin`));
    expect(s.cache.read(key)).toBeUndefined();
  });

  it("misses when workerd changed since the entry was written", () => {
    const s = setUp();
    const key = s.key();
    s.cache.write(key, s.kept);
    utimesSync(s.workerd, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expect(s.cache.read(key)).toBeUndefined();
  });

  it("follows no link planted at an entry's name and leaves what it names alone", () => {
    const s = setUp();
    const key = s.key();
    // A valid entry elsewhere, linked in under the name: not read, and its mode not changed.
    s.cache.write(key, s.kept);
    const elsewhere = join(s.root, "elsewhere.bin");
    renameSync(join(s.folder, `${key}.bin`), elsewhere);
    chmodSync(elsewhere, 0o644);
    symlinkSync(elsewhere, join(s.folder, `${key}.bin`));
    expect(s.cache.read(key)).toBeUndefined();
    expect(modeOf(elsewhere)).toBe(0o644);
  });

  it("writes no file through a link planted at its temporary name", () => {
    const now = () => 1_700_000_000_123;
    const s = setUp(now);
    const key = s.key();
    mkdirSync(s.folder, { recursive: true });
    const victim = join(s.root, "victim.txt");
    writeFileSync(victim, "the user's file");
    symlinkSync(victim, join(s.folder, `${key}.bin.${process.pid}.${now()}.tmp`));
    // The temporary name is random (cli/private-files.mjs): the write goes past the link.
    expect(s.cache.write(key, s.kept)).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("the user's file");
    expect(s.cache.read(key)).toBeDefined();
  });

  it("misses a FIFO in an entry's place without waiting on it", () => {
    const s = setUp();
    const key = s.key();
    mkdirSync(s.folder, { recursive: true });
    execFileSync("mkfifo", [join(s.folder, `${key}.bin`)]);
    expect(s.cache.read(key)).toBeUndefined();
  });

  // Attack2: a file planted under an entry's name was read whole (up to 256 MiB) before its HMAC
  // refused it. Now one larger than its inputs can build is refused from its size, and said so.
  it("refuses from its size, with a warning, a file larger than its inputs can build", () => {
    const s = setUp();
    const warnings: string[] = [];
    const cache = openConfigCache(s.folder, s.keyFile, {
      now: s.now,
      warn: (l) => warnings.push(l),
    });
    const key = s.key();
    const bound = entryBound(s.inputs.options);
    // What Miniflare adds, the options and the modules: a real entry fits.
    const modules = statSync(join(s.root, "modules", "worker.js")).size;
    expect(bound).toBe(8 * 1_048_576 + JSON.stringify(s.inputs.options).length + modules);
    expect(cache.write(key, s.kept)).toBe(true);
    expect(cache.read(key, bound)).toBeDefined();
    expect(warnings).toEqual([]);
    // One byte past it: not read, and the launch says why.
    const path = join(s.folder, `${key}.bin`);
    truncateSync(path, bound + 1);
    expect(cache.read(key, bound)).toBeUndefined();
    expect(warnings).toEqual([
      `workerd configuration cache: ${path} is ${bound + 1} bytes, more than a configuration built from these modules can be (${bound}); not read, built anew in its place. Nothing to fix; deleting ${s.folder} is always safe.`,
    ]);
    // Without a bound, the most any entry can be.
    truncateSync(path, MAX_ENTRY_BYTES + 1);
    expect(cache.read(key)).toBeUndefined();
    expect(warnings).toHaveLength(2);
    // A build writes over it.
    expect(cache.write(key, s.kept)).toBe(true);
    expect(cache.read(key, bound)).toBeDefined();
  });

  it("bounds an entry by its modules' sizes, up to the most any entry can be", () => {
    const s = setUp();
    const small = entryBound(s.inputs.options);
    writeFileSync(join(s.root, "modules", "more.wasm"), Buffer.alloc(100_000));
    expect(entryBound(s.inputs.options)).toBe(small + 100_000);
    truncateSync(join(s.root, "modules", "more.wasm"), MAX_ENTRY_BYTES);
    expect(entryBound(s.inputs.options)).toBe(MAX_ENTRY_BYTES);
  });

  it("tightens an entry and a folder an older or careless writer left open", () => {
    const s = setUp();
    const key = s.key();
    s.cache.write(key, s.kept);
    chmodSync(join(s.folder, `${key}.bin`), 0o644);
    chmodSync(s.folder, 0o755);
    expect(s.cache.read(key)).toBeDefined();
    expect(modeOf(join(s.folder, `${key}.bin`))).toBe(0o600);
    expect(modeOf(s.folder)).toBe(0o700);
  });

  it("keeps nothing without a usable key, and never fails", () => {
    const s = setUp();
    // The key's place is a folder: no key can be read or made.
    mkdirSync(s.keyFile, { recursive: true });
    const key = s.key();
    expect(s.cache.write(key, s.kept)).toBe(false);
    expect(s.cache.read(key)).toBeUndefined();
  });

  it("keeps the most recently used entries and removes a killed write's leftovers", () => {
    let t = 1_700_000_000_000;
    const s = setUp(() => t);
    const keys = Array.from({ length: KEEP + 2 }, (_, i) =>
      s.key({ ...s.inputs, v8Flags: `f${i}` }),
    );
    for (const key of keys) {
      t += 1_000;
      s.cache.write(key, s.kept);
      const path = join(s.folder, `${key}.bin`);
      utimesSync(path, new Date(t), new Date(t));
    }
    // A temporary file two minutes old (a killed launch's).
    const leftover = join(s.folder, `x.bin.1.1.tmp`);
    writeFileSync(leftover, "partial");
    utimesSync(leftover, new Date(t - 120_000), new Date(t - 120_000));
    t += 1_000;
    s.cache.write(keys[0]!, s.kept);
    const left = readdirSync(s.folder);
    expect(left).toHaveLength(KEEP);
    expect(left).toContain(`${keys[0]}.bin`);
    expect(left).not.toContain(`${keys[1]}.bin`);
    expect(left).not.toContain(`${keys[2]}.bin`);
    expect(existsSync(leftover)).toBe(false);
  });
});
