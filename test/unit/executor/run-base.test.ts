// splitRunCode and composeRunCode (src/executor/runners/run-base.ts), attacked: a run's code,
// split into the base a runner keeps under its hash and the program module sent with each run,
// must compose back to exactly the code the host built, and two different bases must never
// share a key (the host's hash cache) or a hash (the runner's name for what it keeps).
import { describe, expect, it } from "vitest";
import { codeHash } from "../../../src/executor/runners/code-hash";
import {
  baseHashCache,
  composeRunCode,
  splitRunCode,
} from "../../../src/executor/runners/run-base";

/** Loader code shaped like the executors' (sandbox-worker-code.ts). */
const code = (modules: Record<string, string>, limits: Record<string, number> = { cpuMs: 1 }) =>
  ({
    compatibilityDate: "2026-08-01",
    mainModule: "harness.js",
    modules: { "harness.js": "import 'user.js'", "user.js": "program", ...modules },
    globalOutbound: null,
    env: {},
    limits,
  }) as unknown as WorkerLoaderWorkerCode;

/** The modules of `c` as own entries (what a runner would load). */
const entriesOf = (c: WorkerLoaderWorkerCode) =>
  Object.entries(c.modules as Record<string, unknown>).toSorted(([a], [b]) => (a < b ? -1 : 1));

describe("splitRunCode", () => {
  it("composes back to the same modules, a module named __proto__ included (or goes whole)", () => {
    // An own "__proto__" key (JSON.parse and Object.fromEntries make one) is a module like any.
    const modules = Object.fromEntries([
      ["__proto__", "export const x = 1"],
      ["ext.js", "export default 2"],
    ]) as Record<string, string>;
    const whole = code(modules);
    const split = splitRunCode(whole, "user.js");
    // Going whole is fine (the code is sent as it is); split, nothing may be lost on the way.
    if (split === undefined) return;
    const composed = composeRunCode(split.base, split.name, split.text);
    expect(typeof composed).not.toBe("string");
    expect(entriesOf(composed as WorkerLoaderWorkerCode)).toEqual(entriesOf(whole));
  });

  it("never gives two different bases one key or one hash (NaN, ±Infinity, -0 limits)", async () => {
    const harness = "import 'user.js'";
    const variants = [NaN, Infinity, -Infinity, 0, -0].map((cpuMs) =>
      code({ "harness.js": harness }, { cpuMs }),
    );
    const keys = new Map<string, number>();
    const hashes = new Map<string, number>();
    for (const [i, whole] of variants.entries()) {
      const split = splitRunCode(whole, "user.js");
      if (split === undefined) continue; // sent whole: nothing kept under a name
      const hash = await codeHash(split.base);
      expect(keys.get(split.key), `key of variant ${i}`).toBeUndefined();
      expect(hashes.get(hash), `hash of variant ${i}`).toBeUndefined();
      keys.set(split.key, i);
      hashes.set(hash, i);
    }
  });
});

describe("baseHashCache", () => {
  it("hashes a kind of base once, and each kind to its own base's hash", async () => {
    const hashOf = baseHashCache();
    const one = splitRunCode(code({}), "user.js")!;
    // Another run of the same kind: its own program, the same base.
    const again = splitRunCode(
      {
        ...code({}),
        modules: { ...code({}).modules, "user.js": "other" },
      } as WorkerLoaderWorkerCode,
      "user.js",
    )!;
    const other = splitRunCode(code({ "ext.js": "export default 1" }), "user.js")!;
    expect(hashOf(again)).toBe(hashOf(one));
    expect(await hashOf(one)).toBe(await codeHash(one.base));
    expect(await hashOf(other)).toBe(await codeHash(other.base));
    expect(await hashOf(other)).not.toBe(await hashOf(one));
  });
});
