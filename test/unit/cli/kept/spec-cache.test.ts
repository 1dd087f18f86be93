/**
 * cli/kept/spec-cache.mjs: a compiled SPEC_FILE kept between launches (#28: GitHub's spec spent ~34 s
 * validating on every start). An entry is read back only for the same spec bytes, the same
 * referenced files and the same product module; anything else, a damaged entry or an unwritable
 * folder, means a full compile, never a failed start. Real files and the real `loadSpecFile`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import { loadSpecFile } from "../../../../cli/product/load-spec-file.mjs";
import { KEEP, openSpecCache, specCacheFolder } from "../../../../cli/kept/spec-cache.mjs";
import { specCacheKey, specCacheKeyFile } from "../../../../cli/kept/spec-cache-key.mjs";
import { findSpecProblems } from "../../../../src/openapi/check-spec";

const scratch = scratchFolders("spec-cache-");
/** A fresh folder with a product module and a spec referring to a schema in another file. */
function setUp() {
  const root = scratch.folder();
  const product = join(root, "product.js");
  writeFileSync(product, "export const build = 1;");
  const spec = join(root, "api.yaml");
  writeFileSync(
    spec,
    `openapi: 3.0.3
info: { title: t, version: "1" }
paths:
  /items:
    get:
      operationId: listItems
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: { $ref: "./item.json" }
`,
  );
  const item = join(root, "item.json");
  writeFileSync(item, JSON.stringify({ type: "object", properties: { id: { type: "string" } } }));
  const key = join(root, "config", "spec-cache.key");
  return {
    root,
    product,
    spec,
    item,
    key,
    cache: openSpecCache(join(root, "cache"), product, key),
  };
}

// As the launcher keeps it (cli/serve.mjs): the compact spec's ASCII JSON and the check's facts.
const compiled = {
  text: '{"operations":["listItems"]}',
  notes: ["a note"],
  facts: { operations: 1, cycles: 0, servers: [], definesAuth: false },
};
const keptSpec = (url: string) => ({
  text: `{"servers":[{"url":"${url}"}]}`,
  notes: [],
  facts: { operations: 0, cycles: 0, servers: [{ url }], definesAuth: true },
});

