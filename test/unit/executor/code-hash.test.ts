// codeHash (src/executor/runners/code-hash.ts): the name a stable worker's code goes by between
// the host and a runner. Same code, same name on both sides of RPC (key order, binary content);
// any change to the code, a Wasm byte included, another name.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { codeHash } from "../../../src/executor/runners/code-hash";

const code = () => ({
  compatibilityDate: "2026-08-01",
  mainModule: "runner.js",
  modules: {
    "runner.js": "export default {}",
    "quickjs.wasm": { wasm: new Uint8Array([0, 97, 115, 109, 1]).buffer },
    "engine-modules.json": { json: { "guest.js": "1" } },
  },
  globalOutbound: null,
  env: {},
  limits: { cpuMs: 30_000 },
});

describe("codeHash", () => {
  it("is a SHA-256 in hex, the same for the same code in any key order", async () => {
    const a = await codeHash(code());
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(code()).toReversed());
    expect(await codeHash(reordered)).toBe(a);
    expect(await codeHash(structuredClone(code()))).toBe(a);
  });

  it("changes with any module text, binary byte or setting", async () => {
    const base = await codeHash(code());
    const changed = [
      { ...code(), mainModule: "other.js" },
      { ...code(), modules: { ...code().modules, "runner.js": "export default { x: 1 }" } },
      {
        ...code(),
        modules: {
          ...code().modules,
          "quickjs.wasm": { wasm: new Uint8Array([0, 97, 115, 109, 2]).buffer },
        },
      },
      { ...code(), globalOutbound: "anything" },
      { ...code(), limits: { cpuMs: 30_001 } },
    ];
    for (const other of changed) expect(await codeHash(other)).not.toBe(base);
  });

  it("cannot be met by moving text between a string and binary content", async () => {
    const text = await codeHash({ m: "<1>a" });
    const bytes = await codeHash({ m: new TextEncoder().encode("a") });
    expect(text).not.toBe(bytes);
  });

  it("hashes a view by its own bytes only", async () => {
    const whole = new Uint8Array([9, 1, 2, 3, 9]);
    expect(await codeHash({ w: whole.subarray(1, 4) })).toBe(
      await codeHash({ w: new Uint8Array([1, 2, 3]) }),
    );
    expect(await codeHash("x")).toBe(createHash("sha256").update('"x"').digest("hex"));
  });

  it("names apart numbers JSON reads alike (NaN, ±Infinity, null; -0 and 0)", async () => {
    const names = await Promise.all(
      [NaN, Infinity, -Infinity, null, 0, -0, "NaN", "#NaN"].map((cpuMs) =>
        codeHash({ ...code(), limits: { cpuMs } }),
      ),
    );
    expect(new Set(names).size).toBe(names.length);
  });
});
