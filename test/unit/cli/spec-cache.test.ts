/**
 * cli/spec-cache.mjs: a compiled SPEC_FILE kept between launches (#28: GitHub's spec spent ~34 s
 * validating on every start). An entry is read back only for the same spec bytes, the same
 * referenced files and the same product module; anything else, a damaged entry or an unwritable
 * folder, means a full compile, never a failed start. Real files and the real `loadSpecFile`.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSpecFile } from "../../../cli/product/load-spec-file.mjs";
import { KEEP, openSpecCache, specCacheFolder } from "../../../cli/spec-cache.mjs";
import { findSpecProblems } from "../../../src/openapi/check-spec";

const dir = mkdtempSync(join(tmpdir(), "spec-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A fresh folder with a product module and a spec referring to a schema in another file. */
function setUp() {
  const root = join(dir, String(n++));
  mkdirSync(root);
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
  return { root, product, spec, item, cache: openSpecCache(join(root, "cache"), product) };
}

const compiled = { compact: { operations: ["listItems"] }, notes: ["a note"] };

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
      expect(openSpecCache(cache.folder, setup.product).read(spec), change).toBeUndefined();
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
    const blocked = openSpecCache(join(root, "blocked", "specs"), join(root, "product.js"));
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

  it("lives in the user's cache folder, XDG_CACHE_HOME first", () => {
    expect(specCacheFolder({ XDG_CACHE_HOME: "/x/cache" }, "linux")).toBe(
      "/x/cache/code-mode-mcp/specs",
    );
    expect(specCacheFolder({}, "linux")).toMatch(/\/\.cache\/code-mode-mcp\/specs$/);
    expect(specCacheFolder({}, "darwin")).toMatch(/\/Library\/Caches\/code-mode-mcp\/specs$/);
  });
});