describe("the compiled-spec cache", () => {
  it("loadSpecFile names every local file the bundle read, and nothing remote", async () => {
    const { spec, item } = setUp();
    const loaded = await loadSpecFile(spec, findSpecProblems);
    if (!loaded.ok) throw new Error(loaded.message);
    expect(loaded.files.toSorted()).toEqual([spec, item].toSorted());
    expect(loaded.remote).toBe(false);
  });

  it("gives back what was kept for the same bytes", () => {
    const { spec, item, cache } = setUp();
    expect(cache.read(spec)).toBeUndefined();
    expect(cache.write(spec, { ...compiled, files: [spec, item], remote: false })).toBe(true);
    expect(cache.read(spec)).toEqual(compiled);
  });

  it("misses when the spec, a file it refers to or the product changed", () => {
    for (const change of ["spec", "item", "product"] as const) {
      const setup = setUp();
      const { spec, item, cache } = setup;
      cache.write(spec, { ...compiled, files: [spec, item], remote: false });
      writeFileSync(setup[change], "changed");
      // A new cache object: the product's bytes are read once per launch.
      expect(
        openSpecCache(cache.folder, setup.product, setup.key).read(spec),
        change,
      ).toBeUndefined();
    }
  });

  it("never keeps a spec that read anything but local files", () => {
    const { spec, item, cache } = setUp();
    expect(cache.write(spec, { ...compiled, files: [spec, item], remote: true })).toBe(false);
    expect(cache.read(spec)).toBeUndefined();
  });

  it("a damaged entry or an unusable folder is a miss, never an error", () => {
    const { root, spec, item, cache } = setUp();
    cache.write(spec, { ...compiled, files: [spec, item], remote: false });
    const [entry] = readdirSync(cache.folder);
    writeFileSync(join(cache.folder, entry!), "{ not json");
    expect(cache.read(spec)).toBeUndefined();
    // The folder's place is taken by a file: nothing can be written, the start goes on.
    writeFileSync(join(root, "blocked"), "");
    const blocked = openSpecCache(
      join(root, "blocked", "specs"),
      join(root, "product.js"),
      join(root, "config", "spec-cache.key"),
    );
    expect(blocked.write(spec, { ...compiled, files: [spec], remote: false })).toBe(false);
    expect(blocked.read(spec)).toBeUndefined();
  });

  it(`keeps the ${KEEP} most recently used entries`, () => {
    const { root, cache } = setUp();
    mkdirSync(cache.folder, { recursive: true });
    const specs = Array.from({ length: KEEP + 2 }, (_, i) => {
      const file = join(root, `spec-${i}.json`);
      writeFileSync(file, `{"n": ${i}}`);
      return file;
    });
    const past = (s: number) => new Date(Date.now() - s * 1_000);
    for (const [i, file] of specs.entries()) {
      const before = new Set(readdirSync(cache.folder, { recursive: false }).map(String));
      cache.write(file, { ...compiled, files: [file], remote: false });
      // Written one after another: each later one looks newer than the one before.
      for (const name of readdirSync(cache.folder))
        if (!before.has(name)) utimesSync(join(cache.folder, name), past(100 - i), past(100 - i));
      // The first spec is used again each time: it stays.
      expect(cache.read(specs[0]!)).toEqual(compiled);
    }
    expect(readdirSync(cache.folder)).toHaveLength(KEEP);
    expect(cache.read(specs[0]!)).toEqual(compiled);
    expect(cache.read(specs[1]!)).toBeUndefined();
    expect(cache.read(specs.at(-1)!)).toEqual(compiled);
  });

  // Issue #40: the compiled spec carries the base URL API_TOKEN goes to (its `servers`), so an
  // entry edited by anything but this launcher must never be read back.
  it("never reads back an entry edited to send the credential elsewhere", () => {
    const { spec, item, cache } = setUp();
    const honest = keptSpec("https://api.example.com");
    cache.write(spec, { ...honest, files: [spec, item], remote: false });
    expect(cache.read(spec)).toEqual(honest);
    const [entry] = readdirSync(cache.folder);
    const path = join(cache.folder, entry!);
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replaceAll("https://api.example.com", "https://attacker.example"));
    expect(cache.read(spec)).toBeUndefined();
    // Nor one written whole by someone without the key: the layout of an older launcher (no MAC),
    // or a made-up MAC.
    const body = text
      .slice(text.indexOf("\n") + 1)
      .replaceAll("api.example.com", "attacker.example");
    writeFileSync(path, body);
    expect(cache.read(spec)).toBeUndefined();
    writeFileSync(path, `3 ${"0".repeat(64)}\n${body}`);
    expect(cache.read(spec)).toBeUndefined();
  });

  it("keeps the spec's text as it is given, ASCII only (the host's one-byte string)", () => {
    const { spec, item, cache } = setUp();
    const wide = { ...compiled, text: '{"title":"API \u2014 now"}' };
    expect(cache.write(spec, { ...wide, files: [spec, item], remote: false })).toBe(false);
    expect(cache.read(spec)).toBeUndefined();
    const escaped = { ...compiled, text: '{"title":"API \\u2014 now"}' };
    expect(cache.write(spec, { ...escaped, files: [spec, item], remote: false })).toBe(true);
    expect(cache.read(spec)).toEqual(escaped);
    const [entry] = readdirSync(cache.folder);
    // The text after the header line, byte for byte: nothing parsed or written again.
    expect(readFileSync(join(cache.folder, entry!), "utf8").endsWith(`\n${escaped.text}`)).toBe(
      true,
    );
  });

  it("never reads back another spec's entry moved under this spec's name", () => {
    const { root, spec, item, cache } = setUp();
    const other = join(root, "other.json");
    writeFileSync(
      other,
      JSON.stringify({ openapi: "3.0.3", servers: [{ url: "https://x.test" }] }),
    );
    cache.write(spec, { ...compiled, files: [spec, item], remote: false });
    const before = new Set(readdirSync(cache.folder));
    const elsewhere = keptSpec("https://x.test");
    cache.write(other, { ...elsewhere, files: [other], remote: false });
    const specEntry = [...before][0]!;
    const otherEntry = readdirSync(cache.folder).find((name) => !before.has(name))!;
    copyFileSync(join(cache.folder, otherEntry), join(cache.folder, specEntry));
    expect(cache.read(spec)).toBeUndefined();
    expect(cache.read(other)).toEqual(elsewhere);
  });

  it("needs the user's key, kept outside the cache folder: another key reads nothing", () => {
    const { root, spec, item, product, cache } = setUp();
    cache.write(spec, { ...compiled, files: [spec, item], remote: false });
    const stranger = openSpecCache(cache.folder, product, join(root, "elsewhere", "key"));
    expect(stranger.read(spec)).toBeUndefined();
    // No key can be made (its folder's place is a file): no cache, and the start goes on.
    writeFileSync(join(root, "no-config"), "");
    const keyless = openSpecCache(join(root, "c2"), product, join(root, "no-config", "key"));
    expect(keyless.write(spec, { ...compiled, files: [spec, item], remote: false })).toBe(false);
    expect(keyless.read(spec)).toBeUndefined();
  });

  it.skipIf(process.platform === "win32")(
    "keeps its folders 0700 and its files 0600, tightening what an older launcher left",
    () => {
      const { root, spec, item, key, product } = setUp();
      const folder = join(root, "cache", "code-mode-mcp", "specs");
      const cache = openSpecCache(folder, product, key);
      cache.write(spec, { ...compiled, files: [spec, item], remote: false });
      const mode = (path: string) => statSync(path).mode & 0o777;
      const [entry] = readdirSync(folder);
      expect([mode(folder), mode(join(folder, entry!)), mode(key), mode(join(key, ".."))]).toEqual([
        0o700, 0o600, 0o600, 0o700,
      ]);
      expect(mode(join(folder, ".."))).toBe(0o700);
      // What an older launcher made (0755 folders, 0644 files) is tightened on the next read.
      for (const path of [folder, join(folder, ".."), join(key, "..")]) chmodSync(path, 0o755);
      for (const path of [join(folder, entry!), key]) chmodSync(path, 0o644);
      expect(openSpecCache(folder, product, key).read(spec)).toEqual(compiled);
      expect([
        mode(folder),
        mode(join(folder, "..")),
        mode(join(folder, entry!)),
        mode(key),
        mode(join(key, "..")),
      ]).toEqual([0o700, 0o700, 0o600, 0o600, 0o700]);
    },
  );

  // Attack review: whatever may write the cache folder (the threat the HMAC is for) planted links
  // and a FIFO. chmod followed links to what they named, and reading an entry followed a link to
  // /dev/zero (memory without bound) or waited on a FIFO forever (the launcher hung).
  it.skipIf(process.platform === "win32")(
    "never changes what a link planted in the folder names, and reads no link as an entry",
    () => {
      const { root, spec, item, product, key, cache } = setUp();
      cache.write(spec, { ...compiled, files: [spec, item], remote: false });
      const [entry] = readdirSync(cache.folder);
      const script = join(root, "script.sh");
      writeFileSync(script, "#!/bin/sh\n");
      chmodSync(script, 0o755);
      const folder = join(root, "ssh");
      mkdirSync(folder, { mode: 0o755 });
      chmodSync(folder, 0o755);
      symlinkSync(script, join(cache.folder, "planted.json"));
      symlinkSync(folder, join(cache.folder, "planted-folder.json"));
      // The entry itself replaced by a link to a copy of itself: not read either.
      copyFileSync(join(cache.folder, entry!), join(root, "copy.json"));
      chmodSync(join(root, "copy.json"), 0o644);
      rmSync(join(cache.folder, entry!));
      symlinkSync(join(root, "copy.json"), join(cache.folder, entry!));
      const again = openSpecCache(cache.folder, product, key);
      expect(again.read(spec)).toBeUndefined();
      cache.write(join(root, "item.json"), { ...compiled, files: [], remote: false });
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect([mode(script), mode(folder), mode(join(root, "copy.json"))]).toEqual([
        0o755, 0o755, 0o644,
      ]);
    },
  );

  // A link planted at the temporary file's name (`<entry>.<pid>.tmp`: a pid is easy to guess)
  // made the write follow it: the user's file it named was overwritten with the entry, and the
  // link then renamed into the entry's place.
  it.skipIf(process.platform === "win32")(
    "writes no file through a link planted at its temporary name",
    () => {
      const { root, spec, item, cache } = setUp();
      cache.write(spec, { ...compiled, files: [spec, item], remote: false });
      const [entry] = readdirSync(cache.folder);
      rmSync(join(cache.folder, entry!));
      const victim = join(root, "victim.txt");
      writeFileSync(victim, "the user's file");
      symlinkSync(victim, join(cache.folder, `${entry}.${process.pid}.tmp`));
      // The temporary name is random now (attack2): the write goes past the link.
      cache.write(spec, { ...compiled, files: [spec, item], remote: false });
      expect(readFileSync(victim, "utf8")).toBe("the user's file");
      expect(lstatSync(join(cache.folder, entry!)).isFile()).toBe(true);
    },
  );

  // A killed launch's `<entry>.<pid>.tmp` (or one planted under that easy name) made every later
  // write of that entry by a launch with the same pid fail (O_EXCL), and prune runs only after
  // a write: in a container, where the launcher's pid is the same every time, the spec was
  // compiled anew on every launch, for good.
  it("keeps an entry though a file is left at <entry>.<pid>.tmp", () => {
    const { spec, item, cache } = setUp();
    cache.write(spec, { ...compiled, files: [spec, item], remote: false });
    const [entry] = readdirSync(cache.folder);
    rmSync(join(cache.folder, entry!));
    writeFileSync(join(cache.folder, `${entry}.${process.pid}.tmp`), "a killed launch's");
    expect(cache.write(spec, { ...compiled, files: [spec, item], remote: false })).toBe(true);
    expect(cache.read(spec)).toBeDefined();
  });

  it.skipIf(process.platform === "win32")(
    "a FIFO or a link to /dev/zero under an entry's name is a miss, at once",
    () => {
      for (const plant of ["fifo", "zero"] as const) {
        const { spec, item, product, key, cache } = setUp();
        cache.write(spec, { ...compiled, files: [spec, item], remote: false });
        const [entry] = readdirSync(cache.folder);
        const path = join(cache.folder, entry!);
        rmSync(path);
        if (plant === "fifo") execFileSync("mkfifo", [path]);
        else symlinkSync("/dev/zero", path);
        // In a child: a read that waits or grows would hang or exhaust this test's process.
        const child = spawnSync(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `const { openSpecCache } = await import(${JSON.stringify(new URL("../../../../cli/kept/spec-cache.mjs", import.meta.url).href)});
             console.log(String(openSpecCache(${JSON.stringify(cache.folder)}, ${JSON.stringify(product)}, ${JSON.stringify(key)}).read(${JSON.stringify(spec)})));`,
          ],
          { encoding: "utf8", timeout: 20_000 },
        );
        expect(child.signal, plant).toBeNull();
        expect(child.stdout.trim(), plant).toBe("undefined");
      }
    },
  );

  it("makes one key per user, exclusively, and keeps it", () => {
    const { root } = setUp();
    const file = join(root, "cfg", "code-mode-mcp", "spec-cache.key");
    const first = specCacheKey(file);
    expect(first).toHaveLength(32);
    expect(specCacheKey(file)).toEqual(first);
    // A damaged key file written long ago is replaced (the entries under the old key miss).
    writeFileSync(file, "damaged");
    expect(specCacheKey(file)).toBeUndefined();
    utimesSync(file, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    const second = specCacheKey(file);
    expect(second).toHaveLength(32);
    expect(second).not.toEqual(first);
  });

  // Attack2: the key file was read with readFileSync, through a link and waiting on a FIFO.
  it.skipIf(process.platform === "win32")(
    "reads its key through no link and waits on no FIFO in its place",
    () => {
      const { root } = setUp();
      const file = join(root, "cfg", "code-mode-mcp", "spec-cache.key");
      // A link to a key someone else knows: with it they could forge entries. No cache instead.
      mkdirSync(join(file, ".."), { recursive: true });
      const known = join(root, "known.key");
      writeFileSync(known, `${"ab".repeat(32)}\n`, { mode: 0o600 });
      symlinkSync(known, file);
      expect(specCacheKey(file)).toBeUndefined();
      rmSync(file);
      execFileSync("mkfifo", [file]);
      // In a child: a read that waits would hang this test's process.
      const child = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { specCacheKey } = await import(${JSON.stringify(new URL("../../../../cli/kept/spec-cache-key.mjs", import.meta.url).href)});
           console.log(String(specCacheKey(${JSON.stringify(file)})));`,
        ],
        { encoding: "utf8", timeout: 20_000 },
      );
      expect(child.signal).toBeNull();
      expect(child.stdout.trim()).toBe("undefined");
    },
  );

  it("keeps its key in the user's config folder, XDG_CONFIG_HOME first", () => {
    expect(specCacheKeyFile({ XDG_CONFIG_HOME: "/x/config" }, "linux")).toBe(
      "/x/config/code-mode-mcp/spec-cache.key",
    );
    expect(specCacheKeyFile({}, "linux")).toMatch(/\/\.config\/code-mode-mcp\/spec-cache\.key$/);
    expect(specCacheKeyFile({}, "darwin")).toMatch(
      /\/Library\/Application Support\/code-mode-mcp\/spec-cache\.key$/,
    );
    expect(specCacheKeyFile({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32")).toContain(
      "code-mode-mcp",
    );
  });

  it("lives in the user's cache folder, XDG_CACHE_HOME first", () => {
    expect(specCacheFolder({ XDG_CACHE_HOME: "/x/cache" }, "linux")).toBe(
      "/x/cache/code-mode-mcp/specs",
    );
    expect(specCacheFolder({}, "linux")).toMatch(/\/\.cache\/code-mode-mcp\/specs$/);
    expect(specCacheFolder({}, "darwin")).toMatch(/\/Library\/Caches\/code-mode-mcp\/specs$/);
  });
});
